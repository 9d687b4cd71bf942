"""Max, average and adaptive pooling over 1-3 spatial dims."""

import math

from .._backend import np
from .._tensor import new_tensor
from .. import _precision
from ..autograd.function import Primitive
from ._nn_common import _batched, _check_floating, _check_tensor, _ntuple
from ._strided_windows import _col2im, _crop, _disjoint, _pad, _windows
from ._declare import op
from ._tangents import linear_jvp

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d"]


# ================================================================ pooling
def _pool_out_size(size, kernel, stride, padding, dilation, ceil_mode):
    """PyTorch's pooling_output_shape: with ceil_mode the last window must start inside the input."""
    out = []
    for i, k, s, p, d in zip(size, kernel, stride, padding, dilation):
        length = (i + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
        if ceil_mode and (length - 1) * s >= i + p:
            length -= 1
        out.append(length)
    return tuple(out)


def _pool_geometry(input, kernel_size, stride, padding, dilation, ceil_mode, n, op_name):
    """Checked (kernel, stride, padding, dilation, out_size, pad_after) of a pooling call."""
    kernel = _ntuple(kernel_size, n, "kernel_size", op_name)
    stride = (
        kernel
        if stride is None or (not isinstance(stride, int) and len(stride) == 0)
        else _ntuple(stride, n, "stride", op_name)
    )
    padding = _ntuple(padding, n, "padding", op_name)
    dilation = _ntuple(dilation, n, "dilation", op_name)
    if any(k <= 0 for k in kernel) or any(s <= 0 for s in stride) or any(d <= 0 for d in dilation):
        raise RuntimeError(
            f"{op_name}(): kernel_size, stride and dilation must be greater than zero, but got "
            f"kernel_size={list(kernel)}, stride={list(stride)}, dilation={list(dilation)}"
        )
    for k, p, d in zip(kernel, padding, dilation):
        if p < 0 or p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(
                f"{op_name}(): pad should be at most half of effective kernel size, but got "
                f"pad={p}, kernel_size={k} and dilation={d}"
            )
    size = input._data.shape[2:]
    out_size = _pool_out_size(size, kernel, stride, padding, dilation, ceil_mode)
    if any(o <= 0 for o in out_size):
        raise RuntimeError(
            f"{op_name}(): Given input size: ({'x'.join(map(str, input.shape[1:]))}). Calculated "
            f"output size: ({'x'.join(map(str, input.shape[1:2] + tuple(out_size)))}). Output "
            f"size is too small"
        )
    # ceil_mode's last window may reach past the padded input: pad that much more after.
    pad_after = tuple(
        max((o - 1) * s + d * (k - 1) + 1 - i - p, p)
        for o, s, d, k, i, p in zip(out_size, stride, dilation, kernel, size, padding)
    )
    return kernel, stride, padding, dilation, out_size, pad_after


def _lowest(dtype):
    return -np.inf if dtype.kind in "fV" else np.iinfo(dtype).min


def _offset_regions(kernel, stride, dilation, out_size):
    """Per kernel offset, the strided slice of the padded input that this offset reads in every window."""
    return [
        (Ellipsis,)
        + tuple(slice(k * d, k * d + s * (o - 1) + 1, s) for k, d, s, o in zip(offset, dilation, stride, out_size))
        for offset in np.ndindex(*kernel)
    ]


class _PoolGeometry:
    """What max pooling's three Functions share: the windows, and the slices each kernel offset reads."""

    __slots__ = ("spatial", "kernel", "stride", "padding", "dilation", "out_size", "pad_after", "regions")

    def __init__(self, spatial, kernel, stride, padding, dilation, out_size, pad_after):
        self.spatial, self.kernel, self.stride, self.padding = spatial, kernel, stride, padding
        self.dilation, self.out_size, self.pad_after = dilation, out_size, pad_after
        self.regions = _offset_regions(kernel, stride, dilation, out_size)

    def padded_size(self):
        return tuple(p + s + a for p, s, a in zip(self.padding, self.spatial, self.pad_after))

    def flat_indices(self, local):
        """Kernel-offset numbers -> positions in the unpadded (H*W) plane (PyTorch's return_indices)."""
        n = len(self.kernel)
        index = np.zeros(local.shape, dtype=np.int64)
        remaining = local.astype(np.int64)
        for dim in reversed(range(n)):
            offset = remaining % self.kernel[dim]
            remaining //= self.kernel[dim]
            start = (np.arange(self.out_size[dim]) * self.stride[dim] - self.padding[dim]).reshape(
                (-1,) + (1,) * (n - 1 - dim)
            )
            index += (start + offset * self.dilation[dim]) * math.prod(self.spatial[dim + 1 :])
        return index


def _window_maxima(x, geometry):
    """(maximum, kernel offset of the maximum) of every window, from one strided slice per kernel
    offset (no copy of the windows): np.maximum over the slices, then the first offset equal to the
    maximum. The first maximum wins and NaN propagates (its last position is kept), as in PyTorch."""
    padded = _pad(x, geometry.padding, geometry.pad_after, _lowest(x.dtype))
    slices = [padded[region] for region in geometry.regions]
    count = len(slices)
    best = slices[0].copy()
    for candidate in slices[1:]:
        np.maximum(best, candidate, out=best)
    # The first maximum's offset is the number of offsets before it that all miss the maximum:
    # boolean ops and one add per offset, three times faster than np.where or a masked copy.
    offset_dtype = np.min_scalar_type(count - 1)
    local = np.zeros(best.shape, dtype=offset_dtype)
    missed = np.ones(best.shape, dtype=bool)
    differs = np.empty(best.shape, dtype=bool)
    for candidate in slices[:-1]:
        missed &= np.not_equal(candidate, best, out=differs)
        local += missed
    if x.dtype.kind in "fV" and np.isnan(best).any():
        for number, candidate in enumerate(slices):
            local = np.where(np.isnan(candidate), offset_dtype.type(number), local)
    return best, local


class _MaxPoolGather(Primitive, node="MaxPoolWithIndicesBackwardBackwardBackward0"):
    """x at each window's recorded maximum (`local`: the kernel offset of the maximum, per output).

    Max pooling's values once the offsets are known; its backward scatters, and the scatter's
    backward gathers again, so max pooling is differentiable any number of times.
    """

    @staticmethod
    def forward(ctx, x, local, geometry, values=None):
        ctx.local, ctx.geometry = local, geometry
        if values is not None:  # found together with `local` by `_window_maxima`
            return values
        padded = _pad(x, geometry.padding, geometry.pad_after)
        result = np.zeros(x.shape[:2] + geometry.out_size, dtype=x.dtype)
        for number, region in enumerate(geometry.regions):
            np.copyto(result, padded[region], where=local == number)
        return result

    @staticmethod
    def backward(ctx, grad):
        return _MaxPoolScatter.apply(grad, ctx.local, ctx.geometry), None, None, None


class _MaxPoolScatter(Primitive, node="MaxPoolWithIndicesBackwardBackward0"):
    """Max pooling's backward: each output's gradient goes to the input element that was its maximum."""

    @staticmethod
    def forward(ctx, grad, local, geometry):
        ctx.local, ctx.geometry = local, geometry
        result = np.zeros(grad.shape[:2] + geometry.padded_size(), dtype=grad.dtype)
        disjoint = _disjoint(geometry.kernel, geometry.stride, geometry.dilation)
        # Multiplying by the 0/1 mask is several times faster than a masked copy (a NaN or inf
        # gradient would leak into the other positions of its window; such a step is lost anyway).
        for number, region in enumerate(geometry.regions):
            chosen = local == number
            if disjoint:
                np.multiply(grad, chosen, out=result[region])
            else:
                result[region] += grad * chosen
        return np.ascontiguousarray(_crop(result, geometry.padding, geometry.spatial))

    @staticmethod
    def backward(ctx, grad):
        return _MaxPoolGather.apply(grad, ctx.local, ctx.geometry), None, None


class MaxPool2d(_MaxPoolGather, node="MaxPool2DWithIndicesBackward0"):
    pass


class MaxPool3d(_MaxPoolGather, node="MaxPool3DWithIndicesBackward0"):
    pass


_MAX_POOLS = {2: MaxPool2d, 3: MaxPool3d}


class _SpatialGather(Primitive):
    """values[n, c, j] = x[n, c].ravel()[indices[n, c, j]]: adaptive max pooling once indices are known."""

    @staticmethod
    def forward(ctx, x, indices, values):
        ctx.save_for_backward(indices)
        ctx.spatial = x.shape[2:]
        if values is not None:  # computed by the pass that found the indices
            return values
        flat = x.reshape(x.shape[:2] + (-1,))
        return np.take_along_axis(flat, indices.reshape(indices.shape[:2] + (-1,)), -1).reshape(indices.shape)

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        return _SpatialScatter.apply(grad, indices, ctx.spatial), None, None


class _SpatialScatter(Primitive, node="MaxUnpoolBackward0"):
    """The adjoint of `_SpatialGather`: sum grad[n, c, j] into position indices[n, c, j] of zeros."""

    @staticmethod
    def forward(ctx, grad, indices, spatial):
        ctx.save_for_backward(indices)
        batch, channels = grad.shape[:2]
        plane = math.prod(spatial)
        result = np.zeros((batch * channels * plane,), dtype=grad.dtype)
        rows = np.arange(0, batch * channels * plane, plane).reshape((batch, channels) + (1,) * (indices.ndim - 2))
        if grad.size:
            np.add.at(result, (indices + rows).ravel(), grad.ravel())
        return result.reshape((batch, channels) + tuple(spatial))

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        return _SpatialGather.apply(grad, indices, None), None, None


class AdaptiveMaxPool(_SpatialGather, node="AdaptiveMaxPool2DBackward0"):
    pass


def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, n, op_name):
    _check_tensor(input, "input", op_name)
    input, unbatched = _batched(input, n, op_name)
    kernel, stride, padding, dilation, out_size, pad_after = _pool_geometry(
        input, kernel_size, stride, padding, dilation, ceil_mode, n, op_name
    )
    geometry = _PoolGeometry(input._data.shape[2:], kernel, stride, padding, dilation, out_size, pad_after)
    values, local = _window_maxima(input._data, geometry)
    output = _MAX_POOLS[n].apply(input, local, geometry, values)
    if not return_indices:
        return output.squeeze(0) if unbatched else output
    indices = new_tensor(geometry.flat_indices(local))
    return (output.squeeze(0), indices.squeeze(0)) if unbatched else (output, indices)


# ---------------------------------------------------------------- 1-d pools: the 2-d pools of (N, C, 1, L)
# As PyTorch's: the result is the 2-d pool's squeezed back, so it shows SqueezeBackward1 as theirs does.
def _as_2d(input, op_name):
    """(N, C, L) or (C, L) as (N, C, 1, L) or (C, 1, L)."""
    _check_tensor(input, "input", op_name)
    if input._data.ndim not in (2, 3):
        raise RuntimeError(
            f"{op_name}: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, "
            f"but got: {list(input.shape)}"
        )
    return input.unsqueeze(-2)


def _widened(value, fill, name, op_name):
    """A 1-d pool's int or 1-tuple argument as the (fill, value) pair of the 2-d pool."""
    return None if value is None else (fill,) + _ntuple(value, 1, name, op_name)


def _squeezed(result):
    if isinstance(result, tuple):
        return tuple(part.squeeze(-2) for part in result)
    return result.squeeze(-2)


@op(MaxPool2d)
def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Maximum over sliding windows of (N, C, L); `stride` defaults to `kernel_size`."""
    name = "max_pool1d"
    return _squeezed(
        _max_pool(
            _as_2d(input, name),
            _widened(kernel_size, 1, "kernel_size", name),
            _widened(stride, 1, "stride", name),
            _widened(padding, 0, "padding", name),
            _widened(dilation, 1, "dilation", name),
            ceil_mode,
            return_indices,
            2,
            name,
        )
    )


@op(MaxPool2d)
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Maximum over sliding windows of (N, C, H, W). With `return_indices`, also the position of each
    maximum in its (H*W) plane (what `max_unpool2d` takes). Ties go to the first maximum, NaN wins."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 2, "max_pool2d")


@op(MaxPool3d)
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Maximum over sliding 3-d windows of (N, C, D, H, W), as `max_pool2d` in one more dimension."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 3, "max_pool3d")


def _avg_divisor(size, kernel, stride, padding, out_size, ceil_mode, count_include_pad, divisor_override, dtype):
    """The divisor of each window: a number when all agree, else an array of the output's spatial shape."""
    if divisor_override:
        return divisor_override
    counts = []
    for i, k, s, p, o in zip(size, kernel, stride, padding, out_size):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, i + p)
        if count_include_pad:
            counts.append(end - start)
        else:
            counts.append(np.minimum(end, i) - np.maximum(start, 0))
    if all((c == c[0]).all() for c in counts):
        return math.prod(int(c[0]) for c in counts)
    divisor = counts[0]
    for c in counts[1:]:
        divisor = np.multiply.outer(divisor, c)
    return divisor.astype(dtype)


def _window_means(windows, n, divisor):
    result = windows.sum(axis=tuple(range(2 + n, 2 + 2 * n)))
    result /= divisor
    return result


class AvgPool(Primitive, node="AvgPool2DBackward0"):
    """Mean over sliding windows: a strided view summed over its kernel axes, divided once."""

    @staticmethod
    def forward(ctx, x, kernel, stride, padding, out_size, pad_after, divisor):
        ctx.geometry = kernel, stride, padding, out_size, pad_after, divisor
        ctx.spatial = x.shape[2:]
        padded = _pad(x, padding, pad_after)
        windows = _windows(padded, out_size, kernel, stride, (1,) * len(kernel))
        n = len(kernel)
        return _precision.in_float32(_window_means, windows, n, divisor)

    @staticmethod
    def backward(ctx, grad):
        return (_AvgPoolAdjoint.apply(grad, ctx.spatial, *ctx.geometry),) + (None,) * 6


class AvgPool3d(AvgPool, node="AvgPool3DBackward0"):
    pass


_AVG_POOLS = {2: AvgPool, 3: AvgPool3d}


class _AvgPoolAdjoint(Primitive, node="AvgPool2DBackwardBackward0"):
    """avg_pool's backward: each output's gradient, divided by its divisor, spread over its window."""

    @staticmethod
    def forward(ctx, grad, spatial, kernel, stride, padding, out_size, pad_after, divisor):
        ctx.geometry = kernel, stride, padding, out_size, pad_after, divisor
        n = len(kernel)
        share = grad / divisor
        columns = np.broadcast_to(share, tuple(kernel) + share.shape)
        padded_size = tuple(p + s + a for p, s, a in zip(padding, spatial, pad_after))
        result = _col2im(columns, padded_size, out_size, kernel, stride, (1,) * n)
        return np.ascontiguousarray(_crop(result, padding, spatial))

    @staticmethod
    def backward(ctx, grad):
        return (AvgPool.apply(grad, *ctx.geometry),) + (None,) * 7


def _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, n, op_name):
    _check_tensor(input, "input", op_name)
    if input._data.dtype == np.int64:  # PyTorch's CPU kernel takes int64 and divides as C++ does: toward zero
        averaged = _avg_pool(
            input.double(), kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, n, op_name
        )
        return new_tensor(np.trunc(averaged._data).astype(np.int64))
    input, unbatched = _batched(input, n, op_name)
    _check_floating(input, op_name)
    kernel, stride, padding, _, out_size, pad_after = _pool_geometry(
        input, kernel_size, stride, padding, 1, ceil_mode, n, op_name
    )
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError(f"{op_name}(): divisor must be not zero")
    divisor = _avg_divisor(
        input._data.shape[2:],
        kernel,
        stride,
        padding,
        out_size,
        ceil_mode,
        count_include_pad,
        divisor_override,
        input._data.dtype,
    )
    output = _AVG_POOLS[n].apply(input, kernel, stride, padding, out_size, pad_after, divisor)
    return output.squeeze(0) if unbatched else output


@op(AvgPool)
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """Mean over sliding windows of (N, C, L); `stride` defaults to `kernel_size`."""
    name = "avg_pool1d"
    return _squeezed(
        _avg_pool(
            _as_2d(input, name),
            _widened(kernel_size, 1, "kernel_size", name),
            _widened(stride, 1, "stride", name),
            _widened(padding, 0, "padding", name),
            ceil_mode,
            count_include_pad,
            None,
            2,
            name,
        )
    )


def _adaptive_ranges(size, out):
    """PyTorch's adaptive windows: [floor(i*size/out), ceil((i+1)*size/out)) for each output i."""
    index = np.arange(out)
    return (index * size) // out, -((-(index + 1) * size) // out)


def _adaptive_output_size(input, output_size, n, op_name):
    sizes = (output_size,) * n if isinstance(output_size, (int, type(None))) else tuple(output_size)
    if len(sizes) != n:
        raise RuntimeError(f"{op_name}(): output_size must have {n} elements, got {list(sizes)}")
    spatial = input._data.shape[2:]
    return tuple(spatial[i] if s is None else int(s) for i, s in enumerate(sizes))


def _contract(x, matrices):
    """x with each of its last len(matrices) dims multiplied by its (size, out) matrix (None: kept)."""
    for offset, matrix in enumerate(matrices):
        if matrix is not None:
            dim = x.ndim - len(matrices) + offset
            x = np.swapaxes(np.matmul(np.swapaxes(x, dim, -1), matrix), dim, -1)
    return np.ascontiguousarray(x)


class AdaptiveAvgPool(Primitive, node="AdaptiveAvgPool2DBackward0", backward_on_arrays=True):
    """Each spatial dim averaged by a (size, out) matrix of window weights: one node, as PyTorch's."""

    @staticmethod
    def forward(ctx, x, matrices):
        ctx.matrices = matrices
        return _contract(x, matrices)

    @staticmethod
    def backward(ctx, grad):
        return _AdaptiveAvgPoolAdjoint.call(grad, ctx.matrices), None

    jvp = linear_jvp


class AdaptiveAvgPool3d(AdaptiveAvgPool, node="AdaptiveAvgPool3DBackward0"):
    pass


class _AdaptiveAvgPoolAdjoint(Primitive, node="AdaptiveAvgPool2DBackwardBackward0", backward_on_arrays=True):
    """adaptive average pooling's backward: each output's gradient spread evenly over its window."""

    @staticmethod
    def forward(ctx, grad, matrices):
        ctx.matrices = matrices
        return _contract(grad, tuple(None if matrix is None else matrix.T for matrix in matrices))

    @staticmethod
    def backward(ctx, grad_grad):
        return AdaptiveAvgPool.call(grad_grad, ctx.matrices), None

    jvp = linear_jvp


def _adaptive_avg_pool(input, output_size, n, op_name):
    """Average pooling to `output_size` with PyTorch's windows; to one element, the mean (as PyTorch)."""
    _check_tensor(input, "input", op_name)
    if input._data.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{op_name}(): Expected {n + 1}D or {n + 2}D tensor, but got {list(input.shape)}")
    _check_floating(input, op_name)
    out_size = _adaptive_output_size(
        input if input._data.ndim == n + 2 else input.unsqueeze(0), output_size, n, op_name
    )
    spatial = input._data.shape[-n:]
    if all(o == 1 for o in out_size):
        return input.mean(tuple(range(-n, 0)), keepdim=True)
    matrices = []
    for size, out in zip(spatial, out_size):
        if size == out:
            matrices.append(None)
            continue
        start, end = _adaptive_ranges(size, out)
        positions = np.arange(size)
        weights = ((positions >= start[:, None]) & (positions < end[:, None])) / (end - start)[:, None]
        matrices.append(weights.T.astype(input._data.dtype))
    return (AdaptiveAvgPool3d if n == 3 else AdaptiveAvgPool).apply(input, tuple(matrices))


@op()
def adaptive_avg_pool1d(input, output_size):
    """Average pooling of (N, C, L) to length `output_size`, with windows chosen as PyTorch does."""
    name = "adaptive_avg_pool1d"
    return _squeezed(_adaptive_avg_pool(_as_2d(input, name), _widened(output_size, 1, "output_size", name), 2, name))


def _adaptive_max_pool(input, output_size, return_indices, n, op_name):
    _check_tensor(input, "input", op_name)
    input, unbatched = _batched(input, n, op_name)
    out_size = _adaptive_output_size(input, output_size, n, op_name)
    x = input._data
    spatial = x.shape[2:]
    if any(s == 0 for s in spatial) or any(o <= 0 for o in out_size):
        raise RuntimeError(
            f"{op_name}(): expected non-empty spatial input and positive output_size, got input "
            f"{list(input.shape)} and output_size {list(out_size)}"
        )
    # Windows padded to the longest one by repeating their last element (a repeat never changes a max).
    gathered = x
    starts_per_dim, index_per_dim = [], []
    for offset, (size, out) in enumerate(zip(spatial, out_size)):
        start, end = _adaptive_ranges(size, out)
        longest = int((end - start).max())
        index = np.minimum(start[:, None] + np.arange(longest), end[:, None] - 1)
        gathered = np.take(gathered, index.ravel(), axis=2 + 2 * offset).reshape(
            gathered.shape[: 2 + 2 * offset] + index.shape + gathered.shape[3 + 2 * offset :]
        )
        index_per_dim.append(index)
        starts_per_dim.append(start)
    # gathered: (N, C, out0, k0, out1, k1, ...) -> (N, C, *out, K)
    order = (0, 1) + tuple(range(2, 2 + 2 * n, 2)) + tuple(range(3, 3 + 2 * n, 2))
    flat = gathered.transpose(order).reshape(x.shape[:2] + tuple(out_size) + (-1,))
    local = flat.argmax(-1)
    values = np.take_along_axis(flat, local[..., None], -1)[..., 0]
    indices = np.zeros(local.shape, dtype=np.int64)
    remaining = local
    for dim in reversed(range(n)):
        longest = index_per_dim[dim].shape[1]
        offset = remaining % longest
        remaining = remaining // longest
        rows = np.arange(out_size[dim]).reshape((-1,) + (1,) * (n - 1 - dim))
        position = index_per_dim[dim][rows, offset]
        indices += position * math.prod(spatial[dim + 1 :])
    output = AdaptiveMaxPool.apply(input, indices, values)
    indices = new_tensor(indices)
    if unbatched:
        output, indices = output.squeeze(0), indices.squeeze(0)
    return (output, indices) if return_indices else output


def adaptive_max_pool1d_of(input, output_size, return_indices):
    """Max pooling of (N, C, L) to length `output_size` (and the indices of the maxima)."""
    name = "adaptive_max_pool1d"
    widened = _widened(output_size, 1, "output_size", name)
    return _squeezed(_adaptive_max_pool(_as_2d(input, name), widened, return_indices, 2, name))


@op(AdaptiveMaxPool)
def adaptive_max_pool1d(input, output_size):
    """`torch.adaptive_max_pool1d`: (values, indices) of max pooling (N, C, L) to length `output_size`."""
    return adaptive_max_pool1d_of(input, output_size, True)


def _max_unpool(input, indices, kernel_size, stride, padding, output_size, n, op_name):
    kernel = _ntuple(kernel_size, n, "kernel_size", op_name)
    stride = kernel if stride is None else _ntuple(stride, n, "stride", op_name)
    padding = _ntuple(padding, n, "padding", op_name)
    unbatched = input.dim() == n + 1
    if unbatched:
        input, indices = input.unsqueeze(0), indices.unsqueeze(0)
    in_size = input.shape[2:]
    default = tuple((i - 1) * s - 2 * p + k for i, s, p, k in zip(in_size, stride, padding, kernel))
    if output_size is None:
        size = default
    else:
        size = tuple(output_size)[-n:]
        for s, d, k in zip(size, default, stride):
            if not d - k < s < d + k:
                raise ValueError(
                    f"{op_name}: invalid output_size {list(output_size)} (dim sizes must be between "
                    f"{[d - k + 1 for d, k in zip(default, stride)]} and "
                    f"{[d + k - 1 for d, k in zip(default, stride)]})"
                )
    if indices.shape != input.shape:
        raise RuntimeError(
            f"{op_name}: Expected shape of indices to be same as that of the input tensor "
            f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}"
        )
    if indices.numel() and (int(indices._data.min()) < 0 or int(indices._data.max()) >= math.prod(size)):
        raise RuntimeError(
            f"{op_name}: Found an invalid max index {int(indices._data.max())} (output volumes are "
            f"of size {'x'.join(map(str, size))})"
        )
    output = _SpatialScatter.apply(input, indices._data, size)
    return output.squeeze(0) if unbatched else output
