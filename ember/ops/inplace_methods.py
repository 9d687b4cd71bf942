"""The in-place variants (`add_`, `mul_`, `zero_`, ...), each made from its out-of-place op."""
from .._backend import np
from .._tensor import new_tensor
from . import elementwise, pointwise, special, reduction, shape, indexing, joining, linalg, conversion, comparison
from .inplace import apply_inplace

__all__ = []


def inplace_variant(function, name):
    """`tensor.name_(*args)`: compute `function(tensor, *args)` and store it in `tensor`."""
    def method(input, *args, **kwargs):
        return apply_inplace(input, name, function, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = f"In-place version of `{function.__name__}`: stores the result in the tensor itself."
    return method


# Each family module lists, in INPLACE_VARIANTS, the ops that get a `name_` twin.
for _module in (elementwise, pointwise, special, reduction, shape, indexing, joining, linalg, comparison):
    for _name in getattr(_module, "INPLACE_VARIANTS", ()):
        globals()[_name + "_"] = inplace_variant(getattr(_module, _name), _name + "_")
        __all__.append(_name + "_")
multiply_ = mul_  # noqa: F821
subtract_ = sub_  # noqa: F821
divide_ = true_divide_ = div_  # noqa: F821
__all__ += ["multiply_", "subtract_", "divide_", "true_divide_"]


def _filled(input, value):
    return new_tensor(np.full(input._data.shape, value.item() if hasattr(value, "item") else value,
                              dtype=input._data.dtype))


def _copied(input, source):
    from ._common import as_tensor
    source = as_tensor(source)
    return conversion.to(source, input.dtype).expand(input.shape) if source.shape != input.shape \
        else conversion.to(source, input.dtype)


def zero_(input):
    """Fill with zeros, in place."""
    return apply_inplace(input, "zero_", _filled, 0)


def fill_(input, value):
    """Fill with `value`, in place."""
    return apply_inplace(input, "fill_", _filled, value)


def copy_(input, src, non_blocking=False):
    """Copy `src` (broadcast to this shape, converted to this dtype) into this tensor."""
    return apply_inplace(input, "copy_", _copied, src)


__all__ += ["zero_", "fill_", "copy_"]
