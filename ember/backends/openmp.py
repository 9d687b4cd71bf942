"""`ember.backends.openmp`: ember does not use openmp (NumPy brings its own BLAS)."""

__all__ = ["is_available"]

enabled = True


def is_available():
    return False
