"""PyTorch's approximations of the reparameterized gradients of gamma and Dirichlet samples.

A sample x of Gamma(alpha, 1) moves with alpha so that its quantile stays fixed:
dx/dalpha = -(dF(x; alpha)/dalpha) / p(x; alpha). PyTorch does not compute this ratio exactly but
from three approximations, chosen by region (a Taylor series for x < 0.8, Rice's saddle-point
expansion for alpha > 8, else a fitted bivariate rational function), good to about 1e-3 relative;
the Dirichlet gradient likewise combines Beta-distribution expansions with a fitted rational
correction. Gradients through `rsample` are these numbers, so ember computes the same ones: element
by element in double with the C library's functions (through `math`), with the float32 steps
PyTorch takes for float tensors.
"""

import math

from .._backend import np
from . import _libm

__all__ = ["standard_gamma_grad", "dirichlet_grad"]

_PSI_10 = 2.25175258906672110764
_DIGAMMA_ASYMPTOTIC = (
    8.33333333333333333333e-2,
    -2.10927960927960927961e-2,
    7.57575757575757575758e-3,
    -4.16666666666666666667e-3,
    3.96825396825396825397e-3,
    -8.33333333333333333333e-3,
    8.33333333333333333333e-2,
)
_GAMMA_RATIONAL = (  # the rational approximation's coefficients: [power of u][numerator 4, denominator 4]
    (0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084),
    (0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915, -0.00058392623),
    (
        0.040121004,
        -0.0065914022,
        -0.0026286047,
        -0.0013441777,
        0.017050642,
        -0.0021309326,
        0.00085092367,
        -1.5247877e-07,
    ),
)


def _single(value):
    """A float constant of PyTorch's source (`0.9f`) as the double it becomes in double arithmetic."""
    return float(np.float32(value))


def _digamma(x, rounded=float):
    """PyTorch's `digamma_one` for x > 0: recurrence up to 10, then the asymptotic series; `rounded`
    gives the float32 steps it takes on float arguments (its `x` has the argument's type)."""
    if x == 0:
        return math.inf
    result = 0.0
    while x < 10:
        result -= rounded(1 / x)
        x = rounded(x + 1)
    if x == 10:
        return rounded(result + _PSI_10)
    series = 0.0
    if x < _single(1.0e17):
        z = 1.0 / rounded(x * x)
        polynomial = 0.0
        for coefficient in _DIGAMMA_ASYMPTOTIC:
            polynomial = polynomial * z + coefficient
        series = z * polynomial
    logarithm = math.log(x) if rounded is float else _libm.logf(x)
    return rounded(result + logarithm - rounded(0.5 / x) - series)


def _standard_gamma_grad_one(alpha, x):
    if x < 0.8:
        numerator, denominator = 1.0, alpha
        series1 = numerator / denominator
        series2 = numerator / (denominator * denominator)
        for i in range(1, 6):
            numerator *= -x / i
            denominator += 1
            series1 += numerator / denominator
            series2 += numerator / (denominator * denominator)
        pow_x_alpha = _pow(x, alpha)
        density = _pow(x, alpha - 1) * math.exp(-x)
        cdf = pow_x_alpha * series1
        cdf_alpha = (_log(x) - _digamma(alpha)) * cdf - pow_x_alpha * series2
        result = _divide(-cdf_alpha, density)
        return 0.0 if math.isnan(result) else result
    if alpha > 8.0:
        if _single(0.9) * alpha <= x <= _single(1.1) * alpha:
            numerator_1 = 1 + 24 * alpha * (1 + 12 * alpha)
            numerator_2 = (
                1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) - 65 * x * x / alpha + alpha * (107 + 3600 * x)
            )
            denominator = 1244160 * (alpha * alpha) * (alpha * alpha)
            return numerator_1 * numerator_2 / denominator
        denominator = math.sqrt(8 * alpha)
        term2 = denominator / (alpha - x)
        term3 = _pow(x - alpha - alpha * _log(x / alpha), -1.5)
        term23 = term2 - term3 if x < alpha else term2 + term3
        term1 = _log(x / alpha) * term23 - math.sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x))
        stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
        return -stirling * (x * term1) / denominator
    u = _log(x / alpha)
    v = _log(alpha)
    coefficients = [low + u * (middle + u * high) for low, middle, high in zip(*_GAMMA_RATIONAL)]
    p = coefficients[0] + v * (coefficients[1] + v * (coefficients[2] + v * coefficients[3]))
    q = coefficients[4] + v * (coefficients[5] + v * (coefficients[6] + v * coefficients[7]))
    return math.exp(p / q)


def _ieee(function, *arguments):
    """`function` on Python floats (fast), or, where Python raises for what C computes (a division by
    zero at a degenerate parameter), again on NumPy scalars, whose arithmetic is IEEE's."""
    try:
        return function(*arguments)
    except ZeroDivisionError:
        with np.errstate(all="ignore"):
            return float(function(*(np.float64(a) if isinstance(a, float) else a for a in arguments)))


def _log(x):
    """The C library's log, with its results where Python's raises (0 and negative arguments)."""
    return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)


def _pow(base, exponent):
    """The C library's pow, with its infinities and nans where Python's raises."""
    try:
        return math.pow(base, exponent)
    except (ValueError, ZeroDivisionError, OverflowError):
        with np.errstate(all="ignore"):
            return float(np.power(np.float64(base), np.float64(exponent)))


def _divide(numerator, denominator):
    """IEEE division (Python's raises on a zero denominator)."""
    if denominator == 0:
        with np.errstate(all="ignore"):
            return float(np.float64(numerator) / np.float64(denominator))
    return numerator / denominator


def standard_gamma_grad(alpha, x):
    """`torch._standard_gamma_grad`: dx/dalpha for samples x of Gamma(alpha, 1), arrays of one shape,
    in x's dtype."""
    alpha, x = np.broadcast_arrays(alpha, x)
    pairs = zip(alpha.astype(np.float64).ravel().tolist(), x.astype(np.float64).ravel().tolist())
    values = [_ieee(_standard_gamma_grad_one, a, value) for a, value in pairs]
    return np.array(values, dtype=np.float64).astype(x.dtype).reshape(x.shape)


# ---------------------------------------------------------------- Dirichlet
_DIRICHLET_RATIONAL = (  # [numerator, denominator][power of u][power of a][power of b]
    (
        (
            (1.003668233, -0.01061107488, -0.0657888334, 0.01201642863),
            (0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033),
            (-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013),
        ),
        (
            (0.221950385, -0.3187676331, 0.01799915743, 0.01074823814),
            (-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057),
            (0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05),
        ),
        (
            (-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565),
            (0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181),
            (0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05),
        ),
    ),
    (
        (
            (1, -0.02924021934, -0.04438342661, 0.007285809825),
            (0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521),
            (-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149),
        ),
        (
            (0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273),
            (0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956),
            (-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05),
        ),
        (
            (0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05),
            (0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05),
            (-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06),
        ),
    ),
)


def _typed(double_function, float_function, r):
    """The C library function PyTorch's `std::log` / `std::pow` resolves to for the tensor's type."""
    return double_function if r is float else float_function


def _beta_grad_alpha_small(x, alpha, beta, r):
    """Taylor expansion for x near 0, in the tensor's type (`r` rounds each step to it)."""
    factor = r(r(_digamma(alpha, r) - _digamma(r(alpha + beta), r)) - _typed(_log, _libm.logf, r)(x))
    numerator = 1.0
    series = r(r(numerator / alpha) * r(factor + r(1 / alpha)))
    for i in range(1, 11):
        numerator = r(numerator * r(r(r(i - beta) * x) / i))
        denominator = r(alpha + i)
        series = r(series + r(r(numerator / denominator) * r(factor + r(1 / denominator))))
    result = r(r(x * _typed(_pow, _libm.powf, r)(r(1 - x), -beta)) * series)
    return 0.0 if math.isnan(result) else result


def _beta_grad_beta_small(x, alpha, beta, r):
    """Taylor expansion in the other tail (called with 1 - x and the concentrations swapped)."""
    factor = r(_digamma(r(alpha + beta), r) - _digamma(beta, r))
    numerator, betas, dbetas, series = 1.0, 1.0, 0.0, r(factor / alpha)
    for i in range(1, 9):
        numerator = r(numerator * r(-x / i))
        dbetas = r(r(dbetas * r(beta - i)) + betas)
        betas = r(betas * r(beta - i))
        series = r(series + r(r(numerator / r(alpha + i)) * r(dbetas + r(factor * betas))))
    result = r(-_typed(_pow, _libm.powf, r)(r(1 - x), r(1 - beta)) * series)
    return 0.0 if math.isnan(result) else result


def _beta_grad_alpha_mid(x, alpha, beta):
    """Rice's saddle-point expansion for large alpha and beta, in double."""
    total = alpha + beta
    mean = alpha / total
    spread = math.sqrt(alpha * beta / (total + 1)) / total
    if mean - 0.1 * spread <= x <= mean + 0.1 * spread:
        poly = 47 * x * (beta * beta) * (beta * beta) + alpha * (
            (43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta
            + alpha
            * (
                3 * (59 + 180 * beta - 90 * x) * (beta * beta)
                + alpha * ((453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (8 * (1 - x) * (135 * beta - 11)))
            )
        )
        prefactor_numerator = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
        prefactor_denominator = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
        return prefactor_numerator / (1 - x) * poly / prefactor_denominator
    prefactor = -x / math.sqrt(2 * alpha * beta / total)
    stirling = (
        (1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha))
        * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
        / (1 + 1 / (12 * total) + 1 / (288 * total * total))
    )
    term1_numerator = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1_denominator = math.sqrt(2 * alpha / beta) * _pow(total, 1.5) * axbx * axbx
    term1 = _divide(term1_numerator, term1_denominator)
    term2 = 0.5 * _log(alpha / (total * x))
    term3 = _divide(math.sqrt(8 * alpha * beta / total), beta * x + alpha * (x - 1))
    term4_base = beta * _log(beta / (total * (1 - x))) + alpha * _log(alpha / (total * x))
    term4 = _pow(term4_base, -1.5)
    term1234 = term1 + term2 * (term3 + (term4 if x < mean else -term4))
    return stirling * prefactor * term1234


def _dirichlet_grad_one(x, alpha, total, r):
    beta = r(total - alpha)
    boundary = r(r(total * x) * r(1 - x))
    if x <= 0.5 and boundary < 2.5:
        return _beta_grad_alpha_small(x, alpha, beta, r)
    if x >= 0.5 and boundary < 0.75:
        return -_beta_grad_beta_small(r(1 - x), beta, alpha, r)
    if alpha > 6 and beta > 6:
        return _beta_grad_alpha_mid(x, alpha, total - alpha)
    u = _log(x)
    a = _log(alpha) - u
    b = _log(total) - a
    powers_u, powers_a = (1.0, u, u * u), (1.0, a, a * a)
    p = q = 0.0
    for i in range(3):
        for j in range(3):
            ua = powers_u[i] * powers_a[j]
            c0, c1, c2, c3 = _DIRICHLET_RATIONAL[0][i][j]
            p += ua * (c0 + b * (c1 + b * (c2 + b * c3)))
            c0, c1, c2, c3 = _DIRICHLET_RATIONAL[1][i][j]
            q += ua * (c0 + b * (c1 + b * (c2 + b * c3)))
    approx = x * r(_digamma(r(total), r) - _digamma(r(alpha), r)) / (total - alpha)
    return p / q * approx


def dirichlet_grad(x, alpha, total):
    """`torch._dirichlet_grad`: the scaled reparameterized gradient of each Dirichlet coordinate x
    with respect to its concentration alpha (total = the concentrations' sum), in x's dtype."""
    x, alpha, total = np.broadcast_arrays(x, alpha, total)
    r = _single if x.dtype == np.float32 else float
    triples = zip(*(array.astype(np.float64).ravel().tolist() for array in (x, alpha, total)))
    values = [_ieee(_dirichlet_grad_one, a, b, c, r) for a, b, c in triples]
    return np.array(values, dtype=np.float64).astype(x.dtype).reshape(x.shape)
