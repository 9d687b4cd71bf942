"""The C library's float32 `logf`, `log1pf` and `powf`, which PyTorch's CPU kernels call on the values
of float tensors (C++'s `std::log(float)` picks them).

They are not correctly rounded (glibc's err by up to about 0.8 units in the last place), so the
double result rounded to float32 differs from them once in a thousand calls or so; the sample and
gradient kernels that follow PyTorch bit for bit call the C library itself, through ctypes. Where it
cannot be loaded, the rounded double results stand in (off by one unit at those rare points).
"""

import ctypes
import ctypes.util
import math

from .._backend import np

__all__ = ["logf", "log1pf", "powf"]


def _load():
    name = ctypes.util.find_library("m")
    try:
        library = ctypes.CDLL(name)
        functions = [getattr(library, symbol) for symbol in ("logf", "log1pf", "powf")]
    except (OSError, TypeError, AttributeError):
        return None
    for function, arity in zip(functions, (1, 1, 2)):
        function.restype = ctypes.c_float
        function.argtypes = [ctypes.c_float] * arity
    return functions


def _rounded(function):
    def call(*arguments):
        try:
            return float(np.float32(function(*arguments)))
        except (ValueError, ZeroDivisionError, OverflowError):  # where C gives an infinity or a nan
            with np.errstate(all="ignore"):
                return float(getattr(np, function.__name__)(*(np.float64(a) for a in arguments)).astype(np.float32))

    return call


_LIBRARY = _load()
if _LIBRARY is not None:
    logf, log1pf, powf = _LIBRARY
else:  # pragma: no cover (every Linux and macOS has a loadable libm)
    logf, log1pf, powf = _rounded(math.log), _rounded(math.log1p), _rounded(math.pow)
