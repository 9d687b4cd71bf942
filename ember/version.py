"""`torch.version` as ember answers it: the PyTorch API level ember follows, and no CUDA.

Scripts compare `torch.__version__` to decide which API to call (`if torch.__version__ >= "2.0"`,
`version.parse(torch.__version__)`); under `ember.compat` (and `python -m ember run`) they see
`__version__` below, so they take the code path written for the PyTorch that ember matches.
ember's own release is `ember.__version__` (also `torch.version.ember`), which is what to report
in bug reports.
"""

import re

__all__ = ["__version__", "cuda", "hip", "debug", "git_version", "ember", "TorchVersion"]


class TorchVersion(str):
    """A version string that also compares with strings and tuples by release number, as PyTorch's
    does (`"2.13.0" > "2.9"` is true here, unlike for plain strings). A local part (`+cpu`) counts
    as packaging's versions count it: `"2.13.0+cpu"` is after `"2.13.0"` and not equal to it."""

    def _key(self, other):
        if isinstance(other, tuple):
            return other, ""
        match = re.match(r"(\d+(?:\.\d+)*)[^+]*(?:\+(.*))?$", str(other))
        if match is None:
            raise TypeError(f"cannot compare the version {str(self)!r} with {other!r}")
        return tuple(int(part) for part in match.group(1).split(".")), match.group(2) or ""

    def _compare(self, other):
        (mine, my_local), (theirs, their_local) = self._key(self), self._key(other)
        width = max(len(mine), len(theirs))
        mine, theirs = mine + (0,) * (width - len(mine)), theirs + (0,) * (width - len(theirs))
        mine, theirs = (mine, my_local), (theirs, their_local)
        return (mine > theirs) - (mine < theirs)

    def __lt__(self, other):
        return self._compare(other) < 0

    def __le__(self, other):
        return self._compare(other) <= 0

    def __gt__(self, other):
        return self._compare(other) > 0

    def __ge__(self, other):
        return self._compare(other) >= 0

    def __eq__(self, other):
        return (
            str.__eq__(self, other) if isinstance(other, str) and not other[:1].isdigit() else self._compare(other) == 0
        )

    __hash__ = str.__hash__


__version__ = TorchVersion("2.13.0+cpu")  # the CPU build's version string, as ember computes on the CPU
cuda = None
hip = None
debug = False
git_version = "ember"
ember = "0.1.0"
