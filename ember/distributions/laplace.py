"""`Laplace`: the double-exponential distribution around `loc`."""

import math
import numbers

from .. import _dtype, ops as _ops
from .._size import Size
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Laplace"]


class Laplace(Distribution):
    """Laplace(loc, scale): density exp(-|x - loc| / scale) / (2 scale)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        batch_shape = (
            Size() if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number) else self.loc.size()
        )
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Laplace, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        super(Laplace, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return math.sqrt(2) * self.scale

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        eps = _dtype.finfo(self.loc.dtype).eps
        # u uniform on (-1, 1), away from -1 so that log1p(-|u|) is finite
        uniform = _ops.rand(shape, dtype=self.loc.dtype) * (2 - eps) + (eps - 1)
        return self.loc - self.scale * uniform.sign() * (-uniform.abs()).log1p()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        centered = value - self.loc
        return 0.5 - 0.5 * centered.sign() * (-centered.abs() / self.scale).expm1()

    def icdf(self, value):
        centered = value - 0.5
        return self.loc - self.scale * centered.sign() * (-2 * centered.abs()).log1p()

    def entropy(self):
        return 1 + (2 * self.scale).log()
