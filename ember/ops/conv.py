"""Convolution and transposed convolution (`torch.conv2d`, `torch.conv_transpose2d`, ...)."""

import math

from .._backend import np
from .. import _precision
from ..autograd.function import Primitive
from ._nn_common import _batched, _check_floating, _check_same_dtype, _check_tensor, _ntuple
from ._strided_windows import _col2im, _crop, _out_size, _pad, _windows
from .padding import constant_pad_nd
from ._tangents import add_tangents
from . import _autocast
from ._declare import op

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]


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
    matrix = weight.reshape(groups, out_channels // groups, -1)
    wide = x.dtype.kind == "V"  # bfloat16: product and bias in float32, rounded once, as PyTorch's conv
    result = np.matmul(matrix.astype(np.float32), columns.astype(np.float32)) if wide else np.matmul(matrix, columns)
    rest = (x.shape[0],) + out_size if first == 2 else out_size + (x.shape[0],)
    output = _from_layout(result.reshape((out_channels,) + rest), first, bias)
    return (output.astype(x.dtype) if wide else output), columns


def _conv_transpose_array(x, weight, bias, stride, padding, output_padding, dilation, groups):
    """Batch last whatever the width: col2im's adds read and write the result once per kernel
    offset, so they need the long rows (batch second: 1.5x slower for LeNet's 28-wide maps)."""
    n = len(stride)
    kernel = weight.shape[2:]
    batch, in_size = x.shape[0], x.shape[2:]
    out_channels = weight.shape[1] * groups
    padded_size = tuple(
        (i - 1) * s + d * (k - 1) + 1 + op for i, s, d, k, op in zip(in_size, stride, dilation, kernel, output_padding)
    )
    weight_matrix = weight.reshape(groups, weight.shape[0] // groups, -1)
    inputs = _to_layout(x, first=1).reshape(groups, x.shape[1] // groups, -1)
    columns = _precision.matmul(weight_matrix.transpose(0, 2, 1), inputs)
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
    result = _precision.matmul(grad_matrix, columns.transpose(0, 2, 1))
    return result.reshape((grad_output.shape[1], x.shape[1] // groups) + tuple(kernel))


def _remainder(in_size, kernel, stride, padding, dilation):
    """Input rows a convolution's last window does not reach: conv_transpose's output_padding."""
    return tuple((i + 2 * p - d * (k - 1) - 1) % s for i, k, s, p, d in zip(in_size, kernel, stride, padding, dilation))


def _sum_bias(grad):
    return grad.sum((0,) + tuple(range(2, grad.ndim)))


class Convolution(Primitive, node="ConvolutionBackward0"):
    """y = conv(x, w) + b: one im2col copy and one GEMM (per group, in one matmul call)."""

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

    jvp = staticmethod(lambda ctx, *tangents: _convolution_jvp(ctx, *tangents))


class ConvTranspose(Primitive, node="ConvolutionBackward0"):
    """y = conv_transpose(x, w) + b: one GEMM, then the columns summed into place (col2im)."""

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

    jvp = staticmethod(lambda ctx, *tangents: _convolution_jvp(ctx, *tangents))


class ConvWeightGrad(Primitive, node="ConvolutionBackwardBackward0"):
    """The gradient of conv's weight, correlate(x, grad_output): bilinear, so its backward is the
    two convolutions above with the incoming gradient as weight."""

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

    @staticmethod
    def jvp(ctx, tangent_x, tangent_grad_output, *_):
        x, grad_output, *geometry = ctx.inputs
        geometry = geometry[:5]  # not the columns cached for x
        return add_tangents(
            None if tangent_x is None else ConvWeightGrad.apply(tangent_x, grad_output, *geometry),
            None if tangent_grad_output is None else ConvWeightGrad.apply(x, tangent_grad_output, *geometry),
        )


def _convolution_jvp(ctx, tangent_x, tangent_weight, tangent_bias, *_):
    """Convolution (and its transpose) is bilinear in x and the weight and adds the bias."""
    x, weight, _, *geometry = ctx.inputs
    apply = ctx._forward_cls.apply
    return add_tangents(
        None if tangent_x is None else apply(tangent_x, weight, None, *geometry),
        None if tangent_weight is None else apply(x, tangent_weight, None, *geometry),
        None if tangent_bias is None else tangent_bias.reshape((1, -1) + (1,) * (x.dim() - 2)),
    )


_COLUMNS_CACHE_BYTES = 64 * 2**20


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


def _check_conv_operands(input, weight, bias, groups, in_channels_of_weight, out_channels, op_name):
    shape, weight_shape = list(input.shape), list(weight.shape)
    if weight._data.ndim != input._data.ndim:
        raise RuntimeError(
            f"{op_name}(): weight should have {input._data.ndim} dimensions (out_channels, "
            f"in_channels/groups, *kernel_size), but got weight of size {weight_shape}"
        )
    if input._data.shape[1] != in_channels_of_weight:
        raise RuntimeError(
            f"{op_name}(): Given groups={groups}, weight of size {weight_shape}, expected input"
            f"{shape} to have {in_channels_of_weight} channels, but got {shape[1]} channels "
            f"instead"
        )
    if out_channels % groups:
        raise RuntimeError(
            f"{op_name}(): Given groups={groups}, expected weight to be divisible by {groups} at "
            f"dimension 0, but got weight of size {weight_shape} instead"
        )
    if bias is not None and (bias._data.ndim != 1 or bias._data.shape[0] != out_channels):
        raise RuntimeError(
            f"{op_name}(): Given weight of size {weight_shape}, expected bias to be 1-dimensional "
            f"with {out_channels} elements, but got bias of size {list(bias.shape)} instead"
        )
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
    _check_conv_operands(
        input,
        weight,
        bias,
        groups,
        weight._data.shape[1] * groups if weight._data.ndim > 1 else -1,
        weight._data.shape[0],
        op_name,
    )
    kernel = weight._data.shape[2:]
    before, after = _conv_padding(padding, kernel, stride, dilation, n, op_name)
    if before != after:  # 'same' with an even kernel: pad the extra element explicitly
        input = constant_pad_nd(input, tuple(p for b, a in zip(before[::-1], after[::-1]) for p in (0, a - b)))
    padded = tuple(i + 2 * p for i, p in zip(input._data.shape[2:], before))
    effective = tuple(d * (k - 1) + 1 for d, k in zip(dilation, kernel))
    if any(p < e for p, e in zip(padded, effective)):
        raise RuntimeError(
            f"{op_name}(): Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
            f"Kernel size: ({' x '.join(map(str, effective))}). Kernel size can't be greater than "
            f"actual input size"
        )
    output = Convolution.apply(input, weight, bias, stride, before, dilation, groups)
    return output.squeeze(0) if unbatched else output


@op(Convolution)
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution (cross-correlation, as PyTorch) of (N, C_in, L) with (C_out, C_in/groups, k).

    `padding` is an int, a tuple, 'valid' or 'same'. Returns (N, C_out, L_out).
    """
    if _autocast.ever_enabled and _autocast.state.lower is not None:
        input, weight, bias = _autocast.lower_precision(input, weight, bias)
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


@op(Convolution)
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution of (N, C_in, H, W) with weight (C_out, C_in/groups, kH, kW) plus bias (C_out,).

    Example: `conv2d(ember.randn(8, 3, 32, 32), ember.randn(16, 3, 3, 3), padding=1)` has shape
    (8, 16, 32, 32). `padding` is an int, a pair, 'valid' or 'same'.
    """
    if _autocast.ever_enabled and _autocast.state.lower is not None:
        input, weight, bias = _autocast.lower_precision(input, weight, bias)
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


@op(Convolution)
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution of (N, C_in, D, H, W) with (C_out, C_in/groups, kD, kH, kW)."""
    if _autocast.ever_enabled and _autocast.state.lower is not None:
        input, weight, bias = _autocast.lower_precision(input, weight, bias)
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
        raise RuntimeError(
            f"{op_name}(): Given groups={groups}, expected weight to be divisible by {groups} at "
            f"dimension 0, but got weight of size {list(weight.shape)} instead"
        )
    _check_conv_operands(input, weight, bias, 1, weight._data.shape[0], out_channels, op_name)
    for extra, s, d in zip(output_padding, stride, dilation):
        if extra >= s and extra >= d:
            raise RuntimeError(
                f"{op_name}(): output padding must be smaller than either stride or dilation, but "
                f"got output_padding={list(output_padding)}, stride={list(stride)}, "
                f"dilation={list(dilation)}"
            )
    kernel = weight._data.shape[2:]
    out_size = tuple(
        (i - 1) * s - 2 * p + d * (k - 1) + op + 1
        for i, s, p, d, k, op in zip(input._data.shape[2:], stride, padding, dilation, kernel, output_padding)
    )
    if any(o <= 0 for o in out_size):
        raise RuntimeError(
            f"{op_name}(): Given input size per channel: {list(input.shape[2:])}, the calculated "
            f"output size per channel {list(out_size)} is too small"
        )
    output = ConvTranspose.apply(input, weight, bias, stride, padding, output_padding, dilation, groups)
    return output.squeeze(0) if unbatched else output


@op(ConvTranspose)
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Transposed 1-D convolution ("deconvolution"): the gradient of conv1d with respect to its input.

    weight is (C_in, C_out/groups, k); the output length is (L-1)*stride - 2*padding +
    dilation*(k-1) + output_padding + 1.
    """
    if _autocast.ever_enabled and _autocast.state.lower is not None:
        input, weight, bias = _autocast.lower_precision(input, weight, bias)
    return _conv_transpose(
        input, weight, bias, stride, padding, output_padding, groups, dilation, 1, "conv_transpose1d"
    )


@op(ConvTranspose)
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Transposed 2-D convolution of (N, C_in, H, W) with weight (C_in, C_out/groups, kH, kW)."""
    if _autocast.ever_enabled and _autocast.state.lower is not None:
        input, weight, bias = _autocast.lower_precision(input, weight, bias)
    return _conv_transpose(
        input, weight, bias, stride, padding, output_padding, groups, dilation, 2, "conv_transpose2d"
    )


@op(ConvTranspose)
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Transposed 3-D convolution of (N, C_in, D, H, W) with weight (C_in, C_out/groups, kD, kH, kW)."""
    if _autocast.ever_enabled and _autocast.state.lower is not None:
        input, weight, bias = _autocast.lower_precision(input, weight, bias)
    return _conv_transpose(
        input, weight, bias, stride, padding, output_padding, groups, dilation, 3, "conv_transpose3d"
    )
