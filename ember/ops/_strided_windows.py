"""Strided windows over spatial dims (`as_strided`, no copy), im2col / col2im and output sizes,
shared by convolution, pooling and unfold/fold.
"""

from .._backend import np, as_strided as _as_strided

__all__ = []


# ================================================================ strided windows
# Spatial dims are axes first .. first+n-1 of an array: 2 in PyTorch's (N, C, *spatial) layout, 1 or 2
# in the layouts convolution uses inside (see `_layout`).
def _windows(padded, out_size, kernel, stride, dilation, first=2):
    """A read-only view (*lead, *out_size, *kernel, *trail) of every window of `padded`, whose
    spatial dims (from axis `first`) lie between the lead and trail dims."""
    n = len(kernel)
    spatial_strides = padded.strides[first : first + n]
    shape = padded.shape[:first] + tuple(out_size) + tuple(kernel) + padded.shape[first + n :]
    strides = (
        padded.strides[:first]
        + tuple(st * s for st, s in zip(spatial_strides, stride))
        + tuple(st * d for st, d in zip(spatial_strides, dilation))
        + padded.strides[first + n :]
    )
    return _as_strided(padded, shape, strides, writeable=False)


def _spatial_slices(before, sizes, first):
    return (slice(None),) * first + tuple(slice(b, b + s) for b, s in zip(before, sizes))


def _pad(array, before, after, value=0, first=2):
    """`array` with `before`/`after` elements of `value` around each spatial dim (no copy if none)."""
    if not any(before) and not any(after):
        return array
    n = len(before)
    spatial = array.shape[first : first + n]
    padded = np.full(
        array.shape[:first] + tuple(b + s + a for b, s, a in zip(before, spatial, after)) + array.shape[first + n :],
        value,
        dtype=array.dtype,
    )
    padded[_spatial_slices(before, spatial, first)] = array
    return padded


def _crop(array, before, size, first=2):
    if not any(before) and array.shape[first : first + len(size)] == tuple(size):
        return array
    return array[_spatial_slices(before, size, first)]


def _disjoint(kernel, stride, dilation):
    """True when no two (window, offset) pairs read the same element: scatters need no accumulation."""
    return all(k == 1 or (d == 1 and s >= k) for k, s, d in zip(kernel, stride, dilation))


def _col2im(columns, padded_size, out_size, kernel, stride, dilation, first=2):
    """Adjoint of `_windows`: sum `columns` (*kernel, *lead, *out_size, *trail) into an array
    (*lead, *padded_size, *trail).

    Disjoint windows take one strided assignment; overlapping ones one vectorized add per kernel
    offset. Kernel dims come first so that each offset's block is one piece of memory.
    """
    n = len(kernel)
    shape = columns.shape[n : n + first] + tuple(padded_size) + columns.shape[n + first + n :]
    result = np.zeros(shape, dtype=columns.dtype)
    if _disjoint(kernel, stride, dilation):
        view = _windows(result, out_size, kernel, stride, dilation, first)
        view = _as_strided(result, view.shape, view.strides, writeable=True)
        order = tuple(range(n, n + first + n)) + tuple(range(n)) + tuple(range(n + first + n, columns.ndim))
        view[...] = columns.transpose(order)
        return result
    for offset in np.ndindex(*kernel):
        target = tuple(
            slice(k * d, k * d + s * (o - 1) + 1, s) for k, d, s, o in zip(offset, dilation, stride, out_size)
        )
        result[(slice(None),) * first + target] += columns[offset]
    return result


def _out_size(size, kernel, stride, padding, dilation):
    return tuple(
        (i + 2 * p - d * (k - 1) - 1) // s + 1 for i, k, s, p, d in zip(size, kernel, stride, padding, dilation)
    )
