"""What a timing run produces: `TaskSpec` (what was timed) and `Measurement` (the times and their
statistics), with the small formatting helpers `Compare` shares.

Statistics follow PyTorch's: per-run times are the raw block times divided by `number_per_run`; the
median and quartiles interpolate linearly between sorted times; a measurement warns when its IQR is
more than 10% (or 25%) of its median.
"""

import collections
import contextlib
import dataclasses
import math
import textwrap

import numpy as np

from .... import _naming

__all__ = [
    "TaskSpec",
    "Measurement",
    "select_unit",
    "unit_to_english",
    "trim_sigfig",
    "ordered_unique",
    "set_torch_threads",
]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # timer resolution: no estimate is trusted below 25 ns
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25
_UNITS = {-3: "ns", -2: "us", -1: "ms"}  # floor(log10(t) / 3) -> unit; anything else is seconds
_SCALES = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}
_ENGLISH = {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}


def _log10(x):
    """log10 of `x` in float32, as PyTorch takes it (on a default-dtype tensor), so that the unit and
    digit counts chosen from it agree with PyTorch's at exact powers of ten. Taken in float64 and
    rounded: NumPy's own float32 log10 is off by an ulp at powers of ten (log10(1e-6) = -6.0000005)."""
    with np.errstate(all="ignore"):  # 0, negative or huge: -inf / nan / inf, as in PyTorch
        return float(np.float32(np.log10(np.float64(np.float32(x)))))


@dataclasses.dataclass(frozen=True, repr=False)  # repr=False: Measurement's repr shows the fields
class TaskSpec:
    """What a `Timer` times (everything but its globals); hashable, so that replicates of one task
    can be grouped (`Measurement.merge`, `Compare`).

    Args:
        stmt, setup, global_setup: the code, as the Timer was given it (dedented).
        label, sub_label, description, env: names shown by `Measurement` and `Compare`.
        num_threads: the thread count the task was run with.
    """

    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self):
        """The label (or a one-line stmt, else the stmt indented under "stmt:"), with the sub-label."""
        if self.label is not None or "\n" not in self.stmt:
            name = self.label if self.label is not None else self.stmt
            return f"{name}: {self.sub_label}" if self.sub_label else name
        sub_label = f" ({self.sub_label})" if self.sub_label else ""
        return f"stmt:{sub_label}\n" + textwrap.indent(self.stmt, "  ")

    def setup_str(self):
        """The setup as a repr line ("" when there is none to show)."""
        if not self.setup or self.setup == "pass":
            return ""
        if "\n" in self.setup:
            return "setup:\n" + textwrap.indent(self.setup, "  ")
        return f"setup: {self.setup}"

    def summarize(self):
        """Title, description and setup: the lines a Measurement's repr starts with. A multi-line
        section is followed by a blank line."""
        sections = [section for section in (self.title, self.description, self.setup_str()) if section]
        return "\n".join(section + "\n" if "\n" in section else section for section in sections)


_TASK_SPEC_FIELDS = frozenset(field.name for field in dataclasses.fields(TaskSpec))


@dataclasses.dataclass(repr=False)
class Measurement:
    """The result of timing one task: `raw_times[i]` is the time of one block of `number_per_run`
    runs, in seconds.

    Statistics (`median`, `mean`, `iqr`, ...) are per run and computed on first use. The task's
    fields read through: `m.label`, `m.stmt`, `m.num_threads` are `m.task_spec`'s.

    Example:
        >>> from ember.utils.benchmark import Measurement, TaskSpec
        >>> m = Measurement(100, [1.1e-4, 1.2e-4, 1.0e-4, 1.3e-4], TaskSpec("x + y", "pass"))
        >>> round(m.median * 1e6, 3), round(m.iqr * 1e6, 3)
        (1.15, 0.15)
        >>> print(m)  # doctest: +ELLIPSIS
        <...Measurement object at 0x...>
        x + y
          Median: 1.15 us
          IQR:    0.15 us (1.08 to 1.22)
          4 measurements, 100 runs per measurement, 1 thread
          WARNING: Interquartile range is 13.0% of the median measurement.
                   This could indicate system fluctuation.
    """

    number_per_run: int
    raw_times: list
    task_spec: TaskSpec
    metadata: dict | None = None  # the user's own payload; merge() does not carry it

    def __getattr__(self, name):
        # Only reached for names not found normally; `task_spec` itself may be absent mid-unpickle.
        if name in _TASK_SPEC_FIELDS and "task_spec" in self.__dict__:
            return getattr(self.task_spec, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    @property
    def times(self):
        """Seconds per run, one per block: `raw_times` divided by `number_per_run`."""
        return [t / self.number_per_run for t in self.raw_times]

    def _statistics(self):
        # Cached in the instance dict; raw_times is not expected to change after the first read.
        stats = self.__dict__.get("_stats")
        if stats is None:
            if not self.raw_times:
                raise ValueError(
                    "Measurement has no raw_times to take statistics of; build it with at least one "
                    "block time (Timer's methods always record one)"
                )
            times = np.sort(np.asarray(self.times, dtype=np.float64))
            p25, median, p75 = np.quantile(times, [0.25, 0.5, 0.75])
            stats = self.__dict__["_stats"] = {
                "sorted": times,
                "median": float(median),
                "mean": float(times.mean()),
                "p25": float(p25),
                "p75": float(p75),
            }
        return stats

    @property
    def median(self):
        """Median time per run (seconds)."""
        return self._statistics()["median"]

    @property
    def mean(self):
        """Mean time per run (seconds)."""
        return self._statistics()["mean"]

    @property
    def iqr(self):
        """Interquartile range of the times per run (seconds)."""
        stats = self._statistics()
        return stats["p75"] - stats["p25"]

    def meets_confidence(self, threshold=_IQR_WARN_THRESHOLD):
        """Whether the IQR is less than `threshold` times the median."""
        return self.iqr / self.median < threshold

    @property
    def has_warnings(self):
        """Whether the spread is large enough for the repr to warn (IQR at least 10% of the median)."""
        return bool(self._warning_lines())

    def _warning_lines(self):
        if self.meets_confidence(_IQR_WARN_THRESHOLD):
            return []
        if self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
            cause = "This could indicate system fluctuation."
        else:
            cause = "This suggests significant environmental influence."
        percent = self.iqr / self.median * 100
        return [f"  WARNING: Interquartile range is {percent:.1f}% of the median measurement.\n           {cause}"]

    @property
    def significant_figures(self):
        """A rough count (1 to 4) of the median's trustworthy digits, from the spread of the middle
        half of the times (a 90% interval, z = 1.645). `Compare.trim_significant_figures` uses it."""
        stats = self._statistics()
        times = stats["sorted"]
        middle = times[len(times) // 4 : math.ceil(3 * len(times) / 4)]
        interval = max(1.645 * float(middle.std()) / math.sqrt(len(middle)), _MIN_CONFIDENCE_INTERVAL)
        figures = math.floor(_log10(stats["median"] / interval))
        return min(max(figures, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def title(self):
        """The task's title (see `TaskSpec.title`)."""
        return self.task_spec.title

    @property
    def env(self):
        """The task's `env` (None when unspecified, as PyTorch returns it)."""
        return self.task_spec.env

    @property
    def as_row_name(self):
        """The name `Compare` gives this measurement's row: sub-label, else stmt."""
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self):
        stats = self._statistics()
        count = len(stats["sorted"])
        unit, scale = select_unit(stats["median"])
        many = count > 1
        # The default object repr's line, with the package the user imported (torch under compat).
        module = _naming.package + type(self).__module__.removeprefix("ember")
        lines = [f"<{module}.{type(self).__qualname__} object at {id(self):#x}>"]
        lines.append(self.task_spec.summarize())
        lines.append(f"  {'Median: ' if many else ''}{stats['median'] / scale:.2f} {unit}")
        if count >= 4:
            low, high = stats["p25"] / scale, stats["p75"] / scale
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({low:.2f} to {high:.2f})")
        threads = self.num_threads
        # PyTorch writes "10 runs , 1 thread" for a single measurement; kept so the text is the same.
        lines.append(
            f"  {count} measurement{'s' if many else ''}, {self.number_per_run} runs "
            f"{'per measurement,' if many else ','} {threads} thread{'s' if threads > 1 else ''}"
        )
        lines.extend(self._warning_lines())
        return "\n".join(lines).strip()

    @staticmethod
    def merge(measurements):
        """Pool replicates: one Measurement per distinct TaskSpec (in first-seen order), holding all
        their per-run times with `number_per_run=1` and no metadata."""
        groups = collections.defaultdict(list)
        for measurement in measurements:
            groups[measurement.task_spec].extend(measurement.times)
        return [Measurement(1, times, task_spec) for task_spec, times in groups.items()]


def select_unit(t):
    """The unit to show `t` seconds in and its size: `select_unit(2.5e-5) == ("us", 1e-6)`.

    As in PyTorch, times under a nanosecond (and from 1000 s up) are shown in seconds.
    """
    unit = _UNITS.get(int(_log10(t) // 3), "s")
    return unit, _SCALES[unit]


def unit_to_english(u):
    """The unit's name: "us" -> "microsecond"."""
    return _ENGLISH[u]


def trim_sigfig(x, n):
    """`x` rounded to `n` significant figures: `trim_sigfig(3.14159, 2)` is 3.1 (PyTorch rounds in
    float32, giving 3.1000001...; ember keeps float64)."""
    if n != int(n):
        raise AssertionError(f"trim_sigfig: the number of significant figures must be an integer, got {n!r}")
    magnitude = math.ceil(_log10(abs(x)))
    scale = 10 ** (magnitude - int(n))
    return float(round(x / scale) * scale)


def ordered_unique(elements):
    """The distinct elements, in first-seen order."""
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_torch_threads(n):
    """Run the block with `ember.set_num_threads(n)`, restoring the previous count after."""
    import ember

    previous = ember.get_num_threads()
    try:
        ember.set_num_threads(n)
        yield
    finally:
        ember.set_num_threads(previous)
