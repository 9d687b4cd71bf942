"""`torch.autograd.profiler_util`: where PyTorch keeps the profiler's event classes (ember keeps
them in `autograd.profiler`)."""

from .profiler import EventList, FunctionEvent, FunctionEventAvg, _format_time

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "_format_time"]
