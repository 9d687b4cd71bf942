"""`Wishart`: the distribution of scatter matrices of Gaussian samples."""

import math
import numbers

from .. import ops as _ops
from .._size import Size
from ..linalg import cholesky
from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .multivariate_normal import _precision_to_scale_tril, _solve_lower
from .utils import lazy_property, standard_normal
from .._warn import warn as _warn

__all__ = ["Wishart"]


def _multivariate_digamma(x, p):
    """sum over i = 0..p-1 of digamma(x - i / 2)."""
    offsets = _ops.arange(p, dtype=x.dtype) / 2
    return (x.unsqueeze(-1) - offsets).digamma().sum(-1)


class Wishart(Distribution):
    """Wishart(df, covariance_matrix=None, precision_matrix=None, scale_tril=None): the law of
    sum_k x_k x_k^T over df Gaussian draws x_k ~ N(0, covariance) (df real, > p - 1 for p x p).

    `rsample` uses Bartlett's decomposition (chi-squared diagonal, normal lower triangle), so it is
    reparameterized in the scale. Differs from PyTorch: no retry loop for singular draws (they only
    occur for p - 1 < df < p).
    """

    support = constraints.positive_definite
    has_rsample = True

    @property
    def arg_constraints(self):
        return {
            "covariance_matrix": constraints.positive_definite,
            "precision_matrix": constraints.positive_definite,
            "scale_tril": constraints.lower_cholesky,
            "df": constraints.greater_than(self.event_shape[-1] - 1),
        }

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        given = [matrix for matrix in (covariance_matrix, precision_matrix, scale_tril) if matrix is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        (matrix,) = given
        if matrix.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading batch dimensions")
        if isinstance(df, numbers.Number):
            batch_shape = Size(matrix.shape[:-2])
            self.df = _ops.tensor(float(df), dtype=matrix.dtype)
        else:
            batch_shape = Size(_ops.broadcast_shapes(matrix.shape[:-2], df.shape))
            self.df = df.expand(batch_shape)
        event_shape = matrix.shape[-2:]
        dimension = event_shape[-1]
        if bool((self.df <= dimension - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {dimension - 1}.")
        if scale_tril is not None:
            self.scale_tril = matrix.expand(batch_shape + (-1, -1))
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self.covariance_matrix = matrix.expand(batch_shape + (-1, -1))
            self._unbroadcasted_scale_tril = cholesky(covariance_matrix)
        else:
            self.precision_matrix = matrix.expand(batch_shape + (-1, -1))
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        if bool((self.df < dimension).any()):
            _warn(
                "Low df values detected. Singular samples are highly likely to occur for ndim - 1 < df < ndim.",
                stacklevel=2,
            )
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._dist_chi2 = self._bartlett_chi2()

    def _bartlett_chi2(self):
        dimension = self._event_shape[-1]
        offsets = _ops.arange(dimension, dtype=self._unbroadcasted_scale_tril.dtype)
        return Chi2(self.df.unsqueeze(-1) - offsets.expand(self._batch_shape + (-1,)))

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = Size(batch_shape)
        matrix_shape = batch_shape + self.event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(matrix_shape)
        new.df = self.df.expand(batch_shape)
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(matrix_shape))
        super(Wishart, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._dist_chi2 = new._bartlett_chi2()
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape

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

    def _df_matrix(self):
        return self.df.reshape(self._batch_shape + (1, 1))

    @property
    def mean(self):
        return self._df_matrix() * self.covariance_matrix

    @property
    def mode(self):
        factor = self._df_matrix() - self._event_shape[-1] - 1
        return _ops.where(factor > 0, factor, math.nan) * self.covariance_matrix

    @property
    def variance(self):
        """Var(X_ij) = df (S_ij**2 + S_ii S_jj) for the scale S."""
        covariance = self.covariance_matrix
        diagonal = covariance.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix() * (covariance.pow(2) + diagonal.unsqueeze(-1) * diagonal.unsqueeze(-2))

    def _log_det_scale(self):
        return 2 * self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def rsample(self, sample_shape=Size()):
        sample_shape = Size(sample_shape)
        shape = self._extended_shape(sample_shape)
        noise = standard_normal(shape, self._unbroadcasted_scale_tril.dtype).tril(-1)
        chi = self._dist_chi2.rsample(sample_shape).sqrt()
        bartlett = noise + _ops.diag_embed(chi)  # lower triangular, A A^T ~ Wishart(df, I)
        factor = self._unbroadcasted_scale_tril @ bartlett
        return factor @ factor.mT

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        log_det_value = 2 * cholesky(value).diagonal(dim1=-2, dim2=-1).log().sum(-1)
        lower = self._unbroadcasted_scale_tril
        half = _solve_lower(lower.expand(value.shape), value)  # L^-1 X
        trace = _solve_lower(lower.expand(value.shape), half.mT).diagonal(dim1=-2, dim2=-1).sum(-1)  # tr(S^-1 X)
        return (
            -nu * (p * math.log(2) / 2 + self._log_det_scale() / 2)
            - _ops.mvlgamma(nu / 2, p)
            + (nu - p - 1) / 2 * log_det_value
            - trace / 2
        )

    def entropy(self):
        nu = self.df
        p = self._event_shape[-1]
        return (
            (p + 1) / 2 * self._log_det_scale()
            + p * (p + 1) / 2 * math.log(2)
            + _ops.mvlgamma(nu / 2, p)
            - (nu - p - 1) / 2 * _multivariate_digamma(nu / 2, p)
            + nu * p / 2
        )
