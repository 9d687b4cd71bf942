"""`ember.backends.mps`: Apple's Metal backend is neither built nor available."""

__all__ = ["is_available", "is_built"]


def is_available():
    return False


def is_built():
    return False
