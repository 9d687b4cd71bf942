"""Reduced-precision accumulation, as PyTorch does it: float16 sums, products, scans and norms run in
float32 and the result is rounded back to float16 once.

Accumulating in float16 itself is silently wrong: 2048 + 1 rounds back to 2048, so the cumsum of
3,000 ones ends at 2048 and a variance of values near 100 overflows to inf. Every reduction and scan
of ember.ops.reduction goes through one of these two helpers.
"""

import numpy as np

__all__ = ["accumulate", "widened"]

_HALF = np.dtype(np.float16)  # compared with `is`: dtype == np.float16 costs more than the sum of 3 numbers


def accumulate(function, array, *args, dtype=None, **kwargs):
    """`function(array, *args, dtype=dtype, **kwargs)` (np.add.reduce, np.cumsum, np.prod ...), in
    float32 for a float16 `array` when no `dtype` is asked for, rounded back to float16."""
    if array.dtype is _HALF and dtype is None:
        return np.asarray(function(array, *args, dtype=np.float32, **kwargs)).astype(np.float16)
    return function(array, *args, dtype=dtype, **kwargs)


def widened(array):
    """`array` in the precision to compute in: float32 for float16, itself otherwise (no copy)."""
    return array.astype(np.float32) if array.dtype is _HALF else array
