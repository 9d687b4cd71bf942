"""Linear and bilinear maps (`torch.nn.functional.linear`, `bilinear`)."""

import math

from .._backend import np
from .. import _precision
from ..autograd.function import Primitive
from ._nn_common import _check_same_dtype, _check_tensor
from . import _autocast
from ._declare import op

__all__ = ["bilinear"]


# ================================================================ linear
class Linear(Primitive, node="AddmmBackward0", backward_on_arrays=True, holomorphic=True):
    """x @ w.T + b in one node (PyTorch's addmm): a primitive for measured speed, since the composite
    records three nodes (transpose, matmul, add) per layer.

    Batched inputs (..., in_features) are multiplied as one (rows, in_features) matrix, forward and
    backward: NumPy's matmul of a 3-D array by a matrix makes one small GEMM per leading index, up to
    ~4x slower (a Transformer's (32, 32, 64) activations: 32 GEMMs of 32 rows instead of one of 1024).
    """

    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        if x.dtype.kind == "V":  # bfloat16: multiplied in float32 and rounded once (see _precision)
            return _precision.matmul(x, weight.T, bias)
        if x.ndim <= 2:
            result = np.matmul(x, weight.T)
        else:  # written into an array of the final shape, so the result owns its memory (see elision)
            result = np.empty(x.shape[:-1] + weight.shape[:1], np.result_type(x.dtype, weight.dtype))
            np.matmul(_as_rows(x), weight.T, out=_as_rows(result))
        if bias is not None:
            result += bias
        return result

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        needs_x, needs_weight, needs_bias = ctx.needs_input_grad
        # (Written with what arrays and tensors share: it also runs on arrays, see autograd.function.)
        rows = _as_rows(grad)
        grad_x = None
        if needs_x:
            grad_x = rows @ weight if grad.ndim == 2 else (rows @ weight).reshape(x.shape)
        grad_weight = rows.swapaxes(0, 1) @ _as_rows(x) if needs_weight else None
        grad_bias = None
        if needs_bias:
            grad_bias = _precision.add_reduce(rows, 0) if isinstance(rows, np.ndarray) else rows.sum(0)
        return grad_x, grad_weight, grad_bias


def _as_rows(array):
    """An (..., n) array or tensor as the matrix of its rows: (size // n, n)."""
    if array.ndim == 2:
        return array
    shape = array.shape
    return array.reshape((math.prod(shape[:-1]), shape[-1]))


class LinearNoBias(Linear, node="MmBackward0"):
    pass


def linear(input, weight, bias=None):
    """input @ weight.T + bias: input (..., in_features), weight (out_features, in_features)."""
    if _autocast.ever_enabled and _autocast.state.lower is not None:
        input, weight, bias = _autocast.lower_precision(input, weight, bias)
    _check_tensor(input, "input", "linear")
    _check_tensor(weight, "weight", "linear")
    if weight._data.ndim not in (1, 2) or input._data.ndim == 0:
        raise RuntimeError(
            f"linear: expected weight of shape (out_features, in_features) and an input with at "
            f"least 1 dim, got input {list(input.shape)} and weight {list(weight.shape)}"
        )
    if weight._data.ndim == 1:
        output = input @ weight
        return output + bias if bias is not None else output
    if input._data.shape[-1] != weight._data.shape[1]:
        rows = "x".join(map(str, input._data.shape[:-1])) or "1"
        raise RuntimeError(
            f"linear: mat1 and mat2 shapes cannot be multiplied ({rows}x{input._data.shape[-1]} and "
            f"{weight._data.shape[1]}x{weight._data.shape[0]}): input {list(input.shape)} has "
            f"{input._data.shape[-1]} features but weight {list(weight.shape)} expects "
            f"{weight._data.shape[1]}"
        )
    _check_same_dtype(input, weight, "weight", "linear")
    if bias is not None:
        _check_same_dtype(input, bias, "bias", "linear")
        if bias._data.shape not in ((weight._data.shape[0],), (), (1,)):
            raise RuntimeError(
                f"linear: bias of shape {list(bias.shape)} does not match out_features={weight._data.shape[0]}"
            )
        return Linear.apply(input, weight, bias)
    return LinearNoBias.apply(input, weight, None)


@op()
def bilinear(input1, input2, weight, bias=None):
    """y_k = input1 @ weight[k] @ input2 + bias_k: input1 (..., n1), input2 (..., n2), weight (out, n1, n2)."""
    for name, value in (("input1", input1), ("input2", input2), ("weight", weight)):
        _check_tensor(value, name, "bilinear")
    if (
        weight._data.ndim != 3
        or input1._data.shape[-1] != weight._data.shape[1]
        or input2._data.shape[-1] != weight._data.shape[2]
        or input1._data.shape[:-1] != input2._data.shape[:-1]
    ):
        raise RuntimeError(
            f"bilinear: input1 {list(input1.shape)}, input2 {list(input2.shape)} and weight "
            f"{list(weight.shape)} do not fit: expected (..., n1), (..., n2) and (out, n1, n2)"
        )
    # (..., n1) @ (out, n1, n2) -> (..., out, n2), then contracted with input2.
    left = (input1.unsqueeze(-2).unsqueeze(-2) @ weight).squeeze(-2)
    output = (left * input2.unsqueeze(-2)).sum(-1)
    return output + bias if bias is not None else output
