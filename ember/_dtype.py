"""dtypes: PyTorch's names over NumPy's dtypes, and PyTorch's type promotion.

NumPy promotes differently from PyTorch (int64 + float32 gives float64 in NumPy, float32 in
PyTorch), so every op that mixes dtypes asks `result_type` here rather than trusting NumPy.

bfloat16 and the float8 formats are not NumPy's: their storage comes from the optional `ml_dtypes`
package (JAX's NumPy dtypes), imported on first use, so that `ember.bfloat16`, `finfo` and promotion
work without it and only making such a tensor asks for it. ml_dtypes gives them NumPy kind "V"
(float8_e5m2 "f"); a tensor holds no other "V" dtype, so the ops' kind checks read "V" as floating
(`kind in "fV"`, `kind in "fcV"` for floating or complex).
"""

import sys

import numpy as np

__all__ = [
    "dtype",
    "get_default_dtype",
    "set_default_dtype",
    "promote_types",
    "result_type",
    "can_cast",
    "finfo",
    "iinfo",
]


class dtype:
    """A tensor element type such as `ember.float32`.

    Its repr is PyTorch's (`torch.float32`) so that scripts print what they print under PyTorch.
    """

    __slots__ = ("name", "numpy_dtype", "is_floating_point", "is_complex", "is_signed", "itemsize", "_category")

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
        """The real dtype of the same precision (complex64 -> float32); a real dtype gives itself."""
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    def to_complex(self):
        """The complex dtype of the same precision (float32 -> complex64); a complex dtype gives itself."""
        return {"float32": complex64, "float64": complex128}.get(self.name, self)


ML_DTYPES_HINT = "pip install ml_dtypes  (or: pip install 'ember-autograd[bfloat16]')"


class _MLDtype(dtype):
    """A floating dtype NumPy lacks (bfloat16, float8_*), stored through ml_dtypes.

    The object, its properties, `finfo` and promotion need nothing; `numpy_dtype`, which every
    tensor of the dtype needs, imports ml_dtypes on first use and names what to install without it.
    """

    __slots__ = ("_numpy_dtype", "_limits")

    def __init__(self, name, itemsize, limits, is_signed=True):
        self.name = name
        self._category = 2
        self.is_floating_point = True
        self.is_complex = False
        self.is_signed = is_signed
        self.itemsize = itemsize
        self._limits = limits  # bits, eps, max, min, smallest normal: PyTorch's finfo
        self._numpy_dtype = None

    @property
    def numpy_dtype(self):
        found = self._numpy_dtype
        if found is None:
            load_ml_dtypes(f"ember.{self.name}")
            found = self._numpy_dtype
        return found

    def to_complex(self):
        return complex64 if self is bfloat16 else self


def load_ml_dtypes(needed_by="this"):
    """Import ml_dtypes and register its NumPy dtypes (ModuleNotFoundError naming the package without it)."""
    try:
        import ml_dtypes
    except ImportError:
        raise ModuleNotFoundError(
            f"{needed_by} needs the ml_dtypes package, which holds NumPy's bfloat16 and float8 dtypes: {ML_DTYPES_HINT}"
        ) from None
    for extension in ML_DTYPES:
        extension._numpy_dtype = np.dtype(getattr(ml_dtypes, extension.name))
        _BY_NUMPY[extension._numpy_dtype] = extension


def ml_dtypes_available():
    """Whether bfloat16 tensors can be made here (ml_dtypes installed; imported by this call)."""
    if bfloat16._numpy_dtype is not None:
        return True
    try:
        load_ml_dtypes()
    except ModuleNotFoundError:
        return False
    return True


bool_ = dtype("bool", np.bool_, 0)
uint8 = dtype("uint8", np.uint8, 1)
# PyTorch's "limited support" unsigned types: storage, conversion and printing; no promotion.
uint16 = dtype("uint16", np.uint16, 1)
uint32 = dtype("uint32", np.uint32, 1)
uint64 = dtype("uint64", np.uint64, 1)
int8 = dtype("int8", np.int8, 1)
int16 = dtype("int16", np.int16, 1)
int32 = dtype("int32", np.int32, 1)
int64 = dtype("int64", np.int64, 1)
float16 = dtype("float16", np.float16, 2)
float32 = dtype("float32", np.float32, 2)
float64 = dtype("float64", np.float64, 2)
complex64 = dtype("complex64", np.complex64, 3)
complex128 = dtype("complex128", np.complex128, 3)
# Limits as PyTorch's finfo gives them: bits, eps, max, min, smallest normal.
bfloat16 = _MLDtype("bfloat16", 2, (16, 2.0**-7, 3.3895313892515355e38, -3.3895313892515355e38, 2.0**-126))
float8_e4m3fn = _MLDtype("float8_e4m3fn", 1, (8, 0.125, 448.0, -448.0, 2.0**-6))
float8_e5m2 = _MLDtype("float8_e5m2", 1, (8, 0.25, 57344.0, -57344.0, 2.0**-14))
float8_e4m3fnuz = _MLDtype("float8_e4m3fnuz", 1, (8, 0.125, 240.0, -240.0, 2.0**-7))
float8_e5m2fnuz = _MLDtype("float8_e5m2fnuz", 1, (8, 0.125, 57344.0, -57344.0, 2.0**-15))
float8_e8m0fnu = _MLDtype("float8_e8m0fnu", 1, (8, 1.0, 2.0**127, 2.0**-127, 2.0**-127), is_signed=False)
ML_DTYPES = (bfloat16, float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu)
FLOAT8_DTYPES = ML_DTYPES[1:]

NUMPY_DTYPES = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64, complex64, complex128)
WIDE_UNSIGNED = (uint16, uint32, uint64)
ALL_DTYPES = NUMPY_DTYPES + WIDE_UNSIGNED + ML_DTYPES
_BY_NUMPY = {d.numpy_dtype: d for d in NUMPY_DTYPES + WIDE_UNSIGNED}  # ml_dtypes' join when it is loaded
_BY_NAME = {d.name: d for d in ALL_DTYPES}
# PyTorch's aliases, usable as `ember.float`, `ember.long`, ... and in `tensor.type("torch.LongTensor")`.
ALIASES = {
    "float": float32,
    "double": float64,
    "half": float16,
    "long": int64,
    "int": int32,
    "short": int16,
    "bool": bool_,
    "cfloat": complex64,
    "cdouble": complex128,
}
LEGACY_TYPE_NAMES = {
    "torch.FloatTensor": float32,
    "torch.DoubleTensor": float64,
    "torch.HalfTensor": float16,
    "torch.BFloat16Tensor": bfloat16,
    "torch.LongTensor": int64,
    "torch.IntTensor": int32,
    "torch.ShortTensor": int16,
    "torch.CharTensor": int8,
    "torch.ByteTensor": uint8,
    "torch.BoolTensor": bool_,
    "torch.ComplexFloatTensor": complex64,
    "torch.ComplexDoubleTensor": complex128,
}
LEGACY_NAME_OF = {d: n for n, d in LEGACY_TYPE_NAMES.items()}


def kernel_name(dtype):
    """How PyTorch's "not implemented for" errors name a dtype: 'Long' for int64 (from torch.LongTensor)."""
    if dtype in WIDE_UNSIGNED:
        return "UInt" + dtype.name[len("uint") :]
    if dtype in FLOAT8_DTYPES:
        return "Float8_" + dtype.name[len("float8_") :]  # PyTorch's ScalarType name: Float8_e4m3fn
    return LEGACY_NAME_OF[dtype][len("torch.") : -len("Tensor")]


def _dtype_by_name(name):
    return _BY_NAME[name]


class _DefaultDtype:
    value = float32


_default = _DefaultDtype()


def get_default_dtype():
    """The floating dtype new tensors get from Python floats: float32 unless changed."""
    return _default.value


def set_default_dtype(d):
    """Make `d` the dtype of new floating-point tensors (float32 unless changed).

    It decides what `ember.tensor([1.0])`, `ember.zeros(2)` and integer-to-float promotion give;
    float64 is what the gradient checks use.
    """
    d = to_dtype(d)
    if not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default.value = d


def from_numpy_dtype(numpy_dtype):
    """The ember dtype of a NumPy dtype; TypeError for types ember has no counterpart for."""
    try:
        return _BY_NUMPY[numpy_dtype]
    except KeyError:
        if bfloat16._numpy_dtype is None and "ml_dtypes" in sys.modules:  # an array made with ml_dtypes
            load_ml_dtypes()
        found = _BY_NUMPY.get(np.dtype(numpy_dtype))
        if found is None:
            raise TypeError(
                f"can't convert np.ndarray of type {np.dtype(numpy_dtype)}. The only supported types are: "
                "float64, float32, float16, bfloat16, complex64, complex128, int64, int32, int16, int8, uint8, "
                "and bool."
            ) from None
        return found


def from_numpy_dtype_or_none(numpy_dtype):
    """The ember dtype of a NumPy dtype, None where ember has no counterpart."""
    try:
        return from_numpy_dtype(numpy_dtype)
    except TypeError:
        return None


def to_dtype(value):
    """Accept an ember dtype, a Python type, a legacy tensor type (`ember.DoubleTensor`), a NumPy
    dtype or a name. As in PyTorch, `float` means float64 and `complex` complex128 (not the default)."""
    if isinstance(value, dtype):
        return value
    if value is float:
        return float64
    if value is int:
        return int64
    if value is bool:
        return bool_
    if value is complex:
        return complex128
    if isinstance(getattr(value, "dtype", None), dtype):
        return value.dtype
    if isinstance(value, str):
        name = value[len("torch.") :] if value.startswith("torch.") else value
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
        higher, lower = (a, b) if a._category > b._category else (b, a)
        if higher is complex64 and lower is float64:
            return complex128  # the complex type wide enough for both parts
        return higher
    if a in WIDE_UNSIGNED or b in WIDE_UNSIGNED:
        raise RuntimeError(
            f"Promotion for uint16, uint32, uint64 types is not supported, attempted to promote {kernel_name(a)} "
            f"and {kernel_name(b)}; convert first, e.g. x.long()"
        )
    if a._category == 1 and (a is uint8) != (b is uint8):
        # uint8 with a signed type: the smallest signed type that holds both.
        other = b if a is uint8 else a
        return int16 if other is int8 else other
    if isinstance(a, _MLDtype) or isinstance(b, _MLDtype):
        return _promote_ml_dtype(a, b)
    return from_numpy_dtype(np.promote_types(a.numpy_dtype, b.numpy_dtype))


def _promote_ml_dtype(a, b):
    """Two different floating dtypes, one of them bfloat16 or float8: PyTorch's rule, decided without
    ml_dtypes. bfloat16 and float16 meet in float32, the narrowest type holding both; float8 types
    promote with nothing."""
    for side in (a, b):
        if side in FLOAT8_DTYPES:
            raise RuntimeError(
                f"Promotion for Float8 Types is not supported, attempted to promote {kernel_name(a)} and "
                f"{kernel_name(b)}; convert the float8 tensor first, e.g. x.float()"
            )
    other = b if a is bfloat16 else a
    return float32 if other is float16 else other


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


def _scalar_dtype(category):
    """The dtype PyTorch gives a Python number of this category (floats follow the default dtype)."""
    if category == 0:
        return bool_
    if category == 1:
        return int64
    return get_default_dtype() if category == 2 else _complex_of(get_default_dtype())


def _complex_of(floating):
    return complex128 if floating is float64 else complex64  # no complex32 in ember: float16 -> complex64


def combine_categories(higher, lower):
    """PyTorch's rule when `higher` (a dimensioned tensor's dtype) meets `lower` (a 0-d tensor's or a
    Python number's): `lower` only counts when its category is higher, and then a floating `higher`
    keeps its precision (float32 tensor * complex128 0-d tensor is complex64)."""
    if higher._category == 3:
        return higher
    if lower._category == 3:
        return _complex_of(higher) if higher._category == 2 else lower
    if higher._category == 2:
        return higher
    if higher is bool_ or lower._category == 2:
        return promote_types(higher, lower)
    return higher


def result_type_of_scalar(tensor_dtype, value):
    """dtype of `tensor op python_number`."""
    category = scalar_category(value)
    if category is None or category <= tensor_dtype._category:
        return tensor_dtype
    return combine_categories(tensor_dtype, _scalar_dtype(category))


def result_type(a, b):
    """PyTorch's result dtype for an op between tensors and/or Python numbers."""
    from ._tensor import Tensor

    a_is_tensor, b_is_tensor = isinstance(a, Tensor), isinstance(b, Tensor)
    if a_is_tensor and b_is_tensor:
        if a.ndim == 0 and b.ndim > 0:
            return combine_categories(b.dtype, a.dtype)
        if b.ndim == 0 and a.ndim > 0:
            return combine_categories(a.dtype, b.dtype)
        return promote_types(a.dtype, b.dtype)
    if a_is_tensor:
        return result_type_of_scalar(a.dtype, b)
    if b_is_tensor:
        return result_type_of_scalar(b.dtype, a)
    return _scalar_dtype(max(scalar_category(a), scalar_category(b)))


def can_cast(from_, to):
    """True when PyTorch's same-kind rule allows casting `from_` to `to` (no category is lowered)."""
    return to_dtype(from_)._category <= to_dtype(to)._category


class finfo:
    """Machine limits of a floating dtype, as `torch.finfo(ember.float32).eps`."""

    def __init__(self, type=None):
        self.dtype = get_default_dtype() if type is None else to_dtype(type)
        if not (self.dtype.is_floating_point or self.dtype.is_complex):
            raise TypeError(f"finfo(): expected a floating point dtype, got {self.dtype}")
        if isinstance(self.dtype, _MLDtype):
            self.bits, self.eps, self.max, self.min, self.tiny = self.dtype._limits
            self.smallest_normal = self.tiny
            precision = int(-np.log10(self.eps))  # decimal digits the mantissa holds, as NumPy counts them
        else:
            info = np.finfo(self.dtype.numpy_dtype)
            self.bits, self.eps, self.max, self.min = info.bits, float(info.eps), float(info.max), float(info.min)
            self.tiny = self.smallest_normal = float(info.smallest_normal)
            precision = info.precision
        self.resolution = 10.0**-precision  # exactly, as PyTorch (NumPy rounds it to the dtype)

    def __repr__(self):
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
            f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype.name})"
        )


class iinfo:
    """Limits of an integer dtype, as `torch.iinfo(ember.int32).max`."""

    def __init__(self, type):
        self.dtype = to_dtype(type)
        if self.dtype.is_floating_point or self.dtype.is_complex:
            raise TypeError(f"iinfo(): expected an integer dtype, got {self.dtype}")
        info = np.iinfo(self.dtype.numpy_dtype)
        self.bits, self.min, self.max = info.bits, int(info.min), int(info.max)

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype.name})"  # %g, as PyTorch prints it
