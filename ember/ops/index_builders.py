"""Ops that build index tensors or tables from sizes and vectors: tril_indices, triu_indices,
unravel_index, vander, combinations."""

import itertools
import numbers

from .._backend import np
from .._tensor import Tensor, new_tensor
from .. import _dtype
from ._declare import op

__all__ = ["tril_indices", "triu_indices", "unravel_index", "vander", "combinations"]


def _triangle_indices(numpy_function, row, col, offset, dtype, op_name):
    dtype = _dtype.int64 if dtype is None else _dtype.to_dtype(dtype)
    if dtype not in (_dtype.int32, _dtype.int64):
        raise NotImplementedError(
            f"\"{op_name}\" not implemented for '{_dtype.kernel_name(dtype)}': the indices are int64 or int32"
        )
    rows, cols = numpy_function(int(row), int(offset), int(col))
    return new_tensor(np.stack([rows, cols]).astype(dtype.numpy_dtype).reshape(2, -1))


@op()
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (row, column) coordinates of the lower triangle of a `row` x `col` matrix, row by row, as a
    2 x N tensor; `offset` moves the diagonal up (> 0) or down (< 0)."""
    return _triangle_indices(np.tril_indices, row, col, offset, dtype, "tril_indices")


@op()
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The coordinates of the upper triangle (see `tril_indices`)."""
    return _triangle_indices(np.triu_indices, row, col, offset, dtype, "triu_indices")


@op()
def unravel_index(indices, shape):
    """Flat indices into `shape` as a tuple of coordinate tensors, one per dim (C order)."""
    if not isinstance(indices, Tensor):
        raise TypeError(f"unravel_index(): expected 'indices' to be a Tensor, got {type(indices).__name__}")
    if indices._data.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (int(shape),) if isinstance(shape, numbers.Integral) else tuple(int(s) for s in shape)
    if any(size < 0 for size in shape):
        raise ValueError("'shape' cannot have negative values, but got " + str(shape))
    flat = indices._data.astype(np.int64)
    coordinates = []
    for size in reversed(shape):
        coordinates.append(new_tensor(flat % size if size else flat * 0))
        flat = flat // size if size else flat
    return tuple(reversed(coordinates))


@op()
def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a 1-d `x`: columns x**(N-1), ..., x**0 (the reverse if `increasing`)."""
    if not isinstance(x, Tensor) or x._data.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    columns = x._data.shape[0] if N is None else N
    if columns < 0:
        raise RuntimeError("N must be non-negative.")
    if x._data.dtype.kind in "biu":
        x = x.to(_dtype.int64)
    ones = x.new_ones(x._data.shape[0], min(columns, 1))
    if columns > 1:
        powers = x.unsqueeze(1).expand(x._data.shape[0], columns - 1).cumprod(1)
        table = _join(ones, powers)
    else:
        table = ones
    return table if increasing else table.flip(1)


def _join(first, second):
    from .joining import cat

    return cat([first, second], 1)


@op()
def combinations(input, r=2, with_replacement=False):
    """The length-`r` combinations of a 1-d tensor's elements, one per row (as `itertools`)."""
    from .joining import stack

    if not isinstance(input, Tensor) or input._data.ndim != 1:
        raise RuntimeError(
            f"Expect a 1D vector, but got shape {list(input.shape) if isinstance(input, Tensor) else input}"
        )
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_empty(0)
    choose = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = np.array(list(choose(range(input._data.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    return stack([input[new_tensor(rows[:, k].copy())] for k in range(r)], 1)
