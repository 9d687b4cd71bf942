"""`torch.profiler`: the newer profiler API over `ember.autograd.profiler` (only `record_function`
ranges are timed; see there). `schedule` and `step()` work as PyTorch's: ranges are recorded only in
the "active" steps, and `on_trace_ready` is called when each active window ends.
"""

import enum
import os

from ..autograd import profiler as _autograd_profiler
from ..autograd.profiler import EventList, record_function

__all__ = [
    "profile",
    "record_function",
    "ProfilerActivity",
    "ProfilerAction",
    "schedule",
    "tensorboard_trace_handler",
    "supported_activities",
]


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 1
    MTIA = 2
    XPU = 3


def supported_activities():
    return {ProfilerActivity.CPU}


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """The action for each step number: skip `skip_first`, then cycles of wait / warmup / active
    steps (`repeat` cycles, 0 for ever); the last active step of a cycle saves."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError("Invalid profiler schedule arguments")

    def action(step):
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        position = step % cycle
        if position < wait:
            return ProfilerAction.NONE
        if position < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if position < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return action


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An `on_trace_ready` callback that writes each window as a Chrome trace file in `dir_name`."""

    def handler(profiler):
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{os.uname().nodename}_{os.getpid()}"
        profiler.export_chrome_trace(os.path.join(dir_name, f"{name}.{profiler.step_num}.pt.trace.json"))

    return handler


class profile:
    """`with ember.profiler.profile(activities=[ProfilerActivity.CPU], schedule=..., on_trace_ready=...) as p:`
    — record `record_function` ranges; call `p.step()` at the end of each training step."""

    def __init__(
        self,
        *,
        activities=None,
        schedule=None,
        on_trace_ready=None,
        record_shapes=False,
        profile_memory=False,
        with_stack=False,
        with_flops=False,
        with_modules=False,
        experimental_config=None,
        **_,
    ):
        self.activities = set(activities) if activities is not None else supported_activities()
        self.schedule = schedule
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.current_action = ProfilerAction.RECORD if schedule is None else schedule(0)
        self.profiler = None
        self._windows = []

    def _start_recording(self):
        self.profiler = _autograd_profiler.profile()
        self.profiler.__enter__()

    def _stop_recording(self):
        if self.profiler is not None and self.profiler.function_events is None:
            self.profiler.__exit__(None, None, None)

    def start(self):
        if self.current_action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._start_recording()

    def stop(self):
        recording = self.profiler is not None and self.profiler.function_events is None
        self._stop_recording()
        if recording and self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc_info):
        self.stop()
        return False

    def step(self):
        """Advance the schedule by one step: start, save or stop recording as it says."""
        previous = self.current_action
        self.step_num += 1
        self.current_action = ProfilerAction.RECORD if self.schedule is None else self.schedule(self.step_num)
        recording = previous in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        if previous is ProfilerAction.RECORD_AND_SAVE or (recording and self.current_action is ProfilerAction.NONE):
            self.stop()
            recording = False
        if not recording and self.current_action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._start_recording()

    def events(self):
        return self.profiler.events() if self.profiler is not None else EventList()

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, **_):
        return self.events().key_averages()

    def export_chrome_trace(self, path):
        return self.events().export_chrome_trace(path)
