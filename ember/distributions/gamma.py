"""`Gamma`: the gamma distribution with shape `concentration` and inverse scale `rate`."""

import numbers

from .. import _dtype, ops as _ops, special as _special
from .._size import Size
from . import constraints
from ._samplers import standard_gamma
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """Gamma(concentration, rate): density rate^c x^(c-1) exp(-rate x) / Gamma(c) on x >= 0.

    `rsample` is reparameterized by implicit differentiation (see `_samplers`); its gradient with
    respect to the concentration is exact where PyTorch's is an approximation, so the two agree to
    about 1e-3.
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        batch_shape = (
            Size()
            if isinstance(concentration, numbers.Number) and isinstance(rate, numbers.Number)
            else self.concentration.size()
        )
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Gamma, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        value = standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        return _keep_positive(value)

    def log_prob(self, value):
        value = _ops.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (
            _ops.xlogy(self.concentration, self.rate)
            + _ops.xlogy(self.concentration - 1, value)
            - self.rate * value
            - self.concentration.lgamma()
        )

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return _special.gammainc(self.concentration, self.rate * value)

    def entropy(self):
        concentration = self.concentration
        return (
            concentration - self.rate.log() + concentration.lgamma() + (1.0 - concentration) * concentration.digamma()
        )

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return (x + 1).lgamma() + (x + 1) * (-y.reciprocal()).log()


def _keep_positive(value):
    """`value` with underflowed zeros raised to the dtype's smallest normal number, as a constant
    shift outside the graph (the gradient is that of `value`)."""
    tiny = _dtype.finfo(value.dtype).tiny
    detached = value.detach()
    return value + (detached.clamp(min=tiny) - detached)
