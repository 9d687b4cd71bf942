"""The error-function family on arrays: erf, erfc, erfinv, erfcx and the normal distribution's ndtr,
log_ndtr and ndtri. SciPy's when it is installed, else pure NumPy (NumPy has no erf).

The NumPy versions are vectorized and accurate to about 1e-14 relative in float64 (the tests check
them against `math.erf`); they cost a few dozen array passes, so SciPy is used when present.
"""

import functools
import math

from .._backend import np

__all__ = ["erf", "erfc", "erfinv", "erfcx", "ndtr", "log_ndtr", "ndtri", "numpy_erf", "numpy_erfc", "numpy_erfinv"]

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_INVERSE_SQRT_TWO_PI = 1.0 / math.sqrt(2.0 * math.pi)
_SERIES_LIMIT = 2.0  # below: the power series of erf; above: the continued fraction of erfc
_SERIES_TERMS = 60  # both converge to float64 precision on their side of the limit in this many terms
_FRACTION_TERMS = 60


@functools.lru_cache(maxsize=None)
def _scipy_special():
    try:
        from scipy import special
    except ImportError:
        return None
    return special


def _computed(x, scipy_name, numpy_fallback):
    """Evaluate in float64 (the fallback) or SciPy's own loop, and return the input's dtype."""
    special = _scipy_special()
    if special is not None:
        return np.asarray(getattr(special, scipy_name)(x)).astype(x.dtype, copy=False)
    return numpy_fallback(x.astype(np.float64)).astype(x.dtype, copy=False)


def erf(x):
    if x.dtype == np.float32 and x.ndim:  # (NumPy makes scalars of 0-d results: SciPy's path does those)
        return float32_erf(x)
    return _computed(x, "erf", numpy_erf)


# erf(x) = tanh(x * R(x^2)), R a polynomial of degree 6 fitted for ember (iteratively reweighted
# least squares on erf's relative error, which forgives R's error where tanh saturates): evaluated in
# float32 as below it is within 4 ulp of the rounded erf on [0, 5] (the tests check it), and it needs
# 15 array passes where a rational function needs 27 (two polynomials, a division and two clips). R
# grows without bound, so tanh gives exactly +-1 in the tails and at +-inf, with no clip.
_ERF_ARGUMENT = (
    1.128379274311161,
    0.1027690556406373,
    -0.00019183024046373986,
    -0.000619785309429579,
    8.763762667282594e-05,
    -5.6685321836385235e-06,
    1.4185583024175174e-07,
)


def float32_erf(x):
    """erf of a float32 array in float32 arithmetic: faster than SciPy's loop, which computes in
    float64. PyTorch's vectorized CPU erf is an approximation too (within 1.5e-7 absolute)."""
    result = _horner(_ERF_ARGUMENT, x * x)
    result *= x
    return np.tanh(result, out=result)


# Phi(-|x|) = exp(-x^2 / 2) t P(t) with t = 1 / (1 + 0.4 |x|), P a polynomial of degree 5 fitted for
# ember (iteratively reweighted least squares on Phi's error / (Phi + 0.01): absolute near the centre,
# relative in the left tail). The exp is the density's too, so Phi and phi together cost one
# transcendental pass, where erf by tanh and then the density's exp cost two: on AVX2, NumPy's float32
# tanh takes as long as ~19 array passes and exp ~9. Evaluated as below, Phi is within 2.1e-7 of the
# exact value and within 16 ulp where Phi >= 1e-3 (the tests check both).
_NORMAL_TAIL_SCALE = 0.4
_NORMAL_TAIL = (
    0.15665346264663535,  # (fitted 0.15665352225128013; moved so that Phi(0) is 1/2 in float32)
    0.18906917532593162,
    0.012188004711575037,
    0.3410677535216908,
    -0.2556086755569603,
    0.056630277879123586,
)
_SIGN_SHIFT = 31  # an arithmetic shift of an int32's bits by 31: all ones where the sign bit is set


def float32_normal_cdf_and_density(x):
    """(Phi(x), phi(x)) of a float32 array (x of at least one dimension), in float32 arithmetic and
    sharing one exp: what a GELU and its derivative are made of."""
    density = x * x
    density *= -0.5
    np.exp(density, out=density)
    t = np.abs(x)
    t *= _NORMAL_TAIL_SCALE
    t += 1.0
    np.divide(1.0, t, out=t)
    tail = _horner(_NORMAL_TAIL, t)
    tail *= t
    tail *= density  # Phi(-|x|)
    cdf = np.subtract(1.0, tail)  # Phi(|x|)
    # Phi(x) = Phi(-|x|) where x < 0: the two values' bits selected by x's sign bit, without a branch
    # (np.where on a random mask takes ~35 array passes' time) and without 1 - (1 - Phi) losing the tail
    difference = np.bitwise_xor(tail.view(np.int32), cdf.view(np.int32), out=tail.view(np.int32))
    difference &= np.right_shift(x.view(np.int32), _SIGN_SHIFT)
    np.bitwise_xor(cdf.view(np.int32), difference, out=cdf.view(np.int32))
    density *= _INVERSE_SQRT_TWO_PI
    return cdf, density


def _horner(coefficients, t):
    """sum(c_k t^k) by Horner's rule, in t's dtype, in one new array."""
    result = t * coefficients[-1]
    result += coefficients[-2]
    for coefficient in coefficients[-3::-1]:
        result *= t
        result += coefficient
    return result


def erfc(x):
    return _computed(x, "erfc", numpy_erfc)


def erfinv(x):
    return np.copysign(_computed(x, "erfinv", numpy_erfinv), x)  # SciPy loses the sign of -0.0


def erfcx(x):
    """exp(x^2) erfc(x), without the overflow and underflow of computing it that way for large x."""
    return _computed(x, "erfcx", numpy_erfcx)


def ndtr(x):
    """The standard normal distribution's cumulative function."""
    return _computed(x, "ndtr", lambda a: 0.5 * numpy_erfc(-a / math.sqrt(2.0)))


def log_ndtr(x):
    return _computed(x, "log_ndtr", numpy_log_ndtr)


def ndtri(p):
    """The inverse of ndtr (the standard normal quantile)."""
    return _computed(p, "ndtri", lambda a: math.sqrt(2.0) * numpy_erfinv(2.0 * a - 1.0))


def numpy_erfcx(x):
    with np.errstate(all="ignore"):
        large = x >= _SERIES_LIMIT
        fraction = _erfc_fraction_scaled(np.maximum(x, _SERIES_LIMIT))
        direct = np.exp(x * x) * numpy_erfc(np.minimum(x, _SERIES_LIMIT))
    return np.where(large, fraction, direct)


def numpy_log_ndtr(x):
    """log(ndtr(x)); far in the left tail from erfcx (ndtr itself underflows there)."""
    with np.errstate(all="ignore"):
        tail = x < -5.0
        scaled = np.log(0.5 * numpy_erfcx(-np.minimum(x, -5.0) / math.sqrt(2.0))) - np.minimum(x, -5.0) ** 2 / 2
        direct = np.log1p(-0.5 * numpy_erfc(np.maximum(x, -5.0) / math.sqrt(2.0)))
    return np.where(tail, scaled, direct)


def _erfc_fraction_scaled(x):
    """exp(x^2) erfc(x) for x >= 2 by Laplace's continued fraction."""
    tail = np.zeros_like(x)
    for n in range(_FRACTION_TERMS, 0, -1):
        tail = (n / 2) / (x + tail)
    return 1.0 / math.sqrt(math.pi) / (x + tail)


def _erf_series(x):
    """erf(x) = 2/sqrt(pi) exp(-x^2) sum 2^n x^(2n+1) / (2n+1)!!: all terms positive, so no cancellation."""
    x2 = x * x
    term = x.copy()
    total = x.copy()
    for n in range(1, _SERIES_TERMS):
        term *= 2 * x2 / (2 * n + 1)
        total += term
    return _TWO_OVER_SQRT_PI * np.exp(-x2) * total


def _erfc_fraction(x):
    """erfc(x) for x >= 2 by Laplace's continued fraction x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))."""
    return np.exp(-x * x) * _erfc_fraction_scaled(x)


def _erf_and_erfc_of_magnitude(x):
    """(erf(|x|), erfc(|x|)), each from the side where it is computed without cancellation."""
    magnitude = np.abs(x)
    small = magnitude < _SERIES_LIMIT
    with np.errstate(all="ignore"):
        series = _erf_series(np.minimum(magnitude, _SERIES_LIMIT))
        fraction = _erfc_fraction(np.maximum(magnitude, _SERIES_LIMIT))
    erf_part = np.where(small, series, 1.0 - fraction)
    erfc_part = np.where(small, 1.0 - series, fraction)
    nan = np.isnan(x)
    return np.where(nan, np.nan, erf_part), np.where(nan, np.nan, erfc_part)


def numpy_erf(x):
    erf_part, _ = _erf_and_erfc_of_magnitude(x)
    return np.copysign(erf_part, x)


def numpy_erfc(x):
    _, erfc_part = _erf_and_erfc_of_magnitude(x)
    return np.where(x < 0, 2.0 - erfc_part, erfc_part)


def numpy_erfinv(y):
    """Winitzki's closed-form estimate (about 2e-3 relative), refined by three Halley steps on erf.

    Where |y| > 0.5 the steps solve erfc(x) = 1 - |y| instead (1 - |y| is exact there), which keeps
    full relative precision as y approaches +-1.
    """
    magnitude = np.abs(y)
    with np.errstate(all="ignore"):
        x = _winitzki_estimate(magnitude)
        tail = magnitude > 0.5
        for _ in range(3):
            erf_part, erfc_part = _erf_and_erfc_of_magnitude(x)
            residual = np.where(tail, (1.0 - magnitude) - erfc_part, erf_part - magnitude)
            step = residual / (_TWO_OVER_SQRT_PI * np.exp(-x * x))
            x = x - step / (1.0 + x * step)
    x = np.where(magnitude == 1.0, np.inf, x)
    x = np.where((magnitude > 1.0) | np.isnan(y), np.nan, x)
    return np.copysign(x, y)


def _winitzki_estimate(y):
    a = 0.147
    log_term = np.log1p(-y * y)
    first = 2.0 / (math.pi * a) + log_term / 2.0
    return np.sqrt(np.sqrt(first * first - log_term / a) - first)
