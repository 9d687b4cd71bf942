"""The C library's float32 `logf`, `log1pf` and `powf`, which PyTorch's CPU kernels call on the values
of float tensors (C++'s `std::log(float)` picks them), and its double functions for the float64
sampling kernels (`double_function`).

They are not correctly rounded (glibc's err by up to about 0.8 units in the last place), so the
double result rounded to float32 differs from them once in a thousand calls or so; the sample and
gradient kernels that follow PyTorch bit for bit call the C library itself, through ctypes. Where it
cannot be loaded, the rounded double results stand in (off by one unit at those rare points).
"""

import ctypes
import ctypes.util
import functools
import math

from .._backend import np

__all__ = ["logf", "log1pf", "powf", "double_function"]


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


_PROBE_RANGES = {"log": (1e-12, 1.0), "log1p": (-1.0, 0.0), "exp": (-8.0, 8.0)}


@functools.cache
def double_function(name):
    """The float64 `name` (log, log1p, exp, sin, cos, tan) as the C library computes it, on arrays.

    PyTorch's double sampling kernels call glibc's scalar functions. NumPy's own loops are the same
    calls on most machines, but its AVX-512 loops differ from glibc by one unit in the last place at a
    few points per thousand, which would change a sample's last bit. A probe of 4096 values decides:
    NumPy's ufunc where it agrees with the C library, else the C library element by element (Python's
    `math` module calls it; ~20x slower, and only float64 samples pay it)."""
    ufunc, scalar = getattr(np, name), getattr(math, name)
    low, high = _PROBE_RANGES.get(name, (0.0, 2 * math.pi))
    probe = np.random.default_rng(0).uniform(low, high, 4096)
    if np.array_equal(ufunc(probe), _elementwise(scalar, probe)):
        return ufunc
    return functools.partial(_elementwise, scalar)


def _elementwise(scalar, values):
    values = np.asarray(values, dtype=np.float64)
    return np.fromiter(map(scalar, values.ravel().tolist()), np.float64, values.size).reshape(values.shape)
