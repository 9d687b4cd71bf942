"""`FisherSnedecor`: the F distribution, a ratio of scaled chi-squared variables."""

import math
import numbers

from .. import _dtype, ops as _ops
from .._size import Size
from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import broadcast_all

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """FisherSnedecor(df1, df2): (X1 / df1) / (X2 / df2) for independent chi-squared X1, X2."""

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)  # chi2(df1) / df1
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        numbers_only = isinstance(df1, numbers.Number) and isinstance(df2, numbers.Number)
        super().__init__(Size() if numbers_only else self.df1.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(FisherSnedecor, _instance)
        batch_shape = Size(batch_shape)
        new.df1 = self.df1.expand(batch_shape)
        new.df2 = self.df2.expand(batch_shape)
        new._gamma1 = self._gamma1.expand(batch_shape)
        new._gamma2 = self._gamma2.expand(batch_shape)
        super(FisherSnedecor, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return _ops.where(self.df2 > 2, self.df2 / (self.df2 - 2), math.nan)

    @property
    def mode(self):
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return _ops.where(self.df1 > 2, mode, math.nan)

    @property
    def variance(self):
        df1, df2 = self.df1, self.df2
        variance = 2 * df2.pow(2) * (df1 + df2 - 2) / (df1 * (df2 - 2).pow(2) * (df2 - 4))
        return _ops.where(df2 > 4, variance, math.nan)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        tiny = _dtype.finfo(self.df1.dtype).tiny
        numerator = self._gamma1.rsample(sample_shape).reshape(shape)
        denominator = self._gamma2.rsample(sample_shape).reshape(shape).clamp(min=tiny)
        return (numerator / denominator).clamp(min=tiny)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        half1, half2 = self.df1 * 0.5, self.df2 * 0.5
        log_beta = half1.lgamma() + half2.lgamma() - (half1 + half2).lgamma()
        log_scale = half1 * self.df1.log() + half2 * self.df2.log()
        return log_scale - log_beta + (half1 - 1) * value.log() - (half1 + half2) * (self.df2 + self.df1 * value).log()
