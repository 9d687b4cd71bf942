"""`ember.cuda.nvtx`: NVIDIA's profiler annotations, which need a CUDA build; each call raises
RuntimeError as in PyTorch without CUDA (use `ember.profiler.record_function` to mark ranges)."""

__all__ = ["range_push", "range_pop", "range_start", "range_end", "mark", "range"]


def _unavailable(*args, **kwargs):
    """Raises RuntimeError: NVTX ranges need a CUDA build."""
    raise RuntimeError(
        "NVTX functions not installed: they need a CUDA build, and ember computes on the CPU "
        "(mark ranges with ember.profiler.record_function instead)."
    )


range_push = range_pop = range_start = range_end = mark = range = _unavailable
