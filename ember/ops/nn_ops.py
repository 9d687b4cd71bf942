"""Neural-network primitives behind `ember.nn.functional`: convolution, pooling, softmax, losses, ...

Convolution and pooling see their input through strided windows (`as_strided`, no copy) and do their
arithmetic in one GEMM or one vectorized reduction per call; the only Python loops run over kernel
offsets (at most prod(kernel_size) iterations), never over pixels or the batch. Every primitive's
backward is written with other primitives of this module, so gradients of gradients work:

    Convolution(x, w)          backward: ConvTranspose(gy, w),  ConvWeightGrad(x, gy)
    ConvTranspose(x, w)        backward: Convolution(gy, w),    ConvWeightGrad(gy, x)
    ConvWeightGrad(x, gy)      backward: ConvTranspose(gy, ggw), Convolution(x, ggw)

The functions here follow the signatures of PyTorch's top-level functions (`torch.conv2d`,
`torch.softmax`, ...); `ember.nn.functional` wraps them with the signatures of `torch.nn.functional`.
"""
import math
import numbers
import warnings

from .._backend import np, as_strided as _as_strided
from .._tensor import Tensor, new_tensor
from .. import _dtype
from ..autograd import grad_mode
from ..autograd.function import Function
from ._common import normalize_dim

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
           "softmax", "log_softmax", "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d",
           "adaptive_avg_pool1d", "adaptive_max_pool1d", "dropout", "alpha_dropout", "feature_dropout",
           "embedding", "layer_norm", "batch_norm", "group_norm", "instance_norm", "pixel_shuffle",
           "pixel_unshuffle", "cosine_similarity", "pairwise_distance", "bilinear", "selu", "celu", "prelu",
           "hardshrink", "threshold", "binary_cross_entropy_with_logits", "kl_div", "margin_ranking_loss",
           "hinge_embedding_loss", "cosine_embedding_loss", "triplet_margin_loss", "poisson_nll_loss", "constant_pad_nd"]
# The functions here that are also tensor methods (`x.softmax(dim)`).
METHODS = ("softmax", "log_softmax", "hardshrink", "prelu")


# ================================================================ argument handling
def _ntuple(value, count, name, op_name):
    """An int or a sequence of `count` ints (PyTorch's `_pair`, `_triple`) as a tuple."""
    if isinstance(value, Tensor):
        value = value.tolist()
    if isinstance(value, (int, np.integer)):
        return (int(value),) * count
    try:
        values = tuple(int(v) for v in value)
    except TypeError:
        raise TypeError(f"{op_name}(): argument '{name}' must be an int or a tuple of {count} ints, got "
                        f"{value!r}") from None
    if len(values) == 1:
        return values * count
    if len(values) != count:
        raise RuntimeError(f"{op_name}(): expected {name} to be a single integer value or a list of {count} "
                           f"values to match the convolution dimensions, but got {name}={list(values)}")
    return values


def _check_tensor(value, name, op_name):
    if not isinstance(value, Tensor):
        raise TypeError(f"{op_name}(): argument '{name}' must be Tensor, not {type(value).__name__}")


def _check_same_dtype(input, other, other_name, op_name):
    if other is not None and other._data.dtype != input._data.dtype:
        raise RuntimeError(f"{op_name}: Input type ({input.dtype}) and {other_name} type ({other.dtype}) should be "
                           f"the same; convert one of them, e.g. input.to({other_name}.dtype)")


def _check_floating(input, op_name):
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"\"{op_name}\" not implemented for '{input.dtype}': it needs a floating point "
                           f"input; convert it first, e.g. x.float()")


# ================================================================ strided windows
# Spatial dims are axes first .. first+n-1 of an array: 2 in PyTorch's (N, C, *spatial) layout, 1 or 2
# in the layouts convolution uses inside (see `_layout`).
def _windows(padded, out_size, kernel, stride, dilation, first=2):
    """A read-only view (*lead, *out_size, *kernel, *trail) of every window of `padded`, whose
    spatial dims (from axis `first`) lie between the lead and trail dims."""
    n = len(kernel)
    spatial_strides = padded.strides[first:first + n]
    shape = padded.shape[:first] + tuple(out_size) + tuple(kernel) + padded.shape[first + n:]
    strides = padded.strides[:first] + tuple(st * s for st, s in zip(spatial_strides, stride)) + \
        tuple(st * d for st, d in zip(spatial_strides, dilation)) + padded.strides[first + n:]
    return _as_strided(padded, shape, strides, writeable=False)


def _spatial_slices(before, sizes, first):
    return (slice(None),) * first + tuple(slice(b, b + s) for b, s in zip(before, sizes))


def _pad(array, before, after, value=0, first=2):
    """`array` with `before`/`after` elements of `value` around each spatial dim (no copy if none)."""
    if not any(before) and not any(after):
        return array
    n = len(before)
    spatial = array.shape[first:first + n]
    padded = np.full(array.shape[:first] + tuple(b + s + a for b, s, a in zip(before, spatial, after)) +
                     array.shape[first + n:], value, dtype=array.dtype)
    padded[_spatial_slices(before, spatial, first)] = array
    return padded


def _crop(array, before, size, first=2):
    if not any(before) and array.shape[first:first + len(size)] == tuple(size):
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
    shape = columns.shape[n:n + first] + tuple(padded_size) + columns.shape[n + first + n:]
    result = np.zeros(shape, dtype=columns.dtype)
    if _disjoint(kernel, stride, dilation):
        view = _windows(result, out_size, kernel, stride, dilation, first)
        view = _as_strided(result, view.shape, view.strides, writeable=True)
        order = tuple(range(n, n + first + n)) + tuple(range(n)) + tuple(range(n + first + n, columns.ndim))
        view[...] = columns.transpose(order)
        return result
    for offset in np.ndindex(*kernel):
        target = tuple(slice(k * d, k * d + s * (o - 1) + 1, s)
                       for k, d, s, o in zip(offset, dilation, stride, out_size))
        result[(slice(None),) * first + target] += columns[offset]
    return result


def _out_size(size, kernel, stride, padding, dilation):
    return tuple((i + 2 * p - d * (k - 1) - 1) // s + 1
                 for i, k, s, p, d in zip(size, kernel, stride, padding, dilation))


# ================================================================ convolution
# Inside convolution, arrays are channels first, so that conv is one GEMM (out, C * kernel) x
# (C * kernel, N * spatial) per group. The batch sits second or last; `first`, the axis of the
# first spatial dim, names the layout:
#   2: (C, N, *spatial). Each map moves to and from (N, C, *spatial) as one block, but im2col
#      copies rows only out_width long.
#   1: (C, *spatial, N). im2col and col2im's adds copy rows out_width * N long, but the layout
#      changes transpose element by element. LeNet's 10-wide second conv: a six times faster input
#      gradient than in (N, C, *spatial); its 28-wide first conv: 1.3x slower than batch second.
def _layout(out_size):
    """The layout for a convolution with `out_size` windows: batch second once rows are 16 or more
    wide (below that the short rows cost more than the transposes, measured)."""
    return 2 if out_size[-1] >= 16 else 1


def _to_layout(array, first, before=None, after=None):
    """(N, C, *spatial) -> contiguous layout `first`, zero-padded by before/after, in one copy."""
    moved = np.swapaxes(array, 0, 1) if first == 2 else np.moveaxis(array, 0, -1)
    if before is None or (not any(before) and not any(after)):
        return np.ascontiguousarray(moved)
    return _pad(moved, before, after, first=first)


def _from_layout(array, first, bias=None):
    """Layout `first` -> contiguous (N, C, *spatial). `bias` (C,) is added to `array` (a temporary)
    in place first: on its long contiguous rows that is faster than inside the transposing copy."""
    if bias is not None:
        array += bias.reshape((-1,) + (1,) * (array.ndim - 1))
    return np.ascontiguousarray(np.swapaxes(array, 0, 1) if first == 2 else np.moveaxis(array, -1, 0))


def _im2col(padded, out_size, kernel, stride, dilation, groups, first):
    """Columns (groups, C/groups * prod(kernel), N * prod(out_size)) of a padded input in layout
    `first`: the right operand of conv's GEMM, filled in one strided copy."""
    windows = _windows(padded, out_size, kernel, stride, dilation, first)  # kernel axes after out_size's
    kernel_axes = tuple(range(first + len(kernel), first + 2 * len(kernel)))
    order = (0,) + kernel_axes + tuple(a for a in range(1, windows.ndim) if a not in kernel_axes)
    columns = np.ascontiguousarray(windows.transpose(order))
    return columns.reshape(groups, (padded.shape[0] // groups) * math.prod(kernel), -1)


def _convolution_array(x, weight, bias, stride, padding, dilation, groups):
    """(output, the im2col columns it was computed from)."""
    kernel = weight.shape[2:]
    out_channels = weight.shape[0]
    out_size = _out_size(x.shape[2:], kernel, stride, padding, dilation)
    first = _layout(out_size)
    padded = _to_layout(x, first, padding, padding)
    columns = _im2col(padded, out_size, kernel, stride, dilation, groups, first)
    result = np.matmul(weight.reshape(groups, out_channels // groups, -1), columns)
    rest = (x.shape[0],) + out_size if first == 2 else out_size + (x.shape[0],)
    return _from_layout(result.reshape((out_channels,) + rest), first, bias), columns


def _conv_transpose_array(x, weight, bias, stride, padding, output_padding, dilation, groups):
    """Batch last whatever the width: col2im's adds read and write the result once per kernel
    offset, so they need the long rows (batch second: 1.5x slower for LeNet's 28-wide maps)."""
    n = len(stride)
    kernel = weight.shape[2:]
    batch, in_size = x.shape[0], x.shape[2:]
    out_channels = weight.shape[1] * groups
    padded_size = tuple((i - 1) * s + d * (k - 1) + 1 + op
                        for i, s, d, k, op in zip(in_size, stride, dilation, kernel, output_padding))
    weight_matrix = weight.reshape(groups, weight.shape[0] // groups, -1)
    inputs = _to_layout(x, first=1).reshape(groups, x.shape[1] // groups, -1)
    columns = np.matmul(weight_matrix.transpose(0, 2, 1), inputs)
    # (G, Cout/G * prod(kernel), prod(in) * N) -> (*kernel, Cout, *in, N), a view.
    columns = columns.reshape((out_channels,) + tuple(kernel) + tuple(in_size) + (batch,))
    columns = np.moveaxis(columns, tuple(range(1, 1 + n)), tuple(range(n)))
    result = _col2im(columns, padded_size, in_size, kernel, stride, dilation, first=1)
    out_size = tuple(p - 2 * pad for p, pad in zip(padded_size, padding))
    return _from_layout(_crop(result, padding, out_size, first=1), first=1, bias=bias)


def _conv_weight_array(x, grad_output, kernel, stride, padding, dilation, groups, columns=None):
    out_size = grad_output.shape[2:]
    first = _layout(out_size)
    if columns is None:
        columns = _im2col(_to_layout(x, first, padding, padding), out_size, kernel, stride, dilation, groups, first)
    grad_matrix = _to_layout(grad_output, first).reshape(groups, grad_output.shape[1] // groups, -1)
    result = np.matmul(grad_matrix, columns.transpose(0, 2, 1))
    return result.reshape((grad_output.shape[1], x.shape[1] // groups) + tuple(kernel))


def _remainder(in_size, kernel, stride, padding, dilation):
    """Input rows a convolution's last window does not reach: conv_transpose's output_padding."""
    return tuple((i + 2 * p - d * (k - 1) - 1) % s for i, k, s, p, d in zip(in_size, kernel, stride, padding, dilation))


def _sum_bias(grad):
    return grad.sum((0,) + tuple(range(2, grad.ndim)))


class Convolution(Function):
    """y = conv(x, w) + b: one im2col copy and one GEMM (per group, in one matmul call)."""

    _array_forward = True
    _node_name = "ConvolutionBackward0"

    @staticmethod
    def forward(ctx, x, weight, bias, stride, padding, dilation, groups):
        ctx.save_for_backward(x, weight)
        ctx.geometry = stride, padding, dilation, groups
        output, columns = _convolution_array(x, weight, bias, stride, padding, dilation, groups)
        # Kept for the weight gradient (its im2col is the same), when that costs little memory.
        ctx.columns = columns if columns.nbytes <= _COLUMNS_CACHE_BYTES and ctx.needs_input_grad[1] else None
        return output

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        stride, padding, dilation, groups = ctx.geometry
        needs_x, needs_weight, needs_bias = ctx.needs_input_grad[:3]
        kernel = weight._data.shape[2:]
        grad_x = grad_weight = grad_bias = None
        if needs_x:
            output_padding = _remainder(x._data.shape[2:], kernel, stride, padding, dilation)
            grad_x = ConvTranspose.apply(grad, weight, None, stride, padding, output_padding, dilation, groups)
        if needs_weight:
            grad_weight = ConvWeightGrad.apply(x, grad, kernel, stride, padding, dilation, groups, ctx.columns)
        if needs_bias:
            grad_bias = _sum_bias(grad)
        return grad_x, grad_weight, grad_bias, None, None, None, None


class ConvTranspose(Function):
    """y = conv_transpose(x, w) + b: one GEMM, then the columns summed into place (col2im)."""

    _array_forward = True
    _node_name = "ConvolutionBackward0"

    @staticmethod
    def forward(ctx, x, weight, bias, stride, padding, output_padding, dilation, groups):
        ctx.save_for_backward(x, weight)
        ctx.geometry = stride, padding, dilation, groups
        return _conv_transpose_array(x, weight, bias, stride, padding, output_padding, dilation, groups)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        stride, padding, dilation, groups = ctx.geometry
        needs_x, needs_weight, needs_bias = ctx.needs_input_grad[:3]
        grad_x = grad_weight = grad_bias = None
        if needs_x:
            grad_x = Convolution.apply(grad, weight, None, stride, padding, dilation, groups)
        if needs_weight:
            kernel = weight._data.shape[2:]
            grad_weight = ConvWeightGrad.apply(grad, x, kernel, stride, padding, dilation, groups)
        if needs_bias:
            grad_bias = _sum_bias(grad)
        return grad_x, grad_weight, grad_bias, None, None, None, None, None


class ConvWeightGrad(Function):
    """The gradient of conv's weight, correlate(x, grad_output): bilinear, so its backward is the
    two convolutions above with the incoming gradient as weight."""

    _array_forward = True
    _node_name = "ConvolutionBackwardBackward0"

    @staticmethod
    def forward(ctx, x, grad_output, kernel, stride, padding, dilation, groups, columns=None):
        ctx.save_for_backward(x, grad_output)
        ctx.geometry = kernel, stride, padding, dilation, groups
        return _conv_weight_array(x, grad_output, kernel, stride, padding, dilation, groups, columns)

    @staticmethod
    def backward(ctx, grad):
        x, grad_output = ctx.saved_tensors
        kernel, stride, padding, dilation, groups = ctx.geometry
        grad_x = grad_grad_output = None
        if ctx.needs_input_grad[0]:
            output_padding = _remainder(x._data.shape[2:], kernel, stride, padding, dilation)
            grad_x = ConvTranspose.apply(grad_output, grad, None, stride, padding, output_padding, dilation, groups)
        if ctx.needs_input_grad[1]:
            grad_grad_output = Convolution.apply(x, grad, None, stride, padding, dilation, groups)
        return grad_x, grad_grad_output, None, None, None, None, None, None


_COLUMNS_CACHE_BYTES = 64 * 2 ** 20


def _conv_padding(padding, kernel, stride, dilation, n, op_name):
    """`padding` as (before, after) tuples; 'same' may need one more element after than before."""
    if isinstance(padding, str):
        if padding == "valid":
            return (0,) * n, (0,) * n
        if padding != "same":
            raise ValueError(f"{op_name}(): invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
        if any(s != 1 for s in stride):
            raise RuntimeError(f"{op_name}(): padding='same' is not supported for strided convolutions")
        total = tuple(d * (k - 1) for d, k in zip(dilation, kernel))
        return tuple(t // 2 for t in total), tuple(t - t // 2 for t in total)
    padding = _ntuple(padding, n, "padding", op_name)
    if any(p < 0 for p in padding):
        raise RuntimeError(f"{op_name}(): negative padding is not supported, got padding={list(padding)}")
    return padding, padding


def _check_conv_geometry(stride, dilation, groups, op_name):
    if any(s <= 0 for s in stride):
        raise RuntimeError(f"{op_name}(): non-positive stride is not supported, got stride={list(stride)}")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"{op_name}(): dilation should be greater than zero, got dilation={list(dilation)}")
    if groups <= 0:
        raise RuntimeError(f"{op_name}(): non-positive groups is not supported, got groups={groups}")


def _batched(input, n, op_name):
    """(input with a batch dim, whether one was added): unbatched (C, *spatial) inputs are allowed."""
    ndim = input._data.ndim
    if ndim == n + 2:
        return input, False
    if ndim == n + 1:
        return input.unsqueeze(0), True
    raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {op_name}, but got input of "
                       f"size: {list(input.shape)}")


def _check_conv_operands(input, weight, bias, groups, in_channels_of_weight, out_channels, op_name):
    shape, weight_shape = list(input.shape), list(weight.shape)
    if weight._data.ndim != input._data.ndim:
        raise RuntimeError(f"{op_name}(): weight should have {input._data.ndim} dimensions (out_channels, "
                           f"in_channels/groups, *kernel_size), but got weight of size {weight_shape}")
    if input._data.shape[1] != in_channels_of_weight:
        raise RuntimeError(f"{op_name}(): Given groups={groups}, weight of size {weight_shape}, expected input"
                           f"{shape} to have {in_channels_of_weight} channels, but got {shape[1]} channels "
                           f"instead")
    if out_channels % groups:
        raise RuntimeError(f"{op_name}(): Given groups={groups}, expected weight to be divisible by {groups} at "
                           f"dimension 0, but got weight of size {weight_shape} instead")
    if bias is not None and (bias._data.ndim != 1 or bias._data.shape[0] != out_channels):
        raise RuntimeError(f"{op_name}(): Given weight of size {weight_shape}, expected bias to be 1-dimensional "
                           f"with {out_channels} elements, but got bias of size {list(bias.shape)} instead")
    _check_floating(input, op_name)
    _check_same_dtype(input, weight, "weight", op_name)
    _check_same_dtype(input, bias, "bias", op_name)


def _convolution(input, weight, bias, stride, padding, dilation, groups, n, op_name):
    _check_tensor(input, "input", op_name)
    _check_tensor(weight, "weight", op_name)
    input, unbatched = _batched(input, n, op_name)
    stride = _ntuple(stride, n, "stride", op_name)
    dilation = _ntuple(dilation, n, "dilation", op_name)
    _check_conv_geometry(stride, dilation, groups, op_name)
    _check_conv_operands(input, weight, bias, groups, weight._data.shape[1] * groups if weight._data.ndim > 1
                         else -1, weight._data.shape[0], op_name)
    kernel = weight._data.shape[2:]
    before, after = _conv_padding(padding, kernel, stride, dilation, n, op_name)
    if before != after:  # 'same' with an even kernel: pad the extra element explicitly
        input = constant_pad_nd(input, tuple(p for b, a in zip(before[::-1], after[::-1]) for p in (0, a - b)))
    padded = tuple(i + 2 * p for i, p in zip(input._data.shape[2:], before))
    effective = tuple(d * (k - 1) + 1 for d, k in zip(dilation, kernel))
    if any(p < e for p, e in zip(padded, effective)):
        raise RuntimeError(f"{op_name}(): Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
                           f"Kernel size: ({' x '.join(map(str, effective))}). Kernel size can't be greater than "
                           f"actual input size")
    output = Convolution.apply(input, weight, bias, stride, before, dilation, groups)
    return output.squeeze(0) if unbatched else output


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution (cross-correlation, as PyTorch) of (N, C_in, L) with (C_out, C_in/groups, k).

    `padding` is an int, a tuple, 'valid' or 'same'. Returns (N, C_out, L_out).
    """
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution of (N, C_in, H, W) with weight (C_out, C_in/groups, kH, kW) plus bias (C_out,).

    Example: `conv2d(ember.randn(8, 3, 32, 32), ember.randn(16, 3, 3, 3), padding=1)` has shape
    (8, 16, 32, 32). `padding` is an int, a pair, 'valid' or 'same'.
    """
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution of (N, C_in, D, H, W) with (C_out, C_in/groups, kD, kH, kW)."""
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, n, op_name):
    _check_tensor(input, "input", op_name)
    _check_tensor(weight, "weight", op_name)
    input, unbatched = _batched(input, n, op_name)
    stride = _ntuple(stride, n, "stride", op_name)
    dilation = _ntuple(dilation, n, "dilation", op_name)
    padding = _ntuple(padding, n, "padding", op_name)
    output_padding = _ntuple(output_padding, n, "output_padding", op_name)
    _check_conv_geometry(stride, dilation, groups, op_name)
    out_channels = weight._data.shape[1] * groups if weight._data.ndim > 1 else -1
    if weight._data.ndim > 1 and weight._data.shape[0] % groups:
        raise RuntimeError(f"{op_name}(): Given groups={groups}, expected weight to be divisible by {groups} at "
                           f"dimension 0, but got weight of size {list(weight.shape)} instead")
    _check_conv_operands(input, weight, bias, 1, weight._data.shape[0], out_channels, op_name)
    for op, s, d in zip(output_padding, stride, dilation):
        if op >= s and op >= d:
            raise RuntimeError(f"{op_name}(): output padding must be smaller than either stride or dilation, but "
                               f"got output_padding={list(output_padding)}, stride={list(stride)}, "
                               f"dilation={list(dilation)}")
    kernel = weight._data.shape[2:]
    out_size = tuple((i - 1) * s - 2 * p + d * (k - 1) + op + 1 for i, s, p, d, k, op in
                     zip(input._data.shape[2:], stride, padding, dilation, kernel, output_padding))
    if any(o <= 0 for o in out_size):
        raise RuntimeError(f"{op_name}(): Given input size per channel: {list(input.shape[2:])}, the calculated "
                           f"output size per channel {list(out_size)} is too small")
    output = ConvTranspose.apply(input, weight, bias, stride, padding, output_padding, dilation, groups)
    return output.squeeze(0) if unbatched else output


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Transposed 1-D convolution ("deconvolution"): the gradient of conv1d with respect to its input.

    weight is (C_in, C_out/groups, k); the output length is (L-1)*stride - 2*padding +
    dilation*(k-1) + output_padding + 1.
    """
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1,
                           "conv_transpose1d")


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Transposed 2-D convolution of (N, C_in, H, W) with weight (C_in, C_out/groups, kH, kW)."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 2,
                           "conv_transpose2d")


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Transposed 3-D convolution of (N, C_in, D, H, W) with weight (C_in, C_out/groups, kD, kH, kW)."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 3,
                           "conv_transpose3d")


# ================================================================ padding
class ConstantPad(Function):
    """Pad with a constant; backward crops the gradient back (a differentiable slice)."""

    _array_forward = True
    _node_name = "ConstantPadNdBackward0"

    @staticmethod
    def forward(ctx, x, before, after, value):
        lead = x.ndim - len(before)
        ctx.region = (slice(None),) * lead + tuple(slice(b, b + s) for b, s in zip(before, x.shape[lead:]))
        result = np.full(x.shape[:lead] + tuple(b + s + a for b, s, a in zip(before, x.shape[lead:], after)),
                         value, dtype=x.dtype)
        result[ctx.region] = x
        return result

    @staticmethod
    def backward(ctx, grad):
        return grad[ctx.region], None, None, None


def _pad_amounts(pad, ndim, op_name):
    """PyTorch's pad list (last dim first, (before, after) pairs) as per-dim tuples for the last dims."""
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError(f"{op_name}: padding length must be divisible by 2, got {len(pad)} values {list(pad)}")
    count = len(pad) // 2
    if count > ndim:
        raise RuntimeError(f"{op_name}: padding length should be at most twice the input's number of dimensions "
                           f"({ndim}), but got {len(pad)}")
    before = tuple(pad[2 * i] for i in reversed(range(count)))
    after = tuple(pad[2 * i + 1] for i in reversed(range(count)))
    return before, after


def constant_pad_nd(input, pad, value=0.0):
    """Pad the last len(pad)//2 dims with `value`; negative amounts crop, as in PyTorch."""
    before, after = _pad_amounts(pad, input._data.ndim, "constant_pad_nd")
    lead = input._data.ndim - len(before)
    if any(p < 0 for p in before + after):
        sizes = input._data.shape[lead:]
        crop = (slice(None),) * lead + tuple(slice(max(-b, 0), s - max(-a, 0))
                                             for b, a, s in zip(before, after, sizes))
        input = input[crop]
        before, after = tuple(max(b, 0) for b in before), tuple(max(a, 0) for a in after)
    if input._data.dtype.kind in "iub" and isinstance(value, float) and not float(value).is_integer():
        raise RuntimeError(f"constant_pad_nd: value {value} cannot be stored in a {input.dtype} tensor")
    return ConstantPad.apply(input, before, after, value)


def _edge_indices(size, before, after, mode):
    positions = np.arange(-before, size + after)
    if mode == "replicate":
        return np.clip(positions, 0, size - 1)
    if mode == "circular":
        return positions % size
    reflected = np.abs(positions)
    return np.where(reflected >= size, 2 * (size - 1) - reflected, reflected)


def index_pad(input, pad, mode):
    """'reflect', 'replicate' or 'circular' padding: one gather (a differentiable index) per padded dim."""
    before, after = _pad_amounts(pad, input._data.ndim, f"pad(mode='{mode}')")
    lead = input._data.ndim - len(before)
    for offset, (b, a) in enumerate(zip(before, after)):
        dim = lead + offset
        size = input._data.shape[dim]
        if mode == "reflect" and (b >= size or a >= size):
            raise RuntimeError(f"pad(mode='reflect'): Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({b}, {a}) at dimension {dim} of input "
                               f"{list(input.shape)}")
        if mode == "circular" and (b > size or a > size):
            raise RuntimeError(f"pad(mode='circular'): Padding value causes wrapping around more than once: "
                               f"padding ({b}, {a}) at dimension {dim} of input {list(input.shape)}")
        if mode == "replicate" and size == 0 and (b or a):
            raise RuntimeError(f"pad(mode='replicate'): cannot replicate the edge of an empty dimension {dim}")
        if b or a:
            input = input[(slice(None),) * dim + (new_tensor(_edge_indices(size, b, a, mode)),)]
    return input


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
    stride = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) else \
        _ntuple(stride, n, "stride", op_name)
    padding = _ntuple(padding, n, "padding", op_name)
    dilation = _ntuple(dilation, n, "dilation", op_name)
    if any(k <= 0 for k in kernel) or any(s <= 0 for s in stride) or any(d <= 0 for d in dilation):
        raise RuntimeError(f"{op_name}(): kernel_size, stride and dilation must be greater than zero, but got "
                           f"kernel_size={list(kernel)}, stride={list(stride)}, dilation={list(dilation)}")
    for k, p, d in zip(kernel, padding, dilation):
        if p < 0 or p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(f"{op_name}(): pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    size = input._data.shape[2:]
    out_size = _pool_out_size(size, kernel, stride, padding, dilation, ceil_mode)
    if any(o <= 0 for o in out_size):
        raise RuntimeError(f"{op_name}(): Given input size: ({'x'.join(map(str, input.shape[1:]))}). Calculated "
                           f"output size: ({'x'.join(map(str, input.shape[1:2] + tuple(out_size)))}). Output "
                           f"size is too small")
    # ceil_mode's last window may reach past the padded input: pad that much more after.
    pad_after = tuple(max((o - 1) * s + d * (k - 1) + 1 - i - p, p)
                      for o, s, d, k, i, p in zip(out_size, stride, dilation, kernel, size, padding))
    return kernel, stride, padding, dilation, out_size, pad_after


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _offset_regions(kernel, stride, dilation, out_size):
    """Per kernel offset, the strided slice of the padded input that this offset reads in every window."""
    return [(Ellipsis,) + tuple(slice(k * d, k * d + s * (o - 1) + 1, s)
                                for k, d, s, o in zip(offset, dilation, stride, out_size))
            for offset in np.ndindex(*kernel)]


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
                (-1,) + (1,) * (n - 1 - dim))
            index += (start + offset * self.dilation[dim]) * math.prod(self.spatial[dim + 1:])
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
    if x.dtype.kind == "f" and np.isnan(best).any():
        for number, candidate in enumerate(slices):
            local = np.where(np.isnan(candidate), offset_dtype.type(number), local)
    return best, local


class _MaxPoolGather(Function):
    """x at each window's recorded maximum (`local`: the kernel offset of the maximum, per output).

    Max pooling's values once the offsets are known; its backward scatters, and the scatter's
    backward gathers again, so max pooling is differentiable any number of times.
    """

    _array_forward = True
    _node_name = "MaxPoolWithIndicesBackwardBackwardBackward0"

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


class _MaxPoolScatter(Function):
    """Max pooling's backward: each output's gradient goes to the input element that was its maximum."""

    _array_forward = True
    _node_name = "MaxPoolWithIndicesBackwardBackward0"

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


class MaxPool1d(_MaxPoolGather):
    _node_name = "MaxPool2DWithIndicesBackward0"  # PyTorch runs max_pool1d with indices as a 2-D pool


class MaxPool2d(_MaxPoolGather):
    _node_name = "MaxPool2DWithIndicesBackward0"


class MaxPool3d(_MaxPoolGather):
    _node_name = "MaxPool3DWithIndicesBackward0"


_MAX_POOLS = {1: MaxPool1d, 2: MaxPool2d, 3: MaxPool3d}


class _SpatialGather(Function):
    """values[n, c, j] = x[n, c].ravel()[indices[n, c, j]]: adaptive max pooling once indices are known."""

    _array_forward = True

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
        indices, = ctx.saved_tensors
        return _SpatialScatter.apply(grad, indices, ctx.spatial), None, None


class _SpatialScatter(Function):
    """The adjoint of `_SpatialGather`: sum grad[n, c, j] into position indices[n, c, j] of zeros."""

    _array_forward = True
    _node_name = "MaxUnpoolBackward0"

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
        indices, = ctx.saved_tensors
        return _SpatialGather.apply(grad, indices, None), None, None


class AdaptiveMaxPool(_SpatialGather):
    _node_name = "AdaptiveMaxPool2DBackward0"


def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, n, op_name):
    _check_tensor(input, "input", op_name)
    input, unbatched = _batched(input, n, op_name)
    kernel, stride, padding, dilation, out_size, pad_after = _pool_geometry(
        input, kernel_size, stride, padding, dilation, ceil_mode, n, op_name)
    geometry = _PoolGeometry(input._data.shape[2:], kernel, stride, padding, dilation, out_size, pad_after)
    values, local = _window_maxima(input._data, geometry)
    output = _MAX_POOLS[n].apply(input, local, geometry, values)
    if not return_indices:
        return output.squeeze(0) if unbatched else output
    indices = new_tensor(geometry.flat_indices(local))
    return (output.squeeze(0), indices.squeeze(0)) if unbatched else (output, indices)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Maximum over sliding windows of (N, C, L); `stride` defaults to `kernel_size`."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 1, "max_pool1d")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Maximum over sliding windows of (N, C, H, W). With `return_indices`, also the position of each
    maximum in its (H*W) plane (what `max_unpool2d` takes). Ties go to the first maximum, NaN wins."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, 2, "max_pool2d")


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
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


class AvgPool(Function):
    """Mean over sliding windows: a strided view summed over its kernel axes, divided once."""

    _array_forward = True
    _node_name = "AvgPool2DBackward0"

    @staticmethod
    def forward(ctx, x, kernel, stride, padding, out_size, pad_after, divisor):
        ctx.geometry = kernel, stride, padding, out_size, pad_after, divisor
        ctx.spatial = x.shape[2:]
        padded = _pad(x, padding, pad_after)
        windows = _windows(padded, out_size, kernel, stride, (1,) * len(kernel))
        n = len(kernel)
        result = windows.sum(axis=tuple(range(2 + n, 2 + 2 * n)))
        result /= divisor
        return result

    @staticmethod
    def backward(ctx, grad):
        return (_AvgPoolAdjoint.apply(grad, ctx.spatial, *ctx.geometry),) + (None,) * 6


class AvgPool1d(AvgPool):
    _node_name = "AvgPool2DBackward0"  # PyTorch runs avg_pool1d as a 2-D pool


class AvgPool3d(AvgPool):
    _node_name = "AvgPool3DBackward0"


_AVG_POOLS = {1: AvgPool1d, 2: AvgPool, 3: AvgPool3d}


class _AvgPoolAdjoint(Function):
    """avg_pool's backward: each output's gradient, divided by its divisor, spread over its window."""

    _array_forward = True
    _node_name = "AvgPool2DBackwardBackward0"

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
    input, unbatched = _batched(input, n, op_name)
    _check_floating(input, op_name)
    kernel, stride, padding, _, out_size, pad_after = _pool_geometry(
        input, kernel_size, stride, padding, 1, ceil_mode, n, op_name)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError(f"{op_name}(): divisor must be not zero")
    divisor = _avg_divisor(input._data.shape[2:], kernel, stride, padding, out_size, ceil_mode, count_include_pad,
                           divisor_override, input._data.dtype)
    output = _AVG_POOLS[n].apply(input, kernel, stride, padding, out_size, pad_after, divisor)
    return output.squeeze(0) if unbatched else output


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """Mean over sliding windows of (N, C, L); `stride` defaults to `kernel_size`."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1, "avg_pool1d")


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


def _adaptive_avg_pool(input, output_size, n, op_name):
    """Each spatial dim is averaged by a (out, size) matrix of window weights: matmuls, differentiable twice."""
    _check_tensor(input, "input", op_name)
    if input._data.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{op_name}(): Expected {n + 1}D or {n + 2}D tensor, but got {list(input.shape)}")
    _check_floating(input, op_name)
    out_size = _adaptive_output_size(input if input._data.ndim == n + 2 else input.unsqueeze(0), output_size, n,
                                     op_name)
    spatial = input._data.shape[-n:]
    if all(o == 1 for o in out_size):
        return input.mean(tuple(range(-n, 0)), keepdim=True)
    output = input
    for offset, (size, out) in enumerate(zip(spatial, out_size)):
        dim = input._data.ndim - n + offset
        if size == out:
            continue
        start, end = _adaptive_ranges(size, out)
        positions = np.arange(size)
        weights = ((positions >= start[:, None]) & (positions < end[:, None])) / (end - start)[:, None]
        matrix = new_tensor(weights.T.astype(input._data.dtype))
        output = (output.transpose(dim, -1) @ matrix).transpose(dim, -1)
    return output


def adaptive_avg_pool1d(input, output_size):
    """Average pooling of (N, C, L) to length `output_size`, with windows chosen as PyTorch does."""
    return _adaptive_avg_pool(input, output_size, 1, "adaptive_avg_pool1d")


def _adaptive_max_pool(input, output_size, return_indices, n, op_name):
    _check_tensor(input, "input", op_name)
    input, unbatched = _batched(input, n, op_name)
    out_size = _adaptive_output_size(input, output_size, n, op_name)
    x = input._data
    spatial = x.shape[2:]
    if any(s == 0 for s in spatial) or any(o <= 0 for o in out_size):
        raise RuntimeError(f"{op_name}(): expected non-empty spatial input and positive output_size, got input "
                           f"{list(input.shape)} and output_size {list(out_size)}")
    # Windows padded to the longest one by repeating their last element (a repeat never changes a max).
    gathered = x
    starts_per_dim, index_per_dim = [], []
    for offset, (size, out) in enumerate(zip(spatial, out_size)):
        start, end = _adaptive_ranges(size, out)
        longest = int((end - start).max())
        index = np.minimum(start[:, None] + np.arange(longest), end[:, None] - 1)
        gathered = np.take(gathered, index.ravel(), axis=2 + 2 * offset).reshape(
            gathered.shape[:2 + 2 * offset] + index.shape + gathered.shape[3 + 2 * offset:])
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
        indices += position * math.prod(spatial[dim + 1:])
    output = AdaptiveMaxPool.apply(input, indices, values)
    indices = new_tensor(indices)
    if unbatched:
        output, indices = output.squeeze(0), indices.squeeze(0)
    return (output, indices) if return_indices else output


def adaptive_max_pool1d(input, output_size):
    """`torch.adaptive_max_pool1d`: (values, indices) of max pooling (N, C, L) to length `output_size`."""
    return _adaptive_max_pool(input, output_size, True, 1, "adaptive_max_pool1d")


# ================================================================ softmax
class Softmax(Function):
    """exp(x - max) / sum: a primitive because exp(x) / sum(exp(x)) overflows for large x."""

    _array_forward = True
    _node_name = "SoftmaxBackward0"

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        if x.size == 0:
            result = x.copy()
        else:
            result = x - x.max(axis=dim, keepdims=True)
            np.exp(result, out=result)
            result /= result.sum(axis=dim, keepdims=True)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        product = grad * result
        return product - result * product.sum(ctx.dim, keepdim=True), None


class LogSoftmax(Function):
    """x - max - log(sum(exp(x - max))): exact for large x and for very negative log-probabilities."""

    _array_forward = True
    _array_backward = True
    _node_name = "LogSoftmaxBackward0"

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        if x.size == 0:
            result = x.copy()
        else:
            result = x - x.max(axis=dim, keepdims=True)
            result -= np.log(np.exp(result).sum(axis=dim, keepdims=True))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        result, = ctx.saved_tensors
        if type(grad) is np.ndarray:  # a first-order backward on arrays (see autograd.function)
            return grad - np.exp(result) * np.add.reduce(grad, axis=ctx.dim, keepdims=True), None
        return grad - result.exp() * grad.sum(ctx.dim, keepdim=True), None


def _softmax_input(input, dim, dtype, op_name):
    _check_tensor(input, "input", op_name)
    if dtype is not None:
        input = input.to(_dtype.to_dtype(dtype))
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"\"{op_name}_lastdim_kernel_impl\" not implemented for '{input.dtype}': pass a floating "
                           f"point input or dtype=ember.float32")
    if dim is None:
        raise TypeError(f"{op_name}() missing required argument 'dim'")
    return input, normalize_dim(dim, input._data.ndim, op_name)


def softmax(input, dim, dtype=None):
    """exp(x) / sum(exp(x)) along `dim`, computed without overflow. `dtype` converts the input first."""
    input, dim = _softmax_input(input, dim, dtype, "softmax")
    return Softmax.apply(input, dim)


def log_softmax(input, dim, dtype=None):
    """log(softmax(x)) along `dim`, computed directly (exact where softmax underflows to 0)."""
    input, dim = _softmax_input(input, dim, dtype, "log_softmax")
    return LogSoftmax.apply(input, dim)


# ================================================================ dropout
def _noise(shape, p, dtype):
    """Bernoulli(1 - p) keep-mask scaled by 1/(1-p), from ember's seedable default generator."""
    from .creation import default_generator
    if p == 1:
        return np.zeros(shape, dtype=dtype)
    keep = default_generator.rng.random(shape, dtype=np.float32) >= p
    return keep.astype(dtype) * dtype.type(1 / (1 - p))


def _check_probability(p, op_name):
    if not 0 <= p <= 1:
        raise ValueError(f"{op_name} probability has to be between 0 and 1, but got {p}")


def _feature_shape(input):
    """Noise shape of channel-wise dropout: one draw per (N, C), broadcast over the spatial dims."""
    shape = input._data.shape
    return shape[:2] + (1,) * (len(shape) - 2)


def dropout(input, p=0.5, train=True):
    """Zero each element with probability `p` and scale the rest by 1/(1-p) (identity when not `train`)."""
    _check_probability(p, "dropout")
    if not train or p == 0:
        return input
    return input * new_tensor(_noise(input._data.shape, p, input._data.dtype))


def feature_dropout(input, p=0.5, train=True):
    """Dropout of whole channels: (N, C, ...) inputs lose entire (n, c) feature maps."""
    _check_probability(p, "dropout")
    if not train or p == 0:
        return input
    return input * new_tensor(_noise(_feature_shape(input), p, input._data.dtype))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_ALPHA_PRIME = _SELU_ALPHA * _SELU_SCALE  # selu's negative saturation value, in magnitude


def _alpha_dropout(input, p, train, noise_shape):
    _check_probability(p, "alpha_dropout")
    if not train or p == 0:
        return input
    if p == 1:
        return input * 0.0
    from .creation import default_generator
    keep = (default_generator.rng.random(noise_shape, dtype=np.float32) >= p).astype(input._data.dtype)
    # Dropped units take selu's saturation value; a and b restore zero mean and unit variance.
    a = 1 / math.sqrt((_ALPHA_PRIME ** 2 * p + 1) * (1 - p))
    shift = (keep - 1) * (_ALPHA_PRIME * a) + _ALPHA_PRIME * a * p
    return input * new_tensor((keep * a).astype(input._data.dtype)) + new_tensor(shift.astype(input._data.dtype))


def alpha_dropout(input, p=0.5, train=True):
    """Dropout for SELU networks: keeps the mean and variance of the activations (see `selu`)."""
    return _alpha_dropout(input, p, train, input._data.shape)


# ================================================================ embedding
class Embedding(Function):
    """Rows of `weight` picked by integer `indices`; backward sums gradients into the picked rows."""

    _array_forward = True
    _node_name = "EmbeddingBackward0"

    @staticmethod
    def forward(ctx, weight, indices, padding_idx, scale_grad_by_freq):
        ctx.save_for_backward(indices)
        ctx.options = weight.shape[0], padding_idx, scale_grad_by_freq
        return weight[indices]

    @staticmethod
    def backward(ctx, grad):
        indices, = ctx.saved_tensors
        return _EmbeddingScatter.apply(grad, indices, *ctx.options), None, None, None


class _EmbeddingScatter(Function):
    """Embedding's weight gradient: grad rows summed per index (the padding row gets none)."""

    _array_forward = True
    _node_name = "EmbeddingBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, indices, num_weights, padding_idx, scale_grad_by_freq):
        ctx.save_for_backward(indices)
        ctx.options = padding_idx, scale_grad_by_freq
        rows = grad.reshape(-1, grad.shape[-1])
        flat = indices.ravel()
        if scale_grad_by_freq:
            counts = np.bincount(flat, minlength=num_weights)
            rows = rows / counts[flat, None].astype(grad.dtype)
        result = np.zeros((num_weights, grad.shape[-1]), dtype=grad.dtype)
        np.add.at(result, flat, rows)
        if padding_idx is not None:
            result[padding_idx] = 0
        return result

    @staticmethod
    def backward(ctx, grad):
        indices, = ctx.saved_tensors
        padding_idx, scale_grad_by_freq = ctx.options
        weight = None
        if padding_idx is not None or scale_grad_by_freq:
            flat = indices._data.ravel()
            factor = np.ones(flat.shape, dtype=grad._data.dtype)
            if scale_grad_by_freq:
                factor /= np.bincount(flat, minlength=grad._data.shape[0])[flat]
            if padding_idx is not None:
                factor[flat == padding_idx] = 0
            weight = new_tensor(factor.reshape(indices._data.shape + (1,)))
        picked = Embedding.apply(grad, indices, None, False)
        return (picked if weight is None else picked * weight), None, None, None, None


def _embedding_renorm(weight, indices, max_norm, norm_type):
    """Rescale, in place, the rows `indices` picks whose norm exceeds `max_norm` (as PyTorch does)."""
    rows = np.unique(indices)
    data = weight._data
    norms = np.linalg.norm(data[rows].astype(np.float64), ord=norm_type, axis=1)
    too_long = norms > max_norm
    if too_long.any():
        scale = (max_norm / (norms[too_long] + 1e-7)).astype(data.dtype)
        data[rows[too_long]] *= scale[:, None]
        weight._bump_version()


def _embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False):
    _check_tensor(input, "input", "embedding")
    _check_tensor(weight, "weight", "embedding")
    if input._data.dtype.kind not in "iu":
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {input.dtype} instead (while checking arguments for embedding); "
                           f"convert it with .long()")
    if weight._data.ndim != 2:
        raise RuntimeError(f"embedding: 'weight' must be 2-D (num_embeddings, embedding_dim), got {list(weight.shape)}")
    num_weights = weight._data.shape[0]
    indices = input._data
    if indices.size and (indices.min() < 0 or indices.max() >= num_weights):
        bad = indices[(indices < 0) | (indices >= num_weights)].ravel()[0]
        raise IndexError(f"index {bad} is out of range for an embedding of {num_weights} rows (indices must be in "
                         f"[0, {num_weights - 1}])")
    if padding_idx is not None:
        if not -num_weights <= padding_idx < num_weights:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= num_weights
    if max_norm is not None:
        _embedding_renorm(weight, indices, max_norm, norm_type)
    return Embedding.apply(weight, indices, padding_idx, scale_grad_by_freq)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """`torch.embedding` (weight first): rows of `weight` at `indices`. See `nn.functional.embedding`."""
    return _embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                      scale_grad_by_freq=scale_grad_by_freq)


# ================================================================ normalization
def _normalize(input, dims, eps, mean=None, var=None):
    """(input - mean) / sqrt(var + eps) over `dims`, and the batch statistics (mean, biased var) used."""
    if mean is None:
        mean = input.mean(dims, keepdim=True)
        centered = input - mean
        var = (centered * centered).mean(dims, keepdim=True)
    else:
        centered = input - mean
    return centered * (var + eps) ** -0.5, mean, var


def _channel_view(tensor, ndim):
    """A per-channel (C,) tensor shaped (1, C, 1, ...) to broadcast against an (N, C, ...) input."""
    return tensor.reshape((1, -1) + (1,) * (ndim - 2))


def _affine(output, weight, bias, shaper):
    if weight is not None:
        output = output * shaper(weight)
    if bias is not None:
        output = output + shaper(bias)
    return output


def _update_running(running, statistic, momentum):
    """running = (1 - momentum) * running + momentum * statistic, in place and outside the graph."""
    data = running._data
    data *= 1 - momentum
    data += (momentum * statistic.astype(data.dtype, copy=False)).reshape(data.shape)
    running._bump_version()


def _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps):
    _check_tensor(input, "input", "batch_norm")
    shape = input._data.shape
    if input._data.ndim < 2:
        raise ValueError(f"batch_norm: expected 2D or more input (N, C, ...), got input of size {list(shape)}")
    for name, value in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                        ("bias", bias)):
        if value is not None and value._data.shape != (shape[1],):
            raise RuntimeError(f"batch_norm: {name} should contain {shape[1]} elements (one per channel of input "
                               f"{list(shape)}), not {value._data.size}")
    ndim = input._data.ndim
    dims = (0,) + tuple(range(2, ndim))
    if training:
        count = input._data.size // shape[1]
        if count <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {list(shape)}")
        output, mean, var = _normalize(input, dims, eps)
        if running_mean is not None:
            _update_running(running_mean, mean._data, momentum)
        if running_var is not None:
            _update_running(running_var, var._data * (count / (count - 1)), momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("batch_norm: running_mean and running_var must be given when training=False")
        output, _, _ = _normalize(input, dims, eps, _channel_view(running_mean, ndim),
                                  _channel_view(running_var, ndim))
    return _affine(output, weight, bias, lambda t: _channel_view(t, ndim))


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled=True):
    """`torch.batch_norm` (weight and bias first); see `nn.functional.batch_norm`."""
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    """Normalize over the last len(normalized_shape) dims, then scale by `weight` and shift by `bias`."""
    _check_tensor(input, "input", "layer_norm")
    normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    count = len(normalized_shape)
    shape = input._data.shape
    if count == 0 or shape[len(shape) - count:] != normalized_shape or count > len(shape):
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, normalized_shape))}], but got input of size{list(shape)}")
    for name, value in (("weight", weight), ("bias", bias)):
        if value is not None and value._data.shape != normalized_shape:
            raise RuntimeError(f"layer_norm: {name} must have shape {list(normalized_shape)}, got {list(value.shape)}")
    _check_floating(input, "layer_norm")
    output, _, _ = _normalize(input, tuple(range(-count, 0)), eps)
    return _affine(output, weight, bias, lambda t: t)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    """Normalize (N, C, ...) over groups of C/num_groups channels and the spatial dims."""
    _check_tensor(input, "input", "group_norm")
    shape = input._data.shape
    if input._data.ndim < 2 or shape[1] % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(shape)} and num_groups={num_groups}")
    grouped = input.reshape((shape[0], num_groups, -1))
    output, _, _ = _normalize(grouped, (2,), eps)
    return _affine(output.reshape(shape), weight, bias, lambda t: _channel_view(t, len(shape)))


def instance_norm(input, weight=None, bias=None, running_mean=None, running_var=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5, cudnn_enabled=True):
    """Normalize each (n, c) feature map of (N, C, ...) over its spatial dims."""
    _check_tensor(input, "input", "instance_norm")
    shape = input._data.shape
    ndim = len(shape)
    dims = tuple(range(2, ndim))
    if use_input_stats:
        if math.prod(shape[2:]) <= 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {list(shape)}")
        output, mean, var = _normalize(input, dims, eps)
        count = math.prod(shape[2:])
        if running_mean is not None:
            _update_running(running_mean, mean._data.mean(0), momentum)
        if running_var is not None:
            _update_running(running_var, (var._data * (count / (count - 1))).mean(0), momentum)
    else:
        output, _, _ = _normalize(input, dims, eps, _channel_view(running_mean, ndim), _channel_view(running_var, ndim))
    return _affine(output, weight, bias, lambda t: _channel_view(t, ndim))


# ================================================================ activations
class Softplus(Function):
    """log(1 + exp(beta x)) / beta, linear above `threshold`: a primitive because the composite
    overflows for large x and loses everything below about -17 (log(1 + tiny) == 0)."""

    _array_forward = True
    _node_name = "SoftplusBackward0"

    @staticmethod
    def forward(ctx, x, beta, threshold):
        ctx.save_for_backward(x)
        ctx.options = beta, threshold
        scaled = x * beta if beta != 1 else x
        result = np.log1p(np.exp(-np.abs(scaled)))
        result += np.maximum(scaled, 0)
        if beta != 1:
            result /= beta
        return np.where(scaled > threshold, x, result)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        beta, threshold = ctx.options
        scaled = x * beta if beta != 1 else x
        return _where(scaled > threshold, grad, grad * _sigmoid(scaled)), None, None


def _where(condition, a, b):
    from . import where
    return where(condition, a, b)


def _sigmoid(x):
    from . import sigmoid
    return sigmoid(x)


def softplus(input, beta=1.0, threshold=20.0):
    _check_tensor(input, "input", "softplus")
    _check_floating(input, "softplus")
    return Softplus.apply(input, beta, threshold)


def _negative_part_exp(input, alpha, scale_inside=1.0):
    """alpha * (exp(x * scale_inside) - 1) for x <= 0; exp is fed min(x, 0) so large x never overflows
    (an inf there would turn the masked-out gradient into NaN)."""
    from . import clamp_max, expm1
    inner = clamp_max(input, 0.0)
    if scale_inside != 1.0:
        inner = inner * scale_inside
    return expm1(inner) * alpha


def elu(input, alpha=1.0, scale=1.0, input_scale=1.0):
    """x for x > 0, alpha * (exp(x) - 1) otherwise (times `scale`: selu's form)."""
    _check_tensor(input, "input", "elu")
    result = _where(input > 0, input, _negative_part_exp(input, alpha, input_scale))
    return result * scale if scale != 1.0 else result


def selu(input):
    """scale * elu(x, alpha) with the self-normalizing constants of Klambauer et al."""
    return elu(input, _SELU_ALPHA, _SELU_SCALE)


def celu(input, alpha=1.0):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: celu's alpha must not be 0")
    return elu(input, alpha, 1.0, 1.0 / alpha)


def prelu(input, weight):
    """x for x >= 0, weight * x otherwise; weight has 1 or C (the channels, dim 1) elements."""
    _check_tensor(input, "input", "prelu")
    _check_tensor(weight, "weight", "prelu")
    count = weight._data.size
    if count != 1:
        if input._data.ndim < 2 or input._data.shape[1] != count:
            raise RuntimeError(f"prelu: mismatch of parameter numbers and input channel size: weight has {count} "
                               f"elements but input {list(input.shape)} has "
                               f"{input._data.shape[1] if input._data.ndim > 1 else 1} channels")
        weight = weight.reshape((-1,) + (1,) * (input._data.ndim - 2))
    elif weight._data.ndim:
        weight = weight.reshape(())
    return _where(input > 0, input, input * weight)


def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, else 0."""
    _check_tensor(input, "input", "hardshrink")
    return _where((input > lambd) | (input < -lambd), input, 0.0)


def threshold(input, threshold, value):
    """x where x > threshold, else `value`."""
    _check_tensor(input, "input", "threshold")
    return _where(input > threshold, input, value)


# ================================================================ distances and products
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """x1.x2 / (max(|x1|, eps) * max(|x2|, eps)) along `dim`, broadcasting x1 and x2."""
    from . import clamp_min
    _check_tensor(x1, "x1", "cosine_similarity")
    _check_tensor(x2, "x2", "cosine_similarity")
    norm1 = clamp_min((x1 * x1).sum(dim, keepdim=True).sqrt(), eps)
    norm2 = clamp_min((x2 * x2).sum(dim, keepdim=True).sqrt(), eps)
    return ((x1 / norm1) * (x2 / norm2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The p-norm of x1 - x2 + eps along the last dim."""
    _check_tensor(x1, "x1", "pairwise_distance")
    _check_tensor(x2, "x2", "pairwise_distance")
    from . import norm
    difference = x1 - x2 + eps
    dim = -1 if difference._data.ndim else 0
    return norm(difference, p, dim, keepdim)


def bilinear(input1, input2, weight, bias=None):
    """y_k = input1 @ weight[k] @ input2 + bias_k: input1 (..., n1), input2 (..., n2), weight (out, n1, n2)."""
    for name, value in (("input1", input1), ("input2", input2), ("weight", weight)):
        _check_tensor(value, name, "bilinear")
    if weight._data.ndim != 3 or input1._data.shape[-1] != weight._data.shape[1] or \
            input2._data.shape[-1] != weight._data.shape[2] or input1._data.shape[:-1] != input2._data.shape[:-1]:
        raise RuntimeError(f"bilinear: input1 {list(input1.shape)}, input2 {list(input2.shape)} and weight "
                           f"{list(weight.shape)} do not fit: expected (..., n1), (..., n2) and (out, n1, n2)")
    # (..., n1) @ (out, n1, n2) -> (..., out, n2), then contracted with input2.
    left = (input1.unsqueeze(-2).unsqueeze(-2) @ weight).squeeze(-2)
    output = (left * input2.unsqueeze(-2)).sum(-1)
    return output + bias if bias is not None else output


def pixel_shuffle(input, upscale_factor):
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r): sub-pixel convolution's rearrangement (a reshape and permute)."""
    _check_tensor(input, "input", "pixel_shuffle")
    shape = input._data.shape
    r = int(upscale_factor)
    if len(shape) < 3 or shape[-3] % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
                           f"of upscale_factor, but input.size(-3)={shape[-3] if len(shape) >= 3 else None} is not "
                           f"divisible by {r * r} (input of size {list(shape)})")
    lead, (channels, height, width) = shape[:-3], shape[-3:]
    k = len(lead)
    grouped = input.reshape(lead + (channels // (r * r), r, r, height, width))
    moved = grouped.permute(tuple(range(k)) + (k, k + 3, k + 1, k + 4, k + 2))
    return moved.reshape(lead + (channels // (r * r), height * r, width * r))


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W): the inverse of pixel_shuffle."""
    _check_tensor(input, "input", "pixel_unshuffle")
    shape = input._data.shape
    r = int(downscale_factor)
    if len(shape) < 3 or shape[-2] % r or shape[-1] % r:
        raise RuntimeError(f"pixel_unshuffle expects height and width to be divisible by downscale_factor={r}, "
                           f"but got input of size {list(shape)}")
    lead, (channels, height, width) = shape[:-3], shape[-3:]
    k = len(lead)
    grouped = input.reshape(lead + (channels, height // r, r, width // r, r))
    moved = grouped.permute(tuple(range(k)) + (k, k + 2, k + 4, k + 1, k + 3))
    return moved.reshape(lead + (channels * r * r, height // r, width // r))


# ================================================================ losses
_REDUCTIONS = {0: "none", 1: "mean", 2: "sum", "none": "none", "mean": "mean", "sum": "sum",
               "batchmean": "batchmean"}


def reduction_name(reduction):
    """'none', 'mean' or 'sum' from a name or PyTorch's enum number (0, 1, 2)."""
    try:
        return _REDUCTIONS[reduction]
    except (KeyError, TypeError):
        raise ValueError(f"{reduction} is not a valid value for reduction (use 'none', 'mean' or 'sum')") from None


def reduce_loss(loss, reduction):
    reduction = reduction_name(reduction)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


class BinaryCrossEntropyWithLogits(Function):
    """(1 - t) x + lw (log1p(exp(-|x|)) + max(-x, 0)), lw = 1 + (pos_weight - 1) t: a primitive so both
    the loss and PyTorch's gradient lw * sigmoid(x) - pos_weight * t are exact for large |x| (every
    composite loses one of them to cancellation)."""

    _array_forward = True
    _node_name = "BinaryCrossEntropyWithLogitsBackward0"

    @staticmethod
    def forward(ctx, x, target, weight, pos_weight):
        ctx.save_for_backward(x, target, weight, pos_weight)
        softplus_negated = np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0)
        if pos_weight is not None:
            softplus_negated *= 1 + (pos_weight - 1) * target
        result = (1 - target) * x + softplus_negated
        if weight is not None:
            result *= weight
        return result.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        x, target, weight, pos_weight = ctx.saved_tensors
        if weight is not None:
            grad = grad * weight
        grad_x = grad_target = None
        if ctx.needs_input_grad[0]:
            if pos_weight is None:
                grad_x = grad * (_sigmoid(x) - target)
            else:
                grad_x = grad * ((1 + (pos_weight - 1) * target) * _sigmoid(x) - pos_weight * target)
        if ctx.needs_input_grad[1]:
            if pos_weight is None:
                grad_target = -grad * x
            else:
                grad_target = grad * (pos_weight * Softplus.apply(-x, 1.0, math.inf) - Softplus.apply(x, 1.0, math.inf))
        return grad_x, grad_target, None, None


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction="mean"):
    """-[pos_weight * t * log(sigmoid(x)) + (1 - t) * log(1 - sigmoid(x))], stable for any logit x."""
    _check_tensor(input, "input", "binary_cross_entropy_with_logits")
    _check_tensor(target, "target", "binary_cross_entropy_with_logits")
    if input._data.shape != target._data.shape:
        raise ValueError(f"Target size ({list(target.shape)}) must be the same as input size ({list(input.shape)})")
    _check_floating(input, "binary_cross_entropy_with_logits")
    return reduce_loss(BinaryCrossEntropyWithLogits.apply(input, target, weight, pos_weight), reduction)


def kl_div(input, target, reduction="mean", log_target=False):
    """Pointwise target * (log(target) - input) (input holds log-probabilities); 0 where target == 0."""
    _check_tensor(input, "input", "kl_div")
    _check_tensor(target, "target", "kl_div")
    if log_target:
        from . import exp
        loss = exp(target) * (target - input)
    else:
        from . import xlogy
        loss = xlogy(target, target) - target * input
    reduction = reduction_name(reduction)
    if reduction == "batchmean":
        return loss.sum() / (input._data.shape[0] if input._data.ndim else 1)
    return reduce_loss(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """max(0, -target * (input1 - input2) + margin)."""
    from . import relu
    return reduce_loss(relu(-target * (input1 - input2) + margin), reduction)


def hinge_embedding_loss(input, target, margin=1.0, reduction="mean"):
    """x where target == 1, max(0, margin - x) where target == -1."""
    from . import relu
    margin_part = _where(target != 1, relu(margin - input), 0.0)
    loss = _where(target != -1, input, 0.0) + margin_part
    return reduce_loss(loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """1 - cos(x1, x2) where target == 1, max(0, cos(x1, x2) - margin) where target == -1."""
    from . import relu
    # PyTorch's formula: eps 1e-12 added to the squared norms rather than clamping them.
    eps = 1e-12
    dim = input1._data.ndim - 1
    product = (input1 * input2).sum(dim)
    magnitude = ((input1 * input1).sum(dim) + eps) * ((input2 * input2).sum(dim) + eps)
    cosine = product / magnitude.sqrt()
    loss = _where(target == 1, 1 - cosine, 0.0) + _where(target == -1, relu(cosine - margin), 0.0)
    return reduce_loss(loss, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, reduction="mean"):
    """max(d(a, p) - d(a, n) + margin, 0) with d the pairwise p-norm distance."""
    from . import relu
    from . import minimum
    for name, value in (("anchor", anchor), ("positive", positive), ("negative", negative)):
        _check_tensor(value, name, "triplet_margin_loss")
    if not anchor._data.ndim == positive._data.ndim == negative._data.ndim:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor._data.ndim}D, positive {positive._data.ndim}D, "
                           f"and negative {negative._data.ndim}D inputs")
    distance_positive = pairwise_distance(anchor, positive, p, eps)
    distance_negative = pairwise_distance(anchor, negative, p, eps)
    if swap:
        distance_negative = minimum(distance_negative, pairwise_distance(positive, negative, p, eps))
    return reduce_loss(relu(distance_positive - distance_negative + margin), reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, eps=1e-8, reduction="mean"):
    """exp(input) - target * input (log_input), or input - target * log(input + eps); `full` adds
    Stirling's approximation of log(target!) where target > 1."""
    from . import exp, log
    if log_input:
        loss = exp(input) - target * input
    else:
        loss = input - target * log(input + eps)
    if full:
        stirling = target * log(target) - target + 0.5 * log(2 * math.pi * target)
        loss = loss + _where(target > 1, stirling, 0.0)
    return reduce_loss(loss, reduction)


class NllLoss(Function):
    """-weight[t] * input[n, t] per sample, reduced: the negative log-likelihood of class targets.

    Works on (N, C) rows; K-dimensional inputs (N, C, d1, ...) arrive with the class dim moved last
    and flattened. Its backward is the constant "where each target sits" times the incoming gradient,
    so it is linear in that gradient and differentiable again.
    """

    _array_forward = True
    _array_backward = True
    _node_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, rows, target, weight, reduction, ignore_index):
        count, classes = rows.shape
        valid = target != ignore_index
        all_valid = bool(valid.all())
        safe = target if all_valid else np.where(valid, target, 0)
        if safe.size and (safe.min() < 0 or safe.max() >= classes):
            bad = safe[(safe < 0) | (safe >= classes)][0]
            raise IndexError(f"Target {bad} is out of bounds (the input has {classes} classes: targets must be in "
                             f"[0, {classes - 1}] or equal ignore_index={ignore_index})")
        picked = rows[np.arange(count), safe]
        if weight is None and all_valid and count:
            # The usual case, every sample counted once: no per-sample weights to build.
            scale = 1.0 if reduction != "mean" else 1.0 / count
            result = -picked if reduction == "none" else np.asarray(-picked.sum() * scale, dtype=rows.dtype)
            ctx.picked = safe, np.asarray(scale, dtype=rows.dtype), rows.shape, reduction
            return result
        sample_weight = weight[safe] if weight is not None else np.ones(count, dtype=rows.dtype)
        sample_weight = sample_weight * valid
        losses = -picked * sample_weight
        if reduction == "none":
            scale = sample_weight
            result = losses
        elif reduction == "sum":
            scale = sample_weight
            result = np.asarray(losses.sum(), dtype=rows.dtype)
        else:
            total = sample_weight.sum()
            with np.errstate(invalid="ignore", divide="ignore"):
                scale = sample_weight / total
                result = np.asarray(losses.sum() / total, dtype=rows.dtype)
        ctx.picked = safe, scale.astype(rows.dtype, copy=False), rows.shape, reduction
        return result

    @staticmethod
    def backward(ctx, grad):
        safe, scale, shape, reduction = ctx.picked
        coefficient = np.zeros(shape, dtype=scale.dtype)
        coefficient[np.arange(shape[0]), safe] = -scale
        if reduction == "none":
            grad = grad.reshape(grad.shape + (1,))
        if type(grad) is np.ndarray:  # a first-order backward on arrays (see autograd.function)
            return grad * coefficient, None, None, None, None
        return grad * new_tensor(coefficient), None, None, None, None


class NllLoss2d(NllLoss):
    _node_name = "NllLoss2DBackward0"


def _class_rows(input):
    """(N, C, d1, ...) -> (N * d1 * ..., C) rows, with a reshape that undoes it for 'none' losses."""
    ndim = input._data.ndim
    if ndim == 2:
        return input
    return input.movedim(1, -1).reshape((-1, input._data.shape[1]))


def nll_loss_rows(input, target, weight, ignore_index, reduction, op_name="nll_loss"):
    """NLL of class-index targets for (C,), (N, C) or (N, C, d1, ...) log-probabilities."""
    _check_tensor(input, "input", op_name)
    _check_tensor(target, "target", op_name)
    reduction = reduction_name(reduction)
    ndim = input._data.ndim
    if ndim < 1:
        raise ValueError(f"{op_name}: expected input with 1 or more dimensions (got 0)")
    if target._data.dtype.kind not in "iu":
        raise RuntimeError(f"{op_name}: expected target of an integer dtype (class indices, e.g. .long()), but "
                           f"got {target.dtype}; for class probabilities use cross_entropy")
    if ndim == 1:
        if target._data.ndim != 0:
            raise ValueError(f"{op_name}: for an unbatched input of shape {list(input.shape)} the target must be "
                             f"0-D, got {list(target.shape)}")
        input, target = input.unsqueeze(0), target.unsqueeze(0)
    if input._data.shape[0] != target._data.shape[0]:
        raise ValueError(f"Expected input batch_size ({input._data.shape[0]}) to match target batch_size "
                         f"({target._data.shape[0]}).")
    if input._data.shape[2:] != target._data.shape[1:]:
        raise RuntimeError(f"{op_name}: expected target size {[input._data.shape[0]] + list(input.shape[2:])}, "
                           f"got {list(target.shape)} (input is {list(input.shape)})")
    classes = input._data.shape[1]
    if weight is not None and weight._data.shape != (classes,):
        raise RuntimeError(f"{op_name}: weight tensor should be defined either for all {classes} classes or no "
                           f"classes but got weight tensor of shape: {list(weight.shape)}")
    function = NllLoss2d if ndim >= 3 else NllLoss
    weight_array = None if weight is None else weight._data.astype(input._data.dtype, copy=False)
    loss = function.apply(_class_rows(input), target._data.reshape(-1), weight_array, reduction, ignore_index)
    if reduction == "none":
        loss = loss.reshape(target._data.shape if ndim != 1 else ())
    return loss


class BinaryCrossEntropy(Function):
    """-w [t log(x) + (1 - t) log(1 - x)] with each log clamped at -100, as PyTorch: a primitive so
    that x = 0 or 1 gives a finite loss and PyTorch's gradient (x - t) / max(x (1 - x), 1e-12)."""

    _array_forward = True
    _node_name = "BinaryCrossEntropyBackward0"

    @staticmethod
    def forward(ctx, x, target, weight):
        if x.size and (x.min() < 0 or x.max() > 1):
            raise RuntimeError("all elements of input should be between 0 and 1 (binary_cross_entropy takes "
                               "probabilities; for logits use binary_cross_entropy_with_logits)")
        ctx.save_for_backward(x, target, weight)
        with np.errstate(divide="ignore"):
            log_x = np.maximum(np.log(x), -100)
            log_rest = np.maximum(np.log1p(-x), -100)
        result = -(target * log_x + (1 - target) * log_rest)
        if weight is not None:
            result *= weight
        return result.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        from . import clamp_min, log1p
        from . import log
        x, target, weight = ctx.saved_tensors
        grad_x = grad_target = None
        if weight is not None:
            grad = grad * weight
        if ctx.needs_input_grad[0]:
            grad_x = grad * (x - target) / clamp_min(x * (1 - x), 1e-12)
        if ctx.needs_input_grad[1]:
            grad_target = grad * (clamp_min(log1p(-x), -100) - clamp_min(log(x), -100))
        return grad_x, grad_target, None


def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    _check_tensor(input, "input", "binary_cross_entropy")
    _check_tensor(target, "target", "binary_cross_entropy")
    if input._data.shape != target._data.shape:
        raise ValueError(f"Using a target size ({list(target.shape)}) that is different to the input size "
                         f"({list(input.shape)}) is deprecated. Please ensure they have the same size.")
    _check_floating(input, "binary_cross_entropy")
    if weight is not None and weight._data.shape != input._data.shape:
        weight = weight.expand(input.shape)
    return reduce_loss(BinaryCrossEntropy.apply(input, target, weight), reduction)


# ================================================================ linear
class Linear(Function):
    """x @ w.T + b in one node (PyTorch's addmm): a primitive for measured speed, since the composite
    records three nodes (transpose, matmul, add) per layer."""

    _array_forward = True
    _array_backward = True
    _node_name = "AddmmBackward0"

    @staticmethod
    def forward(ctx, x, weight, bias):
        ctx.save_for_backward(x, weight)
        result = np.matmul(x, weight.T)
        if bias is not None:
            result += bias
        return result

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        needs_x, needs_weight, needs_bias = ctx.needs_input_grad
        # (Written with what arrays and tensors share: it also runs on arrays, see autograd.function.)
        grad_x = grad @ weight if needs_x else None
        # Batched inputs (..., in_features) as rows; 2-D ones already are.
        rows = grad if grad.ndim == 2 else grad.reshape((-1, weight.shape[0]))
        grad_weight = None
        if needs_weight:
            grad_weight = rows.swapaxes(0, 1) @ (x if x.ndim == 2 else x.reshape((-1, x.shape[-1])))
        grad_bias = rows.sum(0) if needs_bias else None
        return grad_x, grad_weight, grad_bias


class LinearNoBias(Linear):
    _node_name = "MmBackward0"


def linear(input, weight, bias=None):
    """input @ weight.T + bias: input (..., in_features), weight (out_features, in_features)."""
    _check_tensor(input, "input", "linear")
    _check_tensor(weight, "weight", "linear")
    if weight._data.ndim not in (1, 2) or input._data.ndim == 0:
        raise RuntimeError(f"linear: expected weight of shape (out_features, in_features) and an input with at "
                           f"least 1 dim, got input {list(input.shape)} and weight {list(weight.shape)}")
    if weight._data.ndim == 1:
        output = input @ weight
        return output + bias if bias is not None else output
    if input._data.shape[-1] != weight._data.shape[1]:
        rows = "x".join(map(str, input._data.shape[:-1])) or "1"
        raise RuntimeError(f"linear: mat1 and mat2 shapes cannot be multiplied ({rows}x{input._data.shape[-1]} and "
                           f"{weight._data.shape[1]}x{weight._data.shape[0]}): input {list(input.shape)} has "
                           f"{input._data.shape[-1]} features but weight {list(weight.shape)} expects "
                           f"{weight._data.shape[1]}")
    _check_same_dtype(input, weight, "weight", "linear")
    if bias is not None:
        _check_same_dtype(input, bias, "bias", "linear")
        if bias._data.shape not in ((weight._data.shape[0],), (), (1,)):
            raise RuntimeError(f"linear: bias of shape {list(bias.shape)} does not match out_features="
                               f"{weight._data.shape[0]}")
        return Linear.apply(input, weight, bias)
    return LinearNoBias.apply(input, weight, None)


# ================================================================ unfold / fold (im2col / col2im)
class Im2Col(Function):
    """(N, C, H, W) -> (N, C*kH*kW, L): every window as a column; its adjoint is Col2Im."""

    _array_forward = True
    _node_name = "Im2ColBackward0"

    @staticmethod
    def forward(ctx, x, kernel, dilation, padding, stride):
        ctx.geometry = x.shape[2:], kernel, dilation, padding, stride
        out_size = _out_size(x.shape[2:], kernel, stride, padding, dilation)
        windows = _windows(_pad(x, padding, padding), out_size, kernel, stride, dilation)
        order = (0, 1, 4, 5, 2, 3)
        return np.ascontiguousarray(windows.transpose(order)).reshape(x.shape[0], -1, math.prod(out_size))

    @staticmethod
    def backward(ctx, grad):
        return (Col2Im.apply(grad, *ctx.geometry),) + (None,) * 4


class Col2Im(Function):
    """(N, C*kH*kW, L) -> (N, C, H, W): columns summed back into place; its adjoint is Im2Col."""

    _array_forward = True
    _node_name = "Col2ImBackward0"

    @staticmethod
    def forward(ctx, columns, output_size, kernel, dilation, padding, stride):
        ctx.geometry = kernel, dilation, padding, stride
        out_size = _out_size(output_size, kernel, stride, padding, dilation)
        batch = columns.shape[0]
        shaped = np.moveaxis(columns.reshape((batch, -1) + tuple(kernel) + tuple(out_size)), (2, 3), (0, 1))
        padded_size = tuple(o + 2 * p for o, p in zip(output_size, padding))
        result = _col2im(shaped, padded_size, out_size, kernel, stride, dilation)
        return np.ascontiguousarray(_crop(result, padding, output_size))

    @staticmethod
    def backward(ctx, grad):
        return (Im2Col.apply(grad, *ctx.geometry),) + (None,) * 5


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extract sliding blocks: (N, C, H, W) -> (N, C * prod(kernel_size), L), L the number of windows."""
    _check_tensor(input, "input", "unfold")
    input, unbatched = _batched(input, 2, "unfold")
    kernel = _ntuple(kernel_size, 2, "kernel_size", "unfold")
    dilation = _ntuple(dilation, 2, "dilation", "unfold")
    padding = _ntuple(padding, 2, "padding", "unfold")
    stride = _ntuple(stride, 2, "stride", "unfold")
    out_size = _out_size(input._data.shape[2:], kernel, stride, padding, dilation)
    if any(o <= 0 for o in out_size):
        raise RuntimeError(f"unfold: Given input with spatial size {list(input.shape[2:])}, kernel_size="
                           f"{list(kernel)}, dilation={list(dilation)}, padding={list(padding)}, calculated shape "
                           f"of the array of sliding blocks as {list(out_size)}, but its components must be at "
                           f"least one.")
    output = Im2Col.apply(input, kernel, dilation, padding, stride)
    return output.squeeze(0) if unbatched else output


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Combine sliding blocks (N, C * prod(kernel_size), L) into (N, C, *output_size), summing overlaps."""
    _check_tensor(input, "input", "fold")
    unbatched = input._data.ndim == 2
    if unbatched:
        input = input.unsqueeze(0)
    if input._data.ndim != 3:
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
                           f"non-zero dimensions for input, but got: {list(input.shape)}")
    output_size = _ntuple(output_size, 2, "output_size", "fold")
    kernel = _ntuple(kernel_size, 2, "kernel_size", "fold")
    dilation = _ntuple(dilation, 2, "dilation", "fold")
    padding = _ntuple(padding, 2, "padding", "fold")
    stride = _ntuple(stride, 2, "stride", "fold")
    blocks = math.prod(_out_size(output_size, kernel, stride, padding, dilation))
    channels, length = input._data.shape[1:]
    if channels % math.prod(kernel) or length != blocks:
        raise RuntimeError(f"fold: expected size of input's dimension 1 to be divisible by the product of "
                           f"kernel_size ({math.prod(kernel)}) and dimension 2 to match the calculated number of "
                           f"sliding blocks ({blocks}), but got input of size {list(input.shape)}")
    output = Col2Im.apply(input, output_size, kernel, dilation, padding, stride)
    return output.squeeze(0) if unbatched else output
