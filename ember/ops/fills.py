"""Filling a tensor with one value: `torch.fill(x, v)`, `x.fill_(v)`, `x.zero_()`.

The result does not depend on the old values, but it stays in the graph as in PyTorch: the input's
gradient is zero (so a filled intermediate still requires grad and `backward` reaches the leaves),
and a 0-d tensor `v` that requires grad receives the sum of the output's gradient.
"""

from .._backend import np
from ..autograd.function import Primitive
from ._declare import op
from .creation import zeros_like
from .indexing import _fill_value
from .inplace import apply_inplace

__all__ = ["fill", "fill_", "zero_"]


class Fill(Primitive, node="FillBackward0"):
    @staticmethod
    def forward(ctx, a, value):
        return np.full(a.shape, np.asarray(value).astype(a.dtype), dtype=a.dtype)

    @staticmethod
    def backward(ctx, grad):
        grad_value = grad.sum() if ctx.needs_input_grad[1] else None
        return (zeros_like(grad) if ctx.needs_input_grad[0] else None), grad_value

    @staticmethod
    def jvp(ctx, tangent_a, tangent_value):
        if tangent_value is not None:
            return tangent_value.expand(ctx.inputs[0].shape).clone()
        # an explicit zero: a fill in place must replace the tangent the tensor had
        return None if tangent_a is None else zeros_like(tangent_a)


# PyTorch names the node by value kind (number / 0-d tensor) and by whether the fill was in place.
class FillTensor(Fill, node="FillBackward1"):
    pass


class FillInplace(Fill, node="FillBackward2"):
    pass


class FillTensorInplace(Fill, node="FillBackward3"):
    pass


class Zero(Fill, node="ZeroBackward0"):
    pass


@op(Fill, FillTensor)
def fill(input, value):
    """A tensor of `input`'s shape and dtype holding `value` everywhere (a number, or a 0-d tensor
    whose gradient is the sum of the result's)."""
    value = _fill_value(input, value, "fill")
    return (FillTensor if hasattr(value, "_data") else Fill).apply(input, value)


def _filled_in_place(input, value):
    return (FillTensorInplace if hasattr(value, "_data") else FillInplace).apply(input, value)


@op(FillInplace, FillTensorInplace, method=True)
def fill_(input, value):
    """Fill with `value` (a number or a 0-d tensor), in place."""
    return apply_inplace(input, "fill_", _filled_in_place, _fill_value(input, value, "fill_"))


@op(Zero, method=True)
def zero_(input):
    """Fill with zeros, in place."""
    return apply_inplace(input, "zero_", Zero.apply, 0)
