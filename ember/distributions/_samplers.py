"""Samplers that ember.ops lacks (gamma, Poisson, binomial), drawing from ember's default generator
so that `ember.manual_seed` makes them repeatable.

Gamma samples are reparameterized by implicit differentiation, as in PyTorch: a sample x of
Gamma(alpha, 1) moves with alpha so that its quantile F(x; alpha) stays fixed, hence
    dx/dalpha = -(dF/dalpha) / p(x; alpha).
`standard_gamma_grad` computes that ratio from the power series of the regularized incomplete
gamma function (exact to ~1e-12 where samples fall; PyTorch's approximation is good to ~1e-3), and
for alpha >= 1000, where the series needs thousands of terms, from the Wilson-Hilferty cube-root
normal approximation (relative error below 1e-5 there).
"""

from .._backend import np
from .._tensor import Tensor, new_tensor
from ..autograd.function import Primitive
from ..ops import _gamma
from ..ops.creation import default_generator

__all__ = ["standard_gamma", "standard_gamma_grad", "poisson", "binomial"]

_SERIES_LIMIT = 1000.0  # above this concentration the Wilson-Hilferty form is used


def _rng():
    return default_generator.rng


def _gamma_grad_series(alpha, x):
    """-(dP/dalpha) / p as sum over n >= 0 of r_n (psi(alpha + n + 1) - log x), where
    r_n = x^(n+1) Gamma(alpha) / Gamma(alpha + n + 1) is the n-th series term of P divided by p."""
    log_x = np.log(x)
    ratio = x / alpha
    digamma_shifted = _gamma.digamma(alpha) + 1.0 / alpha  # psi(alpha + n + 1), by recurrence
    total = ratio * (digamma_shifted - log_x)
    for n in range(1, 100_000):
        ratio = ratio * x / (alpha + n)
        digamma_shifted = digamma_shifted + 1.0 / (alpha + n)
        term = ratio * (digamma_shifted - log_x)
        total = total + term
        converged = (np.abs(term) <= 1e-17 * np.abs(total)) & (x < alpha + n)
        if np.all(converged | ~np.isfinite(total)):  # nan (unvalidated) parameters must not keep it going
            break
    return total


def _gamma_grad_wilson_hilferty(alpha, x):
    """dx/dalpha holding z = ((x / alpha)^(1/3) - 1 + s^2) / s fixed, s = 1 / sqrt(9 alpha): the cube
    root of a gamma variable is nearly normal for large alpha."""
    cube_root = np.cbrt(x / alpha)
    s = 1.0 / np.sqrt(9.0 * alpha)
    dz_dx = cube_root / (3.0 * x * s)
    dz_dalpha = -cube_root / (3.0 * alpha * s) + (cube_root - 1.0) / (2.0 * alpha * s) - s / (2.0 * alpha)
    return -dz_dalpha / dz_dx


def standard_gamma_grad(alpha, x):
    """dx/dalpha for samples x of Gamma(alpha, 1) (arrays in, an array of x's dtype out)."""
    alpha64, x64 = np.broadcast_arrays(np.asarray(alpha, np.float64), np.asarray(x, np.float64))
    result = np.empty(alpha64.shape)
    large = alpha64 >= _SERIES_LIMIT
    with np.errstate(all="ignore"):
        if large.any():
            result[large] = _gamma_grad_wilson_hilferty(alpha64[large], x64[large])
        if not large.all():
            result[~large] = _gamma_grad_series(alpha64[~large], x64[~large])
    return result.astype(np.result_type(x), copy=False)


class StandardGammaGrad(Primitive, node="StandardGammaGradBackward0"):
    """The derivative of a gamma sample with respect to its concentration (not differentiable
    again, as in PyTorch)."""

    @staticmethod
    def forward(ctx, alpha, x):
        return standard_gamma_grad(alpha, x)

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError("the derivative for '_standard_gamma_grad' is not implemented.")


class StandardGamma(Primitive, node="StandardGammaBackward0"):
    """Samples of Gamma(concentration, 1), clamped to the dtype's smallest normal number so that
    their logarithms stay finite; differentiable in the concentration (see the module's note)."""

    @staticmethod
    def forward(ctx, alpha):
        samples = _rng().standard_gamma(alpha.astype(np.float64))
        samples = np.maximum(samples, np.finfo(alpha.dtype).tiny).astype(alpha.dtype)
        ctx.save_for_backward(alpha, samples)
        return samples

    @staticmethod
    def backward(ctx, grad):
        alpha, samples = ctx.saved_tensors
        return grad * StandardGammaGrad.apply(alpha, samples)


def standard_gamma(concentration):
    """One Gamma(concentration, 1) sample per element, reparameterized."""
    return StandardGamma.apply(concentration)


def poisson(rate):
    """One Poisson(rate) count per element, in rate's dtype (not differentiable)."""
    rate_array = rate.detach().numpy()
    return new_tensor(_rng().poisson(rate_array.astype(np.float64)).astype(rate_array.dtype))


def binomial(total_count, probs):
    """One Binomial(total_count, probs) count per element, in probs' dtype (not differentiable)."""
    count_array = total_count.detach().numpy() if isinstance(total_count, Tensor) else np.asarray(total_count)
    probs_array = probs.detach().numpy()
    counts = _rng().binomial(count_array.astype(np.int64), np.clip(probs_array.astype(np.float64), 0.0, 1.0))
    return new_tensor(counts.astype(probs_array.dtype))
