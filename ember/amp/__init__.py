"""`ember.amp`: PyTorch's `torch.amp` — autocast regions and the gradient scaler (see their modules
for what a CPU-only ember does differently)."""

from . import autocast_mode, grad_scaler
from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["autocast", "GradScaler", "custom_fwd", "custom_bwd", "is_autocast_available"]
