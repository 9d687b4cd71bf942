"""Reductions: sum and mean here; the rest of the family builds on them."""
from .._backend import np
from .._tensor import Tensor
from .. import _dtype
from ..autograd.function import Function
from ._common import normalize_dims

__all__ = ["sum", "mean"]


def _expand_back(grad, input_shape, dims, keepdim):
    """Broadcast a reduced gradient back over the reduced dims (a view, no copy)."""
    if not keepdim and dims:
        kept_shape = list(input_shape)
        for dim in dims:
            kept_shape[dim] = 1
        grad = grad.reshape(tuple(kept_shape))
    return grad.expand(input_shape)


class Sum(Function):
    _array_forward = True
    _node_name = "SumBackward1"

    @staticmethod
    def forward(ctx, a, dims, keepdim, dtype):
        ctx.input_shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        return np.sum(a, axis=dims, keepdims=keepdim, dtype=dtype)

    @staticmethod
    def backward(ctx, grad):
        return _expand_back(grad, ctx.input_shape, ctx.dims, ctx.keepdim), None, None, None


class SumAll(Sum):
    _node_name = "SumBackward0"


class Mean(Function):
    _array_forward = True
    _node_name = "MeanBackward1"

    @staticmethod
    def forward(ctx, a, dims, keepdim, dtype):
        ctx.input_shape, ctx.dims, ctx.keepdim = a.shape, dims, keepdim
        count = 1
        for dim in dims:
            count *= a.shape[dim]
        ctx.count = count
        result = np.mean(a, axis=dims, keepdims=keepdim, dtype=dtype)
        return result.astype(a.dtype if dtype is None else dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        return _expand_back(grad / ctx.count, ctx.input_shape, ctx.dims, ctx.keepdim), None, None, None


class MeanAll(Mean):
    _node_name = "MeanBackward0"


def _sum_dtype(input, dtype):
    if dtype is not None:
        return _dtype.to_dtype(dtype).numpy_dtype
    if input._data.dtype.kind in "biu":
        return np.int64  # PyTorch sums integers and bools as int64
    return None


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over `dim` (an int, a tuple, or None for all dims); `keepdim` keeps them as size 1."""
    _check_tensor(input, "sum")
    dims = normalize_dims(dim, input._data.ndim, "sum")
    function = SumAll if dim is None else Sum
    return function.apply(input, dims, keepdim, _sum_dtype(input, dtype))


def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Arithmetic mean over `dim`; integer tensors need an explicit floating `dtype`, as in PyTorch."""
    _check_tensor(input, "mean")
    if dtype is None and input._data.dtype.kind not in "fc":
        raise RuntimeError(
            f"mean(): could not infer output dtype. Input dtype must be either a floating point or complex "
            f"dtype. Got: {input.dtype}. Convert it first (x.float().mean()) or pass dtype=.")
    dims = normalize_dims(dim, input._data.ndim, "mean")
    function = MeanAll if dim is None else Mean
    return function.apply(input, dims, keepdim, None if dtype is None else _dtype.to_dtype(dtype).numpy_dtype)


def _check_tensor(input, op_name):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op_name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
