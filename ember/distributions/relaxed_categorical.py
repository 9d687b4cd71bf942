"""`RelaxedOneHotCategorical` (the Concrete / Gumbel-softmax distribution) and its log form."""

from .. import ops as _ops
from .._size import Size
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    """ExpRelaxedCategorical(temperature, probs=None, logits=None): log of a Concrete draw,
    (logits + Gumbel noise) / temperature normalized by its logsumexp."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        batch_shape = Size(batch_shape)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        super(ExpRelaxedCategorical, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def logits(self):
        """The normalized log-probabilities of the categories."""
        return self._categorical.logits

    @property
    def probs(self):
        """The probabilities of the categories."""
        return self._categorical.probs

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        uniforms = clamp_probs(_ops.rand(shape, dtype=self.logits.dtype))
        gumbels = -(-uniforms.log()).log()
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(-1, keepdim=True)

    def log_prob(self, value):
        """log (K-1)! + (K-1) log t + sum_k (l_k - t y_k) - K logsumexp(l - t y)."""
        count = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        temperature = _ops.as_tensor(self.temperature, dtype=self.logits.dtype)
        log_scale = _ops.tensor(float(count), dtype=self.logits.dtype).lgamma() + (count - 1) * temperature.log()
        score = self.logits - value * temperature
        return (score - score.logsumexp(-1, keepdim=True)).sum(-1) + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """RelaxedOneHotCategorical(temperature, probs=None, logits=None): points of the simplex that
    approach one-hot draws of the Categorical as the temperature falls (reparameterizable)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(Size(batch_shape), _instance=new)

    @property
    def temperature(self):
        """The relaxation temperature: towards 0 samples approach one-hot vectors."""
        return self.base_dist.temperature

    @property
    def logits(self):
        """The normalized log-probabilities of the categories."""
        return self.base_dist.logits

    @property
    def probs(self):
        """The probabilities of the categories."""
        return self.base_dist.probs
