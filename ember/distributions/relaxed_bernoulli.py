"""`RelaxedBernoulli` (the binary Concrete / Gumbel-softmax distribution) and its logit form."""

import numbers

from .. import ops as _ops
from .._size import Size
from . import constraints
from .bernoulli import one_parametrization
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import BinaryParameters, broadcast_all, clamp_probs

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(BinaryParameters, Distribution):
    """LogitRelaxedBernoulli(temperature, probs=None, logits=None): (logits + logistic noise) /
    temperature, a reparameterizable relaxation of a Bernoulli's logit."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        one_parametrization(probs, logits)
        self.temperature = temperature
        given = probs if probs is not None else logits
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch_shape = Size() if isinstance(given, numbers.Number) else self._param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogitRelaxedBernoulli, _instance)
        batch_shape = Size(batch_shape)
        new.temperature = self.temperature
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(LogitRelaxedBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(_ops.rand(shape, dtype=probs.dtype))
        logistic_noise = uniforms.log() - (-uniforms).log1p()
        return (logistic_noise + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        difference = logits - value * self.temperature
        return _log(self.temperature) + difference - 2 * difference.exp().log1p()


def _log(value):
    if isinstance(value, numbers.Number):
        return _ops.tensor(float(value)).log()
    return value.log()


class RelaxedBernoulli(TransformedDistribution):
    """RelaxedBernoulli(temperature, probs=None, logits=None): sigmoid of a LogitRelaxedBernoulli,
    on (0, 1); as the temperature falls, draws approach 0/1 Bernoulli draws."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(Size(batch_shape), _instance=new)

    @property
    def temperature(self):
        """The relaxation temperature: small values give samples close to 0 or 1."""
        return self.base_dist.temperature

    @property
    def logits(self):
        """The log-odds of the underlying Bernoulli."""
        return self.base_dist.logits

    @property
    def probs(self):
        """The probability of the underlying Bernoulli."""
        return self.base_dist.probs
