"""`Multinomial`: counts of `total_count` categorical draws over K categories."""

from .. import ops as _ops
from .._size import Size
from ..autograd import no_grad
from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """Multinomial(total_count=1, probs=None, logits=None): event_shape (K,), samples are count
    vectors summing to `total_count` (an int, shared by the batch), in the parameter's dtype."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        new._binomial = Binomial(total_count=self.total_count, probs=new._categorical.probs)
        super(Multinomial, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def _param(self):
        return self._categorical._param

    @property
    def probs(self):
        """The probability of each category in one draw."""
        return self._categorical.probs

    @property
    def logits(self):
        """The normalized log-probabilities of the categories."""
        return self._categorical.logits

    @property
    def param_shape(self):
        """The shape of `probs` (and `logits`)."""
        return self._categorical.param_shape

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size()):
        sample_shape = Size(sample_shape)
        with no_grad():
            draws = self._categorical.sample(Size((self.total_count,)) + sample_shape)  # (n, *sample, *batch)
            counts = _ops.zeros(self._extended_shape(sample_shape), dtype=self.probs.dtype)
            ones = _ops.ones(draws.shape[1:] + (1,), dtype=self.probs.dtype)
            for draw in draws:  # total_count scatter-adds of one category each
                counts.scatter_add_(-1, draw.unsqueeze(-1), ones)
        return counts

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits = self.logits
        # 0 * log(0) counts as 0: a category of probability 0 that was never drawn adds nothing
        logits = _ops.where((value == 0) & (logits == float("-inf")), 0.0, logits)
        log_coefficient = (value.sum(-1) + 1).lgamma() - (value + 1).lgamma().sum(-1)
        return log_coefficient + (value * logits).sum(-1)

    def entropy(self):
        """n H(categorical) - log n! + sum_i E[log x_i!], each x_i ~ Binomial(n, p_i)."""
        n = self.total_count
        counts = self._binomial.enumerate_support(expand=False)  # (n + 1, 1, ..., 1)
        count_probabilities = self._binomial.log_prob(counts).exp()
        expected_log_factorials = (counts + 1).lgamma() * count_probabilities
        categorical_entropy = self._categorical.entropy()
        log_n_factorial = _ops.tensor(float(n + 1), dtype=self.probs.dtype).lgamma()
        return n * categorical_entropy - log_n_factorial + expected_log_factorials.sum((0, -1))
