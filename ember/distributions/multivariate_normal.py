"""`MultivariateNormal`: the Gaussian over vectors, by covariance, precision or Cholesky factor."""

import math

from .. import ops as _ops
from .._size import Size
from ..linalg import cholesky, solve
from . import constraints
from .distribution import Distribution
from .utils import lazy_property, standard_normal

__all__ = ["MultivariateNormal"]


def _solve_lower(lower, right_hand_side):
    """lower^-1 @ right_hand_side for lower-triangular `lower` (batched, broadcasting). `tril()`
    keeps the gradient off the upper triangle, which is not a parameter."""
    return solve(lower.tril(), right_hand_side)


def _batch_mahalanobis(scale_tril, difference):
    """|L^-1 d|^2 for each batch element: the squared Mahalanobis distance under L L^T."""
    whitened = _solve_lower(scale_tril, difference.unsqueeze(-1)).squeeze(-1)
    return whitened.pow(2).sum(-1)


def _precision_to_scale_tril(precision):
    """The lower Cholesky factor of precision^-1, without inverting the precision: with
    P = U U^T for upper-triangular U (the Cholesky factor of P read back to front), the covariance is
    U^-T U^-1, and U^-T is lower triangular."""
    flipped_factor = cholesky(precision.flip((-2, -1)))
    upper = flipped_factor.flip((-2, -1))
    identity = _ops.eye(precision.shape[-1], dtype=precision.dtype)
    return _solve_lower(upper.mT, identity.expand(upper.shape))


class MultivariateNormal(Distribution):
    """MultivariateNormal(loc, covariance_matrix=None, precision_matrix=None, scale_tril=None):
    give exactly one of the three matrix parametrizations. `loc` is (..., k) and the matrix
    (..., k, k); batch dims of the two broadcast. Computations use the Cholesky factor L."""

    arg_constraints = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [matrix is not None for matrix in (covariance_matrix, precision_matrix, scale_tril)]
        if sum(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        name, matrix = next(
            (name, matrix)
            for name, matrix in (
                ("covariance_matrix", covariance_matrix),
                ("precision_matrix", precision_matrix),
                ("scale_tril", scale_tril),
            )
            if matrix is not None
        )
        if matrix.dim() < 2:
            raise ValueError(f"{name} must be at least two-dimensional, with optional leading batch dimensions")
        batch_shape = Size(_ops.broadcast_shapes(matrix.shape[:-2], loc.shape[:-1]))
        setattr(self, name, matrix.expand(batch_shape + Size((-1, -1))))
        self.loc = loc.expand(batch_shape + Size((-1,)))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        loc_shape = batch_shape + self.event_shape
        matrix_shape = loc_shape + self.event_shape
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(matrix_shape))
        super(MultivariateNormal, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape + self._event_shape

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        lower = self._unbroadcasted_scale_tril
        return (lower @ lower.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        lower = self._unbroadcasted_scale_tril
        identity = _ops.eye(lower.shape[-1], dtype=lower.dtype)
        inverse_lower = _solve_lower(lower, identity.expand(lower.shape))
        return (inverse_lower.mT @ inverse_lower).expand(self._matrix_shape())

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        eps = standard_normal(shape, self.loc.dtype)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        mahalanobis = _batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        k = self._event_shape[0]
        return -0.5 * (k * math.log(2 * math.pi) + mahalanobis) - self._half_log_det()

    def entropy(self):
        k = self._event_shape[0]
        entropy = 0.5 * k * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return entropy.expand(self._batch_shape) if self._batch_shape else entropy
