"""Samples drawn with a tensor's values as parameters: `poisson` (rates) and `binomial` (counts and
probabilities). Both draw from the one seedable generator (`creation.default_generator`)."""

from .._backend import np
from .._tensor import Tensor, new_tensor
from .. import _dtype
from ..autograd.function import Primitive
from ._declare import op
from .creation import _rng

__all__ = ["poisson", "binomial"]


class Poisson(Primitive, node="PoissonBackward0"):
    """A draw is a step function of its rate: the gradient is zero, as PyTorch's."""

    @staticmethod
    def forward(ctx, rates, generator):
        return _rng(generator).poisson(rates.astype(np.float64)).astype(rates.dtype)

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
    probabilities = prob._data.astype(np.float64)
    if ((probabilities < 0) | (probabilities > 1)).any():
        raise RuntimeError("binomial: expected prob to be in [0, 1]")
    draws = _rng(generator).binomial(count._data.astype(np.int64), probabilities)
    return new_tensor(np.asarray(draws).astype(count._data.dtype))
