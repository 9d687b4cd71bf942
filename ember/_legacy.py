"""Book-era tensor types: `FloatTensor(2, 3)`, `LongTensor([1, 2])`, `isinstance(x, FloatTensor)`, and
the deprecated `torch.range` (this module defines `range`, so it never calls the builtin)."""

import math

from . import _dtype
from ._backend import np, to_device
from ._tensor import Tensor, new_tensor
from ._warn import warn as _warn

__all__ = [
    "FloatTensor",
    "DoubleTensor",
    "HalfTensor",
    "BFloat16Tensor",
    "LongTensor",
    "IntTensor",
    "ShortTensor",
    "CharTensor",
    "ByteTensor",
    "BoolTensor",
    "set_default_tensor_type",
    "typename",
    "range",
]


class tensortype(type):
    """The metaclass of the legacy types: instances are tensors of that dtype."""

    def __instancecheck__(cls, instance):
        return isinstance(instance, Tensor) and instance.dtype is cls.dtype

    def __call__(cls, *args, **kwargs):
        return Tensor(*args, dtype=cls.dtype, **kwargs)


def _legacy_type(name, dtype):
    return tensortype(name, (), {"dtype": dtype, "__doc__": f"`{name}(*sizes)` or `{name}(data)`: a {dtype} tensor."})


FloatTensor = _legacy_type("FloatTensor", _dtype.float32)
DoubleTensor = _legacy_type("DoubleTensor", _dtype.float64)
HalfTensor = _legacy_type("HalfTensor", _dtype.float16)
BFloat16Tensor = _legacy_type("BFloat16Tensor", _dtype.bfloat16)
LongTensor = _legacy_type("LongTensor", _dtype.int64)
IntTensor = _legacy_type("IntTensor", _dtype.int32)
ShortTensor = _legacy_type("ShortTensor", _dtype.int16)
CharTensor = _legacy_type("CharTensor", _dtype.int8)
ByteTensor = _legacy_type("ByteTensor", _dtype.uint8)
BoolTensor = _legacy_type("BoolTensor", _dtype.bool_)


def set_default_tensor_type(kind):
    """Deprecated in PyTorch: `set_default_tensor_type('torch.DoubleTensor')` sets the default dtype."""
    _warn("set_default_tensor_type() is deprecated; use ember.set_default_dtype() instead.", UserWarning, stacklevel=2)
    if isinstance(kind, str) and kind.startswith("torch.cuda."):
        raise TypeError(f"type {kind} not available: ember computes on the CPU (use set_default_dtype()).")
    _dtype.set_default_dtype(kind.dtype if isinstance(kind, tensortype) else _dtype.to_dtype(kind))


def typename(obj):
    """The legacy type name of a tensor ('torch.FloatTensor'), else the object's qualified type name."""
    if isinstance(obj, Tensor):
        return obj.type()
    return type(obj).__module__ + "." + type(obj).__qualname__


def range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False, out=None):  # noqa: A001
    """Deprecated (use `arange`): values from `start` to `end` inclusive, float32 unless `dtype` is given."""
    _warn(
        "torch.range is deprecated and will be removed in a future release because its behavior is inconsistent "
        "with Python's range builtin. Instead, use torch.arange, which produces values in [start, end).",
        UserWarning,
        stacklevel=2,
    )
    to_device(device)
    if end is None:
        start, end = 0, start
    dtype = _dtype.to_dtype(dtype) if dtype is not None else _dtype.get_default_dtype()
    values = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if values[2] == 0:
        raise RuntimeError("range: step must be nonzero")
    count = max(math.floor((values[1] - values[0]) / values[2]) + 1, 0)
    array = (values[0] + values[2] * np.arange(count, dtype=np.float64)).astype(dtype.numpy_dtype)
    from .ops.inplace import copy_into_out

    result = new_tensor(array).requires_grad_(requires_grad)
    return result if out is None else copy_into_out(out, result)
