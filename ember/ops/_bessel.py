"""Modified Bessel functions of the first kind on arrays: i0, i1 and their exponentially scaled
forms i0e, i1e. SciPy's when installed, else NumPy: the power series up to |x| = 20 and the
asymptotic expansion beyond (computed already scaled by exp(-|x|), so nothing overflows).
"""

import math

from .._backend import np
from ._special import _computed

__all__ = ["i0", "i0e", "i1", "i1e"]

_SERIES_LIMIT = 20.0
_SERIES_TERMS = 80  # the series' terms peak near k = |x| / 2 and are below 1e-17 of the sum by 80
_ASYMPTOTIC_TERMS = 30  # the expansion's terms shrink until k ~ 2|x| = 40, reaching 1e-17 first


def i0(x):
    return _computed(x, "i0", lambda a: _scaled_bessel(a, 0) * np.exp(np.abs(a)))


def i0e(x):
    return _computed(x, "i0e", lambda a: _scaled_bessel(a, 0))


def i1(x):
    return _computed(x, "i1", lambda a: _scaled_bessel(a, 1) * np.exp(np.abs(a)))


def i1e(x):
    return _computed(x, "i1e", lambda a: _scaled_bessel(a, 1))


def _series(x, order):
    """I_order(x) = sum (x/2)^(2k+order) / (k! (k+order)!)."""
    half = x / 2.0
    quarter_square = half * half
    term = half**order / math.factorial(order)
    total = term.copy()
    for k in range(1, _SERIES_TERMS):
        term = term * quarter_square / (k * (k + order))
        total += term
    return total


def _asymptotic_scaled(x, order):
    """exp(-x) I_order(x) for large x > 0: 1/sqrt(2 pi x) sum (-1)^k a_k / x^k."""
    mu = 4.0 * order * order
    term = np.ones_like(x)
    total = term.copy()
    for k in range(1, _ASYMPTOTIC_TERMS):
        term = -term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        total += term
    return total / np.sqrt(2.0 * math.pi * x)


def _scaled_bessel(x, order):
    """exp(-|x|) I_order(x); I_0 is even and I_1 odd."""
    x = np.asarray(x, np.float64)
    magnitude = np.abs(x)
    small = magnitude <= _SERIES_LIMIT
    with np.errstate(all="ignore"):
        series = _series(np.minimum(magnitude, _SERIES_LIMIT), order) * np.exp(-np.minimum(magnitude, _SERIES_LIMIT))
        asymptotic = _asymptotic_scaled(np.maximum(magnitude, _SERIES_LIMIT), order)
    result = np.where(small, series, asymptotic)
    result = np.where(np.isinf(x), 0.0, result)
    if order == 1:
        result = np.copysign(result, x)
    return np.where(np.isnan(x), np.nan, result)
