"""`ember.cuda`: ember computes on the CPU, so scripts that ask get a clear "no"."""

__all__ = ["amp", "is_available", "device_count", "manual_seed", "manual_seed_all", "synchronize", "is_bf16_supported"]


def is_available():
    return False


def is_bf16_supported(including_emulation=True):
    """False, as PyTorch answers without a GPU (bfloat16 itself works on the CPU: ember.bfloat16)."""
    return False


def device_count():
    return 0


def manual_seed(seed):
    """Accepted and ignored, so `torch.cuda.manual_seed(0)` in seeding helpers keeps working."""


manual_seed_all = manual_seed


def synchronize(device=None):
    """Nothing runs asynchronously on the CPU."""


from . import amp  # noqa: E402  (torch.cuda.amp: autocast and GradScaler, disabled without CUDA)
