"""ember.utils.benchmark: Timer's times against the clock, Measurement's statistics against NumPy,
and its repr and Compare's tables character for character against torch.utils.benchmark."""

import importlib
import math
import pickle
import re
import time

import numpy as np
import pytest

import ember
import ember.utils.benchmark as benchmark
from ember import _naming
from ember.utils.benchmark import Compare, Measurement, TaskSpec, Timer

from ..test_compat import _run_ember

# Block times (seconds) with a known character: tight, spread (>10% IQR), very spread (>25%),
# a lone block, two and three blocks, and units from nanoseconds to seconds.
RAW_TIMES = {
    "tight": [1.01e-4, 1.02e-4, 1.00e-4, 1.015e-4, 1.005e-4, 1.03e-4, 0.99e-4, 1.0e-4],
    "spread": [2.0e-3, 2.3e-3, 2.1e-3, 2.6e-3, 2.2e-3, 1.9e-3],
    "very_spread": [5e-2, 9e-2, 3e-2, 12e-2, 6e-2],
    "one": [3.3e-5],
    "two": [4.0e-6, 4.4e-6],
    "three": [7e-1, 9e-1, 8e-1],
    "nanoseconds": [2.5e-6, 2.6e-6, 2.55e-6, 2.52e-6],
    "seconds": [1500.0, 1520.0, 1490.0, 1510.0],
    "identical": [6e-5] * 6,
    "identical, near the 25 ns floor": [2.2e-5] * 5,  # 2.2 us / 25 ns = 88: one figure
}


@pytest.fixture
def torch(torch):
    """PyTorch (the suite's fixture: skipped without it), with torch.utils.benchmark imported."""
    importlib.import_module("torch.utils.benchmark")
    return torch


def _pair(torch, raw_times, number_per_run=10, **spec):
    """An ember Measurement and torch's, from the same numbers."""
    stmt, setup = spec.pop("stmt", "x + y"), spec.pop("setup", "pass")
    ours = Measurement(number_per_run, list(raw_times), TaskSpec(stmt, setup, **spec))
    theirs = torch.utils.benchmark.Measurement(
        number_per_run, list(raw_times), torch.utils.benchmark.TaskSpec(stmt, setup, **spec)
    )
    return ours, theirs


def _body(measurement):
    """A Measurement's repr without its first line (which names the object's address)."""
    first, _, rest = repr(measurement).partition("\n")
    assert re.fullmatch(r"<[\w.]+\.Measurement object at 0x[0-9a-f]+>", first), first
    return rest


# ---------------------------------------------------------------------------------------- Timer


def test_timeit_of_a_sleep_is_at_least_the_sleep_and_close_to_the_clock():
    start = time.perf_counter()
    m = Timer("time.sleep(0.002)", setup="import time").timeit(number=5)
    elapsed = time.perf_counter() - start  # warm-up (2 runs) and the 5 timed runs
    assert m.number_per_run == 5 and len(m.raw_times) == 1
    assert m.median >= 0.002, m.median
    assert m.raw_times[0] <= elapsed, (m.raw_times, elapsed)
    assert m.median < 0.1, m.median  # a loaded machine, not a wrong factor of 1000


def test_a_busy_loop_times_within_a_factor_of_the_clock():
    def busy():
        return sum(range(2000))

    start = time.perf_counter()
    for _ in range(200):
        busy()
    by_clock = (time.perf_counter() - start) / 200
    m = Timer("busy()", globals={"busy": busy}).blocked_autorange(min_run_time=0.05)
    assert by_clock / 10 < m.median < by_clock * 10, (m.median, by_clock)
    assert m.number_per_run >= 1 and math.log10(m.number_per_run).is_integer(), m.number_per_run


def test_blocked_autorange_times_blocks_until_min_run_time_has_passed():
    reported = []
    m = Timer("time.sleep(0.001)", setup="import time").blocked_autorange(
        callback=lambda number, seconds: reported.append((number, seconds)), min_run_time=0.02
    )
    assert reported == [(m.number_per_run, t) for t in m.raw_times]
    assert sum(m.raw_times) >= 0.02
    assert sum(m.raw_times[:-1]) < 0.02  # it stops at the first block that reaches the time
    assert m.median >= 0.001, m.median


def test_adaptive_autorange_stops_after_four_blocks_when_any_spread_will_do():
    m = Timer("pass").adaptive_autorange(threshold=1e9, min_run_time=0.0)
    assert len(m.raw_times) == 4, m.raw_times


def test_adaptive_autorange_stops_at_max_run_time_when_the_spread_never_satisfies():
    m = Timer("time.sleep(0.001)", setup="import time").adaptive_autorange(threshold=0.0, max_run_time=0.03)
    assert sum(m.raw_times) > 0.03
    assert sum(m.raw_times[:-1]) <= 0.03


def test_statements_see_ember_as_torch_and_copied_globals(torch):
    # Run counts as torch's Timer: a warm-up of max(number // 100, 2) runs, then `number` runs.
    ours, theirs = [], []
    globals_ = {"seen": ours}
    Timer("seen.append(torch)", globals=globals_).timeit(number=3)
    torch.utils.benchmark.Timer("seen.append(1)", globals={"seen": theirs}).timeit(number=3)
    assert len(ours) == len(theirs) == 5
    assert all(module is ember for module in ours)
    assert set(globals_) == {"seen"}  # the caller's dict is not written into
    mine = object()
    Timer("seen.append(torch)", globals={"seen": ours, "torch": mine}).timeit(number=1)
    assert ours[-1] is mine


def test_setup_and_stmt_are_dedented_as_torch_does(torch):
    stmt = """
        y = x * 2
        z = y + 1
    """
    setup = """
        x = 3
    """
    ours = Timer(stmt, setup=setup).timeit(number=2)
    theirs = torch.utils.benchmark.Timer(stmt, setup=setup).timeit(number=2)
    assert ours.task_spec.stmt == theirs.task_spec.stmt == "y = x * 2\nz = y + 1"
    assert ours.task_spec.setup == theirs.task_spec.setup == "x = 3"


def test_num_threads_is_set_while_timing_and_restored(monkeypatch):
    threads, seen = [8], []
    monkeypatch.setattr(ember, "get_num_threads", lambda: threads[0])
    monkeypatch.setattr(ember, "set_num_threads", lambda n: threads.__setitem__(0, n))
    timer = Timer("seen.append(torch.get_num_threads())", globals={"seen": seen}, num_threads=3)
    for m in (timer.timeit(number=2), timer.blocked_autorange(min_run_time=0.001)):
        assert m.num_threads == 3 and m.task_spec.num_threads == 3
    assert set(seen) == {3}
    assert threads == [8]


def test_timer_arguments_fields_reach_the_measurement():
    m = Timer("pass", label="L", sub_label="S", description="D", env="E").timeit(number=1)
    assert (m.label, m.sub_label, m.description, m.env, m.stmt) == ("L", "S", "D", "E", "pass")
    assert m.title == "L: S"


@pytest.mark.parametrize(
    "arguments",
    [
        {"stmt": lambda: None},
        {"stmt": "pass", "global_setup": "#include <vector>"},
        {"stmt": "pass", "language": "rust"},
    ],
    ids=["callable stmt", "global_setup", "unknown language"],
)
def test_bad_timer_arguments_raise_torchs_errors(torch, arguments):
    with pytest.raises(ValueError) as theirs:
        torch.utils.benchmark.Timer(**arguments)
    with pytest.raises(type(theirs.value), match="stmt|global_setup|language"):
        Timer(**arguments)


def test_a_non_string_setup_is_a_type_error(torch):
    with pytest.raises(TypeError):
        torch.utils.benchmark.Timer("pass", setup=lambda: None)
    with pytest.raises(TypeError, match="setup must be a string"):
        Timer("pass", setup=lambda: None)


def test_repeat_and_autorange_point_to_blocked_autorange(torch):
    for name in ("repeat", "autorange"):
        with pytest.raises(NotImplementedError):
            getattr(torch.utils.benchmark.Timer("pass"), name)()
        with pytest.raises(NotImplementedError, match="blocked_autorange"):
            getattr(Timer("pass"), name)()


def test_what_ember_cannot_do_says_so():
    with pytest.raises(NotImplementedError, match="C\\+\\+"):
        Timer("x++;", language="cpp")
    with pytest.raises(NotImplementedError, match="blocked_autorange"):
        Timer("pass").collect_callgrind()


def test_missing_pieces_name_themselves():
    with pytest.raises(AttributeError, match="fuzzers are not implemented in ember"):
        benchmark.Fuzzer  # noqa: B018
    with pytest.raises(AttributeError, match="Valgrind"):
        benchmark.CallgrindStats  # noqa: B018
    with pytest.raises(ValueError, match="no raw_times"):
        Measurement(1, [], TaskSpec("s", "pass")).median  # noqa: B018


def test_a_statement_error_surfaces():
    with pytest.raises(SyntaxError):
        Timer("x +")
    with pytest.raises(NameError):
        Timer("undefined_name").timeit(number=1)


# ---------------------------------------------------------------------------------- Measurement


@pytest.mark.parametrize("name", RAW_TIMES)
def test_statistics_match_numpy_and_torch(torch, name):
    ours, theirs = _pair(torch, RAW_TIMES[name], number_per_run=10)
    times = np.array(RAW_TIMES[name]) / 10
    assert ours.times == pytest.approx(times.tolist(), rel=1e-15)
    assert ours.median == pytest.approx(np.median(times), rel=1e-12)
    assert ours.mean == pytest.approx(times.mean(), rel=1e-12)
    p25, p75 = np.percentile(times, [25, 75])
    assert ours.iqr == pytest.approx(p75 - p25, rel=1e-9, abs=1e-20)
    assert (ours.median, ours.mean, ours.iqr) == pytest.approx(
        (theirs.median, theirs.mean, theirs.iqr), rel=1e-9, abs=1e-20
    )
    assert ours.significant_figures == theirs.significant_figures
    assert ours.has_warnings == theirs.has_warnings
    for threshold in (0.01, 0.05, 0.1, 0.25, 1.0):
        assert ours.meets_confidence(threshold) == theirs.meets_confidence(threshold), threshold


def test_the_warning_levels_follow_the_spread():
    assert not Measurement(1, RAW_TIMES["tight"], TaskSpec("s", "pass")).has_warnings
    assert "system fluctuation" in repr(Measurement(1, RAW_TIMES["spread"], TaskSpec("s", "pass")))
    assert "environmental influence" in repr(Measurement(1, RAW_TIMES["very_spread"], TaskSpec("s", "pass")))


SPECS = {
    "stmt only": {},
    "label and sub_label": {"label": "Add", "sub_label": "float32"},
    "description and setup": {"description": "n=64", "setup": "x = torch.ones(64)"},
    "multi-line stmt and setup": {"stmt": "y = x * 2\nz = y + 1", "setup": "import math\nx = 3", "sub_label": "S"},
    "threads": {"num_threads": 4, "label": "L"},
}


@pytest.mark.parametrize("spec", SPECS, ids=list(SPECS))
@pytest.mark.parametrize("name", RAW_TIMES)
def test_repr_is_torchs(torch, name, spec):
    ours, theirs = _pair(torch, RAW_TIMES[name], number_per_run=100, **SPECS[spec])
    assert _body(ours) == _body(theirs)


def test_repr_names_the_module_the_user_imported(torch, monkeypatch):
    ours, theirs = _pair(torch, RAW_TIMES["tight"])
    assert repr(ours).startswith("<ember.utils.benchmark.utils.common.Measurement object at 0x")
    monkeypatch.setattr(_naming, "package", "torch")  # as while ember.compat is installed
    assert repr(ours).split(" at ")[0] == repr(theirs).split(" at ")[0]


def test_merge_pools_replicates_per_task(torch):
    pairs = [
        _pair(torch, [1e-3, 2e-3], number_per_run=10),
        _pair(torch, [3e-4], number_per_run=1, label="other"),
        _pair(torch, [5e-3, 4e-3, 6e-3], number_per_run=100),
    ]
    ours = Measurement.merge([a for a, _ in pairs])
    theirs = torch.utils.benchmark.Measurement.merge([b for _, b in pairs])
    assert [m.number_per_run for m in ours] == [m.number_per_run for m in theirs] == [1, 1]
    assert [m.times for m in ours] == [m.times for m in theirs]
    assert [m.label for m in ours] == [None, "other"]
    assert all(m.metadata is None for m in ours)


def test_task_fields_read_through_and_env_is_torchs(torch):
    ours, theirs = _pair(torch, [1e-3], label="L", env="cpu-A", num_threads=2)
    for name in ("stmt", "setup", "global_setup", "label", "sub_label", "description", "env", "num_threads", "title"):
        assert getattr(ours, name) == getattr(theirs, name), name
    ours, theirs = _pair(torch, [1e-3])
    assert ours.env is None and theirs.env is None
    with pytest.raises(AttributeError):
        ours.no_such_field  # noqa: B018


def test_measurements_pickle_and_compare_equal():
    m = Measurement(10, [1e-3, 2e-3], TaskSpec("x", "pass", label="L"), metadata={"run": 1})
    _ = m.median  # the cached statistics travel too, harmlessly
    back = pickle.loads(pickle.dumps(m))
    assert back == m and back.median == m.median and back.label == "L"


def test_select_unit_unit_to_english_and_trim_sigfig_match_torch(torch):
    theirs = torch.utils.benchmark
    for t in (3e-10, 1e-9, 4.2e-8, 1e-6, 7.7e-5, 1e-3, 0.25, 1.0, 12.0, 5e3):
        assert benchmark.select_unit(t) == theirs.select_unit(t), t
    for unit in ("ns", "us", "ms", "s"):
        assert benchmark.unit_to_english(unit) == theirs.unit_to_english(unit)
    for x, n in ((3.14159, 2), (123.456, 2), (0.001234, 2), (98765.4, 3), (1.0, 1), (-42.42, 3)):
        assert benchmark.trim_sigfig(x, n) == pytest.approx(theirs.trim_sigfig(x, n), rel=1e-6), (x, n)
    with pytest.raises(AssertionError):
        theirs.trim_sigfig(3.0, 1.5)
    with pytest.raises(AssertionError, match="integer"):
        benchmark.trim_sigfig(3.0, 1.5)


# -------------------------------------------------------------------------------------- Compare

_rng = np.random.default_rng(7)


def _noisy(center, n=7, spread=0.02):
    return (center * (1 + spread * _rng.standard_normal(n))).tolist()


def _grid():
    """Measurements of a grid: two statements x three sizes x two thread counts, one label."""
    cases = []
    for threads in (4, 1):  # measured 4 first: the table sorts by thread count
        for sub_label, base in (("add", 2e-6), ("matmul", 4e-5)):
            for size in (8, 64, 512):
                times = _noisy(base * size * (1.6 if threads == 1 else 1.0) / 8)
                spec = dict(label="ops", sub_label=sub_label, description=f"n={size}", num_threads=threads)
                cases.append((times, spec))
    return cases


def _envs():
    cases = []
    for env in ("new", "baseline"):
        for stmt in ("x.sum()", "x.mean()"):
            for size in (10, 100):
                center = 3e-6 * size**0.5 * (1.05 if env == "baseline" else 1.0)  # 5% apart: "good" colour
                cases.append((_noisy(center, spread=0.01), dict(stmt=stmt, description=str(size), env=env)))
    return cases


def _ragged():
    """Two labels, a cell missing, replicates to merge, wide spreads, a row named by its stmt."""
    return [
        (_noisy(1.5e-3), dict(label="conv", sub_label="3x3", description="batch 1")),
        (_noisy(1.5e-3), dict(label="conv", sub_label="3x3", description="batch 1")),
        (_noisy(9.0e-3, spread=0.3), dict(label="conv", sub_label="3x3", description="batch 32")),
        (_noisy(2.5e-3, spread=0.15), dict(label="conv", sub_label="5x5", description="batch 32")),
        (_noisy(2.0e-4), dict(label="relu", stmt="torch.relu(x)", description="batch 1")),
        (_noisy(0.9e-3, n=1), dict(label="relu", stmt="torch.relu(x)", description="batch 32")),
    ]


def _colour_bands():
    """One row whose cells sit inside each colour band: best (within 1%), good (10%), plain, bad
    (2x), very bad (5x), measured against the row's or the column's best."""
    return [
        ([1e-3 * ratio * row_scale] * 5, dict(label="bands", sub_label=row, description=f"x{ratio}"))
        for row, row_scale in (("first", 1.0), ("second", 1.15))
        for ratio in (1.0, 1.005, 1.08, 1.15, 1.5, 3.0, 8.0)
    ]


TABLES = {"grid": _grid(), "envs": _envs(), "ragged": _ragged(), "colour bands": _colour_bands()}
OPTIONS = {
    "plain": [],
    "trimmed": ["trim_significant_figures"],
    "colour by column": ["colorize"],
    "colour by row, trimmed": [("colorize", True), "trim_significant_figures"],
    "warnings": ["highlight_warnings"],
    "everything": ["trim_significant_figures", "colorize", "highlight_warnings"],
}


@pytest.mark.parametrize("options", OPTIONS, ids=list(OPTIONS))
@pytest.mark.parametrize("table", TABLES)
def test_compare_prints_torchs_table(torch, capsys, table, options):
    pairs = [_pair(torch, times, number_per_run=1, **dict(spec)) for times, spec in TABLES[table]]
    ours, theirs = Compare([a for a, _ in pairs[:2]]), torch.utils.benchmark.Compare([b for _, b in pairs[:2]])
    ours.extend_results([a for a, _ in pairs[2:]])
    theirs.extend_results([b for _, b in pairs[2:]])
    for option in OPTIONS[options]:
        name, *arguments = option if isinstance(option, tuple) else (option,)
        getattr(ours, name)(*arguments)
        getattr(theirs, name)(*arguments)
    assert str(ours) == str(theirs)
    ours.print()
    assert capsys.readouterr().out == str(theirs) + "\n"


def test_compare_of_timer_results_has_a_row_per_statement_and_a_column_per_size():
    results = [
        Timer(stmt, globals={"x": ember.ones(n)}, label="scale", description=f"n={n}").blocked_autorange(
            min_run_time=0.005
        )
        for stmt in ("x * 2", "x + x")
        for n in (10, 1000)
    ]
    lines = str(Compare(results)).splitlines()
    assert re.fullmatch(r"\[-+ scale -+\]", lines[0]), lines[0]
    assert [cell.strip() for cell in lines[1].split("|")] == ["", "n=10", "n=1000"]
    assert re.fullmatch(r"1 threads: -+", lines[2]) and len(lines[2]) == len(lines[1])
    assert [line.split("|")[0].strip() for line in lines[3:5]] == ["x * 2", "x + x"]
    assert all(len(line.split("|")) == 3 for line in lines[3:5])
    assert lines[5] == "" and re.fullmatch(r"Times are in (nano|micro|milli)?seconds \((ns|us|ms|s)\)\.", lines[6])


def test_compare_without_descriptions_or_envs_still_prints():
    # torch raises TypeError on both (it measures len(None)); ember prints an unnamed column / env.
    first = Measurement(1, [2e-6], TaskSpec("a", "pass", label="L"))
    second = Measurement(1, [3e-6], TaskSpec("a", "pass", label="L", env="gpu-less"))
    lines = str(Compare([first, second])).splitlines()
    assert lines[1] == " " * 24 + "|     "
    assert lines[3:5] == ["  (Unspecified env)  a  |  2.0", "  (gpu-less)         a  |  3.0"]


def test_compare_refuses_what_is_not_a_measurement(torch):
    with pytest.raises(ValueError):
        torch.utils.benchmark.Compare([1.5])
    with pytest.raises(ValueError, match="Measurement"):
        Compare([1.5])


# ------------------------------------------------------------------------------- under ember run

SCRIPT = """
import pickle, sys
import torch
import torch.utils.benchmark as benchmark
from torch.utils.benchmark.utils.common import Measurement

x = torch.ones(16)
results = [
    benchmark.Timer("x * k", globals={"x": x, "k": k}, label="mul", description=f"k={k}").blocked_autorange(min_run_time=0.01)
    for k in (2, 3)
]
print(type(results[0]).__module__, results[0].number_per_run >= 1)
print(str(benchmark.Compare(results)).splitlines()[0])
with open(sys.argv[1], "rb") as file:
    saved = pickle.load(file)
print(type(saved) is Measurement, saved.label, round(saved.median * 1e6, 3))
print(repr(saved).splitlines()[0].split(" at ")[0])
"""


def test_a_torch_script_times_code_under_ember_run(torch, tmp_path):
    # A Measurement pickled by PyTorch loads as ember's (the module paths are the same).
    saved = torch.utils.benchmark.Measurement(
        10, [1e-5, 2e-5, 3e-5], torch.utils.benchmark.TaskSpec("s", "pass", label="old")
    )
    (tmp_path / "saved.pkl").write_bytes(pickle.dumps(saved))
    (tmp_path / "bench.py").write_text(SCRIPT)
    result = _run_ember("run", str(tmp_path / "bench.py"), str(tmp_path / "saved.pkl"))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "ember.utils.benchmark.utils.common True"
    assert re.fullmatch(r"\[-+ mul -+\]", lines[1]), lines[1]
    assert lines[2:] == ["True old 2.0", "<torch.utils.benchmark.utils.common.Measurement object"]
