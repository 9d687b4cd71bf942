"""The profilers (torch.autograd.profiler and torch.profiler): the ranges recorded, their nesting
and self times, the table and trace outputs, schedules, and the inert NVTX/ITT emitters."""

import json
import time

import pytest

import ember
from ember.autograd import profiler


def test_record_function_ranges_nest_and_time():
    with profiler.profile() as prof:
        with profiler.record_function("outer"):
            time.sleep(0.002)
            with profiler.record_function("inner"):
                time.sleep(0.003)
        with profiler.record_function("inner"):
            pass
    events = prof.function_events
    assert [event.name for event in events] == ["outer", "inner", "inner"]
    outer, inner = events[0], events[1]
    assert inner.cpu_parent is outer and outer.cpu_children == [inner]
    assert outer.cpu_time_total >= inner.cpu_time_total >= 3000
    assert outer.self_cpu_time_total == pytest.approx(outer.cpu_time_total - inner.cpu_time_total)
    averages = {row.key: row for row in prof.key_averages()}
    assert averages["inner"].count == 2 and averages["outer"].count == 1


def test_table_has_torch_columns_and_sorts(tmp_path):
    @profiler.record_function("decorated")
    def work():
        return ember.ones(3).sum()

    with profiler.profile(record_shapes=True, profile_memory=True) as prof:
        for _ in range(3):
            work()
        with profiler.record_function("slow"):
            time.sleep(0.002)
    table = prof.key_averages().table(sort_by="count", row_limit=5)
    assert "Self CPU %" in table and "# of Calls" in table and "Self CPU time total" in table
    assert table.index("decorated") < table.index("slow")
    assert "slow" not in prof.key_averages().table(sort_by="count", row_limit=1)
    with pytest.raises(AttributeError):
        prof.key_averages().table(sort_by="no_such_column")
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    assert {event["name"] for event in json.loads(path.read_text())["traceEvents"]} == {"decorated", "slow"}


def test_unfinished_and_disabled_profiles():
    prof = profiler.profile()
    with pytest.raises(RuntimeError, match="didn't finish"):
        prof.key_averages()
    with profiler.profile(enabled=False) as off:
        with profiler.record_function("ignored"):
            pass
    assert off.function_events is None
    with profiler.emit_nvtx(), profiler.emit_itt():
        pass


def test_torch_profiler_schedule_records_active_steps(tmp_path):
    saved = []
    schedule = ember.profiler.schedule(wait=1, warmup=1, active=2, repeat=1)
    with ember.profiler.profile(
        activities=[ember.profiler.ProfilerActivity.CPU], schedule=schedule, on_trace_ready=saved.append
    ) as prof:
        for step in range(6):
            with ember.profiler.record_function(f"step{step}"):
                pass
            prof.step()
    assert len(saved) == 1
    assert [event.name for event in saved[0].events()] == ["step2", "step3"]
    handler = ember.profiler.tensorboard_trace_handler(str(tmp_path), worker_name="w")
    handler(prof)
    assert len(list(tmp_path.iterdir())) == 1


def test_schedule_actions_match_torch(torch):
    ours = ember.profiler.schedule(wait=1, warmup=2, active=3, repeat=2, skip_first=1)
    theirs = torch.profiler.schedule(wait=1, warmup=2, active=3, repeat=2, skip_first=1)
    assert [ours(step).name for step in range(16)] == [theirs(step).name for step in range(16)]
