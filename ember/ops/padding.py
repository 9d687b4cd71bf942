"""Padding: constant, and the index-based reflect / replicate / circular modes."""

from .._backend import np
from .._tensor import new_tensor
from ..autograd.function import Primitive
from ._declare import op

__all__ = ["constant_pad_nd"]


# ================================================================ padding
class ConstantPad(Primitive, node="ConstantPadNdBackward0"):
    """Pad with a constant; backward crops the gradient back (a differentiable slice)."""

    @staticmethod
    def forward(ctx, x, before, after, value):
        lead = x.ndim - len(before)
        ctx.region = (slice(None),) * lead + tuple(slice(b, b + s) for b, s in zip(before, x.shape[lead:]))
        result = np.full(
            x.shape[:lead] + tuple(b + s + a for b, s, a in zip(before, x.shape[lead:], after)), value, dtype=x.dtype
        )
        result[ctx.region] = x
        return result

    @staticmethod
    def backward(ctx, grad):
        return grad[ctx.region], None, None, None


def _pad_amounts(pad, ndim, op_name):
    """PyTorch's pad list (last dim first, (before, after) pairs) as per-dim tuples for the last dims."""
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError(f"{op_name}: padding length must be divisible by 2, got {len(pad)} values {list(pad)}")
    count = len(pad) // 2
    if count > ndim:
        raise RuntimeError(
            f"{op_name}: padding length should be at most twice the input's number of dimensions "
            f"({ndim}), but got {len(pad)}"
        )
    before = tuple(pad[2 * i] for i in reversed(range(count)))
    after = tuple(pad[2 * i + 1] for i in reversed(range(count)))
    return before, after


@op(ConstantPad)
def constant_pad_nd(input, pad, value=0.0):
    """Pad the last len(pad)//2 dims with `value`; negative amounts crop, as in PyTorch."""
    before, after = _pad_amounts(pad, input._data.ndim, "constant_pad_nd")
    lead = input._data.ndim - len(before)
    if any(p < 0 for p in before + after):
        sizes = input._data.shape[lead:]
        crop = (slice(None),) * lead + tuple(slice(max(-b, 0), s - max(-a, 0)) for b, a, s in zip(before, after, sizes))
        input = input[crop]
        before, after = tuple(max(b, 0) for b in before), tuple(max(a, 0) for a in after)
    if input._data.dtype.kind in "iub" and isinstance(value, float) and not float(value).is_integer():
        raise RuntimeError(f"constant_pad_nd: value {value} cannot be stored in a {input.dtype} tensor")
    return ConstantPad.apply(input, before, after, value)


def _edge_indices(size, before, after, mode):
    positions = np.arange(-before, size + after)
    if mode == "replicate":
        return np.clip(positions, 0, size - 1)
    if mode == "circular":
        return positions % size
    reflected = np.abs(positions)
    return np.where(reflected >= size, 2 * (size - 1) - reflected, reflected)


def index_pad(input, pad, mode):
    """'reflect', 'replicate' or 'circular' padding: one gather (a differentiable index) per padded dim."""
    before, after = _pad_amounts(pad, input._data.ndim, f"pad(mode='{mode}')")
    lead = input._data.ndim - len(before)
    for offset, (b, a) in enumerate(zip(before, after)):
        dim = lead + offset
        size = input._data.shape[dim]
        if mode == "reflect" and (b >= size or a >= size):
            raise RuntimeError(
                f"pad(mode='reflect'): Padding size should be less than the corresponding input "
                f"dimension, but got: padding ({b}, {a}) at dimension {dim} of input "
                f"{list(input.shape)}"
            )
        if mode == "circular" and (b > size or a > size):
            raise RuntimeError(
                f"pad(mode='circular'): Padding value causes wrapping around more than once: "
                f"padding ({b}, {a}) at dimension {dim} of input {list(input.shape)}"
            )
        if mode == "replicate" and size == 0 and (b or a):
            raise RuntimeError(f"pad(mode='replicate'): cannot replicate the edge of an empty dimension {dim}")
        if b or a:
            input = input[(slice(None),) * dim + (new_tensor(_edge_indices(size, b, a, mode)),)]
    return input
