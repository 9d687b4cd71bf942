"""Reduced-precision accumulation, as PyTorch does it: float16 and bfloat16 sums, products, scans and
norms run in float32 and the result is rounded back to the input's dtype once.

Accumulating in float16 itself is silently wrong: 2048 + 1 rounds back to 2048, so the cumsum of
3,000 ones ends at 2048 and a variance of values near 100 overflows to inf. Every reduction and scan
of ember.ops.reduction goes through `accumulate` or `widened`.

bfloat16 (ml_dtypes' NumPy type, kind "V") needs more: its NumPy loops round after every step and
its matmul returns float32, while PyTorch computes bfloat16 in float32 and rounds each op's result
once. `add_reduce`, `matmul`, `einsum` and `in_float32` do that for the ops that use them; for
float16, float32 and float64 they are the plain NumPy call after one dtype check.
"""

import math

import numpy as np

__all__ = ["accumulate", "widened", "add_reduce", "sum_last", "dot_last", "sum_first", "matmul", "einsum", "in_float32"]

_HALF = np.dtype(np.float16)  # compared with `is`: dtype == np.float16 costs more than the sum of 3 numbers
# bfloat16 (ml_dtypes, NumPy kind "V") is the other narrow type: its own loops would accumulate in bfloat16.


def accumulate(function, array, *args, dtype=None, **kwargs):
    """`function(array, *args, dtype=dtype, **kwargs)` (np.add.reduce, np.cumsum, np.prod ...), in
    float32 for a float16 or bfloat16 `array` when no `dtype` is asked for, rounded back to its dtype."""
    narrow = array.dtype
    if (narrow is _HALF or narrow.kind == "V") and dtype is None:
        return np.asarray(function(array, *args, dtype=np.float32, **kwargs)).astype(narrow)
    return function(array, *args, dtype=dtype, **kwargs)


def add_reduce(array, axis, keepdims=False):
    """`np.add.reduce`, for the sums inside ops (gradients summed over a broadcast, windows): a
    bfloat16 array sums in float32, rounded once, since ml_dtypes' loop adds one by one in bfloat16
    (256 + 1 stays 256). float16 keeps NumPy's own pairwise sum, which accumulates in float32."""
    if array.dtype.kind == "V":
        return np.add.reduce(array, axis=axis, dtype=np.float32, keepdims=keepdims).astype(array.dtype)
    return np.add.reduce(array, axis=axis, keepdims=keepdims)


_BLAS_SUM_TYPES = (np.dtype(np.float32), np.dtype(np.float64))
_BLAS_SUM_MAX_LENGTH = 4096  # longer sums keep NumPy's pairwise order (more accurate, and as fast there)
_BLAS_SUM_MIN_SUMS = 128  # fewer rows: ones, reshape and the call cost more than NumPy's loop (measured)
_BLAS_SUM_MIN_ROWS = 256  # summing fewer rows (sum_first), add.reduce is as fast


def sum_last(array, count=1):
    """The sum over the last `count` axes, kept as size-1 axes (mean and variance of a layer norm,
    a softmax's denominator). NumPy's add.reduce along a short contiguous axis pays per row: ~40 ns,
    so a (32, 4, 32, 32) softmax's sum takes 120 us; a C-contiguous float32/float64 array sums as
    one matrix-vector product by ones instead (BLAS, 18 us). Other arrays take `add_reduce`."""
    return dot_last(array, None, count)


def dot_last(array, weights, count=1):
    """The sum over the last `count` axes of `array * weights` (`weights` shaped as those axes; None
    for ones), kept as size-1 axes, as `sum_last`: one matrix-vector product by the weights where
    that applies, so the product is never made (a layer norm's backward: rows of grad * normalized
    dotted with its weight)."""
    shape = array.shape
    length = math.prod(shape[len(shape) - count :])
    rows = math.prod(shape[: len(shape) - count])
    if (
        array.dtype not in _BLAS_SUM_TYPES
        or not array.flags.c_contiguous
        or length > _BLAS_SUM_MAX_LENGTH
        or rows < _BLAS_SUM_MIN_SUMS
    ):
        return add_reduce(array if weights is None else array * weights, tuple(range(-count, 0)), keepdims=True)
    if weights is None:
        weights = np.ones(length, array.dtype)
    else:
        weights = weights.reshape(length).astype(array.dtype, copy=False)
    sums = np.matmul(array.reshape(rows, length), weights)
    return sums.reshape(shape[: len(shape) - count] + (1,) * count)


def sum_first(array, count):
    """The sum over the first `count` axes (a bias's or a layer norm weight's gradient): as
    `sum_last`, by ones times the array seen as a matrix when that is C-contiguous float32/float64."""
    shape = array.shape
    rows = math.prod(shape[:count])
    if (
        array.dtype not in _BLAS_SUM_TYPES
        or not array.flags.c_contiguous
        or not _BLAS_SUM_MIN_ROWS <= rows <= _BLAS_SUM_MAX_LENGTH
    ):
        return add_reduce(array, tuple(range(count)))
    sums = np.matmul(np.ones(rows, array.dtype), array.reshape(rows, math.prod(shape[count:])))
    return sums.reshape(shape[count:])


def widened(array):
    """`array` in the precision to compute in: float32 for float16 and bfloat16, itself otherwise (no copy)."""
    return array.astype(np.float32) if array.dtype is _HALF or array.dtype.kind == "V" else array


def matmul(a, b, bias=None):
    """`np.matmul(a, b)` (plus `bias`); bfloat16 operands are multiplied in float32 (BLAS), the bias
    added there and the result rounded to bfloat16 once, as PyTorch's addmm does (ml_dtypes' own
    matmul loop would return float32, and slowly)."""
    if a.dtype.kind == "V":
        result = np.matmul(a.astype(np.float32), b.astype(np.float32))
        if bias is not None:
            result += bias
        return result.astype(a.dtype)
    result = np.matmul(a, b)
    if bias is not None:
        result += bias
    return result


def einsum(subscripts, *operands, **kwargs):
    """`np.einsum`, which refuses bfloat16: such operands are contracted in float32, then rounded."""
    narrow = operands[0].dtype
    if narrow.kind == "V":
        widened_operands = [operand.astype(np.float32) for operand in operands]
        return np.asarray(np.einsum(subscripts, *widened_operands, **kwargs)).astype(narrow)
    return np.einsum(subscripts, *operands, **kwargs)


def in_float32(function, array, *args):
    """`function(array, *args)`, computed in float32 and rounded once for a bfloat16 `array`, as
    PyTorch's kernels compute bfloat16 (its "opmath" type): a formula of several NumPy steps would
    otherwise round to bfloat16 after each one. Other dtypes call `function` as it is."""
    if array.dtype.kind == "V":
        return function(array.astype(np.float32), *args).astype(array.dtype)
    return function(array, *args)
