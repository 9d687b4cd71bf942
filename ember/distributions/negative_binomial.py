"""`NegativeBinomial`: successes counted before `total_count` failures."""

from .. import ops as _ops
from .._size import Size
from ..autograd import no_grad
from ..nn.functional import logsigmoid
from . import constraints
from ._samplers import poisson
from .bernoulli import one_parametrization
from .distribution import Distribution
from .gamma import Gamma
from .utils import BinaryParameters, broadcast_all

__all__ = ["NegativeBinomial"]


class NegativeBinomial(BinaryParameters, Distribution):
    """NegativeBinomial(total_count r, probs p=None, logits=None): the number of successes (each
    with probability p) before r failures; P(k) = C(k + r - 1, k) p**k (1 - p)**r. Drawn as a
    Poisson with a Gamma(r, (1 - p) / p) rate."""

    arg_constraints = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        one_parametrization(probs, logits)
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(NegativeBinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(NegativeBinomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.total_count * self.logits.exp()

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / (-self.logits).sigmoid()

    def sample(self, sample_shape=Size()):
        with no_grad():
            rates = Gamma(self.total_count, (-self.logits).exp(), validate_args=False).sample(sample_shape)
            return poisson(rates)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized = self.total_count * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        log_binomial = (self.total_count + value).lgamma() - (1 + value).lgamma() - self.total_count.lgamma()
        # r + k = 0 (no draws at all) has probability 1 there: no coefficient
        log_binomial = _ops.where(self.total_count + value == 0, 0.0, log_binomial)
        return log_unnormalized + log_binomial
