"""`ember.backends.cpu`: what the CPU kernels were built for."""

__all__ = ["get_cpu_capability"]


def get_cpu_capability():
    """ "DEFAULT": ember's kernels are NumPy's, which pick their own SIMD paths at run time."""
    return "DEFAULT"
