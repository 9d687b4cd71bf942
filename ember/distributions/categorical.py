"""`Categorical`: one of K categories, drawn with probabilities `probs` (or softmax(`logits`))."""

from .. import _dtype, ops as _ops
from .._size import Size
from ..autograd import no_grad
from . import constraints
from .bernoulli import one_parametrization
from .distribution import Distribution
from .utils import lazy_property, logits_to_probs, normalized_logits, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    """Categorical(probs=None, logits=None) over {0, ..., K - 1}, K = the last dimension of the
    parameter (the other dimensions are the batch). `probs` need not sum to 1 (they are
    normalized); logits are shifted so that they are log-probabilities. Samples are int64."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        one_parametrization(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = normalized_logits(logits)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.dim() > 1 else Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = Size(batch_shape)
        param_shape = batch_shape + Size((self._num_events,))
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(param_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(param_shape)
            new._param = new.logits
        new._num_events = self._num_events
        super(Categorical, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        """The shape of `probs` (or `logits`): `batch_shape + (number of categories,)`."""
        return self._param.size()

    @property
    def mean(self):
        return _ops.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    @property
    def mode(self):
        return self.probs.argmax(-1)

    @property
    def variance(self):
        return _ops.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    def sample(self, sample_shape=Size()):
        sample_shape = Size(sample_shape)
        with no_grad():
            rows = self.probs.reshape(-1, self._num_events)
            draws = _ops.multinomial(rows, sample_shape.numel(), True).T
        return draws.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        shape = Size(_ops.broadcast_shapes(value.shape, self.logits.shape))
        value = value.expand(shape[:-1] + Size((1,)))
        return self.logits.expand(shape).gather(-1, value).squeeze(-1)

    def entropy(self):
        # a zero probability has logit -inf: clamp so that 0 * logit is 0, not nan
        logits = self.logits.clamp(min=_dtype.finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        values = _ops.arange(self._num_events).reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
