"""Where PyTorch's CPU kernels leave equal elements.

sort (stable=False), topk and mode order (value, index) pairs with C++'s std::sort, std::nth_element
and std::partial_sort (libstdc++'s introsort, introselect and heap select), comparing values only.
Those algorithms are not stable but they are deterministic, so the index PyTorch returns among tied
values is the one their exact steps leave there. This module replays those steps on one slice.

The replay is plain Python, so callers run it only on slices that hold ties and fall back to a
stable order above `REPLAY_LIMIT` elements. Keys are integers (ranks of the values, NaN the largest,
negated for a descending order), so every comparison is `<`. Each function takes `keys` (a list,
permuted in place) and returns the original positions in their final order.
"""

from .._backend import np

__all__ = ["REPLAY_LIMIT", "ranks", "std_sort", "std_nth_element", "std_partial_sort", "has_ties"]

# Elements per call above which ties keep a stable order instead (a replay costs ~1 µs per step).
REPLAY_LIMIT = 200_000

_THRESHOLD = 16  # libstdc++'s _S_threshold: introsort leaves runs this short to insertion sort


def ranks(slices, descending=False):
    """Dense integer ranks of the values along the last axis (NaN highest; -0.0 equals 0.0),
    negated when the order is descending, so that `<` is the kernels' comparison."""
    _, inverse = np.unique(slices, return_inverse=True)
    inverse = inverse.reshape(slices.shape)
    return -inverse if descending else inverse


def has_ties(slices):
    """A boolean per slice (last axis): whether two of its values are equal (NaNs count as equal)."""
    ordered = np.sort(slices, axis=-1)
    same = ordered[..., 1:] == ordered[..., :-1]
    if ordered.dtype.kind in "fcV":
        same |= np.isnan(ordered[..., 1:]) & np.isnan(ordered[..., :-1])
    return same.any(axis=-1)


def _floor_log2(n):
    return n.bit_length() - 1


def std_sort(keys):
    """std::sort of the whole slice."""
    positions = list(range(len(keys)))
    std_sort_range(keys, positions, 0, len(keys))
    return positions


def std_nth_element(keys, nth):
    """std::nth_element: introselect; ranges of 3 or fewer are insertion sorted."""
    positions = list(range(len(keys)))
    first, last = 0, len(keys)
    if first == last or nth == last:
        return positions
    depth = 2 * _floor_log2(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(keys, positions, first, nth + 1, last)
            _swap(keys, positions, first, nth)
            return positions
        depth -= 1
        cut = _partition_around_median(keys, positions, first, last)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _stable_sort_range(keys, positions, first, last)
    return positions


def std_partial_sort(keys, middle):
    """std::partial_sort: heap select of the first `middle`, then heap sort of them."""
    positions = list(range(len(keys)))
    _heap_select(keys, positions, 0, middle, len(keys))
    _sort_heap(keys, positions, 0, middle)
    return positions


# ---------------------------------------------------------------- the algorithms' steps
def std_sort_range(keys, positions, first, last):
    """std::sort of keys[first:last] (with their positions), in place: introsort down to runs of
    16, then one insertion sort, which is stable, so it ends as any stable sort of what is left."""
    if last - first > 1:
        _introsort_loop(keys, positions, first, last, 2 * _floor_log2(last - first))
        _stable_sort_range(keys, positions, first, last)


def _swap(keys, positions, i, j):
    keys[i], keys[j] = keys[j], keys[i]
    positions[i], positions[j] = positions[j], positions[i]


def _stable_sort_range(keys, positions, first, last):
    order = sorted(range(first, last), key=keys.__getitem__)
    keys[first:last] = [keys[i] for i in order]
    positions[first:last] = [positions[i] for i in order]


def _introsort_loop(keys, positions, first, last, depth):
    while last - first > _THRESHOLD:
        if depth == 0:
            _heap_select(keys, positions, first, last, last)
            _sort_heap(keys, positions, first, last)
            return
        depth -= 1
        cut = _partition_around_median(keys, positions, first, last)
        _introsort_loop(keys, positions, cut, last, depth)
        last = cut


def _partition_around_median(keys, positions, first, last):
    """Move the median of (first + 1, middle, last - 1) to `first` and partition the rest around
    it (Hoare's unguarded scheme); returns where the right part starts."""
    a, b, c = first + 1, first + (last - first) // 2, last - 1
    if keys[a] < keys[b]:
        median = b if keys[b] < keys[c] else (c if keys[a] < keys[c] else a)
    else:
        median = a if keys[a] < keys[c] else (c if keys[b] < keys[c] else b)
    _swap(keys, positions, first, median)
    pivot = keys[first]
    left, right = first + 1, last
    while True:
        while keys[left] < pivot:
            left += 1
        right -= 1
        while pivot < keys[right]:
            right -= 1
        if not left < right:
            return left
        _swap(keys, positions, left, right)
        left += 1


def _adjust_heap(keys, positions, first, hole, length, key, position):
    """Sift the hole at `hole` down to a leaf, then push (key, position) up from there."""
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if keys[first + child] < keys[first + child - 1]:
            child -= 1
        keys[first + hole], positions[first + hole] = keys[first + child], positions[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        keys[first + hole], positions[first + hole] = keys[first + child - 1], positions[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and keys[first + parent] < key:
        keys[first + hole], positions[first + hole] = keys[first + parent], positions[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    keys[first + hole], positions[first + hole] = key, position


def _make_heap(keys, positions, first, last):
    length = last - first
    if length < 2:
        return
    for parent in range((length - 2) // 2, -1, -1):
        _adjust_heap(keys, positions, first, parent, length, keys[first + parent], positions[first + parent])


def _pop_heap(keys, positions, first, last, result):
    key, position = keys[result], positions[result]
    keys[result], positions[result] = keys[first], positions[first]
    _adjust_heap(keys, positions, first, 0, last - first, key, position)


def _heap_select(keys, positions, first, middle, last):
    _make_heap(keys, positions, first, middle)
    for i in range(middle, last):
        if keys[i] < keys[first]:
            _pop_heap(keys, positions, first, middle, i)


def _sort_heap(keys, positions, first, last):
    while last - first > 1:
        last -= 1
        _pop_heap(keys, positions, first, last, last)
