"""Ops that count: unique and unique_consecutive (with inverse indices and counts), bincount, histc
and histogram. None is differentiable, as in PyTorch: unique's values still require grad there (a
backward through them raises, see `Unique`); the other results never do.
"""

from .._backend import np
from .._tensor import Tensor, new_tensor
from ..autograd.function import Primitive, not_implemented
from ..return_types import _structseq
from .reduction import _check_tensor, _dtype_name
from ._common import normalize_dim
from ._declare import op

__all__ = ["unique", "unique_consecutive", "bincount", "histc", "histogram"]
# `x.unique()` and friends are methods; `torch.histogram` is not a tensor method's name clash.

histogram_result = _structseq("histogram", ("hist", "bin_edges"))


def _unique_flat(array, dim):
    values, inverse, counts = np.unique(array.reshape(-1), return_inverse=True, return_counts=True, equal_nan=False)
    return values, inverse.reshape(array.shape), counts


def _unique_along(array, dim):
    if array.shape[dim] == 0:
        return array.copy(), np.zeros(0, np.int64), np.zeros(0, np.int64)
    moved = np.moveaxis(array, dim, 0)
    rows = moved.reshape(moved.shape[0], -1)
    order = np.lexsort(rows.T[::-1]) if rows.shape[1] else np.arange(rows.shape[0])
    sorted_rows = rows[order]
    starts = np.ones(len(rows), bool)
    starts[1:] = np.any(sorted_rows[1:] != sorted_rows[:-1], axis=1)
    group = np.cumsum(starts) - 1
    inverse = np.empty(len(rows), np.int64)
    inverse[order] = group
    counts = np.bincount(group)
    values = np.moveaxis(sorted_rows[starts].reshape((-1,) + moved.shape[1:]), 0, dim)
    return np.ascontiguousarray(values), inverse, counts


def _unique_consecutive(array, dim):
    if dim is None:
        flat = array.reshape(-1)
        starts = np.ones(flat.shape[0], bool)
        starts[1:] = flat[1:] != flat[:-1]
        values, shape_of_inverse = flat[starts], array.shape
    else:
        moved = np.moveaxis(array, dim, 0)
        rows = moved.reshape(moved.shape[0], -1)
        starts = np.ones(rows.shape[0], bool)
        starts[1:] = np.any(rows[1:] != rows[:-1], axis=1)
        values = np.ascontiguousarray(np.moveaxis(moved[starts], 0, dim))
        shape_of_inverse = (rows.shape[0],)
    inverse = (np.cumsum(starts) - 1).reshape(shape_of_inverse)
    counts = np.diff(np.append(np.flatnonzero(starts), starts.shape[0]))
    return values, inverse, counts


class Unique(Primitive, node="Unique2Backward0"):
    """(values, inverse, counts) by a subclass's `kernel(array, dim)`. PyTorch defines no derivative
    for the values, yet they require grad (its test_integer_outputs checks it), so a backward
    through them raises `not_implemented(derivative_name)`; inverse and counts are integers."""

    kernel = staticmethod(_unique_flat)
    derivative_name = "_unique2"

    @staticmethod
    def forward(ctx, input, dim):
        values, inverse, counts = ctx._forward_cls.kernel(input, dim)
        return values, inverse.astype(np.int64, copy=False), counts.astype(np.int64, copy=False)

    @staticmethod
    def backward(ctx, grad_values, grad_inverse, grad_counts):
        raise not_implemented(ctx._forward_cls.derivative_name)


class UniqueDim(Unique, node="UniqueDimBackward0"):
    kernel = staticmethod(_unique_along)
    derivative_name = "unique_dim"


class UniqueConsecutive(Unique, node="UniqueConsecutiveBackward0"):
    kernel = staticmethod(_unique_consecutive)
    derivative_name = "unique_consecutive"


def _results(outputs, return_inverse, return_counts):
    values, inverse, counts = outputs
    chosen = (values, *((inverse,) if return_inverse else ()), *((counts,) if return_counts else ()))
    return chosen[0] if len(chosen) == 1 else chosen


@op(Unique, UniqueDim, method=True)
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements (or slices along `dim`), sorted; optionally where each element went
    (`return_inverse`) and how often each occurs (`return_counts`). NaNs are each distinct, as in
    PyTorch; `sorted=False` also sorts (PyTorch's CPU kernel does too)."""
    _check_tensor(input, "unique")
    if dim is None:
        return _results(Unique.apply(input, None), return_inverse, return_counts)
    dim = normalize_dim(dim, input._data.ndim, "unique")
    return _results(UniqueDim.apply(input, dim), return_inverse, return_counts)


@op(UniqueConsecutive, method=True)
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse each run of equal consecutive elements (or slices along `dim`) to one."""
    _check_tensor(input, "unique_consecutive")
    if dim is not None:
        dim = normalize_dim(dim, input._data.ndim, "unique_consecutive")
    return _results(UniqueConsecutive.apply(input, dim), return_inverse, return_counts)


@op(method=True)
def bincount(input, weights=None, minlength=0):
    """How often each value 0, 1, ... occurs in a 1-D tensor of non-negative integers (or the sum of
    `weights` at each value). Float32 weights give float32, other weights float64, none int64."""
    _check_tensor(input, "bincount")
    array = input._data
    if array.ndim != 1 or array.dtype.kind not in "iub" or (array.size and array.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if isinstance(minlength, bool) or not isinstance(minlength, (int, np.integer)) or minlength < 0:
        raise RuntimeError(f"bincount(): minlength should be a non-negative int, got {minlength!r}")
    if weights is None:
        return new_tensor(np.bincount(array, minlength=minlength).astype(np.int64, copy=False))
    _check_tensor(weights, "bincount")
    if weights._data.shape != array.shape:
        raise RuntimeError(
            f"bincount(): weights should be 1-d and have the same length as input "
            f"(input {tuple(array.shape)}, weights {tuple(weights._data.shape)})"
        )
    dtype = np.float32 if weights._data.dtype == np.float32 else np.float64
    return new_tensor(np.bincount(array, weights=weights._data, minlength=minlength).astype(dtype, copy=False))


def _float_input(input, op_name):
    _check_tensor(input, op_name)
    if input._data.dtype.kind not in "fV":
        raise NotImplementedError(
            f"\"{op_name}_cpu\" not implemented for '{_dtype_name(input._data)}': convert the input with .float() first"
        )
    return input._data


@op(method=True)
def histc(input, bins=100, min=0, max=0):
    """A histogram of `bins` equal bins over [min, max] (the data's range when both are 0); values
    outside are ignored, values equal to max count in the last bin."""
    array = _float_input(input, "histogram")
    low, high = float(min), float(max)
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins <= 0:
        raise RuntimeError(f"torch.histc: bins must be > 0, but got {bins} for dimension 0")
    if low == high and array.size:
        low, high = float(array.min()), float(array.max())
    if low == high:
        low, high = low - 1, high + 1
    if low > high:
        raise RuntimeError(f"torch.histc: max must be larger than min, got min {min} and max {max}")
    if not (np.isfinite(low) and np.isfinite(high)):
        raise RuntimeError(f"torch.histc: range of [{low}, {high}] is not finite")
    counts, _ = np.histogram(array, bins=int(bins), range=(low, high))
    return new_tensor(counts.astype(array.dtype))


@op(method=True)
def histogram(input, bins, *, range=None, weight=None, density=False, out=None):
    """`(hist, bin_edges)`: counts (or weight sums, or a density) over `bins` equal bins in `range`
    (default the data's), or over the given tensor of increasing bin edges."""
    array = _float_input(input, "histogram")
    weights = None
    if weight is not None:
        _check_tensor(weight, "histogram")
        if weight._data.shape != array.shape:
            raise RuntimeError(
                f"torch.histogram: if weight tensor is provided it should have the same shape as the "
                f"input tensor excluding its innermost dimension, but got input with shape "
                f"{list(array.shape)} and weight with shape {list(weight._data.shape)}"
            )
        weights = weight._data
    if isinstance(bins, Tensor):
        edges = bins._data.astype(array.dtype)
        if edges.ndim != 1 or edges.size < 2 or np.any(np.diff(edges) < 0):
            raise RuntimeError(
                "torch.histogram: bins tensor should have one dimension and at least 2 elements, in increasing order"
            )
    else:
        if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins}")
        low, high = (
            (float(array.min()), float(array.max()))
            if range is None and array.size
            else (0.0, 0.0)
            if range is None
            else (float(range[0]), float(range[1]))
        )
        if low > high:
            raise RuntimeError(f"torch.histogram: min should not exceed max, but got min {low} max {high}")
        if low == high:
            low, high = low - 0.5, high + 0.5
        edges = np.linspace(low, high, int(bins) + 1).astype(array.dtype)
    hist, _ = np.histogram(array, bins=edges, weights=weights, density=density)
    result = histogram_result(new_tensor(hist.astype(array.dtype)), new_tensor(edges))
    if out is not None:
        for target, value in zip(out, result):
            target.resize_(value.shape).copy_(value)
        return histogram_result(*out)
    return result
