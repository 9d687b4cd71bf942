"""`LogisticNormal`: a Normal pushed onto the simplex by stick breaking."""

from .._size import Size
from . import constraints
from .independent import Independent
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import StickBreakingTransform

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """LogisticNormal(loc, scale): StickBreakingTransform of Normal(loc, scale) over the last dim,
    so K - 1 normal coordinates give a point of the K-simplex."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base_dist = Normal(loc, scale, validate_args=validate_args)
        if not base_dist.batch_shape:
            base_dist = base_dist.expand([1])
        super().__init__(base_dist, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogisticNormal, _instance)
        return super().expand(Size(batch_shape), _instance=new)

    @property
    def loc(self):
        """The mean of the underlying Normal."""
        return self._normal().loc

    @property
    def scale(self):
        """The standard deviation of the underlying Normal."""
        return self._normal().scale

    def _normal(self):
        base = self.base_dist
        return base.base_dist if isinstance(base, Independent) else base
