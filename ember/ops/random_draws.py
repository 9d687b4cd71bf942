"""Samples drawn with a tensor's values as parameters: `poisson` (rates), `binomial` (counts and
probabilities), `_standard_gamma` (concentrations) and `_sample_dirichlet`, with the reparameterized
gradients of the last two (`_standard_gamma_grad`, `_dirichlet_grad`).

All draw from a seedable generator (`creation.default_generator` unless one is given) with PyTorch's
CPU algorithms, element by element in the output's flat order, so `manual_seed(s)` gives PyTorch's
numbers (kernels in `_rejection_sampling`, gradients in `_sample_gradients`).
"""

from .._backend import np
from .._tensor import Tensor, new_tensor
from .. import _dtype
from ..autograd.function import Primitive, not_implemented
from . import _rejection_sampling, _sample_gradients
from ._declare import op
from .creation import _engine

__all__ = ["poisson", "binomial", "_standard_gamma", "_standard_gamma_grad", "_sample_dirichlet", "_dirichlet_grad"]


def _flat(array):
    return np.ascontiguousarray(array).ravel()


class Poisson(Primitive, node="PoissonBackward0"):
    """A draw is a step function of its rate: the gradient is zero, as PyTorch's."""

    @staticmethod
    def forward(ctx, rates, generator):
        return _rejection_sampling.poisson(_engine(generator), _flat(rates)).reshape(rates.shape)

    @staticmethod
    def backward(ctx, grad):
        return grad * 0, None

    @staticmethod
    def jvp(ctx, tangent, tangent_generator):
        return None if tangent is None else tangent * 0


@op(Poisson)
def poisson(input, generator=None):
    """A Poisson draw for each element, with the element as its rate (same dtype as `input`)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"poisson(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if input._data.dtype.kind not in "fV":
        raise NotImplementedError(f"\"poisson_cpu\" not implemented for '{_dtype.kernel_name(input.dtype)}'")
    if (input._data < 0).any():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return Poisson.apply(input, generator)


@op()
def binomial(count, prob, generator=None):
    """A binomial draw for each element: `count` trials with success probability `prob` (float tensors,
    broadcast); the number of successes, in `count`'s dtype."""
    for name, value in (("count", count), ("prob", prob)):
        if not isinstance(value, Tensor) or value._data.dtype.kind not in "fV":
            got = _dtype.kernel_name(value.dtype) if isinstance(value, Tensor) else type(value).__name__
            raise ValueError(f"binomial only supports floating-point dtypes for {name}, got: {got}")
    if count.dtype != prob.dtype:
        raise RuntimeError(
            f"binomial: found dtype {_dtype.kernel_name(prob.dtype)} but expected {_dtype.kernel_name(count.dtype)} "
            "(count and prob must have one dtype: convert one with .to())"
        )
    if ((prob._data < 0) | (prob._data > 1)).any():
        raise RuntimeError("binomial: expected prob to be in [0, 1]")
    counts, probabilities = np.broadcast_arrays(count._data, prob._data)
    draws = _rejection_sampling.binomial(_engine(generator), _flat(counts), _flat(probabilities))
    return new_tensor(draws.reshape(counts.shape))


def _check_floating(input, op_name, kernel_name):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op_name}(): argument 'self' (position 1) must be Tensor, not {type(input).__name__}")
    if input._data.dtype not in (np.float32, np.float64):
        raise NotImplementedError(f"\"{kernel_name}\" not implemented for '{_dtype.kernel_name(input.dtype)}'")


class StandardGamma(Primitive, node="StandardGammaBackward0"):
    """Gamma(alpha, 1) samples, differentiable in alpha by implicit reparameterization: the sample
    moves with alpha so that its quantile stays fixed (`_standard_gamma_grad` gives dx/dalpha)."""

    @staticmethod
    def forward(ctx, alpha, generator):
        samples = _rejection_sampling.standard_gamma(_engine(generator), _flat(alpha)).reshape(alpha.shape)
        ctx.save_for_backward(alpha, samples)
        return samples

    @staticmethod
    def backward(ctx, grad):
        alpha, samples = ctx.saved_tensors
        return grad * _standard_gamma_grad(alpha, samples), None


@op(StandardGamma)
def _standard_gamma(input, generator=None):
    """One Gamma(input, 1) sample per element (PyTorch's private `torch._standard_gamma`, behind
    `distributions.Gamma.rsample`), at least the dtype's smallest normal number."""
    _check_floating(input, "_standard_gamma", "gamma_cpu")
    return StandardGamma.apply(input, generator)


class StandardGammaGrad(Primitive, node="StandardGammaGradBackward0"):
    """PyTorch's approximation of dx/dalpha (not differentiable again, as in PyTorch)."""

    @staticmethod
    def forward(ctx, alpha, samples):
        return _sample_gradients.standard_gamma_grad(alpha, samples)

    @staticmethod
    def backward(ctx, grad):
        raise not_implemented("_standard_gamma_grad")


@op(StandardGammaGrad)
def _standard_gamma_grad(input, output):
    """d(sample)/d(concentration) for samples `output` of Gamma(input, 1)."""
    return StandardGammaGrad.apply(input, output)


class SampleDirichlet(Primitive, node="NotImplemented"):
    """Dirichlet samples: double gamma draws normalized along the last dimension; the gradient comes
    from `distributions.Dirichlet.rsample`, not from this op (as in PyTorch). Identical to PyTorch's
    up to 4 categories; beyond, its vectorized row sum adds in its own order, so float64 samples may
    differ by a few units in the last place."""

    @staticmethod
    def forward(ctx, concentration, generator):
        gammas = _rejection_sampling.standard_gamma(_engine(generator), _flat(concentration), in_double=True)
        gammas = gammas.reshape(concentration.shape)
        samples = (gammas / gammas.sum(-1, keepdims=True)).astype(concentration.dtype)
        info = np.finfo(concentration.dtype)
        return np.clip(samples, info.tiny, np.nextafter(concentration.dtype.type(1), 0))

    @staticmethod
    def backward(ctx, grad):
        raise not_implemented("_sample_dirichlet")


@op(SampleDirichlet)
def _sample_dirichlet(input, generator=None):
    """One Dirichlet(input) sample per row of the last dimension (PyTorch's `torch._sample_dirichlet`)."""
    _check_floating(input, "_sample_dirichlet", "dirichlet")
    return SampleDirichlet.apply(input, generator)


class DirichletGrad(Primitive, node="NotImplemented"):
    """PyTorch's approximation of the Dirichlet reparameterized gradient (not differentiable)."""

    @staticmethod
    def forward(ctx, x, alpha, total):
        return _sample_gradients.dirichlet_grad(x, alpha, total)

    @staticmethod
    def backward(ctx, grad):
        raise not_implemented("_dirichlet_grad")


@op(DirichletGrad)
def _dirichlet_grad(x, alpha, total):
    """d x_i / d alpha_i (scaled) for Dirichlet samples x of concentrations alpha summing to total."""
    return DirichletGrad.apply(x, alpha, total)
