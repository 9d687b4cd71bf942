"""`torch.sym_int`, `torch.sym_max`, ...: arithmetic that PyTorch's tracer can follow on symbolic
sizes without branching. ember's sizes are plain Python ints, so these are the plain operations,
with PyTorch's results on plain numbers (`sym_max` gives a float if either side is a float)."""

import builtins
import math

from ._backend import np

__all__ = [
    "sym_int",
    "sym_float",
    "sym_max",
    "sym_min",
    "sym_not",
    "sym_ite",
    "sym_sum",
    "sym_sqrt",
    "sym_constrain_range",
    "sym_constrain_range_for_size",
]


def sym_int(a):
    """`int(a)`: a float is truncated toward zero."""
    return builtins.int(a)


def sym_float(a):
    """`float(a)`."""
    return builtins.float(a)


_NUMBERS = (builtins.int, builtins.float, np.integer, np.floating)
_FLOATS = (builtins.float, np.floating)


def _check_number(value, name):  # PyTorch asserts these (AssertionError), so the class is kept
    if not isinstance(value, _NUMBERS):
        raise AssertionError(f"{name} expects Python or NumPy ints or floats, got {type(value).__name__}")


def sym_max(a, b):
    """The larger of `a` and `b`, as a float if either is a float (unlike `max`, which keeps the winner's type)."""
    _check_number(a, "sym_max")
    _check_number(b, "sym_max")
    larger = builtins.max(a, b)
    return builtins.float(larger) if isinstance(a, _FLOATS) or isinstance(b, _FLOATS) else larger


def sym_min(a, b):
    """The smaller of `a` and `b`, as a float if either is a float."""
    _check_number(a, "sym_min")
    _check_number(b, "sym_min")
    smaller = builtins.min(a, b)
    return builtins.float(smaller) if isinstance(a, _FLOATS) or isinstance(b, _FLOATS) else smaller


def sym_not(a):
    """`not a`."""
    return not a


def sym_ite(b, t, f):
    """`t if b else f` (if-then-else); `t` and `f` must be of one type, as in PyTorch."""
    if not isinstance(b, builtins.bool):
        raise AssertionError(f"sym_ite: the condition must be a bool, got {type(b).__name__}")
    if type(t) is not type(f):
        raise AssertionError(
            f"sym_ite: both branches must have one type, got {type(t).__name__} and {type(f).__name__}"
        )
    return t if b else f


def sym_sum(*args):
    """The sum of the numbers given, as `sym_sum(a, b, c)` or `sym_sum([a, b, c])`."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    return builtins.sum(args)


def sym_sqrt(a):
    """`math.sqrt(a)`."""
    return math.sqrt(a)


def sym_constrain_range(size, min=None, max=None):  # noqa: A002 - PyTorch's names
    """Tells `torch.export` the range of a data-dependent size; a size here is a plain int, so this
    only checks it."""
    _check_range(size, min, max)


def sym_constrain_range_for_size(size, min=None, max=None):  # noqa: A002 - PyTorch's names
    """As `sym_constrain_range`, for a value used as a size (so also at least 0)."""
    _check_range(size, 0 if min is None else min, max)


def _check_range(size, low, high):
    low = -(2**63) if low is None else low
    high = 2**63 - 1 if high is None else high
    if not low <= size <= high:
        raise RuntimeError(f"Invalid value range for {size} between [{low}, {high}].")
