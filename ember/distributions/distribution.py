"""`Distribution`: the interface every distribution shares (shapes, sampling, densities, moments,
argument and sample validation)."""

from .._size import Size
from .._tensor import Tensor
from ..autograd import no_grad
from . import constraints
from .utils import lazy_property
from .._warn import warn as _warn

__all__ = ["Distribution"]


class Distribution:
    """A probability distribution over tensors of shape `batch_shape + event_shape`.

    `batch_shape` indexes independent distributions (possibly with different parameters);
    `event_shape` is the shape of one draw of one of them. `sample(sample_shape)` returns tensors
    of shape `sample_shape + batch_shape + event_shape` and `log_prob(value)` one number per
    batch element. With validation on (the default, as PyTorch's under `__debug__`), invalid
    parameters and values outside the support raise ValueError naming them.
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument and sample validation on or off for distributions made from now on."""
        if value not in (True, False):
            raise ValueError(f"set_default_validate_args(): value must be True or False, not {value!r}")
        Distribution._validate_args = value

    def __init__(self, batch_shape=Size(), event_shape=Size(), validate_args=None):
        self._batch_shape = Size(batch_shape)
        self._event_shape = Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._validate_parameters()
        super().__init__()

    def _validate_parameters(self):
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            _warn(
                f"{type(self)} does not define `arg_constraints`. Please set `arg_constraints = {{}}` "
                "or initialize the distribution with `validate_args=False` to turn off validation."
            )
        for name, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            if name not in self.__dict__ and isinstance(getattr(type(self), name), lazy_property):
                continue  # the other parametrization (logits for probs) was given; nothing to check
            value = getattr(self, name)
            if not bool(constraint.check(value).all()):
                raise ValueError(
                    f"Expected parameter {name} ({type(value).__name__} of shape {tuple(value.shape)}) "
                    f"of distribution {self!r} to satisfy the constraint {constraint!r}, but found "
                    f"invalid values:\n{value}"
                )

    def expand(self, batch_shape, _instance=None):
        """The same distribution with its parameters expanded (not copied) to `batch_shape`."""
        raise NotImplementedError(f"{type(self).__name__} does not implement expand()")

    @property
    def batch_shape(self):
        """The shape of the batch of independent distributions this object holds (the parameters' broadcast shape)."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of one draw of one distribution (`()` for scalar distributions, `(k,)` for a k-variate one)."""
        return self._event_shape

    @property
    def arg_constraints(self):
        """The constraint each parameter must satisfy, by name."""
        raise NotImplementedError

    @property
    def support(self):
        """The constraint every sample satisfies."""
        raise NotImplementedError

    @property
    def mean(self):
        """The mean, of shape `batch_shape + event_shape` (NaN or inf where it does not exist, as PyTorch)."""
        raise NotImplementedError(f"{type(self)} does not implement mean")

    @property
    def mode(self):
        """The most likely value, of shape `batch_shape + event_shape`."""
        raise NotImplementedError(f"{type(self)} does not implement mode")

    @property
    def variance(self):
        """The variance, of shape `batch_shape + event_shape`."""
        raise NotImplementedError(f"{type(self)} does not implement variance")

    @property
    def stddev(self):
        """The standard deviation, `variance.sqrt()` unless a subclass knows better."""
        return self.variance.sqrt()

    def sample(self, sample_shape=Size()):
        """Draws of shape `sample_shape + batch_shape + event_shape`, outside the autograd graph."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=Size()):
        """Reparameterized draws: differentiable with respect to the parameters."""
        raise NotImplementedError(
            f"{type(self).__name__} does not implement rsample (has_rsample is False); "
            "use sample(), or a score-function estimator with log_prob()"
        )

    def sample_n(self, n):
        """Deprecated: `sample((n,))`, with PyTorch's warning."""
        _warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning)
        return self.sample(Size((n,)))

    def log_prob(self, value):
        """The log of the density (or mass) at `value`, differentiable with respect to the parameters.

        `value` broadcasts against `batch_shape + event_shape`; the result drops the event dimensions.
        With `validate_args`, a value outside the support raises a ValueError.
        """
        raise NotImplementedError

    def cdf(self, value):
        """The cumulative distribution function at `value`."""
        raise NotImplementedError

    def icdf(self, value):
        """The inverse of the cumulative distribution function at probability `value`."""
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        """Every value of a discrete distribution's support along a new leading dimension."""
        raise NotImplementedError

    def entropy(self):
        """The entropy in nats, of shape `batch_shape`."""
        raise NotImplementedError

    def perplexity(self):
        """`exp(entropy())`."""
        return self.entropy().exp()

    def _extended_shape(self, sample_shape=Size()):
        if not isinstance(sample_shape, Size):
            sample_shape = Size(sample_shape)
        return Size(sample_shape + self._batch_shape + self._event_shape)

    def _validate_sample(self, value):
        """ValueError unless `value` is a tensor whose shape fits `batch_shape + event_shape` and whose
        entries lie in the support."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = value.dim() - len(self._event_shape)
        if value.shape[event_dim_start:] != self._event_shape:
            raise ValueError(
                f"The right-most size of value must match event_shape: {value.shape} vs {self._event_shape}."
            )
        actual_shape = value.shape
        expected_shape = self._batch_shape + self._event_shape
        for actual, expected in zip(reversed(actual_shape), reversed(expected_shape)):
            if actual != 1 and expected != 1 and actual != expected:
                raise ValueError(
                    f"Value is not broadcastable with batch_shape+event_shape: {actual_shape} vs {expected_shape}."
                )
        try:
            support = self.support
        except NotImplementedError:
            _warn(
                f"{type(self)} does not define `support` to enable sample validation. Please initialize "
                "the distribution with `validate_args=False` to turn off validation."
            )
            return
        if not bool(support.check(value).all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be "
                f"within the support ({support!r}) of the distribution {self!r}, but found invalid "
                f"values:\n{value}"
            )

    def _get_checked_instance(self, cls, _instance=None):
        """A bare instance for `expand` to fill in; a subclass with its own __init__ must say how
        it expands."""
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {type(self).__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method."
            )
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self):
        parameters = [name for name in self.arg_constraints if name in self.__dict__]
        described = ", ".join(f"{name}: {self._describe(self.__dict__[name])}" for name in parameters)
        return f"{type(self).__name__}({described})"

    @staticmethod
    def _describe(value):
        """A one-element parameter shows its value (as PyTorch: `loc: 0.0`), a larger one its size."""
        if value.numel() != 1:
            return value.size()
        return value.item() if value.dim() == 0 else value
