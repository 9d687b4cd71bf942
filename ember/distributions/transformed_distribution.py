"""`TransformedDistribution`: a base distribution pushed through a chain of transforms."""

from .._size import Size
from . import constraints
from .distribution import Distribution
from .independent import Independent
from .transforms import ComposeTransform, Transform
from .utils import sum_rightmost

__all__ = ["TransformedDistribution"]


class TransformedDistribution(Distribution):
    """TransformedDistribution(base_distribution, transforms): draws are
    `transforms[-1](...transforms[0](base draw))`, and `log_prob` applies the change of variables
    log p(y) = log p_base(x) - sum of log |det J| along the chain.

    When the transforms need more event dims than the base has (a StickBreakingTransform on a
    Normal over vectors), the base's rightmost batch dims become event dims (Independent).
    """

    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list) and all(isinstance(t, Transform) for t in transforms):
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or a list of Transforms, but was {transforms}")
        chain = ComposeTransform(self.transforms)
        base_shape = base_distribution.batch_shape + base_distribution.event_shape
        base_event_dim = len(base_distribution.event_shape)
        if len(base_shape) < chain.domain.event_dim:
            raise ValueError(
                f"base_distribution needs to have shape with size at least {chain.domain.event_dim}, "
                f"but got {base_shape}."
            )
        forward_shape = chain.forward_shape(base_shape)
        expanded_base_shape = chain.inverse_shape(forward_shape)
        if base_shape != expanded_base_shape:  # a transform's parameters broadcast the base
            base_batch_shape = expanded_base_shape[: len(expanded_base_shape) - base_event_dim]
            base_distribution = base_distribution.expand(base_batch_shape)
        reinterpreted_batch_ndims = chain.domain.event_dim - base_event_dim
        if reinterpreted_batch_ndims > 0:
            base_distribution = Independent(base_distribution, reinterpreted_batch_ndims)
        self.base_dist = base_distribution
        event_dim = max(chain.codomain.event_dim, base_event_dim + chain.codomain.event_dim - chain.domain.event_dim)
        cut = len(forward_shape) - event_dim
        super().__init__(forward_shape[:cut], forward_shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(TransformedDistribution, _instance)
        batch_shape = Size(batch_shape)
        base_shape = batch_shape + self.event_shape
        for transform in reversed(self.transforms):
            base_shape = transform.inverse_shape(base_shape)
        base_batch_shape = base_shape[: len(base_shape) - len(self.base_dist.event_shape)]
        new.base_dist = self.base_dist.expand(base_batch_shape)
        new.transforms = self.transforms
        super(TransformedDistribution, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=False)
    def support(self):
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self.event_shape) > support.event_dim:
            support = constraints.independent(support, len(self.event_shape) - support.event_dim)
        return support

    @property
    def has_rsample(self):
        """Whether the base distribution has `rsample` (the transforms are differentiable)."""
        return self.base_dist.has_rsample

    def sample(self, sample_shape=Size()):
        value = self.base_dist.sample(sample_shape)
        for transform in self.transforms:
            value = transform(value)
        return value

    def rsample(self, sample_shape=Size()):
        value = self.base_dist.rsample(sample_shape)
        for transform in self.transforms:
            value = transform(value)
        return value

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self.event_shape)
        log_prob = 0.0
        y = value
        for transform in reversed(self.transforms):
            x = transform.inv(y)
            event_dim += transform.domain.event_dim - transform.codomain.event_dim
            log_prob = log_prob - sum_rightmost(
                transform.log_abs_det_jacobian(x, y), event_dim - transform.domain.event_dim
            )
            y = x
        return log_prob + sum_rightmost(self.base_dist.log_prob(y), event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value):
        """The cdf of the base read through decreasing transforms is 1 - cdf."""
        sign = 1
        for transform in self.transforms:
            sign = sign * transform.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value):
        for transform in reversed(self.transforms):
            value = transform.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value):
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for transform in self.transforms:
            value = transform(value)
        return value
