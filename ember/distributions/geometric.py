"""`Geometric`: the number of failures before the first success in Bernoulli(probs) trials."""

import numbers

from .. import _dtype, ops as _ops, special as _special
from .._size import Size
from ..autograd import no_grad
from ..nn.functional import binary_cross_entropy_with_logits
from . import constraints
from .bernoulli import one_parametrization
from .distribution import Distribution
from .utils import BinaryParameters, broadcast_all

__all__ = ["Geometric"]


class Geometric(BinaryParameters, Distribution):
    """Geometric(probs=None, logits=None): P(k) = (1 - p)^k p for k = 0, 1, 2, ... (0 < p <= 1)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        one_parametrization(probs, logits)
        given = probs if probs is not None else logits
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        param = self.probs if probs is not None else self.logits
        batch_shape = Size() if isinstance(given, numbers.Number) else param.size()
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            positive = self.probs > 0
            if not bool(positive.all()):
                raise ValueError(
                    f"Expected parameter probs ({type(self.probs).__name__} of shape "
                    f"{tuple(self.probs.shape)}) of distribution {self!r} to be positive but found "
                    f"invalid values:\n{self.probs.detach()[~positive]}"
                )

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Geometric, _instance)
        batch_shape = Size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
        super(Geometric, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return _ops.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        tiny = _dtype.finfo(self.probs.dtype).tiny
        with no_grad():
            uniform = _ops.rand(shape, dtype=self.probs.dtype).clamp(min=tiny)
            return (uniform.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # k log(1 - p) with 0 * log(0) = 0, so that P(0) = 1 when p = 1
        return _special.xlog1py(value, -probs) + self.probs.log()

    def entropy(self):
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs
