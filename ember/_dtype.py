"""dtypes: PyTorch's names over NumPy's dtypes, and PyTorch's type promotion.

NumPy promotes differently from PyTorch (int64 + float32 gives float64 in NumPy, float32 in
PyTorch), so every op that mixes dtypes asks `result_type` here rather than trusting NumPy.
"""
import numpy as np

__all__ = ["dtype", "get_default_dtype", "set_default_dtype", "promote_types", "result_type"]


class dtype:
    """A tensor element type such as `ember.float32`.

    Its repr is PyTorch's (`torch.float32`) so that scripts print what they print under PyTorch.
    """

    __slots__ = ("name", "numpy_dtype", "is_floating_point", "is_complex", "is_signed", "itemsize",
                 "_category")

    def __init__(self, name, numpy_dtype, category):
        self.name = name
        self.numpy_dtype = np.dtype(numpy_dtype)
        self._category = category  # 0 bool, 1 integer, 2 floating, 3 complex
        self.is_floating_point = category == 2
        self.is_complex = category == 3
        self.is_signed = self.numpy_dtype.kind not in "ub"
        self.itemsize = self.numpy_dtype.itemsize

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))

    def to_real(self):
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    def to_complex(self):
        return {"float32": complex64, "float64": complex128}.get(self.name, self)


bool_ = dtype("bool", np.bool_, 0)
uint8 = dtype("uint8", np.uint8, 1)
int8 = dtype("int8", np.int8, 1)
int16 = dtype("int16", np.int16, 1)
int32 = dtype("int32", np.int32, 1)
int64 = dtype("int64", np.int64, 1)
float16 = dtype("float16", np.float16, 2)
float32 = dtype("float32", np.float32, 2)
float64 = dtype("float64", np.float64, 2)
complex64 = dtype("complex64", np.complex64, 3)
complex128 = dtype("complex128", np.complex128, 3)

ALL_DTYPES = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64, complex64, complex128)
_BY_NUMPY = {d.numpy_dtype: d for d in ALL_DTYPES}
_BY_NAME = {d.name: d for d in ALL_DTYPES}
# PyTorch's aliases, usable as `ember.float`, `ember.long`, ... and in `tensor.type("torch.LongTensor")`.
ALIASES = {"float": float32, "double": float64, "half": float16, "long": int64, "int": int32,
           "short": int16, "bool": bool_, "cfloat": complex64, "cdouble": complex128}
LEGACY_TYPE_NAMES = {"torch.FloatTensor": float32, "torch.DoubleTensor": float64,
                     "torch.HalfTensor": float16, "torch.LongTensor": int64, "torch.IntTensor": int32,
                     "torch.ShortTensor": int16, "torch.CharTensor": int8, "torch.ByteTensor": uint8,
                     "torch.BoolTensor": bool_}
LEGACY_NAME_OF = {d: n for n, d in LEGACY_TYPE_NAMES.items()}


def _dtype_by_name(name):
    return _BY_NAME[name]


class _DefaultDtype:
    value = float32


_default = _DefaultDtype()


def get_default_dtype():
    """The floating dtype new tensors get from Python floats: float32 unless changed."""
    return _default.value


def set_default_dtype(d):
    d = to_dtype(d)
    if not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default.value = d


def from_numpy_dtype(numpy_dtype):
    """The ember dtype of a NumPy dtype; TypeError for types ember has no counterpart for."""
    try:
        return _BY_NUMPY[numpy_dtype]
    except KeyError:
        found = _BY_NUMPY.get(np.dtype(numpy_dtype))
        if found is None:
            raise TypeError(
                f"can't convert np.ndarray of type {np.dtype(numpy_dtype)}. The only supported types are: "
                "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, "
                "and bool.") from None
        return found


def to_dtype(value):
    """Accept an ember dtype, a Python type (float, int, bool), a NumPy dtype or a name."""
    if isinstance(value, dtype):
        return value
    if value is float:
        return get_default_dtype()
    if value is int:
        return int64
    if value is bool:
        return bool_
    if value is complex:
        return complex64
    if isinstance(value, str):
        name = value[len("torch."):] if value.startswith("torch.") else value
        found = _BY_NAME.get(name) or ALIASES.get(name) or LEGACY_TYPE_NAMES.get(value)
        if found is not None:
            return found
        raise TypeError(f"unknown dtype name {value!r}")
    return from_numpy_dtype(np.dtype(value))


def promote_types(a, b):
    """PyTorch's promotion of two dtypes (the category wins first, then the larger size)."""
    a, b = to_dtype(a), to_dtype(b)
    if a is b:
        return a
    if a._category != b._category:
        return a if a._category > b._category else b
    if a._category == 1 and (a is uint8) != (b is uint8):
        # uint8 with a signed type: the smallest signed type that holds both.
        other = b if a is uint8 else a
        return int16 if other is int8 else other
    return from_numpy_dtype(np.promote_types(a.numpy_dtype, b.numpy_dtype))


def scalar_category(value):
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return 1
    if isinstance(value, float):
        return 2
    if isinstance(value, complex):
        return 3
    return None


def result_type_of_scalar(tensor_dtype, value):
    """dtype of `tensor op python_scalar`: the scalar only matters when its category is higher."""
    category = scalar_category(value)
    if category is None or category <= tensor_dtype._category:
        return tensor_dtype
    if category == 1:
        return int64
    if category == 2:
        return get_default_dtype()
    return get_default_dtype().to_complex()


def result_type(a, b):
    """PyTorch's result dtype for an op between tensors and/or Python numbers."""
    from ._tensor import Tensor
    a_is_tensor, b_is_tensor = isinstance(a, Tensor), isinstance(b, Tensor)
    if a_is_tensor and b_is_tensor:
        # A 0-d tensor, like a Python number, only matters when its category is higher.
        if a.ndim == 0 and b.ndim > 0:
            return b.dtype if a.dtype._category <= b.dtype._category else promote_types(a.dtype, b.dtype)
        if b.ndim == 0 and a.ndim > 0:
            return a.dtype if b.dtype._category <= a.dtype._category else promote_types(a.dtype, b.dtype)
        return promote_types(a.dtype, b.dtype)
    if a_is_tensor:
        return result_type_of_scalar(a.dtype, b)
    if b_is_tensor:
        return result_type_of_scalar(b.dtype, a)
    category = max(scalar_category(a), scalar_category(b))
    return (bool_, int64, get_default_dtype(), get_default_dtype().to_complex())[category]
