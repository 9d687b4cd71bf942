"""`StudentT`: heavy-tailed location-scale distributions with `df` degrees of freedom."""

import math

from .. import ops as _ops
from .._size import Size
from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import broadcast_all, standard_normal

__all__ = ["StudentT"]


class StudentT(Distribution):
    """StudentT(df, loc=0.0, scale=1.0): loc + scale * Z / sqrt(V / df), Z standard normal and V
    chi-squared with df degrees of freedom. Mean exists for df > 1, variance for df > 2."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = Size(batch_shape)
        new.df = self.df.expand(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new._chi2 = self._chi2.expand(batch_shape)
        super(StudentT, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return _ops.where(self.df > 1, self.loc, float("nan"))

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        df = self.df
        finite = self.scale.pow(2) * df / (df - 2)
        infinite_or_nan = _ops.where(df > 1, float("inf"), float("nan"))
        return _ops.where(df > 2, finite, infinite_or_nan)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        normal = standard_normal(shape, self.df.dtype)
        chi2 = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * normal * (chi2 / self.df).rsqrt()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        standardized = (value - self.loc) / self.scale
        log_normalizer = (
            self.scale.log()
            + 0.5 * self.df.log()
            + 0.5 * math.log(math.pi)
            + (0.5 * self.df).lgamma()
            - (0.5 * (self.df + 1.0)).lgamma()
        )
        return -0.5 * (self.df + 1.0) * (standardized.pow(2) / self.df).log1p() - log_normalizer

    def entropy(self):
        half_df = 0.5 * self.df
        half_df_plus_half = 0.5 * (self.df + 1)
        log_beta = half_df.lgamma() + math.lgamma(0.5) - half_df_plus_half.lgamma()
        return (
            self.scale.log()
            + half_df_plus_half * (half_df_plus_half.digamma() - half_df.digamma())
            + 0.5 * self.df.log()
            + log_beta
        )
