"""`ember.xpu`: what `torch.xpu` (Intel GPUs) is in a PyTorch built without XPU support.

Libraries probe `torch.xpu.is_available()` to pick a device; ember computes on the CPU, so the probes
answer no, seeding and cache calls are accepted, and calls that need the device raise AssertionError
as PyTorch does ("Torch not compiled with XPU enabled").
"""

__all__ = [
    "is_available",
    "is_initialized",
    "is_bf16_supported",
    "device_count",
    "manual_seed",
    "manual_seed_all",
    "empty_cache",
    "memory_allocated",
    "synchronize",
    "current_device",
]


def _no_xpu(*args, **kwargs):
    raise AssertionError("Torch not compiled with XPU enabled: ember computes on the CPU.")


def is_available():
    """False: ember has no XPU backend."""
    return False


def is_initialized():
    """False: there is no XPU to initialize."""
    return False


def is_bf16_supported(including_emulation=True):
    """False, as PyTorch answers without XPU."""
    return False


def device_count():
    """0: no XPUs."""
    return 0


def manual_seed(seed):
    """Accepted and ignored (there is no XPU generator), so seeding helpers keep working."""


manual_seed_all = manual_seed


def empty_cache():
    """Nothing is cached on an XPU: a no-op."""


def memory_allocated(device=None):
    """XPU memory held by tensors: 0."""
    return 0


synchronize = current_device = _no_xpu
