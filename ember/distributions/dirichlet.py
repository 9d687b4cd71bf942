"""`Dirichlet`: distributions over the probability simplex."""

from .. import _dtype, ops as _ops
from ..nn.functional import one_hot
from .._size import Size
from . import constraints
from ._samplers import standard_gamma
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """Dirichlet(concentration): density proportional to prod_i x_i^(c_i - 1) on the simplex;
    event_shape is the last dimension of `concentration`.

    Difference from PyTorch: `rsample` normalizes reparameterized gamma draws, so its gradient is
    that of the gamma draws composed with the normalization. PyTorch differentiates the Dirichlet
    quantile implicitly instead. Both are unbiased pathwise gradients with the same expectation,
    but they differ draw by draw.
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
        gammas = standard_gamma(self.concentration.expand(shape))
        value = gammas / gammas.sum(-1, keepdim=True)
        # keep draws strictly inside the simplex (so log x and log(1 - x) stay finite) by a constant
        # shift outside the graph
        info = _dtype.finfo(value.dtype)
        detached = value.detach()
        return value + (detached.clamp(min=info.tiny, max=1 - info.eps) - detached)

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
