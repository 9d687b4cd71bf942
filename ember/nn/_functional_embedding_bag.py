"""`F.embedding_bag`: sums, means or maxima of bags of embedding rows, without building the rows per bag.

A composite of ember ops (embedding lookup, index_add, max), so gradients come from them.
"""

import numpy as np

from .. import _dtype
from .._tensor import Tensor, new_tensor
from ..ops import creation
from . import functional as _F
from .._warn import warn as _warn

__all__ = ["embedding_bag"]


def _check_indices(input, offsets, per_sample_weights, mode):
    if input.dtype.name not in ("int64", "int32"):
        raise RuntimeError(
            f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
            f"Long, Int; but got {input.dtype} instead (while checking arguments for embedding_bag)"
        )
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError(
                f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                "on GitHub."
            )
        if tuple(per_sample_weights.shape) != tuple(input.shape):
            raise ValueError(
                f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                f"must have the same shape as the input ({input.shape})"
            )
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                f"fixed length sequences. However, found offsets of type {type(offsets)}"
            )
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")


def _bag_of_each_index(count, offsets, include_last_offset):
    """(bag number of each index — -1 past the last bag —, number of bags)."""
    if offsets.size and offsets[0] != 0:
        raise RuntimeError(
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
            f"position 0. However, got {offsets[0]}"
        )
    if offsets.size and offsets[-1] > count:
        raise RuntimeError(
            f"offsets[-1] can not be greater than input's length {count} but got offsets[-1] of {offsets[-1]}"
        )
    if np.any(np.diff(offsets) < 0):
        raise RuntimeError(f"embedding_bag: offsets must be non-decreasing, got {offsets.tolist()}")
    bags = len(offsets) - 1 if include_last_offset else len(offsets)
    bag = np.searchsorted(offsets, np.arange(count), side="right") - 1
    if include_last_offset:
        bag = np.where(bag >= bags, -1, bag)
    return bag, max(bags, 0)


def embedding_bag(
    input,
    weight,
    offsets=None,
    max_norm=None,
    norm_type=2,
    scale_grad_by_freq=False,
    mode="mean",
    sparse=False,
    per_sample_weights=None,
    include_last_offset=False,
    padding_idx=None,
):
    """Reduce bags of rows of `weight` (sum, mean or max) without materialising the bags.

    Args:
        input: 2-D (B, N) — B bags of N indices each — or 1-D with `offsets`, the start of each bag.
        weight: (num_embeddings, embedding_dim).
        mode: "sum", "mean" or "max". per_sample_weights: scales each index's row ("sum" only).
        include_last_offset: `offsets` has one more entry, the end of the last bag.
        padding_idx: entries equal to it are left out of their bag (and out of the mean's count).
        max_norm, norm_type, scale_grad_by_freq: as `F.embedding`. sparse: the weight's gradient is a
            sparse COO tensor with an entry per index looked up (not for mode "max"), as PyTorch's.

    Returns:
        (B, embedding_dim); an empty bag gives zeros.

    Difference from PyTorch: `scale_grad_by_freq` divides each row's gradient by that index's
    frequency in the batch, as documented; PyTorch 2.13's CPU kernel pairs the counts with the
    wrong rows (e.g. an index seen 4 times gets 4x the unscaled gradient).

    Example::

        >>> weight = ember.randn(10, 3)
        >>> F.embedding_bag(ember.tensor([1, 2, 4, 5, 4, 3]), weight, ember.tensor([0, 4])).shape
        torch.Size([2, 3])
    """
    if isinstance(weight, Tensor) and weight.dtype == _dtype.int64 and input.is_floating_point():
        _warn(
            "Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, input, "
            "...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`."
        )
        weight, input = input, weight
    _check_indices(input, offsets, per_sample_weights, mode)
    if sparse and mode == "max":
        raise ValueError("max mode does not support sparse weights")
    if input.dim() == 2:
        bags_of_fixed_size = input.shape[1]
        offsets_array = np.arange(0, input.numel(), max(bags_of_fixed_size, 1))[: input.shape[0]]
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    else:
        offsets_array = offsets.numpy().astype(np.int64) if isinstance(offsets, Tensor) else np.asarray(offsets)
    indices = input.numpy().astype(np.int64)
    bag, bags = _bag_of_each_index(len(indices), offsets_array, include_last_offset)
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    kept = bag >= 0
    if padding_idx is not None:
        kept &= indices != padding_idx
    positions = np.nonzero(kept)[0]
    rows = _F.embedding(
        new_tensor(indices[positions]), weight, None, max_norm, norm_type, scale_grad_by_freq, bool(sparse)
    )
    if per_sample_weights is not None:
        rows = rows * per_sample_weights[new_tensor(positions)].unsqueeze(1)
    bag = bag[positions]
    dim = weight.shape[1]
    if mode == "max":
        return _bag_max(rows, bag, bags, dim)
    output = creation.zeros((bags, dim), dtype=weight.dtype).index_add(0, new_tensor(bag), rows)
    if mode == "mean":
        counts = np.bincount(bag, minlength=bags).astype(np.float64)
        output = output / new_tensor(np.maximum(counts, 1)[:, None]).to(weight.dtype)
    return output


def _bag_max(rows, bag, bags, dim):
    """Element-wise maximum of each bag's rows: gather them into a (bags, longest, dim) block padded
    with -inf, then take the max; empty bags give zeros."""
    counts = np.bincount(bag, minlength=bags)
    longest = int(counts.max()) if counts.size else 0
    if longest == 0:
        return creation.zeros((bags, dim), dtype=rows.dtype)
    slot = np.arange(len(bag)) - np.concatenate([[0], np.cumsum(counts)[:-1]])[bag]
    source = np.full((bags, longest), len(bag), dtype=np.int64)  # len(bag) points at the -inf row
    source[bag, slot] = np.arange(len(bag))
    padded_rows = _F.pad(rows, (0, 0, 0, 1), value=-np.inf)
    maxima = padded_rows[new_tensor(source)].max(1).values
    empty = new_tensor((counts == 0)[:, None])
    return maxima.masked_fill(empty, 0.0)
