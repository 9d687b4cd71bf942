"""The in-place variants (`add_`, `mul_`, `zero_`, ...), each made from its out-of-place op."""

from . import conversion
from ._declare import DECLARATIONS, OpDeclaration, op, _register
from .inplace import apply_inplace

__all__ = []


def inplace_variant(function, name):
    """`tensor.name_(*args)`: compute `function(tensor, *args)` and store it in `tensor`."""

    def method(input, *args, **kwargs):
        return apply_inplace(input, name, function, *args, **kwargs)

    method.__name__ = name
    method.__doc__ = f"In-place version of `{function.__name__}`: stores the result in the tensor itself."
    return method


# Every op declared with inplace=True gets its `name_` twin, itself a Tensor method.
for _declaration in list(DECLARATIONS.values()):
    if _declaration.inplace:
        _name = _declaration.name + "_"
        globals()[_name] = inplace_variant(_declaration.function, _name)
        _register(
            OpDeclaration(_name, globals()[_name], _declaration.primitives, True, False, inplace_of=_declaration.name)
        )
        __all__.append(_name)


def _copied(input, source):
    from ._common import as_tensor

    source = as_tensor(source)
    return (
        conversion.to(source, input.dtype).expand(input.shape)
        if source.shape != input.shape
        else conversion.to(source, input.dtype)
    )


@op(method=True)
def copy_(input, src, non_blocking=False):
    """Copy `src` (broadcast to this shape, converted to this dtype) into this tensor."""
    return apply_inplace(input, "copy_", _copied, src)


__all__ += ["copy_"]
