"""ember.special: PyTorch's `torch.special` — special functions, most of them also ember ops.

    import ember.special as special
    special.gammaln(x), special.digamma(x), special.i0e(x), special.ndtr(x), special.zeta(x, q)

Each is differentiable where PyTorch's is, with its derivative written in ember ops (so higher
derivatives work too); `zeta` has no derivative and `gammainc`/`gammaincc` none with respect to their
first argument, as in PyTorch. The Bessel and Airy functions and the orthogonal polynomials
(`bessel_j0`, ..., `legendre_polynomial_p`) have no derivative in PyTorch: their results never
require grad (see `ember.ops.special_functions`).
"""

from .ops import (
    digamma,
    erf,
    erfc,
    erfinv,
    exp2,
    expm1,
    i0,
    log1p,
    log_softmax,
    logit,
    logsumexp,
    mvlgamma,
    polygamma,
    round,
    sinc,
    softmax,
    xlogy,
)
from .ops import lgamma as gammaln, sigmoid as expit, igamma as gammainc, igammac as gammaincc
from .ops.special import entr, erfcx, i0e, i1, i1e, log_ndtr, ndtr, ndtri, xlog1py, zeta
from .ops.special_functions import (
    airy_ai,
    bessel_j0,
    bessel_j1,
    bessel_y0,
    bessel_y1,
    chebyshev_polynomial_t,
    chebyshev_polynomial_u,
    chebyshev_polynomial_v,
    chebyshev_polynomial_w,
    hermite_polynomial_h,
    hermite_polynomial_he,
    laguerre_polynomial_l,
    legendre_polynomial_p,
    modified_bessel_i0,
    modified_bessel_i1,
    modified_bessel_k0,
    modified_bessel_k1,
    scaled_modified_bessel_k0,
    scaled_modified_bessel_k1,
    shifted_chebyshev_polynomial_t,
    shifted_chebyshev_polynomial_u,
    shifted_chebyshev_polynomial_v,
    shifted_chebyshev_polynomial_w,
    spherical_bessel_j0,
)

__all__ = [
    "airy_ai",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfcx",
    "erfinv",
    "exp2",
    "expit",
    "expm1",
    "gammainc",
    "gammaincc",
    "gammaln",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
    "log1p",
    "log_ndtr",
    "log_softmax",
    "logit",
    "logsumexp",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "multigammaln",
    "ndtr",
    "ndtri",
    "polygamma",
    "psi",
    "round",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "sinc",
    "softmax",
    "spherical_bessel_j0",
    "xlog1py",
    "xlogy",
    "zeta",
]

psi = digamma


def multigammaln(input, p):
    """The multivariate log-gamma function (`ember.mvlgamma`)."""
    return mvlgamma(input, p)


# Public names offer their calls to the arguments' __torch_function__ (see ember._torch_function).
from . import _torch_function  # noqa: E402

_torch_function.publish(globals(), __all__, "ember.special")
