"""`Timer`: time a Python statement the way `torch.utils.benchmark.Timer` does, on `timeit.Timer`.

Over plain `timeit` it adds a warm-up, a fixed thread count while timing, `torch` (ember) among the
statement's globals, and results as `Measurement`s that carry their task's labels and statistics.
"""

import enum
import textwrap
import timeit

from .common import Measurement, TaskSpec, set_torch_threads

__all__ = ["Timer", "timer", "Language"]

# PyTorch's default timer synchronizes an accelerator first; ember computes on the CPU with NumPy,
# so nothing runs asynchronously and the plain clock (time.perf_counter) is the timer.
timer = timeit.default_timer

_SHORTEST_TIME = 1e-9  # a timed block never reports less, so that per-run figures never divide by zero


class Language(enum.Enum):
    """The language of a Timer's statement: ember times Python only (C++ needs PyTorch's compiler)."""

    PYTHON = 0
    CPP = 1


def _tidy(code, what):
    """Dedent and drop the first newline and trailing space of a block string: '\\n  x + 1\\n  ' -> 'x + 1'."""
    if not isinstance(code, str):
        raise TypeError(f"Timer: {what} must be a string of Python code, got {type(code).__name__}")
    code = textwrap.dedent(code)
    return code.removeprefix("\n").rstrip()


class Timer:
    """Time a statement: `Timer("x @ y", globals={"x": x, "y": y}).blocked_autorange()`.

    Args:
        stmt: the Python code to time (a string).
        setup: code run once before timing, e.g. to make inputs.
        global_setup: C++ only in PyTorch; must be empty.
        timer: the clock, a function returning seconds (default `time.perf_counter`).
        globals: the names `stmt` and `setup` see (copied); `torch` is added as ember unless given.
        label, sub_label, description, env: names for the result; `Compare` makes rows of
            label/sub_label and columns of description, and keeps different `env`s apart.
        num_threads: the thread count set (with `ember.set_num_threads`) while timing and recorded
            in the result. NumPy's BLAS fixes its own threads at start-up, so for ember this is mostly
            a record.
        language: `Language.PYTHON`, "py" or "python". C++ statements raise NotImplementedError.

    Differences from PyTorch: no C++ statements and no `collect_callgrind` (both need PyTorch's
    native build).

    Example:
        >>> from ember.utils.benchmark import Timer
        >>> x = ember.ones(100)
        >>> m = Timer("x * 2", globals={"x": x}, label="scale").timeit(100)
        >>> m.number_per_run, len(m.times), m.title
        (100, 1, 'scale')
    """

    def __init__(
        self,
        stmt="pass",
        setup="pass",
        global_setup="",
        timer=timer,
        globals=None,  # noqa: A002  (PyTorch's and timeit's name)
        label=None,
        sub_label=None,
        description=None,
        env=None,
        num_threads=1,
        language=Language.PYTHON,
    ):
        if not isinstance(stmt, str):
            raise ValueError(
                f"Timer: stmt must be a string of Python code (as in PyTorch), got {type(stmt).__name__}; "
                "to time a function f, pass stmt='f()' and globals={'f': f}"
            )
        if language in (Language.CPP, "cpp", "c++"):
            raise NotImplementedError(
                "Timer(language='c++'): ember cannot compile and time C++ statements; time the Python "
                "call instead, or use PyTorch's torch.utils.benchmark for C++"
            )
        if language not in (Language.PYTHON, "py", "python"):
            raise ValueError(f"Timer: invalid language `{language}`; use Language.PYTHON, 'py' or 'python'.")
        if global_setup:
            raise ValueError(
                f"Timer: global_setup is C++ only, got `{global_setup}`. Most likely this code can "
                "simply be moved to `setup`."
            )
        stmt, setup = _tidy(stmt, "stmt"), _tidy(setup, "setup")
        self._globals = dict(globals or {})  # a copy: exec adds __builtins__, and stmt may assign
        if "torch" not in self._globals:
            import ember

            self._globals["torch"] = ember
        self._language = Language.PYTHON
        self._timer = timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = TaskSpec(
            stmt=stmt,
            setup=setup,
            global_setup=global_setup,
            label=label,
            sub_label=sub_label,
            description=description,
            env=env,
            num_threads=num_threads,
        )

    def _timeit(self, number):
        return max(self._timer.timeit(number), _SHORTEST_TIME)

    def _measurement(self, number, times):
        return Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def timeit(self, number=1000000):
        """Run `stmt` `number` times (after a warm-up of a hundredth as many, at least 2) and return
        the total as a Measurement of one block, like `timeit.Timer.timeit`."""
        with set_torch_threads(self._task_spec.num_threads):
            self._timeit(max(number // 100, 2))
            return self._measurement(number, [self._timeit(number)])

    def repeat(self, repeat=-1, number=-1):
        """Not provided (as in PyTorch): use `blocked_autorange`, which repeats blocks itself."""
        raise NotImplementedError(
            "Timer.repeat is not provided (as in PyTorch); use Timer.blocked_autorange(), which times "
            "repeated blocks and returns them as one Measurement"
        )

    def autorange(self, callback=None):
        """Not provided (as in PyTorch): use `blocked_autorange`."""
        raise NotImplementedError(
            "Timer.autorange is not provided (as in PyTorch); use Timer.blocked_autorange() (or adaptive_autorange())"
        )

    def _block_size(self, min_run_time):
        """Runs per block: grown tenfold until the timer's own overhead is under 0.01% of a block and a
        block takes a thousandth of `min_run_time`, or a block alone exceeds `min_run_time`. Doubles as
        the warm-up."""
        overhead = sorted(self._timeit(0) for _ in range(5))[2]
        number = 1
        while True:
            elapsed = self._timeit(number)
            if overhead / elapsed <= 1e-4 and elapsed >= min_run_time / 1000:
                return number
            if elapsed > min_run_time or number * 10 > 2**31 - 1:  # PyTorch's cap (its C++ int)
                return number
            number *= 10

    def _measure_blocks(self, number, min_run_time, max_run_time, callback, can_stop):
        """Time blocks of `number` runs until `min_run_time` has passed and `can_stop(times)` holds,
        or `max_run_time` has passed; `callback(number, seconds)` is told each block."""
        times, total = [], 0.0
        while True:
            elapsed = self._timeit(number)
            times.append(elapsed)
            total += elapsed
            if callback:
                callback(number, elapsed)
            if total >= min_run_time and can_stop(times):
                return times
            if max_run_time and total > max_run_time:
                return times

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Time blocks of runs for at least `min_run_time` seconds; the block size is chosen first so
        that reading the clock costs under 0.01% of a block. Returns a Measurement of all blocks."""
        with set_torch_threads(self._task_spec.num_threads):
            number = self._block_size(min_run_time)
            times = self._measure_blocks(number, min_run_time, None, callback, can_stop=lambda times: True)
        return self._measurement(number, times)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0, callback=None):
        """Like `blocked_autorange`, but keep timing blocks until there are more than three, at least
        `min_run_time` seconds in all, and their IQR is under `threshold` times their median, or until
        `max_run_time` seconds have passed."""

        def can_stop(times):
            return len(times) > 3 and self._measurement(number, times).meets_confidence(threshold)

        with set_torch_threads(self._task_spec.num_threads):
            number = self._block_size(0.05)
            times = self._measure_blocks(number, min_run_time, max_run_time, callback, can_stop)
        return self._measurement(number, times)

    def collect_callgrind(self, number=100, *, repeats=None, collect_baseline=True, retain_out_file=False):
        """Not available in ember: it counts instructions in PyTorch's native build under Valgrind."""
        raise NotImplementedError(
            "Timer.collect_callgrind is not available in ember (it runs PyTorch's native build under "
            "Valgrind); use blocked_autorange() or adaptive_autorange() for wall times, or "
            "`python -m cProfile` to see where the time goes"
        )
