"""Timing code: PyTorch's `torch.utils.benchmark` (`Timer`, `Measurement`, `Compare`) for ember.

`Timer` runs a statement in blocks through `timeit`, with a warm-up and a fixed thread count, and
returns a `Measurement`: the block times with their median, IQR and a warning when they spread too
much. `Compare` prints many Measurements as PyTorch's tables. Results print as PyTorch's do, so a
tutorial's output reads the same.

    >>> import ember.utils.benchmark as benchmark
    >>> x = ember.randn(64, 64)
    >>> m = benchmark.Timer("x @ x", globals={"x": x}).blocked_autorange(min_run_time=0.01)
    >>> m.median > 0
    True

Not provided: C++ statements, `collect_callgrind` (both need PyTorch's native build) and the
fuzzers (`Fuzzer`, `FuzzedParameter`, ...).
"""

from .utils.common import (
    Measurement,
    TaskSpec,
    ordered_unique,
    select_unit,
    set_torch_threads,
    trim_sigfig,
    unit_to_english,
)
from .utils.compare import Colorize, Compare
from .utils.timer import Language, Timer, timer

__all__ = [
    "Timer",
    "timer",
    "Language",
    "Measurement",
    "TaskSpec",
    "Compare",
    "Colorize",
    "select_unit",
    "unit_to_english",
    "trim_sigfig",
    "ordered_unique",
    "set_torch_threads",
]

# PyTorch names that ember does not provide: a clear error rather than a bare AttributeError.
_NOT_PROVIDED = {
    **dict.fromkeys(
        ("Fuzzer", "FuzzedParameter", "FuzzedTensor", "FuzzedSparseTensor", "ParameterAlias"),
        "the input fuzzers are not implemented in ember; build the inputs with ember.rand / ember.randn",
    ),
    **dict.fromkeys(
        ("CallgrindStats", "FunctionCounts", "FunctionCount"),
        "instruction counts (Timer.collect_callgrind) need PyTorch's native build under Valgrind",
    ),
}


def __getattr__(name):
    if name in _NOT_PROVIDED:
        raise AttributeError(f"ember.utils.benchmark.{name}: {_NOT_PROVIDED[name]}")
    raise AttributeError(f"module 'ember.utils.benchmark' has no attribute '{name}'")
