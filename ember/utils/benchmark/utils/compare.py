"""`Compare`: many Measurements as text tables, laid out as PyTorch's are.

One table per label. Rows are (num_threads, env, sub_label or stmt), grouped under a "N threads:"
rule and ordered by thread count then env, otherwise as first seen; columns are descriptions, as
first seen. Each cell is the median per run in the table's unit. Replicates of one task (equal
TaskSpecs) are pooled first (`Measurement.merge`).
"""

import enum
import math

from .common import Measurement, _log10, ordered_unique, select_unit, trim_sigfig, unit_to_english

__all__ = ["Colorize", "Compare"]

# ANSI colours for colorize(); each coloured cell ends with two resets, as PyTorch's do.
_BEST, _GOOD, _BAD, _VERY_BAD = "\033[92m", "\033[34m", "\033[2m\033[91m", "\033[31m"
_BOLD, _RESET = "\033[1m", "\033[0m"


class Colorize(enum.Enum):
    """How `Compare` colours cells: not at all, against the best of the column, or of the row."""

    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def _colored(text, value, best):
    if value <= best * 1.01 or value <= best + 100e-9:
        return _BEST + _BOLD + text + _RESET * 2
    if value <= best * 1.1:
        return _GOOD + _BOLD + text + _RESET * 2
    if value >= best * 5:
        return _VERY_BAD + _BOLD + text + _RESET * 2
    if value >= best * 2:
        return _BAD + text + _RESET * 2
    return text


class _ColumnFormat:
    """How one column writes its numbers: one width and one count of decimals for every cell, enough
    for the column's largest value (and, when trimming, its least precise one)."""

    def __init__(self, results, scale, trim, highlight_warnings):
        present = [m for m in results if m is not None]
        self.trim = trim
        self.highlight = highlight_warnings and any(m.has_warnings for m in present)
        digits = [math.ceil(_log10(m.median / scale)) for m in present]
        if trim:
            self.decimals = min(max(m.significant_figures - d, 0) for m, d in zip(present, digits))
        else:
            self.decimals = 1
        self.width = max(digits) + self.decimals + (1 if self.decimals else 0)

    def cell(self, value, significant_figures, spread):
        """A number, with " (! 12%)" after it when highlighting and the result has a warning."""
        if self.trim:
            value = trim_sigfig(value, significant_figures)
        note = f" (! {spread * 100:.0f}%)" if self.highlight and spread is not None else ""
        return f"{value:>{self.width}.{self.decimals}f}{note:>{7 if self.highlight else 0}}"

    def blank(self):
        return " " * len(self.cell(1, 1, None))


class _Table:
    def __init__(self, results, colorize, trim, highlight_warnings):
        self.results = results
        self.colorize = colorize
        self.highlight_warnings = highlight_warnings
        self.label = results[0].label
        self.unit, self.scale = select_unit(min(m.median for m in results))

        # Rows sorted by (threads, env) only, so stmts keep the order they were measured in. An
        # unspecified env sorts first (PyTorch cannot sort None against a name).
        self.row_keys = ordered_unique(self._row_key(m) for m in results)
        self.row_keys.sort(key=lambda key: (key[0], key[1] or ""))
        self.column_keys = ordered_unique(m.description for m in results)
        row_of = {key: i for i, key in enumerate(self.row_keys)}
        column_of = {key: j for j, key in enumerate(self.column_keys)}
        self.cells = [[None] * len(self.column_keys) for _ in self.row_keys]
        for m in results:
            self.cells[row_of[self._row_key(m)]][column_of[m.description]] = m

        # Rows with one thread count form a group; colorize() compares columns within a group.
        self.groups, group = [], -1
        for i, (threads, _, _) in enumerate(self.row_keys):
            if i == 0 or threads != self.row_keys[i - 1][0]:
                group += 1
            self.groups.append(group)
        self.formats = [
            _ColumnFormat([row[j] for row in self.cells], self.scale, trim, highlight_warnings)
            for j in range(len(self.column_keys))
        ]

    @staticmethod
    def _row_key(m):
        return m.num_threads, m.env, m.as_row_name

    def _starts_group(self, i):
        return i == 0 or self.groups[i] != self.groups[i - 1]

    def _row_strings(self):
        envs = {_env_name(m.env) for m in self.results}
        env_width = max(map(len, envs)) if len(envs) > 1 else 0
        strings, previous_env = [], None
        for i, row in enumerate(self.cells):
            threads, env, name = self.row_keys[i]
            # The env is written on the first row of each run of rows that share it.
            shown = len(envs) > 1 and (self._starts_group(i) or env != previous_env)
            env_text = f"({_env_name(env)})" if shown else ""
            cells = [
                fmt.blank()
                if m is None
                else fmt.cell(
                    m.median / self.scale, m.significant_figures, m.iqr / m.median if m.has_warnings else None
                )
                for m, fmt in zip(row, self.formats)
            ]
            strings.append(["  " + env_text.ljust(env_width + 4) + name] + cells)
            previous_env = env
        return strings

    def _best(self, i):
        """Per column, the median each cell of row `i` is coloured against (None: no colour)."""
        row = self.cells[i]
        if self.colorize == Colorize.ROWWISE:
            return [min(m.median for m in row if m is not None)] * len(row)
        if self.colorize == Colorize.COLUMNWISE:
            in_group = [r for r, g in zip(self.cells, self.groups) if g == self.groups[i]]
            return [min((r[j].median for r in in_group if r[j] is not None), default=None) for j in range(len(row))]
        return [None] * len(row)

    def render(self):
        header = [""] + [description or "" for description in self.column_keys]
        rows = self._row_strings()
        widths = [max(len(row[j]) for row in [header] + rows) for j in range(len(header))]
        lines = ["  |  ".join(text.center(width) for text, width in zip(header, widths))]
        total_width = len(lines[0])
        for i, row in enumerate(rows):
            if self._starts_group(i):
                lines.append(f"{self.row_keys[i][0]} threads: ".ljust(total_width, "-"))
            texts = [row[0].ljust(widths[0])]
            for text, width, m, best in zip(row[1:], widths[1:], self.cells[i], self._best(i)):
                text = text.center(width)
                if m is not None and best is not None:
                    text = _colored(text, m.median, best)
                texts.append(text)
            lines.append("  |  ".join(texts))
        title = f" {self.label or ''} ".center(total_width - 2, "-")
        footer = f"Times are in {unit_to_english(self.unit)}s ({self.unit}).\n"
        if self.highlight_warnings and any(m.has_warnings for m in self.results):
            footer += "(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n"
        return f"[{title}]\n" + "\n".join(lines) + "\n\n" + footer


def _env_name(env):
    return "Unspecified env" if env is None else env


class Compare:
    """Tables of many Measurements: one per label, a row per sub_label (or stmt) and thread count,
    a column per description, each cell a median.

    Args:
        results: the Measurements (more can be added with `extend_results`).

    Differences from PyTorch: measurements without a description get an unnamed column, and a
    measurement without an env is shown as "(Unspecified env)" beside ones with an env (PyTorch
    raises TypeError in both cases).

    Example:
        >>> from ember.utils.benchmark import Compare, Measurement, TaskSpec
        >>> def measured(stmt, n, seconds):
        ...     return Measurement(1, [seconds], TaskSpec(stmt, "pass", label="add", description=f"n={n}"))
        >>> Compare([measured("a + b", 10, 2.0e-6), measured("a + b", 1000, 3.5e-6)]).print()
        [------------ add ------------]
                     |  n=10  |  n=1000
        1 threads: --------------------
              a + b  |  2.0   |   3.5
        <BLANKLINE>
        Times are in microseconds (us).
        <BLANKLINE>
    """

    def __init__(self, results):
        self._results = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def extend_results(self, results):
        """Add Measurements to the ones already held (ValueError for anything else)."""
        results = list(results)
        for result in results:
            if not isinstance(result, Measurement):
                raise ValueError(
                    f"Compare: expected an instance of `Measurement`, got {type(result)} instead "
                    "(pass what Timer.timeit / blocked_autorange return)"
                )
        self._results.extend(results)

    def trim_significant_figures(self):
        """Show each column to the precision its measurements support (`significant_figures`)."""
        self._trim_significant_figures = True

    def colorize(self, rowwise=False):
        """Colour cells by how they compare with the best (smallest) median of their column within
        a thread group, or of their row when `rowwise`."""
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self):
        """Mark cells whose measurement has a large spread with " (! XX%)" (IQR / median)."""
        self._highlight_warnings = True

    def print(self):
        """Print the tables."""
        print(str(self))

    def __str__(self):
        by_label = {}
        for result in Measurement.merge(self._results):
            by_label.setdefault(result.label, []).append(result)
        tables = [
            _Table(results, self._colorize, self._trim_significant_figures, self._highlight_warnings)
            for results in by_label.values()
        ]
        return "\n".join(table.render() for table in tables)
