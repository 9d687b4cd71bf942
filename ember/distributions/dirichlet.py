"""`Dirichlet`: distributions over the probability simplex."""

from .. import ops as _ops
from ..autograd.function import Function, once_differentiable
from ..nn.functional import one_hot
from .._size import Size
from . import constraints
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


class _Dirichlet(Function):
    """A Dirichlet sample, differentiated implicitly as PyTorch does: each coordinate x_i is a Beta
    variable whose quantile stays fixed as alpha_i moves (`_dirichlet_grad` approximates that
    derivative), corrected so that the sample stays on the simplex."""

    @staticmethod
    def forward(ctx, concentration):
        x = _ops._sample_dirichlet(concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        x, concentration = ctx.saved_tensors
        total = concentration.sum(-1, True).expand_as(concentration)
        grad = _ops._dirichlet_grad(x, concentration, total)
        return grad * (grad_output - (x * grad_output).sum(-1, True))


class Dirichlet(ExponentialFamily):
    """Dirichlet(concentration): density proportional to prod_i x_i^(c_i - 1) on the simplex;
    event_shape is the last dimension of `concentration`. `rsample` draws PyTorch's numbers after the
    same seed and differentiates them as PyTorch does (`_Dirichlet`).
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self.event_shape)
        super(Dirichlet, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return _Dirichlet.apply(self.concentration.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        concentration = self.concentration
        return (
            _ops.xlogy(concentration - 1, value).sum(-1)
            + concentration.sum(-1).lgamma()
            - concentration.lgamma().sum(-1)
        )

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        shifted = (self.concentration - 1).clamp(min=0.0)
        mode = shifted / shifted.sum(-1, keepdim=True)
        # with every concentration below 1 the density peaks at a vertex: the largest concentration's
        all_below_one = (self.concentration < 1).all(-1, keepdim=True)
        vertex = _one_hot_of_largest(self.concentration)
        return mode.masked_fill(all_below_one, 0.0) + vertex * all_below_one.to(mode.dtype)

    @property
    def variance(self):
        total = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (total - self.concentration) / (total.pow(2) * (total + 1))

    def entropy(self):
        k = self.concentration.size(-1)
        concentration = self.concentration
        total = concentration.sum(-1)
        return (
            concentration.lgamma().sum(-1)
            - total.lgamma()
            - (k - total) * total.digamma()
            - ((concentration - 1.0) * concentration.digamma()).sum(-1)
        )

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - x.sum(-1).lgamma()


def _one_hot_of_largest(concentration):
    return one_hot(concentration.argmax(-1), concentration.shape[-1]).to(concentration.dtype)
