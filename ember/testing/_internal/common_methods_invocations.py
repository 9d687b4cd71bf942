"""`torch.testing._internal.common_methods_invocations`: of PyTorch's OpInfo module only the helper
the autograd tests import; the OpInfo database itself (op_db and its sample inputs) is not provided."""

from ... import randn

__all__ = ["mask_not_all_zeros"]


def mask_not_all_zeros(shape):
    """A random boolean mask of `shape` with at least one True."""
    if len(shape) == 0:
        raise ValueError("mask_not_all_zeros needs a shape with at least one dimension")
    while True:
        mask = randn(shape).gt(0)
        if mask.sum() > 0:
            return mask
