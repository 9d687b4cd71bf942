"""`renorm`: rescale the slices of a tensor along a dim whose p-norm exceeds a maximum, as
max-norm regularization does with weight rows.

Each slice x is multiplied by f = maxnorm / (n + 1e-7) where its norm n > maxnorm (else f = 1), so
the derivative has two parts: the scaling itself, and for the rescaled slices the change of f with
n, df/dn = -maxnorm / (n + 1e-7)**2, times the norm's gradient dn/dx.
"""

import math

from .._backend import np
from .._tensor import Tensor
from ..autograd.function import Primitive
from ._common import normalize_dim
from ._declare import op

__all__ = ["renorm"]

_EPSILON = 1e-7


def _slice_norms(array, p, others):
    magnitudes = np.abs(array)
    if math.isinf(p):
        return magnitudes.max(axis=others, keepdims=True, initial=0.0)
    return (magnitudes**p).sum(axis=others, keepdims=True) ** (1.0 / p)


class Renorm(Primitive, node="RenormBackward0"):
    @staticmethod
    def forward(ctx, a, p, dim, maxnorm):
        others = tuple(d for d in range(a.ndim) if d != dim)
        norms = _slice_norms(a, p, others)
        over = norms > maxnorm
        factor = np.where(over, maxnorm / (norms + _EPSILON), 1.0).astype(a.dtype)
        ctx.p, ctx.others, ctx.maxnorm = p, others, maxnorm
        ctx.save_for_backward(a)
        return a * factor

    @staticmethod
    def _parts(ctx, x):
        """(f, df/dn on the rescaled slices and 0 elsewhere, dn/dx) as tensors."""
        from .reduction import amax
        from .indexing import where

        p, others, maxnorm = ctx.p, ctx.others, ctx.maxnorm
        magnitudes = x.abs()
        if math.isinf(p):
            norms = amax(magnitudes, others, keepdim=True)
            peaks = (magnitudes == norms).to(x.dtype)
            norm_gradient = x.sign() * peaks / peaks.sum(others, keepdim=True)
        else:
            norms = (magnitudes**p).sum(others, keepdim=True) ** (1.0 / p)
            norm_gradient = x.sign() * magnitudes ** (p - 1) / norms ** (p - 1)
        over = norms.detach() > maxnorm
        one = norms.new_ones(())
        factor = where(over, maxnorm / (norms + _EPSILON), one)
        factor_slope = where(over, -maxnorm / (norms + _EPSILON) ** 2, one * 0)
        return factor, factor_slope, norm_gradient

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        factor, factor_slope, norm_gradient = Renorm._parts(ctx, x)
        through_norm = (grad * x).sum(ctx.others, keepdim=True) * factor_slope * norm_gradient
        return grad * factor + through_norm, None, None, None

    @staticmethod
    def jvp(ctx, tangent, *others):
        if tangent is None:
            return None
        x = ctx.inputs[0]
        factor, factor_slope, norm_gradient = Renorm._parts(ctx, x)
        norm_tangent = (norm_gradient * tangent).sum(ctx.others, keepdim=True)
        return tangent * factor + x * factor_slope * norm_tangent


@op(Renorm, method=True, inplace=True)
def renorm(input, p, dim, maxnorm):
    """Each slice `input.select(dim, i)` whose `p`-norm exceeds `maxnorm` scaled down to that norm
    (by maxnorm / (norm + 1e-7), as PyTorch); the others unchanged."""
    if not isinstance(input, Tensor):
        raise TypeError(f"renorm(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if input._data.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input._data.ndim} dimensions")
    if not p > 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input._data.dtype.kind not in "fcV":
        raise RuntimeError(f"renorm: expected a floating point tensor, got {input.dtype}")
    dim = normalize_dim(dim, input._data.ndim, "renorm")
    return Renorm.apply(input, float(p), dim, float(maxnorm))
