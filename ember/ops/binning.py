"""Assigning values to bins: `bucketize` (the bin index of each value among sorted boundaries) and
`histogramdd` (counts of points in a grid of bins)."""

import builtins
import numbers

from .._backend import np
from .._tensor import Tensor, new_tensor
from .. import return_types
from ._declare import op
from .comparison import searchsorted

__all__ = ["bucketize", "histogramdd"]


@op()
def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """For each value, the index of the bucket among the sorted 1-d `boundaries` it falls in:
    `boundaries[i-1] < v <= boundaries[i]` (or `<=`/`<` with `right=True`)."""
    if not isinstance(boundaries, Tensor) or boundaries._data.ndim != 1:
        ndim = boundaries._data.ndim if isinstance(boundaries, Tensor) else "not a tensor"
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({ndim})")
    result = searchsorted(boundaries, input, out_int32=out_int32, right=right)
    if out is not None:
        from .inplace import copy_into_out

        return copy_into_out(out, result)
    return result


@op()
def histogramdd(input, bins=10, *, range=None, weight=None, density=False):  # noqa: A002 - PyTorch's name
    """A D-dimensional histogram of the N points in the rows of `input` (N x D): `bins` is a count for
    every dim, a count per dim, or the edges per dim (1-d tensors); returns (hist, bin_edges)."""
    if not isinstance(input, Tensor) or input._data.dtype.kind not in "fV":
        raise RuntimeError(
            "torch.histogramdd: input tensor and bins tensors should have the same dtype, and be floating point"
        )
    points = input._data.reshape(-1, input._data.shape[-1])
    dims = points.shape[1]
    if weight is not None and weight._data.dtype != input._data.dtype:
        raise RuntimeError(
            "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should have the same "
            f"dtype, but got input({input.dtype.name.replace('float64', 'double').replace('float32', 'float')}), and "
            f"weight({weight.dtype.name.replace('float64', 'double').replace('float32', 'float')})"
        )
    if isinstance(bins, numbers.Integral):
        bins = [int(bins)] * dims
    else:
        bins = [b._data.astype(np.float64) if isinstance(b, Tensor) else int(b) for b in bins]
    ranges = None
    if range is not None:
        ranges = [(float(range[2 * d]), float(range[2 * d + 1])) for d in builtins.range(dims)]
    hist, edges = np.histogramdd(
        points.astype(np.float64),
        bins=bins,
        range=ranges,
        weights=None if weight is None else weight._data.reshape(-1).astype(np.float64),
        density=density,
    )
    dtype = input._data.dtype
    return return_types.histogramdd(new_tensor(hist.astype(dtype)), tuple(new_tensor(e.astype(dtype)) for e in edges))
