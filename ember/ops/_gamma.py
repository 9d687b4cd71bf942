"""The gamma family on arrays: lgamma, digamma, polygamma, the Hurwitz zeta function and the
regularized incomplete gamma functions. SciPy's loops when it is installed, else pure NumPy.

The NumPy versions work in float64, vectorized, to about 1e-14 relative away from poles (the tests
check them against PyTorch). Conventions at poles follow PyTorch: lgamma is +inf at 0, -1, -2, ...;
digamma is -inf at +0, +inf at -0 and nan at negative integers.
"""

import math

from .._backend import np
from ._special import _computed

__all__ = ["lgamma", "digamma", "polygamma", "zeta", "gammainc", "gammaincc"]

# Lanczos' approximation with g = 7 and nine coefficients (accurate to ~1e-15 for x >= 0.5).
_LANCZOS_G = 7.0
_LANCZOS_COEFFICIENTS = (
    0.99999999999980993,
    676.5203681218851,
    -1259.1392167224028,
    771.32342877765313,
    -176.61502916214059,
    12.507343278686905,
    -0.13857109526572012,
    9.9843695780195716e-6,
    1.5056327351493116e-7,
)
_HALF_LOG_TWO_PI = 0.5 * math.log(2.0 * math.pi)
# Bernoulli numbers B_2, B_4, ..., B_24, for the asymptotic series of digamma and the Hurwitz zeta.
_BERNOULLI = (
    1 / 6,
    -1 / 30,
    1 / 42,
    -1 / 30,
    5 / 66,
    -691 / 2730,
    7 / 6,
    -3617 / 510,
    43867 / 798,
    -174611 / 330,
    854513 / 138,
    -236364091 / 2730,
)


def lgamma(x):
    result = _computed(x, "gammaln", numpy_lgamma)
    return np.where(np.isneginf(x), np.inf, result).astype(result.dtype, copy=False)  # SciPy gives -inf there


def digamma(x):
    return _computed(x, "psi", numpy_digamma)


def polygamma(n, x):
    if n == 0:
        return digamma(x)
    return (-1.0) ** (n + 1) * math.factorial(n) * zeta(np.asarray(n + 1.0, x.dtype), x)


def zeta(s, q):
    """The Hurwitz zeta function sum over k >= 0 of (q + k) ** -s (Riemann's when q = 1)."""
    s, q = np.broadcast_arrays(s, q)
    dtype = np.result_type(s.dtype, q.dtype)
    return _computed_binary(s, q, dtype, "zeta", numpy_zeta)


def gammainc(a, x):
    """The regularized lower incomplete gamma function P(a, x)."""
    a, x = np.broadcast_arrays(a, x)
    return _computed_binary(a, x, np.result_type(a.dtype, x.dtype), "gammainc", numpy_gammainc)


def gammaincc(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    a, x = np.broadcast_arrays(a, x)
    return _computed_binary(a, x, np.result_type(a.dtype, x.dtype), "gammaincc", numpy_gammaincc)


def _computed_binary(a, b, dtype, scipy_name, numpy_fallback):
    from ._special import _scipy_special

    special = _scipy_special()
    if special is not None:
        return np.asarray(getattr(special, scipy_name)(a, b)).astype(dtype, copy=False)
    return np.asarray(numpy_fallback(a.astype(np.float64), b.astype(np.float64))).astype(dtype, copy=False)


def _is_non_positive_integer(x):
    return (x <= 0) & (x == np.floor(x))


def _lgamma_from_half(x):
    """lgamma(x) for x >= 0.5 by Lanczos' approximation."""
    z = x - 1.0
    series = np.full_like(z, _LANCZOS_COEFFICIENTS[0])
    for index, coefficient in enumerate(_LANCZOS_COEFFICIENTS[1:], start=1):
        series += coefficient / (z + index)
    t = z + _LANCZOS_G + 0.5
    return _HALF_LOG_TWO_PI + (z + 0.5) * np.log(t) - t + np.log(series)


def _abs_sin_pi(x):
    """|sin(pi x)| with the argument reduced first, so large |x| keeps its precision."""
    return np.abs(np.sin(math.pi * (x - np.round(x))))


def numpy_lgamma(x):
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        reflected = x < 0.5
        direct = _lgamma_from_half(np.where(reflected, 1.0 - x, x))
        # Euler's reflection: Gamma(x) Gamma(1 - x) = pi / sin(pi x).
        result = np.where(reflected, math.log(math.pi) - np.log(_abs_sin_pi(x)) - direct, direct)
    result = np.where(_is_non_positive_integer(x) | np.isinf(x), np.inf, result)
    return np.where(np.isnan(x), np.nan, result)


def numpy_digamma(x):
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        reflected = x < 0
        y = np.where(reflected, 1.0 - x, x)
        shift = np.zeros_like(y)
        for _ in range(10):  # psi(y) = psi(y + 1) - 1 / y until y >= 10, where the series is accurate
            small = y < 10
            shift -= np.where(small, 1.0 / y, 0.0)
            y = np.where(small, y + 1.0, y)
        inverse_square = 1.0 / (y * y)
        series = np.zeros_like(y)
        power = np.ones_like(y)
        for k, bernoulli in enumerate(_BERNOULLI[:7], start=1):
            power = power * inverse_square
            series += bernoulli / (2 * k) * power
        result = np.log(y) - 0.5 / y - series + shift
        # Reflection: psi(1 - x) - psi(x) = pi / tan(pi x).
        result = np.where(reflected, result - math.pi / np.tan(math.pi * x), result)
    result = np.where(reflected & (x == np.floor(x)), np.nan, result)
    result = np.where(x == 0, np.where(np.signbit(x), np.inf, -np.inf), result)
    result = np.where(x == np.inf, np.inf, result)
    return np.where(np.isnan(x) | (x == -np.inf), np.nan, result)


def numpy_zeta(s, q):
    """Euler-Maclaurin: sum the first terms directly until q + N >= max(10, s + 10), then the
    integral, half the next term and twelve Bernoulli corrections (they shrink like ((s+2j)/(2 pi w))^2j)."""
    s, q = np.broadcast_arrays(np.asarray(s, np.float64), np.asarray(q, np.float64))
    with np.errstate(all="ignore"):
        limit = np.maximum(10.0, s + 10.0)
        steps = int(np.nanmax(np.clip(np.ceil(limit - q), 0, None), initial=0))
        steps = min(steps, 100000)
        total = np.zeros(s.shape)
        w = q.copy()
        for _ in range(steps):
            below = w < limit
            total += np.where(below, w**-s, 0.0)
            w = np.where(below, w + 1.0, w)
        total += w ** (1.0 - s) / (s - 1.0) + 0.5 * w**-s
        rising = s.copy()  # s (s + 1) ... (s + 2j - 2)
        power = w ** (-s - 1.0)  # w ** (-s - 2j + 1)
        factorial = 2.0  # (2j)!
        for j, bernoulli in enumerate(_BERNOULLI, start=1):
            total += bernoulli / factorial * rising * power
            rising = rising * (s + 2 * j - 1) * (s + 2 * j)
            power = power / (w * w)
            factorial *= (2 * j + 1) * (2 * j + 2)
    total = np.where(s == 1, np.inf, total)
    total = np.where(s < 1, np.nan, total)
    total = np.where(_is_non_positive_integer(q) & (s > 1), np.inf, total)
    total = np.where((q < 0) & (s != np.floor(s)) & ~_is_non_positive_integer(q), np.nan, total)
    return np.where(np.isnan(s) | np.isnan(q), np.nan, total)


def _gammainc_series(a, x):
    """P(a, x) by its power series (converges fast for x < a + 1)."""
    term = 1.0 / a
    total = term.copy()
    for n in range(1, 500):
        term = term * x / (a + n)
        total += term
    return total * np.exp(-x + a * np.log(x) - numpy_lgamma(a))


def _gammaincc_fraction(a, x):
    """Q(a, x) by Legendre's continued fraction (modified Lentz; converges fast for x >= a + 1)."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = np.full_like(x, 1.0 / tiny)
    d = 1.0 / b
    h = d.copy()
    for i in range(1, 500):
        an = -i * (i - a)
        b = b + 2.0
        d = an * d + b
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1.0 / d
        h = h * d * c
    return np.exp(-x + a * np.log(x) - numpy_lgamma(a)) * h


def numpy_gammainc(a, x):
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    with np.errstate(all="ignore"):
        use_series = x < a + 1.0
        series = _gammainc_series(a, np.where(use_series, x, 0.0))
        fraction = _gammaincc_fraction(a, np.where(use_series, a + 1.0, x))
        result = np.where(use_series, series, 1.0 - fraction)
    result = np.where(x == 0, 0.0, result)
    result = np.where(np.isinf(x) & (x > 0), 1.0, result)
    return np.where((a <= 0) | (x < 0) | np.isnan(a) | np.isnan(x), np.nan, result)


def numpy_gammaincc(a, x):
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    with np.errstate(all="ignore"):
        use_series = x < a + 1.0
        series = _gammainc_series(a, np.where(use_series, x, 0.0))
        fraction = _gammaincc_fraction(a, np.where(use_series, a + 1.0, x))
        result = np.where(use_series, 1.0 - series, fraction)
    result = np.where(x == 0, 1.0, result)
    result = np.where(np.isinf(x) & (x > 0), 0.0, result)
    return np.where((a <= 0) | (x < 0) | np.isnan(a) | np.isnan(x), np.nan, result)
