"""Fractional max pooling (Graham, 2014): max pooling whose window starts advance by a fractional,
pseudo-random step, so a layer can shrink an image by any ratio, e.g. 1/sqrt(2).

Each (sample, channel) plane draws one number u in [0, 1) per spatial dimension; the windows of a
dimension of size `input` pooled to `output` with windows of `pool` start at

    alpha = (input - pool) / (output - 1)
    start[i] = int((i + u) * alpha) - int(u * alpha)    for i < output - 1
    start[output - 1] = input - pool

computed in the input's floating dtype and truncated as ATen does, so that with the same
`_random_samples` ember and PyTorch choose the same windows, values and indices. The maximum of a
window is its first maximum in scan order (the last NaN, where there is one), as in ATen's loop.

The functions are `torch.nn.functional`'s only (torch has no `torch.fractional_max_pool2d`), so the
declarations carry their `nn.functional.` names and this module exports nothing to `ember.*`.
"""

import math
import operator

from .._backend import np
from .._tensor import Tensor, new_tensor
from .._validation import _is_int_like
from ..autograd.function import Primitive
from ._declare import op
from ._nn_common import _check_floating, _check_tensor
from .creation import rand

__all__ = []

_AXIS_NAMES = {2: ("height", "width"), 3: ("time", "height", "width")}


# ================================================================ arguments, checked as ATen checks them
def _sizes(value, n, name, op_name):
    """kernel_size / output_size: an int or exactly `n` ints (a single-element list is refused, as
    PyTorch's argument parser refuses it for these two)."""
    if isinstance(value, Tensor) and value.dim() == 0:
        value = value.item()
    values = (value,) * n if _is_int_like(value) else value
    if not isinstance(values, (tuple, list)) or not all(_is_int_like(v) for v in values):
        raise TypeError(f"{op_name}(): argument '{name}' must be an int or a tuple of {n} ints, got {value!r}")
    if len(values) != n:
        raise RuntimeError(f"{op_name}(): {name} must be a single int or a tuple of {n} ints, got {list(values)}")
    return tuple(operator.index(v) for v in values)


def _output_size(input, output_size, output_ratio, n, op_name):
    """PyTorch's Python side: output_size wins when both are given; a ratio scales the trailing
    dims and truncates (`int(size * ratio)`)."""
    if output_size is not None:
        return output_size
    if output_ratio is None:
        raise ValueError(f"{op_name} requires specifying either an output_size or an output_ratio")
    # A single number is accepted for 2-d too (PyTorch's 2-d function raises TypeError from len()
    # on it, although its docs allow it); longer or shorter tuples are refused for both.
    ratios = (output_ratio,) * n if isinstance(output_ratio, (int, float)) else tuple(output_ratio)
    if len(ratios) != n:
        raise ValueError(f"{op_name} requires output_ratio to be a single number or a tuple of {n}, got {output_ratio}")
    return [int(input.size(dim - n) * ratio) for dim, ratio in enumerate(ratios)]


def _check_input(input, kernel, out_size, n, op_name):
    shape = list(input.shape)
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(
            f"{op_name}(): expected a {n + 1}-D (C, *spatial) or {n + 2}-D (N, C, *spatial) input, got shape {shape}"
        )
    for dim in range(1, input.dim()):
        if shape[dim] == 0:
            raise RuntimeError(
                f"{op_name}(): expected input to have non-zero size for non-batch dimensions, but got "
                f"{shape} with dimension {dim} being empty"
            )
    if any(k <= 0 for k in kernel):
        raise RuntimeError(f"{op_name}(): kernel_size must be greater than zero, but got {list(kernel)}")
    spatial = shape[-n:]
    for axis, size, pool, out in zip(_AXIS_NAMES[n], spatial, kernel, out_size):
        # ATen's own bounds: the 3-d op refuses output + pool - 1 == input, which the 2-d op allows.
        if out + pool - 1 > (size if n == 2 else size - 1):
            raise RuntimeError(
                f"{op_name}(): pool {axis} {pool} too large relative to input {axis} {size} "
                f"(output {axis} {out}; input shape {shape}, kernel_size {list(kernel)})"
            )
    if any(out < 0 for out in out_size):
        raise RuntimeError(f"{op_name}(): output_size must not be negative, got {list(out_size)}")


def _check_samples(samples, input, n, op_name):
    _check_tensor(samples, "_random_samples", op_name)
    if samples.requires_grad:
        raise RuntimeError(
            f"{op_name}(): the function is not differentiable with respect to argument 'random_samples'; "
            "pass _random_samples that does not require grad (e.g. samples.detach())"
        )
    if samples.dtype != input.dtype:
        raise RuntimeError(
            f"{op_name}(): expected _random_samples to have the same dtype as input ({input.dtype}), "
            f"got {samples.dtype}"
        )
    if samples.dim() != 3:
        raise RuntimeError(
            f"{op_name}(): expected _random_samples of shape (N, C, {n}) (3 dimensions), got shape "
            f"{list(samples.shape)}"
        )
    batch, channels = (1, input.shape[0]) if input.dim() == n + 1 else tuple(input.shape[:2])
    rows, columns, count = samples.shape
    if rows < batch:
        raise RuntimeError(
            f"{op_name}(): expected _random_samples.size(0) to be at least the input batch size {batch}, "
            f"got shape {list(samples.shape)}"
        )
    if columns != channels:
        raise RuntimeError(
            f"{op_name}(): expected _random_samples.size(1) to equal the input channel size {channels}, "
            f"got shape {list(samples.shape)}"
        )
    if count != n:
        raise RuntimeError(f"{op_name}(): expected _random_samples.size(2) to equal {n}, got {count}")


# ================================================================ windows and maxima (arrays)
def _interval_starts(samples, size, out, pool):
    """(..., out) int64 window starts of one dimension from its (...) samples (see the module
    docstring); the arithmetic stays in the samples' dtype, as in ATen."""
    starts = np.empty(samples.shape + (out,), dtype=np.int64)
    if out > 1:
        real = samples.dtype.type
        alpha = real(size - pool) / real(out - 1)
        u = samples[..., None]
        steps = np.arange(out - 1, dtype=samples.dtype)
        starts[..., :-1] = ((steps + u) * alpha).astype(np.int64) - (u * alpha).astype(np.int64)
    if out > 0:
        starts[..., -1] = size - pool
    return starts


def _window_positions(samples, spatial, kernel, out_size):
    """(N, C, *out_size, K): the flat in-plane position of every element of every window, K = prod(kernel)
    in scan order. `samples` is (N, C, n), ordered as ATen reads it (width first for 2-d, time first for 3-d)."""
    n = len(spatial)
    order = (1, 0) if n == 2 else (0, 1, 2)
    positions = 0
    for dim, (size, pool, out) in enumerate(zip(spatial, kernel, out_size)):
        starts = _interval_starts(samples[..., order[dim]], size, out, pool)
        along = starts[..., None] + np.arange(pool)  # (N, C, out, pool)
        shape = starts.shape[:2] + (1,) * dim + (out,) + (1,) * (n - 1) + (pool,) + (1,) * (n - 1 - dim)
        positions = positions + along.reshape(shape) * math.prod(spatial[dim + 1 :])
    return positions.reshape(positions.shape[: 2 + n] + (math.prod(kernel),))


def _window_maxima(x, positions):
    """(values, flat indices) of each window's maximum: the first maximum, or the last NaN (ATen's
    `val > max || isnan(val)` scan), computed without branching on the data."""
    leading = x.shape[:2]
    flat_positions = positions.reshape(leading + (math.prod(positions.shape[2:]),))
    windows = np.take_along_axis(x.reshape(leading + (math.prod(x.shape[2:]),)), flat_positions, -1)
    windows = windows.reshape(positions.shape)
    chosen = np.argmax(windows, axis=-1)  # the first maximum (NumPy's first NaN)
    nan = np.isnan(windows)
    last_nan = windows.shape[-1] - 1 - np.argmax(nan[..., ::-1], axis=-1)
    chosen = np.where(nan.any(axis=-1), last_nan, chosen)[..., None]
    return np.take_along_axis(windows, chosen, -1)[..., 0], np.take_along_axis(positions, chosen, -1)[..., 0]


def _plane_gather(x, indices, n):
    """x at `indices`: flat positions within each plane of the trailing `n` dims."""
    leading = indices.shape[: indices.ndim - n]
    plane, picked = math.prod(x.shape[len(leading) :]), math.prod(indices.shape[len(leading) :])
    flat = np.take_along_axis(x.reshape(leading + (plane,)), indices.reshape(leading + (picked,)), -1)
    return flat.reshape(indices.shape)


def _plane_scatter(grad, indices, n, shape):
    """Zeros of `shape` with grad[..., j] added at plane position indices[..., j] (several windows
    may pick one element: their gradients add, in output order as ATen's loop adds them)."""
    leading = indices.shape[: indices.ndim - n]
    plane = math.prod(shape[len(leading) :])
    result = np.zeros((math.prod(leading) * plane,), dtype=grad.dtype)
    offsets = (np.arange(math.prod(leading)) * plane).reshape(leading + (1,) * n)
    if grad.size:
        np.add.at(result, (indices + offsets).ravel(), grad.ravel())
    return result.reshape(shape)


# ================================================================ primitives
class FractionalMaxPool2d(Primitive, node="FractionalMaxPool2DBackward0"):
    """x at the recorded maxima (`values` when the caller found them already). The backward scatters,
    the scatter's backward gathers again: differentiable any number of times."""

    @staticmethod
    def forward(ctx, x, indices, n, values=None):
        ctx.indices, ctx.n, ctx.shape = indices, n, x.shape
        return _plane_gather(x, indices, n) if values is None else values

    @staticmethod
    def backward(ctx, grad):
        return _SCATTERS[ctx.n].apply(grad, ctx.indices, ctx.n, ctx.shape), None, None, None

    @staticmethod
    def jvp(ctx, tangent, *_):
        x, indices, n, _values = ctx.inputs
        return None if tangent is None else _GATHERS[n].apply(tangent, indices, n)


class FractionalMaxPool3d(FractionalMaxPool2d, node="FractionalMaxPool3DBackward0"):
    pass


class _FractionalMaxPool2dBackward(Primitive, node="FractionalMaxPool2DBackwardBackward0"):
    """The gradient of fractional max pooling: each output's gradient added at its maximum's position."""

    @staticmethod
    def forward(ctx, grad, indices, n, shape):
        ctx.indices, ctx.n = indices, n
        return _plane_scatter(grad, indices, n, shape)

    @staticmethod
    def backward(ctx, grad):
        return _GATHERS[ctx.n].apply(grad, ctx.indices, ctx.n), None, None, None

    @staticmethod
    def jvp(ctx, tangent, *_):
        grad, indices, n, shape = ctx.inputs
        return None if tangent is None else _SCATTERS[n].apply(tangent, indices, n, shape)


class _FractionalMaxPool3dBackward(_FractionalMaxPool2dBackward, node="FractionalMaxPool3DBackwardBackward0"):
    pass


_GATHERS = {2: FractionalMaxPool2d, 3: FractionalMaxPool3d}
_SCATTERS = {2: _FractionalMaxPool2dBackward, 3: _FractionalMaxPool3dBackward}


# ================================================================ the functions
def _fractional_max_pool(input, kernel_size, output_size, output_ratio, samples, n):
    """(output, indices), with PyTorch's checks in PyTorch's order: its Python side (sizes, the
    draw of the samples), then ATen's (shapes, bounds, samples, dtype)."""
    op_name = f"fractional_max_pool{n}d"
    _check_tensor(input, "input", op_name)
    output_size = _output_size(input, output_size, output_ratio, n, op_name)
    if samples is None:
        if input.dim() < n + 1:  # where PyTorch's input.size(-n - 1) fails
            raise IndexError(
                f"{op_name}(): expected a {n + 1}-D (C, *spatial) or {n + 2}-D (N, C, *spatial) input, got "
                f"shape {list(input.shape)}"
            )
        _check_floating(input, op_name)  # rand draws floating point samples only
        batch = 1 if input.dim() == n + 1 else input.shape[0]
        samples = rand(batch, input.shape[-n - 1], n, dtype=input.dtype)
    kernel = _sizes(kernel_size, n, "kernel_size", op_name)
    out_size = _sizes(output_size, n, "output_size", op_name)
    _check_input(input, kernel, out_size, n, op_name)
    _check_samples(samples, input, n, op_name)
    _check_floating(input, op_name)
    x = input._data
    if input.dim() == n + 1:  # unbatched: the windows of the first row of samples
        x = x[None]
    positions = _window_positions(samples._data[: x.shape[0]], x.shape[2:], kernel, out_size)
    values, indices = _window_maxima(x, positions)
    if input.dim() == n + 1:
        values, indices = values[0], indices[0]
    output = _GATHERS[n].apply(input, indices, n, values)
    # The returned indices are the user's to change: the graph keeps its own array.
    return output, new_tensor(indices.copy())


@op(FractionalMaxPool2d, name="nn.functional.fractional_max_pool2d")
def fractional_max_pool2d(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None
):
    """2-d fractional max pooling of (N, C, H, W) or (C, H, W): max over `kernel_size` windows whose
    starts advance by pseudo-random fractional steps, to `output_size` (or `output_ratio` of the input).

    Args:
        input: a floating point tensor of shape (N, C, H, W) or (C, H, W).
        kernel_size: window size, an int or (kH, kW).
        output_size: (oH, oW) or one int for both; used when given, even with `output_ratio`.
        output_ratio: output size as a fraction of the input's, a number or a pair in (0, 1);
            each size is `int(size * ratio)`.
        return_indices: also return the flat (H * W) position of each maximum, for `max_unpool2d`.
        _random_samples: (N, C, 2) samples in [0, 1) of the input's dtype that place the windows
            (index 0 for width, 1 for height, as PyTorch reads them); None draws them with
            `ember.rand`, as PyTorch draws them, so a seeded run matches PyTorch's.

    Returns:
        The pooled tensor, or (pooled, indices) with `return_indices=True` (indices int64).

    Example:
        >>> x = ember.arange(25.0).reshape(1, 1, 5, 5)
        >>> samples = ember.tensor([[[0.5, 0.5]]])
        >>> F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=samples)
        tensor([[[[ 6.,  8.,  9.],
                  [16., 18., 19.],
                  [21., 23., 24.]]]])
    """
    output, indices = _fractional_max_pool(input, kernel_size, output_size, output_ratio, _random_samples, 2)
    return (output, indices) if return_indices else output


@op(FractionalMaxPool2d, name="nn.functional.fractional_max_pool2d_with_indices")
def fractional_max_pool2d_with_indices(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None
):
    """`fractional_max_pool2d` that always returns (pooled, indices), whatever `return_indices` says
    (PyTorch's signature). See `fractional_max_pool2d` for the arguments.

    Example:
        >>> x = ember.arange(16.0).reshape(1, 4, 4)
        >>> F.fractional_max_pool2d_with_indices(x, 2, output_size=2, _random_samples=ember.tensor([[[0.0, 0.0]]]))
        (tensor([[[ 5.,  7.],
                 [13., 15.]]]), tensor([[[ 5,  7],
                 [13, 15]]]))
    """
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, _random_samples, 2)


@op(FractionalMaxPool3d, name="nn.functional.fractional_max_pool3d")
def fractional_max_pool3d(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None
):
    """3-d fractional max pooling of (N, C, T, H, W) or (C, T, H, W), as `fractional_max_pool2d` in
    one more dimension.

    Args:
        input: a floating point tensor of shape (N, C, T, H, W) or (C, T, H, W).
        kernel_size: window size, an int or (kT, kH, kW).
        output_size: (oT, oH, oW) or one int for all three; used when given.
        output_ratio: output size as a fraction of the input's, a number or a triple in (0, 1).
        return_indices: also return the flat (T * H * W) position of each maximum, for `max_unpool3d`.
        _random_samples: (N, C, 3) samples in [0, 1) of the input's dtype (time, height, width);
            None draws them as PyTorch does.

    Returns:
        The pooled tensor, or (pooled, indices) with `return_indices=True`.

    Unlike the 2-d op (and as PyTorch's), an output size with output + kernel - 1 equal to the input
    size is refused.

    Example:
        >>> x = ember.arange(64.0).reshape(1, 1, 4, 4, 4)
        >>> samples = ember.tensor([[[0.5, 0.5, 0.5]]])
        >>> F.fractional_max_pool3d(x, 2, output_size=2, _random_samples=samples).flatten()
        tensor([21., 23., 29., 31., 53., 55., 61., 63.])
    """
    output, indices = _fractional_max_pool(input, kernel_size, output_size, output_ratio, _random_samples, 3)
    return (output, indices) if return_indices else output


@op(FractionalMaxPool3d, name="nn.functional.fractional_max_pool3d_with_indices")
def fractional_max_pool3d_with_indices(
    input, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None
):
    """`fractional_max_pool3d` that always returns (pooled, indices); see `fractional_max_pool3d`.

    Example:
        >>> x = ember.arange(64.0).reshape(1, 1, 4, 4, 4)
        >>> _, indices = F.fractional_max_pool3d_with_indices(x, 3, output_size=1)
        >>> indices.flatten()
        tensor([63])
    """
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, _random_samples, 3)
