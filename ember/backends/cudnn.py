"""`ember.backends.cudnn`: cuDNN is never available; its switches are kept and have no effect."""

import contextlib

__all__ = ["is_available", "version", "is_acceptable", "flags", "enabled", "benchmark", "deterministic", "allow_tf32"]

enabled = True
benchmark = False
benchmark_limit = 10
deterministic = False
allow_tf32 = True


def is_available():
    return False


def version():
    """None: no cuDNN library is loaded (as PyTorch's CPU build answers)."""
    return None


def is_acceptable(tensor):
    return False


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
    """Set the switches inside the block and restore them after."""
    names = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32")
    module = globals()
    saved = {name: module[name] for name in names}
    module.update(zip(names, (enabled, benchmark, benchmark_limit, deterministic, allow_tf32)))
    try:
        yield
    finally:
        module.update(saved)
