"""ember.special: PyTorch's `torch.special` — special functions, most of them also ember ops.

    import ember.special as special
    special.gammaln(x), special.digamma(x), special.i0e(x), special.ndtr(x), special.zeta(x, q)

Each is differentiable where PyTorch's is, with its derivative written in ember ops (so higher
derivatives work too); `zeta` has no derivative and `gammainc`/`gammaincc` none with respect to their
first argument, as in PyTorch.
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

__all__ = [
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
    "i0",
    "i0e",
    "i1",
    "i1e",
    "log1p",
    "log_ndtr",
    "log_softmax",
    "logit",
    "logsumexp",
    "multigammaln",
    "ndtr",
    "ndtri",
    "polygamma",
    "psi",
    "round",
    "sinc",
    "softmax",
    "xlog1py",
    "xlogy",
    "zeta",
]

psi = digamma


def multigammaln(input, p):
    """The multivariate log-gamma function (`ember.mvlgamma`)."""
    return mvlgamma(input, p)
