"""`MixtureSameFamily`: a mixture whose components are one batched distribution."""

from .._size import Size
from ..autograd import no_grad
from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """MixtureSameFamily(mixture_distribution, component_distribution): the rightmost batch dim of
    `component_distribution` indexes the K components, mixed with the weights of the Categorical
    `mixture_distribution` (batch shape broadcastable with the components' other batch dims).

    Example: a batch of 2-D Gaussian mixtures with 5 components::

        mix = Categorical(torch.ones(5))
        comp = Independent(Normal(torch.randn(5, 2), torch.rand(5, 2)), 1)
        gmm = MixtureSameFamily(mix, comp)
    """

    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of torch.distributions.Distribution")
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        mixture_batch = mixture_distribution.batch_shape
        component_batch = component_distribution.batch_shape[:-1]
        for mixture_size, component_size in zip(reversed(mixture_batch), reversed(component_batch)):
            if mixture_size != 1 and component_size != 1 and mixture_size != component_size:
                raise ValueError(
                    f"`mixture_distribution.batch_shape` ({mixture_batch}) is not compatible with "
                    f"`component_distribution.batch_shape`({component_batch})"
                )
        mixture_components = mixture_distribution.logits.shape[-1]
        components = component_distribution.batch_shape[-1]
        if mixture_components != components:
            raise ValueError(
                f"`mixture_distribution component` ({mixture_components}) does not equal "
                f"`component_distribution.batch_shape[-1]` ({components})"
            )
        self._num_component = mixture_components
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(component_batch, component_distribution.event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = Size(batch_shape)
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        new._component_distribution = self._component_distribution.expand(batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        super(MixtureSameFamily, new).__init__(
            batch_shape, new._component_distribution.event_shape, validate_args=False
        )
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self):
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self):
        """The Categorical choosing a component."""
        return self._mixture_distribution

    @property
    def component_distribution(self):
        """The batch of components (its rightmost batch dimension indexes them)."""
        return self._component_distribution

    def _weights(self):
        """Mixture probabilities shaped to broadcast against per-component results (..., K, 1...)."""
        return self._mixture_distribution.probs.reshape(
            self._mixture_distribution.probs.shape + (1,) * self._event_ndims
        )

    @property
    def mean(self):
        return (self._weights() * self._component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self):
        """Law of total variance: E[Var(x | k)] + Var(E[x | k])."""
        weights, dim = self._weights(), -1 - self._event_ndims
        means = self._component_distribution.mean
        within = (weights * self._component_distribution.variance).sum(dim)
        between = (weights * (means - self.mean.unsqueeze(dim)).pow(2)).sum(dim)
        return within + between

    def cdf(self, x):
        x = x.unsqueeze(-1 - self._event_ndims)
        return (self._component_distribution.cdf(x) * self._mixture_distribution.probs).sum(-1)

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        per_component = self._component_distribution.log_prob(x.unsqueeze(-1 - self._event_ndims))
        log_weights = self._mixture_distribution.logits.log_softmax(-1)
        return (per_component + log_weights).logsumexp(-1)

    def sample(self, sample_shape=Size()):
        sample_shape = Size(sample_shape)
        with no_grad():
            chosen = self._mixture_distribution.sample(sample_shape)  # (*sample, *batch)
            drawn = self._component_distribution.sample(sample_shape)  # (*sample, *batch, K, *event)
            gather_dim = len(sample_shape) + len(self.batch_shape)
            index = chosen.reshape(chosen.shape + (1,) * (1 + self._event_ndims))
            index = index.expand(drawn.shape[:gather_dim] + (1,) + drawn.shape[gather_dim + 1 :])
            return drawn.gather(gather_dim, index).squeeze(gather_dim)

    def __repr__(self):
        return f"MixtureSameFamily(\n  {self._mixture_distribution!r},\n  {self._component_distribution!r})"
