"""`ember.cpu.amp`: PyTorch's deprecated CPU spellings of autocast and GradScaler (they warn as
PyTorch's do, then work as `ember.amp.autocast("cpu")` / `ember.amp.GradScaler("cpu")`)."""

from ..amp import autocast_mode, grad_scaler
from .._warn import warn as _warn

__all__ = ["autocast", "GradScaler"]


class autocast(autocast_mode.autocast):
    """`torch.cpu.amp.autocast(args...)`; the default dtype is bfloat16, as in PyTorch (see ember.amp)."""

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        _warn(
            "`torch.cpu.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cpu', args...)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(grad_scaler.GradScaler):
    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000, enabled=True):
        _warn(
            "`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cpu', args...)` "
            "instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__("cpu", init_scale, growth_factor, backoff_factor, growth_interval, enabled)
