"""`renorm`: rescale the slices of a tensor along a dim whose p-norm exceeds a maximum, as
max-norm regularization does with weight rows. A composite of norms, `where` and a product."""

from .._tensor import Tensor
from ._common import normalize_dim
from ._declare import op
from .indexing import where

__all__ = ["renorm"]


@op(method=True, inplace=True)
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
    if input._data.dtype.kind not in "fc":
        raise RuntimeError(f"renorm: expected a floating point tensor, got {input.dtype}")
    dim = normalize_dim(dim, input._data.ndim, "renorm")
    others = tuple(d for d in range(input._data.ndim) if d != dim)
    norms = input.norm(p, dim=others, keepdim=True)
    factor = where(norms > maxnorm, maxnorm / (norms + 1e-7), norms.new_ones(()))
    return input * factor
