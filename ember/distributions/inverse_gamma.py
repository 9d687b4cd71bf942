"""`InverseGamma`: 1 / X for X ~ Gamma(concentration, rate)."""

import math

from .. import ops as _ops
from .._size import Size
from . import constraints
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    """InverseGamma(concentration, rate): density rate**a x**(-a - 1) exp(-rate / x) / Gamma(a)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base_dist = Gamma(concentration, rate, validate_args=validate_args)
        negative_one = -_ops.ones_like(base_dist.rate)
        super().__init__(base_dist, PowerTransform(negative_one), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(Size(batch_shape), _instance=new)

    @property
    def concentration(self):
        """The shape parameter (that of the Gamma distribution of 1 / X)."""
        return self.base_dist.concentration

    @property
    def rate(self):
        """The rate of the Gamma distribution of 1 / X (the scale of X)."""
        return self.base_dist.rate

    @property
    def mean(self):
        result = self.rate / (self.concentration - 1)
        return _ops.where(self.concentration > 1, result, math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        shape = self.concentration
        result = self.rate.pow(2) / ((shape - 1).pow(2) * (shape - 2))
        return _ops.where(shape > 2, result, math.inf)

    def entropy(self):
        shape = self.concentration
        return shape + self.rate.log() + shape.lgamma() - (1 + shape) * shape.digamma()
