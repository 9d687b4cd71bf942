"""`ExponentialFamily`: distributions whose density is h(x) exp(<theta, t(x)> - A(theta)); their
entropy (and the KL divergence between two of one kind) follow from the log normalizer A by
automatic differentiation."""

from ..autograd import grad
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """A subclass states `_natural_params` (the tuple theta), `_log_normalizer(*theta)` (A) and
    `_mean_carrier_measure` (E[log h(x)]); `entropy()` is then
    A(theta) - <theta, grad A(theta)> - E[log h(x)]."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        natural_params = [param.detach().requires_grad_() for param in self._natural_params]
        log_normalizer = self._log_normalizer(*natural_params)
        gradients = grad(log_normalizer.sum(), natural_params, create_graph=True)
        result = log_normalizer - self._mean_carrier_measure
        for param, gradient in zip(natural_params, gradients):
            result = result - (param * gradient).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
