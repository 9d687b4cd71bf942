"""`torch._C._functions`: two graph nodes PyTorch's own tests build graphs with.

`UndefinedGrad()(x)` passes `x` through and sends no gradient back (an undefined one, None in
Python): what reaches a custom Function behind it is zeros, or None after
`ctx.set_materialize_grads(False)`. `DelayedError(message, count)(x)` passes `x` through and raises
`RuntimeError(message)` if a backward reaches it.
"""

from ..autograd.function import Function

__all__ = ["UndefinedGrad", "DelayedError"]


class _UndefinedGrad(Function, node="UndefinedGradBackward"):
    @staticmethod
    def forward(ctx, *inputs):
        return _passed_through(inputs)

    @staticmethod
    def backward(ctx, *grads):
        return (None,) * len(grads)


class _DelayedError(Function, node="DelayedErrorBackward"):
    @staticmethod
    def forward(ctx, message, *inputs):
        ctx.message = message
        return _passed_through(inputs)

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(ctx.message)


def _passed_through(inputs):
    outputs = tuple(tensor.clone() for tensor in inputs)
    return outputs[0] if len(outputs) == 1 else outputs


class UndefinedGrad:
    """A node whose backward gives undefined (None) gradients to its inputs."""

    def __call__(self, *inputs):
        return _UndefinedGrad.apply(*inputs)


class DelayedError:
    """A node that raises `RuntimeError(message)` when a backward reaches it; `count`: how many
    tensors it passes through (PyTorch's argument, checked here)."""

    def __init__(self, message, count):
        self.message, self.count = message, count

    def __call__(self, *inputs):
        if len(inputs) != self.count:
            raise TypeError(f"DelayedError expected {self.count} inputs, got {len(inputs)}")
        return _DelayedError.apply(self.message, *inputs)
