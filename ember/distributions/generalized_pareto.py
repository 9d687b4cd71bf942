"""`GeneralizedPareto`: the limit distribution of exceedances over a threshold."""

import math
import numbers

from .. import ops as _ops
from .._size import Size
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """GeneralizedPareto(loc, scale, concentration xi): survival (1 + xi z)**(-1/xi) with
    z = (x - loc) / scale (exp(-z) at xi = 0). Exponential at xi = 0, a Pareto for xi > 0 and a
    Uniform at xi = -1. The formulas switch to their xi -> 0 limits where xi is close to 0."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        numbers_only = all(isinstance(value, numbers.Number) for value in (loc, scale, concentration))
        super().__init__(Size() if numbers_only else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        super(GeneralizedPareto, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _near_zero_and_safe(self):
        """(xi close to 0, xi with those entries replaced by 1 so both branches stay finite)."""
        near_zero = _ops.isclose(self.concentration, _ops.zeros_like(self.concentration))
        return near_zero, _ops.where(near_zero, 1.0, self.concentration)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        return self.icdf(_ops.rand(shape, dtype=self.loc.dtype))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        near_zero, xi = self._near_zero_and_safe()
        power = 1 / xi + 1
        general = _ops.where(power == 0, power, power * (xi * z).log1p())
        return -self.scale.log() - _ops.where(near_zero, z, general)

    def log_survival_function(self, value):
        """log P(X > value)."""
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        near_zero, xi = self._near_zero_and_safe()
        return _ops.where(near_zero, -z, -(xi * z).log1p() / xi)

    def log_cdf(self, value):
        """log P(X <= value)."""
        return (-self.log_survival_function(value).exp()).log1p()

    def cdf(self, value):
        return self.log_cdf(value).exp()

    def icdf(self, value):
        near_zero, xi = self._near_zero_and_safe()
        log_survival = (-value).log1p()
        general = self.loc + self.scale / xi * (-xi * log_survival).expm1()
        return _ops.where(near_zero, self.loc - self.scale * log_survival, general)

    @property
    def mean(self):
        finite = self.concentration < 1
        xi = _ops.where(finite, self.concentration, 0.5)
        return _ops.where(finite, self.loc + self.scale / (1 - xi), math.nan)

    @property
    def variance(self):
        finite = self.concentration < 0.5
        xi = _ops.where(finite, self.concentration, 0.25)
        return _ops.where(finite, self.scale.pow(2) / ((1 - xi).pow(2) * (1 - 2 * xi)), math.nan)

    @property
    def mode(self):
        return self.loc

    def entropy(self):
        return (self.scale.log() + self.concentration + 1).broadcast_to(self._batch_shape)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        upper = _ops.where(self.concentration < 0, self.loc - self.scale / self.concentration, math.inf)
        return constraints.interval(self.loc, upper)
