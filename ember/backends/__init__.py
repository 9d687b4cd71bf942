"""`ember.backends`: the switches scripts set for PyTorch's accelerated backends (no effect here)."""

from types import SimpleNamespace

__all__ = ["cudnn", "mps"]

cudnn = SimpleNamespace(enabled=True, benchmark=False, deterministic=False, allow_tf32=True, is_available=lambda: False)
mps = SimpleNamespace(is_available=lambda: False, is_built=lambda: False)
