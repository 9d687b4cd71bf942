"""The part of `torch.distributed._functional_collectives` that applies to ember.

Functional collectives return a new tensor instead of filling one in. PyTorch's may return before
the data arrives and `wait_tensor` blocks until it has; ember's collectives complete before they
return, so there is never anything to wait for.
"""

from .. import autograd, empty
from .collectives import all_to_all_single

__all__ = ["wait_tensor", "all_to_all_single_autograd"]


def wait_tensor(tensor):
    """Return `tensor`: ember's collectives finish synchronously, so its data is already in place."""
    return tensor


def _exchange(input, output_split_sizes, input_split_sizes, group):
    rows = input.shape[0] if output_split_sizes is None else sum(output_split_sizes)
    output = empty((rows, *input.shape[1:]), dtype=input.dtype)
    all_to_all_single(output, input.contiguous(), output_split_sizes, input_split_sizes, group=group)
    return output


class _AllToAllSingle(autograd.Function):
    """all_to_all_single as a differentiable op: the gradient travels back by the reverse exchange."""

    @staticmethod
    def forward(ctx, input, output_split_sizes, input_split_sizes, group):
        ctx.split_sizes, ctx.group = (output_split_sizes, input_split_sizes), group
        return _exchange(input, output_split_sizes, input_split_sizes, group)

    @staticmethod
    def backward(ctx, grad):
        output_split_sizes, input_split_sizes = ctx.split_sizes
        return _exchange(grad, input_split_sizes, output_split_sizes, ctx.group), None, None, None


def all_to_all_single_autograd(self, output_split_sizes, input_split_sizes, group, tag=""):
    """Rows of `self` (split along dim 0 by `input_split_sizes`, or evenly) sent one block per rank,
    returned as a new tensor; backward sends the gradient back the same way in reverse."""
    return _AllToAllSingle.apply(self, output_split_sizes, input_split_sizes, group)
