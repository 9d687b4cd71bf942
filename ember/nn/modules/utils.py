"""`_single`, `_pair`, ...: turn an int argument into a tuple of one per spatial dimension."""

import collections.abc
from itertools import repeat

__all__ = ["_single", "_pair", "_triple", "_ntuple", "_reverse_repeat_tuple"]


def _ntuple(n, name="parse"):
    def parse(x):
        if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")


def _reverse_repeat_tuple(t, n):
    """(1, 2) -> (2, 2, 1, 1): conv padding in the last-dimension-first order `F.pad` takes."""
    return tuple(x for x in reversed(t) for _ in range(n))
