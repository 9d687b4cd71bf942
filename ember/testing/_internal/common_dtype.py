"""`torch.testing._internal.common_dtype`: the dtype lists tests are parametrized over."""

from ... import _dtype

__all__ = [
    "all_types",
    "all_types_and",
    "all_types_and_complex",
    "all_types_and_complex_and",
    "complex_types",
    "complex_types_and",
    "double_types",
    "empty_types",
    "floating_and_complex_types",
    "floating_and_complex_types_and",
    "floating_types",
    "floating_types_and",
    "get_all_complex_dtypes",
    "get_all_dtypes",
    "get_all_fp_dtypes",
    "get_all_int_dtypes",
    "get_all_math_dtypes",
    "integral_types",
    "integral_types_and",
]

_FLOATING = (_dtype.float32, _dtype.float64)
_COMPLEX = (_dtype.complex64, _dtype.complex128)
_INTEGRAL = (_dtype.uint8, _dtype.int8, _dtype.int16, _dtype.int32, _dtype.int64)


def _and(base, extra):
    """`base` and the extra dtypes (None entries dropped, as conditional entries in PyTorch's tests)."""
    for dtype in extra:
        if dtype is not None and not isinstance(dtype, _dtype.dtype):
            raise TypeError(f"expected a dtype, got {dtype!r} ({type(dtype).__name__})")
    return base + tuple(dtype for dtype in extra if dtype is not None)


def empty_types():
    return ()


def floating_types():
    return _FLOATING


def floating_types_and(*dtypes):
    return _and(_FLOATING, dtypes)


def complex_types():
    return _COMPLEX


def complex_types_and(*dtypes):
    return _and(_COMPLEX, dtypes)


def floating_and_complex_types():
    return _FLOATING + _COMPLEX


def floating_and_complex_types_and(*dtypes):
    return _and(_FLOATING + _COMPLEX, dtypes)


def double_types():
    return (_dtype.float64, _dtype.complex128)


def integral_types():
    return _INTEGRAL


def integral_types_and(*dtypes):
    return _and(_INTEGRAL, dtypes)


def all_types():
    return _FLOATING + _INTEGRAL


def all_types_and(*dtypes):
    return _and(_FLOATING + _INTEGRAL, dtypes)


def all_types_and_complex():
    return _FLOATING + _INTEGRAL + _COMPLEX


def all_types_and_complex_and(*dtypes):
    return _and(_FLOATING + _INTEGRAL + _COMPLEX, dtypes)


def get_all_int_dtypes():
    return list(_INTEGRAL)


def get_all_fp_dtypes(include_half=True, include_bfloat16=True):
    return list(_FLOATING) + [_dtype.float16] * include_half + [_dtype.bfloat16] * include_bfloat16


def get_all_complex_dtypes(include_complex32=False):
    if include_complex32:
        raise NotImplementedError("ember has no complex32 (NumPy has no complex half type)")
    return list(_COMPLEX)


def get_all_dtypes(
    include_half=True,
    include_bfloat16=True,
    include_bool=True,
    include_complex=True,
    include_complex32=False,
    include_qint=False,
):
    if include_qint:
        raise NotImplementedError("ember has no quantized dtypes")
    dtypes = get_all_int_dtypes() + get_all_fp_dtypes(include_half, include_bfloat16)
    dtypes += [_dtype.bool_] * include_bool
    return dtypes + (get_all_complex_dtypes(include_complex32) if include_complex else [])


def get_all_math_dtypes(device):
    """The dtypes arithmetic is defined for on `device` (the CPU: every int, float and complex)."""
    return get_all_int_dtypes() + get_all_fp_dtypes() + get_all_complex_dtypes()
