"""`ember.cuda.amp`: PyTorch's deprecated CUDA spellings of autocast and GradScaler. Both warn as
PyTorch's do (deprecated, then CUDA not available) and stay disabled: ember has no CUDA."""

import functools

from .. import _dtype
from ..amp import autocast_mode, grad_scaler
from ..amp.autocast_mode import custom_bwd as _custom_bwd, custom_fwd as _custom_fwd
from .._warn import warn as _warn

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd"]


class autocast(autocast_mode.autocast):
    """`torch.cuda.amp.autocast(args...)`, deprecated for `torch.amp.autocast("cuda", args...)`."""

    def __init__(self, enabled=True, dtype=_dtype.float16, cache_enabled=True):
        _warn(
            "`torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(grad_scaler.GradScaler):
    """`torch.cuda.amp.GradScaler(args...)`, deprecated for `torch.amp.GradScaler("cuda", args...)`."""

    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000, enabled=True):
        _warn(
            "`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` "
            "instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """`torch.cuda.amp.custom_fwd`: `torch.amp.custom_fwd(device_type="cuda")`."""
    if fwd is None:
        return functools.partial(custom_fwd, cast_inputs=cast_inputs)
    return _custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd):
    """`torch.cuda.amp.custom_bwd`: `torch.amp.custom_bwd(device_type="cuda")`."""
    return _custom_bwd(bwd, device_type="cuda")
