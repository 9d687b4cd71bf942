"""Reductions, scans and sorting: sum, mean, prod, std/var, max/min, norm, logsumexp, cumsum, sort, ...

Three shapes of backward cover the family:

* sums and moments (`sum`, `mean`, `prod`, `std`, `logsumexp`, `norm`) broadcast the gradient back
  over the reduced dims with ember ops, so their backward is differentiable again;
* ops that *select* elements along one dim (`max(dim)`, `median(dim)`, `kthvalue`, `mode`, `topk`,
  `sort`) return values and indices; the gradient is scattered to the indices (`_ScatterAlongDim`);
* full selections (`max()`, `median()`, `amax`) share the gradient evenly among the elements equal
  to the result, as PyTorch does.

Dims are an int, a tuple, or None (all); for the sum-like ops an empty tuple also means all dims.
"""

import builtins

from .._backend import np, broadcast_view
from .._precision import accumulate, widened
from .._validation import int_argument
from .._sparse_coo import SparseCoo
from .._tensor import Tensor, new_tensor
from .. import _dtype, return_types
from ..autograd.function import Primitive
from ._common import c_contiguous, normalize_dim, normalize_dims
from .indexing import where
from .pointwise import sgn
from .shape import movedim
from ._tangents import linear_jvp
from ._declare import op
from . import sparse_coo
from . import _std_order
from .._warn import warn as _warn

__all__ = [
    "sum",
    "mean",
    "nansum",
    "nanmean",
    "prod",
    "std",
    "var",
    "std_mean",
    "var_mean",
    "max",
    "min",
    "amax",
    "amin",
    "aminmax",
    "argmax",
    "argmin",
    "logsumexp",
    "cumsum",
    "cumprod",
    "median",
    "nanmedian",
    "mode",
    "kthvalue",
    "topk",
    "sort",
    "argsort",
    "msort",
    "all",
    "any",
    "count_nonzero",
]


# ---------------------------------------------------------------- argument handling
def _check_tensor(input, op_name):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op_name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")


def _reduction_dims(input, dim, op_name, empty_means_all=True):
    """Sorted non-negative dims to reduce; None (and, for most ops, an empty tuple) means all dims."""
    ndim = input._data.ndim
    if isinstance(dim, (tuple, list)) and not dim and empty_means_all:
        dim = None
    dims = normalize_dims(dim, ndim, op_name)
    return dims if ndim else ()  # a 0-d tensor accepts dim 0 / -1 but has no axis to reduce


def _single_dim(input, dim, op_name):
    """The one dim of ops that take an int only (max(dim), sort, cumsum, ...), as PyTorch checks it."""
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer, Tensor)):
        raise TypeError(f"{op_name}(): argument 'dim' must be int, not {type(dim).__name__}")
    return normalize_dim(dim, input._data.ndim, op_name)


def _check_nonempty_dims(input, dims, op_name):
    for dim in dims:
        if input._data.shape[dim] == 0:
            raise IndexError(f"{op_name}(): Expected reduction dim {dim} to have non-zero size.")


def _numpy_dtype(dtype):
    return None if dtype is None else _dtype.to_dtype(dtype).numpy_dtype


def _integer_accumulator(input, dtype):
    """PyTorch sums and multiplies integers and bools in int64 unless `dtype` says otherwise."""
    if dtype is not None:
        return _dtype.to_dtype(dtype).numpy_dtype
    if input._data.dtype.kind in "biu":
        return np.int64
    return None


def _kept_shape(input_shape, dims):
    return tuple(1 if index in dims else size for index, size in enumerate(input_shape))


def _restore_dims(grad, input_shape, dims, keepdim):
    """A reduced gradient with its reduced dims back as size 1, ready to broadcast over the input."""
    if keepdim or not dims:
        return grad
    return grad.reshape(_kept_shape(input_shape, dims))


def _expand_back(grad, input_shape, dims, keepdim):
    """Broadcast a reduced gradient back over the reduced dims (a view, no copy)."""
    restored = _restore_dims(grad, input_shape, dims, keepdim)
    if not isinstance(restored, Tensor):  # a first-order backward on arrays (see autograd.function)
        return broadcast_view(_as_array(restored), input_shape)
    return restored.expand(input_shape)


def _as_array(value):
    """NumPy reductions to 0-d return scalars; ember's outputs (and saved arrays) are ndarrays."""
    return value if type(value) is np.ndarray else np.asarray(value)


# ---------------------------------------------------------------- sum, mean, nansum, prod
class Sum(Primitive, node="SumBackward1", backward_on_arrays=True):
    @staticmethod
    def forward(ctx, a, dims, keepdim, dtype):
        ctx.input_shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        return accumulate(np.add.reduce, a, axis=dims, dtype=dtype, keepdims=keepdim)  # np.sum's core

    @staticmethod
    def backward(ctx, grad):
        return _expand_back(grad, ctx.input_shape, ctx.dims, ctx.keepdim), None, None, None

    jvp = linear_jvp


class SumAll(Sum, node="SumBackward0"):
    pass


class Nansum(Primitive, node="NansumBackward0"):
    @staticmethod
    def forward(ctx, a, dims, keepdim, dtype):
        ctx.input_shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        ctx.kept = ~np.isnan(a) if a.dtype.kind in "fcV" else None
        return accumulate(np.nansum, a, axis=dims, keepdims=keepdim, dtype=dtype)

    @staticmethod
    def backward(ctx, grad):
        grad = _expand_back(grad, ctx.input_shape, ctx.dims, ctx.keepdim)
        if ctx.kept is not None:
            grad = grad * new_tensor(ctx.kept)
        return grad, None, None, None


class Mean(Primitive, node="MeanBackward1", backward_on_arrays=True):
    @staticmethod
    def forward(ctx, a, dims, keepdim, dtype):
        ctx.input_shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        count = 1
        for dim in dims:
            count *= a.shape[dim]
        ctx.count = count
        out_dtype = a.dtype if dtype is None else dtype
        if count == 0:  # the mean of nothing is nan (NumPy would also warn)
            shape = (
                _kept_shape(a.shape, dims)
                if keepdim
                else tuple(size for index, size in enumerate(a.shape) if index not in dims)
            )
            return np.full(shape, np.nan, dtype=out_dtype)
        # np.mean's arithmetic without its wrapper: float16 (and bfloat16) sums in float32, as np.mean does.
        accumulator = dtype if dtype is not None or (a.dtype != np.float16 and a.dtype.kind != "V") else np.float32
        total = np.add.reduce(a, axis=dims, dtype=accumulator, keepdims=keepdim)
        return (total / count).astype(out_dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        return _expand_back(grad / ctx.count, ctx.input_shape, ctx.dims, ctx.keepdim), None, None, None

    jvp = linear_jvp


class MeanAll(Mean, node="MeanBackward0"):
    pass


@op(Sum, SumAll, method=True)
def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over `dim` (an int, a tuple, or None / () for all dims); `keepdim` keeps them as size 1.

    Integer and bool tensors sum to int64 unless `dtype` is given, as in PyTorch.
    """
    _check_tensor(input, "sum")
    if type(input._data) is SparseCoo:
        return sparse_coo.sparse_sum(input, dim, dtype, keepdim)
    dims = _reduction_dims(input, dim, "sum")
    function = SumAll if dim is None else Sum
    return function.apply(input, dims, keepdim, _integer_accumulator(input, dtype))


@op(Sum, Nansum, method=True)
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum treating NaN as zero; the gradient of a NaN element is zero."""
    _check_tensor(input, "nansum")
    dims = _reduction_dims(input, dim, "nansum")
    return Nansum.apply(input, dims, keepdim, _integer_accumulator(input, dtype))


@op(Mean, MeanAll, method=True)
def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Arithmetic mean over `dim`; integer tensors need an explicit floating `dtype`, as in PyTorch."""
    _check_tensor(input, "mean")
    if dtype is None and input._data.dtype.kind not in "fcV":
        raise RuntimeError(
            f"mean(): could not infer output dtype. Input dtype must be either a floating point or complex "
            f"dtype. Got: {_dtype_name(input)}. Convert it first (x.float().mean()) or pass dtype=."
        )
    dims = _reduction_dims(input, dim, "mean")
    function = MeanAll if dim is None else Mean
    return function.apply(input, dims, keepdim, _numpy_dtype(dtype))


@op(Mean, method=True)
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean of the non-NaN elements (NaN where there are none)."""
    _check_tensor(input, "nanmean")
    if input._data.dtype.kind not in "fcV":
        raise RuntimeError(
            f"nanmean(): expected input to have floating point or complex dtype but got {_dtype_name(input)}"
        )
    dims = _reduction_dims(input, dim, "nanmean")
    count = new_tensor(_as_array(np.sum(~np.isnan(input._data), axis=dims, keepdims=keepdim)))
    return nansum(input, dims, keepdim, dtype=dtype) / count


def _dtype_name(input):
    """PyTorch's short dtype names in messages ('Long', 'Float')."""
    return {
        "int64": "Long",
        "int32": "Int",
        "int16": "Short",
        "int8": "Char",
        "uint8": "Byte",
        "bool": "Bool",
        "float32": "Float",
        "float64": "Double",
        "float16": "Half",
    }.get(input.dtype.name, input.dtype.name)


class Prod(Primitive, node="ProdBackward1", holomorphic=True):
    @staticmethod
    def forward(ctx, a, dims, keepdim, dtype):
        ctx.input_shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        result = _as_array(accumulate(np.prod, a, axis=dims, keepdims=keepdim, dtype=dtype))
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        if a._data.ndim == 0:
            return grad, None, None, None
        grad = _restore_dims(grad, ctx.input_shape, ctx.dims, ctx.keepdim)
        zero = a._data == 0
        if not zero.any():
            return grad * _restore_dims(result, ctx.input_shape, ctx.dims, ctx.keepdim) / a, None, None, None
        return grad * _product_of_others(a, ctx.dims, zero), None, None, None


class ProdAll(Prod, node="ProdBackward0"):
    pass


def _product_of_others(x, dims, zero):
    """Per element, the product of the other elements of its slice: exact when the slice has zeros.

    Written with ember ops so that it can be differentiated again; the second derivative is exact
    for any number of zeros per slice (0, 1, 2 and more are distinct cases, see each branch).
    """
    zero_tensor = new_tensor(zero)
    x_safe = where(zero_tensor, 1.0, x)
    product_safe = _prod_keepdim(x_safe, dims)  # product of the nonzero elements
    count = new_tensor(_as_array(np.sum(zero, axis=dims, keepdims=True)))
    one_zero, two_zeros = count == 1, count == 2
    # The zeros of the slice, summed: value 0, but it carries their gradient (d/dx_z of others_j).
    zeros_sum = sum(where(zero_tensor, x, 0.0), dims, keepdim=True)
    at_zero = where(one_zero, product_safe, where(two_zeros, (zeros_sum - x) * product_safe, 0.0))
    elsewhere = where(count == 0, product_safe / x_safe, where(one_zero, zeros_sum * product_safe / x_safe, 0.0))
    return where(zero_tensor, at_zero, elsewhere)


def _prod_keepdim(input, dims):
    if len(dims) == 1:
        return prod(input, dims[0], keepdim=True)
    return prod(input).reshape(_kept_shape(input._data.shape, dims))


@op(Prod, ProdAll, method=True)
def prod(input, dim=None, keepdim=False, *, dtype=None):
    """Product of all elements, or along one `dim`. Integers and bools multiply in int64.

    The gradient is exact with zeros in the input (one zero: only it gets a gradient).
    """
    _check_tensor(input, "prod")
    accumulator = _integer_accumulator(input, dtype)
    if dim is None:
        return ProdAll.apply(input, tuple(range(input._data.ndim)), False, accumulator)
    dim = _single_dim(input, dim, "prod")
    return Prod.apply(input, (dim,) if input._data.ndim else (), keepdim, accumulator)


# ---------------------------------------------------------------- var, std and their means
class Var(Primitive, node="VarBackward0"):
    """var (and std, and their means) in one primitive: std = sqrt(var) shares the centred input."""

    @staticmethod
    def forward(ctx, a, dims, correction, keepdim, root, with_mean):
        count = 1
        for dim in dims:
            count *= a.shape[dim]
        ctx.input_shape, ctx.dims, ctx.keepdim, ctx.root = a.shape, dims, keepdim, root
        ctx.count, ctx.dof = count, count - correction
        work = widened(a)
        with np.errstate(divide="ignore", invalid="ignore"):
            centre = np.sum(work, axis=dims, keepdims=True) / count
            deviation = np.abs(work - centre) if a.dtype.kind == "c" else work - centre
            squares = np.sum(deviation * deviation, axis=dims, keepdims=keepdim)
            result = _as_array(squares / builtins.max(count - correction, 0))
            if root:
                result = np.sqrt(result)
        result, centre = result.astype(a.real.dtype, copy=False), centre.astype(a.dtype, copy=False)
        ctx.save_for_backward(a, result if root else None)
        if not with_mean:
            return result
        mean_result = centre if keepdim else centre.reshape(result.shape)
        return result, mean_result

    @staticmethod
    def backward(ctx, grad, grad_mean=None):
        a, result = ctx.saved_tensors
        if ctx.root:
            grad = where(result == 0, 0.0, grad / (2 * result))
        grad = _restore_dims(grad, ctx.input_shape, ctx.dims, ctx.keepdim)
        scale = 2.0 / ctx.dof if ctx.dof != 0 else float("inf")
        grad_input = grad * scale * (a - mean(a, ctx.dims, keepdim=True))
        if grad_mean is not None:
            grad_input = grad_input + _restore_dims(grad_mean, ctx.input_shape, ctx.dims, ctx.keepdim) / ctx.count
        return grad_input, None, None, None, None, None


class Std(Var, node="StdBackward0"):
    pass


class VarMean(Var, node="VarMeanBackward0"):
    pass


class StdMean(Var, node="StdMeanBackward0"):
    pass


def _moments(function, op_name, input, dim, unbiased, keepdim, correction, root, with_mean):
    _check_tensor(input, op_name)
    if isinstance(dim, bool):  # std(x, True): the legacy `unbiased` positional form
        dim, unbiased = None, dim if unbiased is None else unbiased
    if unbiased is not None and correction is not None:
        raise TypeError(f"{op_name}(): pass either unbiased= or correction=, not both (unbiased=True is correction=1)")
    if input._data.dtype.kind not in "fcV":
        raise RuntimeError(
            f"std and var only support floating point and complex dtypes (got "
            f"{input.dtype}); convert with .float() first"
        )
    if correction is None:
        correction = 0 if unbiased is False else 1
    dims = _reduction_dims(input, dim, op_name)
    count = int(np.prod([input._data.shape[d] for d in dims]))
    if count - correction <= 0:
        name = op_name.split("_")[0]
        _warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=3,
        )
    return function.apply(input, dims, correction, keepdim, root, with_mean)


@op(Var, method=True)
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Variance over `dim` with `correction` (Bessel's, 1, by default; `unbiased=False` is 0)."""
    return _moments(Var, "var", input, dim, unbiased, keepdim, correction, False, False)


@op(Std, method=True)
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Standard deviation over `dim`; arguments as `var`. The gradient where std is 0 is 0."""
    return _moments(Std, "std", input, dim, unbiased, keepdim, correction, True, False)


@op(VarMean, method=True)
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(var, mean) in one pass, as a tuple."""
    return _moments(VarMean, "var_mean", input, dim, unbiased, keepdim, correction, False, True)


@op(StdMean, method=True)
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(std, mean) in one pass, as a tuple."""
    return _moments(StdMean, "std_mean", input, dim, unbiased, keepdim, correction, True, True)


# ---------------------------------------------------------------- selections along one dim
class _GatherAlongDim(Primitive, node="GatherBackward0"):
    """`a` taken at `indices` along `dim`: the backward of a scatter (and so its double backward)."""

    @staticmethod
    def forward(ctx, a, indices, dim):
        ctx.indices, ctx.dim, ctx.input_shape = indices, dim, a.shape
        return np.take_along_axis(a, indices, axis=dim)

    @staticmethod
    def backward(ctx, grad):
        return _ScatterAlongDim.apply(grad, ctx.indices, ctx.dim, ctx.input_shape), None, None


class _ScatterAlongDim(Primitive, node="ScatterBackward0"):
    """Zeros of `shape` with `values` put at `indices` along `dim` (indices are distinct per slice)."""

    @staticmethod
    def forward(ctx, values, indices, dim, shape):
        ctx.indices, ctx.dim = indices, dim
        result = np.zeros(shape, dtype=values.dtype)
        np.put_along_axis(result, indices, values, axis=dim)
        return result

    @staticmethod
    def backward(ctx, grad):
        return _GatherAlongDim.apply(grad, ctx.indices, ctx.dim), None, None, None


class _SelectAlongDim(Primitive):
    """(values, indices) of elements chosen along `dim`; the caller computes the indices.

    `indices` keep the reduced dim (size 1 for max/median/..., k for topk, n for sort); a 0-d input
    is treated as shape (1,). The gradient goes to the chosen elements only.
    """

    @staticmethod
    def forward(ctx, a, indices, dim, keepdim):
        work = a.reshape(1) if a.ndim == 0 else a
        ctx.input_shape, ctx.work_shape, ctx.indices, ctx.dim = a.shape, work.shape, indices, dim
        values = np.take_along_axis(work, indices, axis=dim)
        if a.ndim == 0:
            return values.reshape(()), indices.reshape(())
        if not keepdim:
            return values.squeeze(dim), indices.squeeze(dim)
        return values, indices

    @staticmethod
    def backward(ctx, grad, grad_indices):
        indices = ctx.indices
        grad_input = _ScatterAlongDim.apply(grad.reshape(indices.shape), indices, ctx.dim, ctx.work_shape)
        return grad_input.reshape(ctx.input_shape), None, None, None


class MaxDim(_SelectAlongDim, node="MaxBackward0"):
    pass


class MinDim(_SelectAlongDim, node="MinBackward0"):
    pass


class MedianDim(_SelectAlongDim, node="MedianBackward1"):
    pass


class NanmedianDim(_SelectAlongDim, node="NanmedianBackward1"):
    pass


class Mode(_SelectAlongDim, node="ModeBackward0"):
    pass


class Kthvalue(_SelectAlongDim, node="KthvalueBackward0"):
    pass


class Topk(_SelectAlongDim, node="TopkBackward0"):
    pass


class Sort(_SelectAlongDim, node="SortBackward0"):
    pass


class SortStable(_SelectAlongDim, node="SortBackward1"):
    pass


def _select_along_dim(function, result_type, input, dim, keepdim, selector, *args):
    """Run `selector(array, dim, *args)` for the indices (`dim` checked), then gather the values."""
    array = input._data
    if array.ndim == 0:
        array = array.reshape(1)
    indices = selector(array, dim, *args)
    values, indices = function.apply(input, indices.astype(np.int64, copy=False), dim, keepdim)
    return result_type(values, indices)


def _reducing_selector(op_name, input, dim, function, result_type, keepdim, selector, *args):
    """max(dim), median(dim), mode, kthvalue: refuse to reduce an empty dim, as PyTorch does."""
    _check_tensor(input, op_name)
    dim = _single_dim(input, dim, op_name)
    if input._data.ndim:
        _check_nonempty_dims(input, (dim,), op_name)
    return _select_along_dim(function, result_type, input, dim, keepdim, selector, *args)


def _argmax_indices(array, dim):
    return np.expand_dims(np.argmax(array, axis=dim), dim)  # the first maximum; NaN counts as the maximum


def _argmin_indices(array, dim):
    return np.expand_dims(np.argmin(array, axis=dim), dim)


def _stable_order(array, dim, descending):
    """Indices that sort along `dim`, equal elements in their original order, NaN as the largest."""
    if not descending:
        return np.argsort(array, axis=dim, kind="stable")
    # Sorting the reversed array ascending, then reversing, keeps equal elements in original order.
    size = array.shape[dim]
    order = np.argsort(np.flip(array, dim), axis=dim, kind="stable")
    return size - 1 - np.flip(order, dim)


def _replay_slices(order, array, dim, descending, replay, every_slice=False):
    """Overwrite the slices of `order` (indices along `dim`) that hold ties, or all of them with
    `every_slice`, with `replay(keys)`: the positions PyTorch's CPU kernel (a C++ std:: algorithm,
    see `_std_order`) leaves there. Above `_std_order.REPLAY_LIMIT` elements, `order` stays as it is."""
    moved = np.moveaxis(array, dim, -1)
    if moved.size == 0:
        return order
    rows = moved.reshape(-1, moved.shape[-1])
    chosen = np.ones(len(rows), dtype=bool) if every_slice else _std_order.has_ties(rows)
    if not chosen.any() or chosen.sum() * rows.shape[1] > _std_order.REPLAY_LIMIT:
        return order
    keys = _std_order.ranks(rows[chosen], descending)
    moved_order = np.moveaxis(order, dim, -1)  # a view: writing it writes `order`
    target = moved_order.reshape(-1, moved_order.shape[-1])
    for row, row_keys in zip(np.flatnonzero(chosen), keys.tolist()):
        target[row] = replay(row_keys)
    if not np.shares_memory(target, order):  # reshape had to copy: put the rows back
        moved_order[...] = target.reshape(moved_order.shape)
    return order


def _unstable_order(array, dim, descending):
    """sort(stable=False): PyTorch's std::sort order. Slices of 16 or fewer are insertion sorted
    there, which is stable, so only longer slices with ties are replayed."""
    order = _stable_order(array, dim, descending)
    if array.shape[dim] <= 16:
        return order
    if array.ndim == 1 and not descending and array.dtype.kind in "iu" and array.size >= 32768:
        return order  # PyTorch radix sorts such tensors (1-D, integers, ascending, 2**15 or more): stable
    return _replay_slices(order, array, dim, descending, _std_order.std_sort)


def _at_positions(order, positions, dim):
    return np.take_along_axis(order, positions, axis=dim)


def _median_indices(array, dim, ignore_nan):
    """Index of the lower median, ties in original order (PyTorch's nth_element breaks ties by index).

    Without `ignore_nan` a slice holding NaN has the first NaN as its median.
    """
    order = np.argsort(array, axis=dim, kind="stable")
    size = array.shape[dim]
    kept_shape = _kept_shape(array.shape, (dim,))
    if array.dtype.kind not in "fcV":
        return _at_positions(order, np.full(kept_shape, (size - 1) // 2), dim)
    nan = np.isnan(array)
    nan_count = np.sum(nan, axis=dim, keepdims=True)
    if ignore_nan:
        return _at_positions(order, np.maximum(size - nan_count - 1, 0) // 2, dim)
    indices = _at_positions(order, np.full(kept_shape, (size - 1) // 2), dim)
    return np.where(nan_count > 0, np.argmax(nan, axis=dim, keepdims=True), indices)


def _kth_indices(array, dim, k):
    """Index of the k-th smallest; where that value is tied, the one PyTorch's quickselect returns."""
    order = np.argsort(array, axis=dim, kind="stable")
    indices = _at_positions(order, np.full(_kept_shape(array.shape, (dim,)), k - 1), dim)
    values = np.take_along_axis(array, indices, axis=dim)
    tied = (
        np.sum(
            (array == values) | (np.isnan(array) & np.isnan(values)) if array.dtype.kind in "fcV" else array == values,
            axis=dim,
            keepdims=True,
        )
        > 1
    )
    if tied.any():
        moved_indices, moved_array = np.moveaxis(indices, dim, -1), np.moveaxis(array, dim, -1)
        moved_tied = np.moveaxis(tied, dim, -1)[..., 0]
        for position in np.ndindex(moved_tied.shape):  # () for a 1-D input: one slice
            if moved_tied[position]:
                moved_indices[position] = _quickselect_index(moved_array[position].tolist(), k - 1)
    return indices


def _quickselect_index(values, k):
    """The original index that PyTorch's CPU quickselect (Sedgewick's, median-of-three pivot) leaves
    at position `k` of one slice. Only run on slices whose k-th value is tied, where it decides."""

    def greater(x, y):  # NaN is larger than everything
        return (x != x and y == y) or x > y

    indices = list(range(len(values)))

    def swap(i, j):
        values[i], values[j] = values[j], values[i]
        indices[i], indices[j] = indices[j], indices[i]

    low, high = 0, len(values) - 1
    while high > low:
        if high == low + 1:
            if greater(values[low], values[high]):
                swap(low, high)
            break
        swap((low + high) >> 1, low + 1)
        if greater(values[low + 1], values[high]):
            swap(low + 1, high)
        if greater(values[low], values[high]):
            swap(low, high)
        if greater(values[low + 1], values[low]):
            swap(low + 1, low)
        i, j, pivot = low + 1, high, values[low]
        while True:
            i += 1
            while greater(pivot, values[i]):
                i += 1
            j -= 1
            while greater(values[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(low, j)
        if j <= k:
            low = i
        if j >= k:
            high = j - 1
    return indices[k]


def _mode_indices(array, dim):
    """The most frequent value (the smallest among equally frequent ones), at its last occurrence."""
    ordered = np.sort(np.moveaxis(array, dim, -1), axis=-1)
    size = ordered.shape[-1]
    positions = np.arange(size)
    starts = np.ones(ordered.shape, dtype=bool)
    starts[..., 1:] = ordered[..., 1:] != ordered[..., :-1]
    if array.dtype.kind in "fcV":  # NaNs (sorted last) form one run, as in PyTorch
        starts[..., 1:] &= ~(np.isnan(ordered[..., 1:]) & np.isnan(ordered[..., :-1]))
    run_start = np.maximum.accumulate(np.where(starts, positions, 0), axis=-1)
    ends = np.ones(ordered.shape, dtype=bool)
    ends[..., :-1] = starts[..., 1:]
    run_end = np.flip(np.minimum.accumulate(np.flip(np.where(ends, positions, size), -1), axis=-1), -1)
    best = np.argmax(run_end - run_start, axis=-1)  # the first longest run: the smallest value
    value = np.take_along_axis(ordered, best[..., None], axis=-1)
    moved = np.moveaxis(array, dim, -1)
    matches = moved == value
    last = size - 1 - np.argmax(np.flip(matches, -1), axis=-1)
    if size > 16:  # PyTorch takes the last of the run that its std::sort leaves (stable up to 16)
        last = _mode_replayed(moved, value[..., 0], last)
    if array.dtype.kind in "fcV":  # a NaN mode: PyTorch reports its first NaN
        last = np.where(np.isnan(value[..., 0]), np.argmax(np.isnan(moved), axis=-1), last)
    return np.expand_dims(last, dim)


def _mode_replayed(moved, value, last):
    """`last` (the mode's last occurrence per slice) replaced by the index that ends the mode's run
    after PyTorch's std::sort, for slices without NaN (their order there is not a strict one)."""
    rows = moved.reshape(-1, moved.shape[-1])
    chosen = _std_order.has_ties(rows)
    if rows.dtype.kind in "fcV":
        chosen &= ~np.isnan(rows).any(axis=-1)
    if not chosen.any() or chosen.sum() * rows.shape[1] > _std_order.REPLAY_LIMIT:
        return last
    last = last.reshape(-1).copy()
    modes = value.reshape(-1)
    for row in np.flatnonzero(chosen):
        keys = _std_order.ranks(rows[row]).tolist()
        positions = _std_order.std_sort(list(keys))
        mode_key = keys[int(np.argmax(rows[row] == modes[row]))]
        run_end = builtins.max(i for i, position in enumerate(positions) if keys[position] == mode_key)
        last[row] = positions[run_end]
    return last.reshape(value.shape)


def _topk_indices(array, dim, k, largest, sorted):
    """The k largest (smallest) in PyTorch's CPU order: std::partial_sort when k * 64 <= n, else
    std::nth_element and, when `sorted`, std::sort of the k - 1 before the k-th."""
    order = np.take(_stable_order(array, dim, largest), np.arange(k), axis=dim)
    size = array.shape[dim]
    if k == 0:
        return order

    def replay(keys):
        if k * 64 <= size:
            return _std_order.std_partial_sort(keys, k)[:k]
        positions = _std_order.std_nth_element(keys, k - 1)
        if sorted:
            _std_order.std_sort_range(keys, positions, 0, k - 1)
        return positions[:k]

    # Without ties the sorted results agree; unsorted ones come in nth_element's order.
    every_slice = not sorted and k * 64 > size
    return _replay_slices(order, array, dim, largest, replay, every_slice)


@op(MaxDim, method=True)
def max(input, dim=None, keepdim=False):
    """The largest element; with `dim`, `(values, indices)` along it; with a tensor, `maximum`.

    Gradient: along a dim it goes to the returned index; over all elements it is shared evenly
    among the elements equal to the maximum (as PyTorch). NaN is the largest value.
    """
    if isinstance(dim, Tensor):
        return _elementwise_extremum("maximum", input, dim)
    if dim is None:
        return _full_selection(MaxAll, np.max, "max", input)
    return _reducing_selector("max", input, dim, MaxDim, return_types.max, keepdim, _argmax_indices)


@op(MinDim, method=True)
def min(input, dim=None, keepdim=False):
    """The smallest element; with `dim`, `(values, indices)` along it; with a tensor, `minimum`."""
    if isinstance(dim, Tensor):
        return _elementwise_extremum("minimum", input, dim)
    if dim is None:
        return _full_selection(MinAll, np.min, "min", input)
    return _reducing_selector("min", input, dim, MinDim, return_types.min, keepdim, _argmin_indices)


def _elementwise_extremum(name, input, other):
    from . import pointwise

    function = getattr(pointwise, name, None)
    if function is None:
        raise NotImplementedError(f"max/min of two tensors needs ember.{name}, which is not available yet")
    return function(input, other)


@op(MedianDim, method=True)
def median(input, dim=None, keepdim=False):
    """The lower median; with `dim`, `(values, indices)`. NaN anywhere makes the median NaN.

    Among equal medians along a dim, the index is the one a stable sort puts in the middle (PyTorch's).
    """
    if dim is None:
        return _full_selection(MedianAll, _lower_median, "median", input)
    return _reducing_selector("median", input, dim, MedianDim, return_types.median, keepdim, _median_indices, False)


@op(NanmedianDim, method=True)
def nanmedian(input, dim=None, keepdim=False):
    """The lower median of the non-NaN elements (NaN when all are NaN)."""
    if dim is None:
        return _full_selection(NanmedianAll, _lower_nanmedian, "nanmedian", input)
    return _reducing_selector(
        "nanmedian", input, dim, NanmedianDim, return_types.nanmedian, keepdim, _median_indices, True
    )


@op(Mode, method=True)
def mode(input, dim=-1, keepdim=False):
    """`(values, indices)`: the most frequent value along `dim` (the smallest if several) and the
    index PyTorch returns: the last of its run after C++ std::sort (the last occurrence for 16 or
    fewer elements)."""
    return _reducing_selector("mode", input, dim, Mode, return_types.mode, keepdim, _mode_indices)


@op(Kthvalue, method=True)
def kthvalue(input, k, dim=-1, keepdim=False):
    """`(values, indices)` of the k-th smallest element along `dim` (k counts from 1).

    Among equal values, the index PyTorch's quickselect returns.
    """
    _check_tensor(input, "kthvalue")
    k = int_argument(k, "kthvalue", "k", 1)
    dim = _single_dim(input, dim, "kthvalue")
    size = input._data.shape[dim] if input._data.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim} (k={k}, size {size})")
    return _select_along_dim(Kthvalue, return_types.kthvalue, input, dim, keepdim, _kth_indices, k)


@op(Topk, method=True)
def topk(input, k, dim=-1, largest=True, sorted=True):
    """`(values, indices)` of the k largest (or smallest) elements along `dim`, sorted unless
    `sorted=False`.

    Among equal values the indices, and with `sorted=False` the order, are those PyTorch's CPU
    kernel gives (see `ember.ops._std_order`; beyond 200,000 elements with ties, original order).
    """
    _check_tensor(input, "topk")
    k = int_argument(k, "topk", "k", 1)
    dim = _single_dim(input, dim, "topk")
    size = input._data.shape[dim] if input._data.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError(f"selected index k out of range (k={k}, dimension {dim} has size {size})")
    return _select_along_dim(Topk, return_types.topk, input, dim, True, _topk_indices, k, largest, bool(sorted))


@op(Sort, SortStable, method=True)
def sort(input, dim=-1, descending=False, stable=None):
    """`(values, indices)` sorted along `dim`; NaN sorts as the largest value.

    `stable=True` keeps equal elements in their original order. Otherwise equal elements come in
    the order PyTorch's CPU sort (C++ std::sort) leaves them, replayed by `ember.ops._std_order`
    (beyond 200,000 elements with ties: original order).
    """
    _check_tensor(input, "sort")
    dim = _single_dim(input, dim, "sort")
    function = Sort if stable is None else SortStable
    order = _stable_order if stable else _unstable_order
    return _select_along_dim(function, return_types.sort, input, dim, True, order, bool(descending))


@op(method=True)
def argsort(input, dim=-1, descending=False, stable=False):
    """The indices that sort `input` along `dim` (equal elements as `sort` orders them)."""
    return sort(input, dim, descending, stable).indices


@op(method=True)
def msort(input):
    """`sort(input, dim=0).values`."""
    return sort(input, 0).values


# ---------------------------------------------------------------- full selections: max(), median(), amax
class _EvenlyShared(Primitive):
    """max(), min(), median() over all elements: the gradient is shared evenly among the elements
    equal to the result (NaN equals a NaN result), as PyTorch's evenly_distribute_backward."""

    @staticmethod
    def forward(ctx, a, reducer):
        result = _as_array(reducer(a))
        matches = a == result
        if a.dtype.kind in "fcV" and np.isnan(result):
            matches = np.isnan(a)
        ctx.share = (matches / builtins.max(int(matches.sum()), 1)).astype(a.dtype)
        return result

    @staticmethod
    def backward(ctx, grad):
        return grad * new_tensor(ctx.share), None


class MaxAll(_EvenlyShared, node="MaxBackward1"):
    pass


class MinAll(_EvenlyShared, node="MinBackward1"):
    pass


class MedianAll(_EvenlyShared, node="MedianBackward0"):
    pass


class NanmedianAll(_EvenlyShared, node="NanmedianBackward0"):
    pass


def _full_selection(function, reducer, op_name, input):
    _check_tensor(input, op_name)
    if input._data.size == 0 and function in (MaxAll, MinAll):
        raise RuntimeError(
            f"{op_name}(): Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    return function.apply(input, reducer)


def _lower_median(array):
    flat = array.reshape(-1)
    if flat.size == 0:
        return np.array(np.nan, dtype=array.dtype)
    if array.dtype.kind in "fcV" and np.isnan(flat).any():
        return np.array(np.nan, dtype=array.dtype)
    middle = (flat.size - 1) // 2
    return np.partition(flat, middle)[middle]


def _lower_nanmedian(array):
    flat = array.reshape(-1)
    if array.dtype.kind in "fcV":
        flat = flat[~np.isnan(flat)]
    return _lower_median(flat) if flat.size else np.array(np.nan, dtype=array.dtype)


class Amax(Primitive, node="AmaxBackward0"):
    """amax/amin over dims: the gradient is shared evenly among the elements equal to the result
    in each slice. A NaN result has no equal element, so its slice gets NaN gradients (as PyTorch)."""

    @staticmethod
    def forward(ctx, a, dims, keepdim, reducer):
        result = reducer(a, axis=dims, keepdims=True)
        ctx.share = _even_shares(a, result, dims)
        ctx.input_shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        return (
            result
            if keepdim
            else result.reshape(tuple(size for index, size in enumerate(a.shape) if index not in dims))
        )

    @staticmethod
    def backward(ctx, grad):
        return _restore_dims(grad, ctx.input_shape, ctx.dims, ctx.keepdim) * new_tensor(ctx.share), None, None, None


class Amin(Amax, node="AminBackward0"):
    pass


def _even_shares(a, kept_result, dims):
    matches = a == kept_result
    with np.errstate(divide="ignore", invalid="ignore"):
        return (matches / np.sum(matches, axis=dims, keepdims=True)).astype(a.dtype, copy=False)


class Aminmax(Primitive, node="AminmaxBackward0"):
    @staticmethod
    def forward(ctx, a, dims, keepdim):
        low, high = np.amin(a, axis=dims, keepdims=True), np.amax(a, axis=dims, keepdims=True)
        ctx.low_share, ctx.high_share = _even_shares(a, low, dims), _even_shares(a, high, dims)
        ctx.input_shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        if not keepdim:
            shape = tuple(size for index, size in enumerate(a.shape) if index not in dims)
            low, high = low.reshape(shape), high.reshape(shape)
        return low, high

    @staticmethod
    def backward(ctx, grad_low, grad_high):
        shape, dims, keepdim = ctx.input_shape, ctx.dims, ctx.keepdim
        return (
            (
                _restore_dims(grad_low, shape, dims, keepdim) * new_tensor(ctx.low_share)
                + _restore_dims(grad_high, shape, dims, keepdim) * new_tensor(ctx.high_share)
            ),
            None,
            None,
        )


@op(Amax, method=True)
def amax(input, dim=(), keepdim=False):
    """The maximum over `dim` (int, tuple, or () for all dims); ties share the gradient evenly."""
    return _amax_or_amin(Amax, np.amax, "amax", input, dim, keepdim)


@op(Amin, method=True)
def amin(input, dim=(), keepdim=False):
    """The minimum over `dim`; ties share the gradient evenly."""
    return _amax_or_amin(Amin, np.amin, "amin", input, dim, keepdim)


def _amax_or_amin(function, reducer, op_name, input, dim, keepdim):
    _check_tensor(input, op_name)
    dims = _reduction_dims(input, dim, op_name)
    if input._data.size == 0 and dim in (None, (), []):
        raise RuntimeError(
            f"{op_name}(): Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    _check_nonempty_dims(input, dims, op_name)
    return function.apply(input, dims, keepdim, reducer)


@op(Aminmax, method=True)
def aminmax(input, *, dim=None, keepdim=False):
    """`(min, max)` together, over all elements or along `dim`."""
    _check_tensor(input, "aminmax")
    if dim is None:
        dims = tuple(range(input._data.ndim))
    else:
        dims = (_single_dim(input, dim, "aminmax"),) if input._data.ndim else ()
    if input._data.size == 0 and (dim is None or builtins.any(input._data.shape[d] == 0 for d in dims)):
        raise RuntimeError(
            "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity."
        )
    low, high = Aminmax.apply(input, dims, keepdim)
    return return_types.aminmax(low, high)


@op(method=True)
def argmax(input, dim=None, keepdim=False):
    """Index of the (first) maximum, over the flattened tensor or along `dim`; int64, no gradient."""
    return _arg_extremum(np.argmax, "argmax", input, dim, keepdim)


@op(method=True)
def argmin(input, dim=None, keepdim=False):
    """Index of the (first) minimum, over the flattened tensor or along `dim`."""
    return _arg_extremum(np.argmin, "argmin", input, dim, keepdim)


def _arg_extremum(function, op_name, input, dim, keepdim):
    _check_tensor(input, op_name)
    array = input._data
    if dim is None:
        if array.size == 0:
            raise IndexError(f"{op_name}(): Expected reduction dim to be specified for input.numel() == 0.")
        result = np.asarray(function(array)).reshape((1,) * array.ndim if keepdim else ())
    else:
        dim = _single_dim(input, dim, op_name)
        if array.ndim == 0:
            result = np.zeros((), dtype=np.int64)
        else:
            _check_nonempty_dims(input, (dim,), op_name)
            result = function(array, axis=dim, keepdims=keepdim)
    return new_tensor(np.asarray(result, dtype=np.int64))


# ---------------------------------------------------------------- the norm primitive, logsumexp
class LinalgVectorNorm(Primitive, node="LinalgVectorNormBackward0"):
    """The p-norm over dims, the primitive behind `norm` and `linalg.vector_norm` (ops/linalg.py);
    backward as PyTorch's norm_backward (0 where the norm is 0)."""

    @staticmethod
    def forward(ctx, a, ord, dims, keepdim):
        if ord in (float("inf"), float("-inf")) and builtins.any(a.shape[d] == 0 for d in dims):
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor because the "
                "operation does not have an identity"
            )
        if a.ndim == 0:
            dims = ()  # dim 0 / -1 of a 0-d tensor: nothing to reduce
        ctx.ord, ctx.input_shape, ctx.dims, ctx.keepdim = ord, a.shape, dims, keepdim
        absolute = np.abs(widened(a))
        if ord == 2:
            result = np.sqrt(np.sum(absolute * absolute, axis=dims, keepdims=keepdim))
        elif ord == float("inf"):
            result = np.amax(absolute, axis=dims, keepdims=keepdim)
        elif ord == float("-inf"):
            result = np.amin(absolute, axis=dims, keepdims=keepdim)
        elif ord == 0:
            result = np.sum(absolute != 0, axis=dims, keepdims=keepdim).astype(absolute.dtype)
        elif ord == 1:
            result = np.sum(absolute, axis=dims, keepdims=keepdim)
        else:
            with np.errstate(divide="ignore"):
                result = np.sum(absolute**ord, axis=dims, keepdims=keepdim) ** (1.0 / ord)
        result = _as_array(result).astype(a.real.dtype, copy=False)
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, result = ctx.saved_tensors
        p, shape, dims, keepdim = ctx.ord, ctx.input_shape, ctx.dims, ctx.keepdim
        if p == 0:  # piecewise constant: PyTorch returns no gradient at all
            return None, None, None, None
        grad = _restore_dims(grad, shape, dims, keepdim)
        norm = _restore_dims(result, shape, dims, keepdim)
        if p == 1:
            return sgn(x) * grad, None, None, None
        if p in (float("inf"), float("-inf")):
            share = new_tensor(_even_shares(np.abs(x._data), norm._data, dims))
            return sgn(x) * share * grad, None, None, None
        norm_is_zero = norm == 0
        norm_safe = where(norm_is_zero, 1.0, norm)
        if p == 2:
            return where(norm_is_zero, 0.0, x * (grad / norm_safe)), None, None, None
        zero = x == 0
        absolute_safe = where(zero, 1.0, x.abs())
        if p < 2:
            scaled = where(zero, 0.0, sgn(x) * absolute_safe ** (p - 1))
        else:
            scaled = x * absolute_safe ** (p - 2)
        if p < 1:
            return scaled * grad * norm ** (1 - p), None, None, None
        return scaled * where(norm_is_zero, 0.0, grad / norm_safe ** (p - 1)), None, None, None


class Logsumexp(Primitive, node="LogsumexpBackward0", holomorphic=True):
    """log(sum(exp(x))) computed around the maximum, so large inputs do not overflow."""

    @staticmethod
    def forward(ctx, a, dims, keepdim):
        ctx.input_shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        work = widened(a)
        if builtins.any(a.shape[d] == 0 for d in dims):
            shift = np.zeros(_kept_shape(a.shape, dims), dtype=work.dtype)
        else:
            shift = np.amax(work.real, axis=dims, keepdims=True)  # complex values: shift by the real parts
            shift = np.where(np.isinf(shift), 0, shift).astype(work.dtype, copy=False)
        with np.errstate(divide="ignore"):
            result = np.log(np.sum(np.exp(work - shift), axis=dims, keepdims=True)) + shift
        result = _as_array(
            (
                result
                if keepdim
                else result.reshape(tuple(size for index, size in enumerate(a.shape) if index not in dims))
            ).astype(a.dtype, copy=False)
        )
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        shape, dims, keepdim = ctx.input_shape, ctx.dims, ctx.keepdim
        return (
            _restore_dims(grad, shape, dims, keepdim) * (a - _restore_dims(result, shape, dims, keepdim)).exp(),
            None,
            None,
        )


@op(Logsumexp, method=True)
def logsumexp(input, dim, keepdim=False):
    """log(sum(exp(input))) over `dim`, stable for large values; integers compute in the default float."""
    _check_tensor(input, "logsumexp")
    if input._data.dtype.kind not in "fcV":
        input = input.to(_dtype.get_default_dtype())
    return Logsumexp.apply(input, _reduction_dims(input, dim, "logsumexp"), keepdim)


# ---------------------------------------------------------------- scans
def _scan_view(array):
    """The array a scan runs on: 1-d for a 0-d input, C-ordered (so is the result, as PyTorch's)."""
    return array.reshape(1) if array.ndim == 0 else c_contiguous(array)


class Cumsum(Primitive, node="CumsumBackward0"):
    """Cumulative sum; `reverse` sums from the end, which is the backward of the forward sum."""

    @staticmethod
    def forward(ctx, a, dim, dtype, reverse):
        ctx.dim, ctx.reverse = dim, reverse
        work = _scan_view(a)
        if reverse:
            result = c_contiguous(np.flip(accumulate(np.cumsum, np.flip(work, dim), axis=dim, dtype=dtype), dim))
        else:
            result = accumulate(np.cumsum, work, axis=dim, dtype=dtype)
        return result.reshape(a.shape)

    @staticmethod
    def backward(ctx, grad):
        return Cumsum.apply(grad, ctx.dim, None, not ctx.reverse), None, None, None


class Cumprod(Primitive, node="CumprodBackward0", holomorphic=True):
    @staticmethod
    def forward(ctx, a, dim, dtype):
        ctx.dim = dim
        result = accumulate(np.cumprod, _scan_view(a), axis=dim, dtype=dtype).reshape(a.shape)
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        if a._data.ndim == 0:
            return grad, None, None
        if not (a._data == 0).any():
            return Cumsum.apply(grad * result, ctx.dim, None, True) / a, None, None
        return _cumprod_backward_with_zeros(grad, a, ctx.dim), None, None


def _cumprod_backward_with_zeros(grad, x, dim):
    """d out_i / d x_j = prod(x_k for k <= i, k != j) for i >= j, built as an (n, n) table per slice.

    O(n^2) along `dim`, used only when the input holds zeros (where out / x is undefined); made of
    ember ops, so it differentiates again exactly.
    """
    size = x._data.shape[dim]
    moved_x, moved_grad = movedim(x, dim, -1), movedim(grad, dim, -1)
    without_self = where(new_tensor(np.eye(size, dtype=bool)), 1.0, moved_x.unsqueeze(-2))  # [..., j, k]
    partial_products = cumprod(without_self, -1)  # [..., j, i] = prod(x_k, k <= i, k != j)
    later = new_tensor(np.triu(np.ones((size, size), dtype=x._data.dtype)))  # i >= j
    grad_input = sum(moved_grad.unsqueeze(-2) * partial_products * later, -1)
    return movedim(grad_input, -1, dim)


@op(Cumsum, method=True, inplace=True)
def cumsum(input, dim, *, dtype=None):
    """Cumulative sum along `dim`; integers and bools accumulate in int64."""
    _check_tensor(input, "cumsum")
    dim = _single_dim(input, dim, "cumsum")
    return Cumsum.apply(input, dim, _integer_accumulator(input, dtype), False)


@op(Cumprod, method=True, inplace=True)
def cumprod(input, dim, *, dtype=None):
    """Cumulative product along `dim`; the gradient is exact with zeros in the input."""
    _check_tensor(input, "cumprod")
    dim = _single_dim(input, dim, "cumprod")
    return Cumprod.apply(input, dim, _integer_accumulator(input, dtype))


# ---------------------------------------------------------------- logical reductions
@op(method=True)
def all(input, dim=None, keepdim=False):
    """True where every element along `dim` is nonzero (uint8 inputs give uint8, as PyTorch)."""
    return _logical_reduction(np.all, "all", input, dim, keepdim)


@op(method=True)
def any(input, dim=None, keepdim=False):
    """True where some element along `dim` is nonzero."""
    return _logical_reduction(np.any, "any", input, dim, keepdim)


def _logical_reduction(function, op_name, input, dim, keepdim):
    _check_tensor(input, op_name)
    dims = _reduction_dims(input, dim, op_name, empty_means_all=False)
    result = _as_array(function(input._data, axis=dims, keepdims=keepdim))
    return new_tensor(result.astype(np.uint8) if input._data.dtype == np.uint8 else result)


@op(method=True)
def count_nonzero(input, dim=None):
    """The number of nonzero elements over `dim` (int, tuple, or None for all), as int64."""
    _check_tensor(input, "count_nonzero")
    dims = _reduction_dims(input, dim, "count_nonzero")
    return new_tensor(np.asarray(np.count_nonzero(input._data, axis=dims), dtype=np.int64))
