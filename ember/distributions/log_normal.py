"""`LogNormal`: exp of a Normal."""

from .._size import Size
from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """LogNormal(loc, scale): exp(X) for X ~ Normal(loc, scale)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogNormal, _instance)
        return super().expand(Size(batch_shape), _instance=new)

    @property
    def loc(self):
        """The mean of the log of the variable (the base Normal's `loc`)."""
        return self.base_dist.loc

    @property
    def scale(self):
        """The standard deviation of the log of the variable (the base Normal's `scale`)."""
        return self.base_dist.scale

    @property
    def mean(self):
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.pow(2)).exp()

    @property
    def variance(self):
        scale_squared = self.scale.pow(2)
        return scale_squared.expm1() * (2 * self.loc + scale_squared).exp()

    def entropy(self):
        return self.base_dist.entropy() + self.loc
