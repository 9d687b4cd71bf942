"""Linear and bilinear maps (`torch.nn.functional.linear`, `bilinear`)."""

from .. import _precision
from .._backend import np
from .._tensor import new_tensor
from ..autograd import forward_ad, grad_mode
from ..autograd.function import Primitive
from ._nn_common import _check_same_dtype, _check_tensor
from . import _autocast
from ._declare import op
from .shape import T, UnsafeView, _Replay, make_view, t

__all__ = ["bilinear"]

_grad_state = grad_mode.state
_forward_ad_state = forward_ad.state


# ================================================================ linear
class Linear(Primitive, node="AddmmBackward0", backward_on_arrays=True, holomorphic=True):
    """bias + rows @ weight_t in one node: PyTorch's linear records addmm(bias, input, weight.t()),
    and so does ember, so a graph walk (`grad_fn.next_functions`) meets the same nodes in the same
    order. A primitive rather than `addmm` for measured speed (no alpha/beta scaling, bias added in place).

    Batched inputs (..., in_features) come as one (rows, in_features) matrix (see `linear`): NumPy's
    matmul of a 3-D array by a matrix makes one small GEMM per leading index, up to ~4x slower (a
    Transformer's (32, 32, 64) activations: 32 GEMMs of 32 rows instead of one of 1024)."""

    @staticmethod
    def forward(ctx, bias, rows, weight_t):
        ctx.save_for_backward(rows, weight_t)
        if rows.dtype.kind == "V":  # bfloat16: multiplied in float32 and rounded once (see _precision)
            return _precision.matmul(rows, weight_t, bias)
        result = np.matmul(rows, weight_t)
        if bias is not None:
            result += bias
        return result

    @staticmethod
    def backward(ctx, grad):
        rows, weight_t = ctx.saved_tensors
        needs_bias, needs_rows, needs_weight = ctx.needs_input_grad
        # (Written with what arrays and tensors share: it also runs on arrays, see autograd.function.)
        grad_rows = grad @ weight_t.swapaxes(0, 1) if needs_rows else None
        # Formed as (out, in) and handed back transposed: TBackward0's transpose then gives the
        # weight a C-contiguous gradient, as PyTorch's weight.grad is.
        grad_weight_t = (grad.swapaxes(0, 1) @ rows).swapaxes(0, 1) if needs_weight else None
        grad_bias = None
        if needs_bias:
            grad_bias = _precision.sum_first(grad, 1) if isinstance(grad, np.ndarray) else grad.sum(0)
        return grad_bias, grad_rows, grad_weight_t


class LinearNoBias(Linear, node="MmBackward0"):
    pass


def _transposed(weight):
    """weight.t() without the op's wrapper; with nothing to record (inference), a bare transposed array."""
    if _grad_state.enabled or _forward_ad_state.level is not None:
        return make_view(T.apply(weight), weight, _Replay(t))
    return new_tensor(weight._data.swapaxes(0, 1))


def linear(input, weight, bias=None):
    """input @ weight.T + bias: input (..., in_features), weight (out_features, in_features).

    The graph is PyTorch's: a matrix input gives AddmmBackward0 (MmBackward0 without bias) over
    (bias, input, TBackward0(weight)); other contiguous inputs are viewed as rows and back
    (ViewBackward0, UnsafeViewBackward0 without bias); the rest go through matmul (and an add)."""
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
    in_features = weight._data.shape[1]
    if input._data.shape[-1] != in_features:
        rows = "x".join(map(str, input._data.shape[:-1])) or "1"
        raise RuntimeError(
            f"linear: mat1 and mat2 shapes cannot be multiplied ({rows}x{input._data.shape[-1]} and "
            f"{in_features}x{weight._data.shape[0]}): input {list(input.shape)} has "
            f"{input._data.shape[-1]} features but weight {list(weight.shape)} expects "
            f"{in_features}"
        )
    _check_same_dtype(input, weight, "weight", "linear")
    weight_t = _transposed(weight)
    out_shape = (*input._data.shape[:-1], weight._data.shape[0])
    if bias is None:
        if input._data.ndim == 2:
            return LinearNoBias.apply(None, input, weight_t)
        if input.is_contiguous():
            return UnsafeView.apply(LinearNoBias.apply(None, input.view(-1, in_features), weight_t), out_shape)
        return input @ weight_t
    _check_same_dtype(input, bias, "bias", "linear")
    if bias._data.shape not in ((weight._data.shape[0],), (), (1,)):
        raise RuntimeError(
            f"linear: bias of shape {list(bias.shape)} does not match out_features={weight._data.shape[0]}"
        )
    if input._data.ndim == 2:
        return Linear.apply(bias, input, weight_t)
    if input.is_contiguous():
        return Linear.apply(bias, input.view(-1, in_features), weight_t).view(out_shape)
    return input @ weight_t + bias


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
