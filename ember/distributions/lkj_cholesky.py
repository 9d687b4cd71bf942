"""`LKJCholesky`: the LKJ distribution over correlation matrices, given on their lower Cholesky
factors L, with density proportional to det(L L^T)^(concentration - 1)."""

import math

from .. import _dtype, ops as _ops
from .._size import Size
from ..autograd import no_grad
from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """LKJCholesky(dim, concentration=1.0): Cholesky factors of `dim` x `dim` correlation matrices.
    concentration 1 is uniform over correlation matrices; larger values favour the identity.

    Samples come from the onion method (Lewandowski, Kurowicka & Joe, 2009): row i of L is a
    point of the unit sphere in i dimensions scaled by the square root of a Beta draw, and the
    diagonal completes the row to unit length. (PyTorch 2.13's draws for dim >= 3 do not have the
    LKJ marginals; these do: see tests/distributions/test_sampling.py.)

    Example::

        >>> l = LKJCholesky(3, 0.5)
        >>> l.sample().shape
        torch.Size([3, 3])
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        # the squared length of row i off its diagonal (i entries) is Beta(i / 2, concentration + (dim - 1 - i) / 2)
        # for i >= 1; row 0 has none (its Beta parameters are placeholders, its direction is zero).
        # PyTorch 2.13 uses Beta(i - 1/2, ...), which skews the correlations of rows i >= 2.
        offset = _ops.cat(
            [_ops.zeros(1, dtype=self.concentration.dtype), _ops.arange(dim - 1, dtype=self.concentration.dtype)]
        )
        marginal = self.concentration + 0.5 * (dim - 2)
        # unchecked: an invalid concentration is reported below as this distribution's, not the Beta's
        self._beta = Beta(0.5 * offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset, validate_args=False)
        super().__init__(self.concentration.size(), Size((dim, dim)), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + Size((self.dim,)))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=Size()):
        with no_grad():
            squared_length = self._beta.sample(sample_shape).unsqueeze(-1)
            directions = _ops.randn(self._extended_shape(sample_shape), dtype=squared_length.dtype).tril(-1)
            tiny = _dtype.finfo(directions.dtype).tiny
            # row 0 is all zeros: dividing by `tiny` instead of its zero norm keeps it zero
            directions = directions / directions.norm(dim=-1, keepdim=True).clamp(min=tiny)
            below_diagonal = squared_length.sqrt() * directions
            diagonal = (1 - below_diagonal.pow(2).sum(-1)).clamp(min=tiny).sqrt()
            return below_diagonal + _ops.diag_embed(diagonal)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # det(L L^T)^(c - 1) = prod L_ii^(2c - 2), times the Jacobian prod L_ii^(dim - i) of L -> L L^T
        # (rows counted from 1; L_11 = 1 drops out)
        diagonal = value.diagonal(dim1=-2, dim2=-1)[..., 1:]
        rows = _ops.arange(2, self.dim + 1, dtype=self.concentration.dtype)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - rows
        unnormalized = (order * diagonal.log()).sum(-1)
        # the normalizing constant of Lewandowski et al. (2009), through the multivariate log-gamma
        rank = self.dim - 1
        alpha = self.concentration + 0.5 * rank
        log_normalizer = 0.5 * rank * math.log(math.pi) + _ops.mvlgamma(alpha - 0.5, rank) - rank * alpha.lgamma()
        return unnormalized - log_normalizer
