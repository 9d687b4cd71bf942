"""`LowRankMultivariateNormal`: a normal whose covariance is low rank plus diagonal."""

import math

from .. import ops as _ops
from .._size import Size
from ..linalg import cholesky, solve
from . import constraints
from .distribution import Distribution
from .utils import lazy_property, standard_normal

__all__ = ["LowRankMultivariateNormal"]


class LowRankMultivariateNormal(Distribution):
    """LowRankMultivariateNormal(loc, cov_factor W, cov_diag D): covariance W W^T + diag(D), with W
    of shape (..., n, rank). log_prob and entropy use the capacitance matrix I + W^T D^-1 W (rank x
    rank; Woodbury's identity and the matrix determinant lemma), never an n x n factorization."""

    arg_constraints = {
        "loc": constraints.real_vector,
        "cov_factor": constraints.independent(constraints.real, 2),
        "cov_diag": constraints.independent(constraints.positive, 1),
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if cov_factor.shape[-2:-1] != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m")
        if cov_diag.shape[-1:] != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        batch_shape = Size(_ops.broadcast_shapes(loc.shape[:-1], cov_factor.shape[:-2], cov_diag.shape[:-1]))
        self.loc = loc.expand(batch_shape + event_shape)
        self.cov_factor = cov_factor.expand(batch_shape + cov_factor.shape[-2:])
        self.cov_diag = cov_diag.expand(batch_shape + event_shape)
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape + self.event_shape)
        new.cov_factor = self.cov_factor.expand(batch_shape + self.cov_factor.shape[-2:])
        new.cov_diag = self.cov_diag.expand(batch_shape + self.event_shape)
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        super(LowRankMultivariateNormal, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _capacitance(self):
        """I + W^T D^-1 W."""
        factor, diagonal = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        scaled = factor / diagonal.unsqueeze(-1)
        rank = factor.shape[-1]
        return _ops.eye(rank, dtype=factor.dtype) + factor.mT @ scaled

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        variance = self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag
        return variance.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        factor = self._unbroadcasted_cov_factor
        covariance = factor @ factor.mT + _ops.diag_embed(self._unbroadcasted_cov_diag)
        return covariance.expand(self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def scale_tril(self):
        return cholesky(self.covariance_matrix)

    @lazy_property
    def precision_matrix(self):
        """D^-1 - D^-1 W C^-1 W^T D^-1 (Woodbury)."""
        factor, diagonal = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        scaled = factor / diagonal.unsqueeze(-1)
        precision = _ops.diag_embed(diagonal.reciprocal()) - scaled @ solve(self._capacitance(), scaled.mT)
        return precision.expand(self._batch_shape + self._event_shape + self._event_shape)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        factor = self._unbroadcasted_cov_factor
        low_rank_noise = standard_normal(shape[:-1] + factor.shape[-1:], self.loc.dtype)
        diagonal_noise = standard_normal(shape, self.loc.dtype)
        low_rank_part = (factor @ low_rank_noise.unsqueeze(-1)).squeeze(-1)
        return self.loc + low_rank_part + self._unbroadcasted_cov_diag.sqrt() * diagonal_noise

    def _log_det(self):
        """log det(W W^T + D) = log det(C) + sum log D (the matrix determinant lemma)."""
        capacitance_tril = cholesky(self._capacitance())
        return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + self._unbroadcasted_cov_diag.log().sum(
            -1
        )

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        difference = value - self.loc
        factor, diagonal = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        projected = (factor.mT @ (difference / diagonal).unsqueeze(-1)).squeeze(-1)  # W^T D^-1 x
        capacitance = self._capacitance().expand(projected.shape[:-1] + self._capacitance().shape[-2:])
        correction = (projected * solve(capacitance, projected.unsqueeze(-1)).squeeze(-1)).sum(-1)
        mahalanobis = (difference.pow(2) / diagonal).sum(-1) - correction
        k = self._event_shape[0]
        return -0.5 * (k * math.log(2 * math.pi) + self._log_det() + mahalanobis)

    def entropy(self):
        k = self._event_shape[0]
        entropy = 0.5 * (k * (1.0 + math.log(2 * math.pi)) + self._log_det())
        return entropy.expand(self._batch_shape) if self._batch_shape else entropy
