"""`torch.autograd.profiler`: time the regions a script marks, with PyTorch's API and table.

    with ember.autograd.profiler.profile() as prof:
        with ember.autograd.profiler.record_function("forward"):
            loss = model(x).sum()
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))

Difference from PyTorch: only the `record_function` ranges are recorded (wall-clock time, with
each range's own "self" time excluding the ranges nested in it); ember's ops are not timed one by
one, so the table has no `aten::` rows. `emit_nvtx` and `emit_itt` accept their arguments and do
nothing (there is no GPU or VTune here). `ember.profiler` (torch.profiler) records through this module.
"""

import functools
import json
import threading
import time

__all__ = ["profile", "record_function", "emit_nvtx", "emit_itt", "EventList", "FunctionEvent", "FunctionEventAvg"]


class _Recording(threading.local):
    profilers = ()  # the active profile objects of this thread, innermost last
    stack = ()  # open record_function events


_recording = _Recording()


class FunctionEvent:
    """One recorded range: name, start and end (microseconds since the profile started), children."""

    def __init__(self, name, start_us, thread):
        self.name = self.key = name
        self.start_us = start_us
        self.end_us = start_us
        self.thread = thread
        self.cpu_children = []
        self.cpu_parent = None
        self.count = 1
        self.device_type = "cpu"
        self.is_user_annotation = True

    @property
    def cpu_time_total(self):
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(child.cpu_time_total for child in self.cpu_children)

    @property
    def cpu_time(self):
        return self.cpu_time_total / max(self.count, 1)

    device_time_total = self_device_time_total = 0.0

    def __repr__(self):
        return f"<FunctionEvent name={self.name!r} cpu_time_total={_format_time(self.cpu_time_total)}>"


class FunctionEventAvg:
    """The events of one name, summed (`key_averages()` rows)."""

    def __init__(self, key):
        self.key = key
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.device_time_total = self.self_device_time_total = 0.0
        self.is_user_annotation = True

    def add(self, event):
        self.count += event.count
        self.cpu_time_total += event.cpu_time_total
        self.self_cpu_time_total += event.self_cpu_time_total
        return self

    @property
    def cpu_time(self):
        return self.cpu_time_total / max(self.count, 1)

    def __repr__(self):
        return (
            f"<FunctionEventAvg key={self.key!r} count={self.count} cpu_time_total={_format_time(self.cpu_time_total)}>"
        )


def _format_time(microseconds):
    if microseconds >= 1e6:
        return f"{microseconds / 1e6:.3f}s"
    if microseconds >= 1e3:
        return f"{microseconds / 1e3:.3f}ms"
    return f"{microseconds:.3f}us"


_SORT_KEYS = {"cpu_time_total", "self_cpu_time_total", "cpu_time", "count", "device_time_total", "cuda_time_total"}


class EventList(list):
    """A list of events (or averages) that prints as PyTorch's profiler table."""

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        averages = {}
        for event in self:
            averages.setdefault(event.key, FunctionEventAvg(event.key)).add(event)
        return EventList(averages.values())

    @property
    def self_cpu_time_total(self):
        return sum(event.self_cpu_time_total for event in self)

    def table(
        self,
        sort_by=None,
        row_limit=100,
        max_src_column_width=75,
        max_name_column_width=55,
        header=None,
        top_level_events_only=False,
        **_,
    ):
        """The events as a text table (Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time
        avg, # of Calls), sorted by `sort_by` (descending) and cut at `row_limit` rows."""
        rows = list(self)
        if sort_by is not None:
            if sort_by not in _SORT_KEYS:
                raise AttributeError(f"'FunctionEventAvg' object has no attribute '{sort_by}'")
            attribute = "device_time_total" if sort_by == "cuda_time_total" else sort_by
            rows.sort(key=lambda event: getattr(event, attribute), reverse=True)
        if row_limit is not None and row_limit > 0:
            rows = rows[:row_limit]
        total = self.self_cpu_time_total or 1.0
        name_width = min(max([len(r.key) for r in rows] + [4]) + 4, max_name_column_width)
        headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
        widths = [name_width] + [12] * 6
        line = "  ".join("-" * width for width in widths) + "  "

        def format_row(cells):
            return "  ".join(str(cell).rjust(width) for cell, width in zip(cells, widths)) + "  "

        lines = [line, format_row(headers), line]
        for event in rows:
            lines.append(
                format_row(
                    [
                        event.key[: name_width - 3] + "..." if len(event.key) > name_width else event.key,
                        f"{100 * event.self_cpu_time_total / total:.2f}%",
                        _format_time(event.self_cpu_time_total),
                        f"{100 * event.cpu_time_total / total:.2f}%",
                        _format_time(event.cpu_time_total),
                        _format_time(event.cpu_time),
                        event.count,
                    ]
                )
            )
        lines.append(line)
        lines.append(f"Self CPU time total: {_format_time(self.self_cpu_time_total)}")
        return ("" if header is None else header + "\n") + "\n".join(lines) + "\n"

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        """Write the events as a Chrome trace (chrome://tracing, Perfetto)."""
        trace = [
            {
                "name": event.name,
                "ph": "X",
                "ts": event.start_us,
                "dur": event.cpu_time_total,
                "pid": "CPU functions",
                "tid": event.thread,
                "cat": "user_annotation",
            }
            for event in self
            if isinstance(event, FunctionEvent)
        ]
        with open(path, "w") as file:
            json.dump({"traceEvents": trace}, file)


class profile:
    """Context manager that records the `record_function` ranges entered inside it (see module doc).

    The keyword arguments are PyTorch's; the ones about devices, shapes, memory, FLOPs and stacks
    are accepted and have no effect.
    """

    def __init__(
        self,
        enabled=True,
        *,
        use_cuda=False,
        use_device=None,
        record_shapes=False,
        with_flops=False,
        profile_memory=False,
        with_stack=False,
        with_modules=False,
        use_kineto=False,
        use_cpu=True,
        experimental_config=None,
        acc_events=False,
        custom_trace_id_callback=None,
        **_,
    ):
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.function_events = None
        self.entered = False
        self._events = []
        self._origin_ns = None

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        self._origin_ns = time.perf_counter_ns()
        _recording.profilers = _recording.profilers + (self,)
        return self

    def __exit__(self, *exc_info):
        if not self.enabled:
            return False
        _recording.profilers = tuple(p for p in _recording.profilers if p is not self)
        self.function_events = EventList(sorted(self._events, key=lambda event: event.start_us))
        return False

    def _check_finish(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, **_):
        self._check_finish()
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n)

    def table(self, sort_by=None, row_limit=100, **kwargs):
        self._check_finish()
        return self.function_events.table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def events(self):
        self._check_finish()
        return self.function_events

    def export_chrome_trace(self, path):
        self._check_finish()
        return self.function_events.export_chrome_trace(path)

    @property
    def self_cpu_time_total(self):
        self._check_finish()
        return self.function_events.self_cpu_time_total

    def __str__(self):
        return self.table() if self.function_events is not None else "<unfinished profile>"

    def _microseconds(self, now_ns):
        return (now_ns - self._origin_ns) / 1e3


class record_function:
    """Mark a named range (context manager or decorator) for the active profilers."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self._opened = []

    def __enter__(self):
        now = time.perf_counter_ns()
        opened = []
        for profiler in _recording.profilers:
            event = FunctionEvent(self.name, profiler._microseconds(now), threading.get_ident())
            parents = [e for e in _recording.stack if e[0] is profiler]
            if parents:
                event.cpu_parent = parents[-1][1]
                parents[-1][1].cpu_children.append(event)
            profiler._events.append(event)
            opened.append((profiler, event))
        _recording.stack = _recording.stack + tuple(opened)
        self._opened.append(opened)
        return self

    def __exit__(self, *exc_info):
        now = time.perf_counter_ns()
        opened = self._opened.pop()
        for profiler, event in opened:
            event.end_us = profiler._microseconds(now)
        _recording.stack = tuple(entry for entry in _recording.stack if entry not in opened)
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def recorded(*args, **kwargs):
            with record_function(self.name, self.args):
                return function(*args, **kwargs)

        return recorded


class emit_nvtx:
    """Accepted and inert: there is no NVIDIA tools extension on ember's CPU backend."""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return False


class emit_itt(emit_nvtx):
    """Accepted and inert: ember does not emit Intel ITT ranges."""
