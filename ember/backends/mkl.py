"""`ember.backends.mkl`: ember does not use mkl (NumPy brings its own BLAS)."""

__all__ = ["is_available"]

enabled = True


def is_available():
    return False
