"""Inner products beyond `dot`: `inner` (over the last dims of two tensors, a composite of matmul)
and `vdot` (the dot product that conjugates its first argument)."""

from .._tensor import Tensor
from ._declare import op
from .linalg import Matmul, _mismatch_error, matmul

__all__ = ["inner", "vdot"]


def _tensors(input, other, op_name):
    for position, (name, value) in enumerate((("input", input), ("other", other)), start=1):
        if not isinstance(value, Tensor):
            raise TypeError(
                f"{op_name}(): argument '{name}' (position {position}) must be Tensor, not {type(value).__name__}"
            )


@op(method=True)
def inner(input, other, *, out=None):
    """Sums of products over the last dim of both tensors: shape input[:-1] + other[:-1] (a 0-d
    operand multiplies instead)."""
    _tensors(input, other, "inner")
    if input._data.ndim == 0 or other._data.ndim == 0:
        result = input * other
    else:
        size, other_size = input._data.shape[-1], other._data.shape[-1]
        if size != other_size:
            raise RuntimeError(
                f"inner() the last dimension must match on both input tensors but got shapes "
                f"{list(input.shape)} and {list(other.shape)}"
            )
        shape = input._data.shape[:-1] + other._data.shape[:-1]
        result = matmul(input.reshape(-1, size), other.reshape(-1, size).mT).view(shape)
    if out is not None:
        from .inplace import copy_into_out

        return copy_into_out(out, result)
    return result


class Vdot(Matmul, node="VdotBackward0"):
    """`dot` of the conjugated first vector (applied to `input.conj()`, so for real tensors it is dot)."""


@op(Vdot, method=True)
def vdot(input, other, *, out=None):
    """`sum(conj(input) * other)` of two 1-d tensors of one dtype (for real tensors, `dot`)."""
    _tensors(input, other, "vdot")
    if input._data.dtype != other._data.dtype:
        from .. import _dtype

        raise RuntimeError(
            f"dot : expected both vectors to have same dtype, but found {_dtype.kernel_name(input.dtype)} "
            f"and {_dtype.kernel_name(other.dtype)}"
        )
    if input._data.ndim != 1 or other._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input._data.ndim}D and {other._data.ndim}D tensors")
    if input._data.shape != other._data.shape:
        raise _mismatch_error(input._data.shape, other._data.shape)
    result = Vdot.apply(input.conj(), other)
    if out is not None:
        from .inplace import copy_into_out

        return copy_into_out(out, result)
    return result
