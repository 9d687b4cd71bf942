"""`ember.cpu`: PyTorch's `torch.cpu` device module — the CPU is always there, and it is ember's only device."""

from . import amp

__all__ = ["amp", "is_available", "device_count", "current_device", "synchronize"]


def is_available():
    return True


def device_count():
    return 1


def current_device():
    return "cpu"


def synchronize(device=None):
    """Nothing runs asynchronously on the CPU."""
