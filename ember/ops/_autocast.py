"""Autocast's thread-local state and the two casts that ops apply while it is on.

The public API (`ember.autocast`, `ember.amp`) sets this state; the ops that PyTorch's CPU autocast
changes read it: `state.lower` is the dtype (bfloat16, PyTorch's CPU default, or float16) the
matmul-like ops (linear, matmul, conv, bmm, addmm, ...) cast their floating inputs to, None when they
cast nothing; `state.active` tells the float32 ops (the losses) to bring reduced-precision inputs
back to float32. A thread-local read costs a few times a plain
attribute read, so the ops first read `ever_enabled`, a module flag that turns True for good the
first time any thread enables CPU autocast: programs that never use autocast pay one plain read.
"""

import threading

from .. import _dtype
from .._tensor import Tensor

__all__ = []


class _AutocastState(threading.local):
    cpu_enabled = False
    cpu_dtype = _dtype.bfloat16  # PyTorch's default
    cuda_enabled = False
    cuda_dtype = _dtype.float16
    cache_enabled = True
    lower = None
    active = False

    def refresh(self):
        """Derive what ops read from the switches (called after every change)."""
        global ever_enabled
        ever_enabled = ever_enabled or self.cpu_enabled
        self.active = self.cpu_enabled
        self.lower = self.cpu_dtype if self.cpu_enabled else None


state = _AutocastState()
ever_enabled = False


def _cast(tensors, target, eligible):
    return tuple(
        tensor.to(target)
        if isinstance(tensor, Tensor) and tensor.dtype is not target and tensor.dtype in eligible
        else tensor
        for tensor in tensors
    )


_REDUCED = (_dtype.float16, _dtype.bfloat16)


def lower_precision(*tensors):
    """`tensors` with each float32, float16 or bfloat16 tensor cast to the autocast dtype (float64
    and the others unchanged), as PyTorch's autocast casts every eligible floating input."""
    return _cast(tensors, state.lower, (_dtype.float32,) + _REDUCED)


def full_precision(*tensors):
    """`tensors` with each float16 or bfloat16 tensor cast to float32 (others unchanged)."""
    return _cast(tensors, _dtype.float32, _REDUCED)
