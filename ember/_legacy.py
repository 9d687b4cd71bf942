"""Book-era tensor types: `FloatTensor(2, 3)`, `LongTensor([1, 2])`, `isinstance(x, FloatTensor)`."""

import warnings

from . import _dtype
from ._tensor import Tensor

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
    warnings.warn(
        "set_default_tensor_type() is deprecated; use ember.set_default_dtype() instead.", UserWarning, stacklevel=2
    )
    if isinstance(kind, str) and kind.startswith("torch.cuda."):
        raise TypeError(f"type {kind} not available: ember computes on the CPU (use set_default_dtype()).")
    _dtype.set_default_dtype(kind.dtype if isinstance(kind, tensortype) else _dtype.to_dtype(kind))


def typename(obj):
    """The legacy type name of a tensor ('torch.FloatTensor'), else the object's qualified type name."""
    if isinstance(obj, Tensor):
        return obj.type()
    return type(obj).__module__ + "." + type(obj).__qualname__
