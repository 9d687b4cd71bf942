"""Linear and bilinear maps (`torch.nn.functional.linear`, `bilinear`)."""

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
    records three nodes (transpose, matmul, add) per layer."""

    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        return _precision.matmul(x, weight.T, bias)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        needs_x, needs_weight, needs_bias = ctx.needs_input_grad
        # (Written with what arrays and tensors share: it also runs on arrays, see autograd.function.)
        grad_x = grad @ weight if needs_x else None
        # Batched inputs (..., in_features) as rows; 2-D ones already are.
        rows = grad if grad.ndim == 2 else grad.reshape((-1, weight.shape[0]))
        grad_weight = None
        if needs_weight:
            grad_weight = rows.swapaxes(0, 1) @ (x if x.ndim == 2 else x.reshape((-1, x.shape[-1])))
        grad_bias = None
        if needs_bias:
            grad_bias = _precision.add_reduce(rows, 0) if isinstance(rows, np.ndarray) else rows.sum(0)
        return grad_x, grad_weight, grad_bias


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
