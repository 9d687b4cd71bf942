"""Distances between tensors: cosine similarity and pairwise p-norm distance."""

from ._nn_common import _check_tensor
from ._declare import op

__all__ = ["cosine_similarity", "pairwise_distance"]


# ================================================================ distances and products
@op()
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """x1.x2 / (max(|x1|, eps) * max(|x2|, eps)) along `dim`, broadcasting x1 and x2."""
    from . import clamp_min

    _check_tensor(x1, "x1", "cosine_similarity")
    _check_tensor(x2, "x2", "cosine_similarity")
    norm1 = clamp_min((x1 * x1).sum(dim, keepdim=True).sqrt(), eps)
    norm2 = clamp_min((x2 * x2).sum(dim, keepdim=True).sqrt(), eps)
    return ((x1 / norm1) * (x2 / norm2)).sum(dim)


@op()
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The p-norm of x1 - x2 + eps along the last dim."""
    _check_tensor(x1, "x1", "pairwise_distance")
    _check_tensor(x2, "x2", "pairwise_distance")
    from . import norm

    difference = x1 - x2 + eps
    dim = -1 if difference._data.ndim else 0
    return norm(difference, p, dim, keepdim)
