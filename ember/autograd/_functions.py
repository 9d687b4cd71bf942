"""`torch.autograd._functions`: the deprecated `Resize` Function, kept for code written against it."""

import functools
import operator

from .function import Function
from .._warn import warn as _warn

__all__ = ["Resize"]


class Resize(Function):
    """`Resize.apply(tensor, sizes)`: the tensor viewed as `sizes` (same number of elements); its
    gradient is viewed back. Deprecated in PyTorch in favour of `tensor.reshape(sizes)`."""

    @staticmethod
    def forward(ctx, tensor, sizes):
        _warn("Resize is deprecated: use tensor.reshape(sizes) instead", FutureWarning, stacklevel=3)
        count = functools.reduce(operator.mul, sizes, 1)
        if tensor.numel() != count:
            raise RuntimeError(
                f"requested resize to {'x'.join(map(str, sizes))} ({count} elements in total), but the given "
                f"tensor has a size of {'x'.join(map(str, tensor.size()))} ({tensor.numel()} elements). "
                "autograd's resize can only change the shape of a given tensor, while preserving the number of elements."
            )
        ctx.input_sizes = tensor.size()
        return tensor.contiguous().view(*sizes)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.contiguous().view(ctx.input_sizes), None
