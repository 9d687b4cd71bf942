"""`ContinuousBernoulli`: the density on [0, 1] proportional to p^x (1 - p)^(1 - x).

Its normalizing constant C(p) = 2 artanh(1 - 2p) / (1 - 2p) and the moments built from it are 0/0
at p = 1/2, so within `lims` of 1/2 they are replaced by their Taylor series in (p - 1/2); the exact
formulas are evaluated there at a safe p so that no NaN reaches a gradient through `where`.
"""

import math
import numbers

from .. import ops as _ops
from .._size import Size
from ..nn.functional import binary_cross_entropy_with_logits
from . import constraints
from .bernoulli import one_parametrization
from .exp_family import ExponentialFamily
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """ContinuousBernoulli(probs=None, logits=None, lims=(0.499, 0.501)): give exactly one of
    `probs` (in (0, 1); not a probability) and `logits` (its log-odds). Reparameterized samples
    come from the inverse CDF. See Loaiza-Ganem & Cunningham, "The continuous Bernoulli" (2019).

    Example::

        >>> m = ContinuousBernoulli(ember.tensor([0.3]))
        >>> m.sample().shape
        torch.Size([1])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        one_parametrization(probs, logits)
        given = probs if probs is not None else logits
        if probs is not None:
            (probs,) = broadcast_all(probs)
            # checked before clamping, which would otherwise hide values outside [0, 1]
            validate = self._validate_args if validate_args is None else validate_args
            if validate and not bool(self.arg_constraints["probs"].check(probs).all()):
                raise ValueError(
                    f"ContinuousBernoulli: the parameter probs must lie in [0, 1], got {probs}; "
                    "pass validate_args=False to skip this check."
                )
            self.probs = clamp_probs(probs)
            self._param = self.probs
        else:
            (self.logits,) = broadcast_all(logits)
            self._param = self.logits
        self._lims = lims
        batch_shape = Size() if isinstance(given, numbers.Number) else self._param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = Size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(ContinuousBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        """The shape of the parameter given (probs or logits)."""
        return self._param.size()

    def _outside_unstable_region(self):
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        """`probs`, with those near 1/2 moved to `lims[0]`, where the exact formulas are finite."""
        return _ops.where(self._outside_unstable_region(), self.probs, self._lims[0])

    def _cont_bern_log_norm(self):
        """log C(probs), the log normalizing constant."""
        p = self._cut_probs()
        exact = ((-p).log1p() - p.log()).abs().log() - (1.0 - 2.0 * p).abs().log()
        squared = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * squared) * squared
        return _ops.where(self._outside_unstable_region(), exact, taylor)

    @property
    def mean(self):
        p = self._cut_probs()
        exact = p / (2.0 * p - 1.0) + 1.0 / ((-p).log1p() - p.log())
        offset = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * offset.pow(2)) * offset
        return _ops.where(self._outside_unstable_region(), exact, taylor)

    @property
    def stddev(self):
        return self.variance.sqrt()

    @property
    def variance(self):
        p = self._cut_probs()
        exact = p * (p - 1.0) / (1.0 - 2.0 * p).pow(2) + 1.0 / ((-p).log1p() - p.log()).pow(2)
        squared = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * squared) * squared
        return _ops.where(self._outside_unstable_region(), exact, taylor)

    def sample(self, sample_shape=Size()):
        return self.rsample(sample_shape).detach()

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        return self.icdf(_ops.rand(shape, dtype=self.probs.dtype))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none") + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        p = self._cut_probs()
        exact = (p.pow(value) * (1.0 - p).pow(1.0 - value) + p - 1.0) / (2.0 * p - 1.0)
        inside = _ops.where(self._outside_unstable_region(), exact, value)
        return _ops.where(value <= 0.0, 0.0, _ops.where(value >= 1.0, 1.0, inside))

    def icdf(self, value):
        p = self._cut_probs()
        exact = ((-p + value * (2.0 * p - 1.0)).log1p() - (-p).log1p()) / (p.log() - (-p).log1p())
        return _ops.where(self._outside_unstable_region(), exact, value)

    def entropy(self):
        log_probs0 = (-self.probs).log1p()
        log_probs1 = self.probs.log()
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """log((e^x - 1) / x) in the natural parameter x = logits; its Taylor series near 0."""
        outside = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = _ops.where(outside, x, self._lims[0] - 0.5)
        exact = cut.expm1().abs().log() - cut.abs().log()
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return _ops.where(outside, exact, taylor)
