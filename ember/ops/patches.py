"""Rearranging image patches: pixel (un)shuffle, unfold (im2col) and fold (col2im)."""

import math

from .._backend import np
from ..autograd.function import Primitive
from ._nn_common import _batched, _check_tensor, _ntuple
from ._strided_windows import _col2im, _crop, _out_size, _pad, _windows
from ._declare import op
from ._tangents import linear_jvp

__all__ = ["pixel_shuffle", "pixel_unshuffle"]


def _shuffled(x, r):
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r) on arrays: a reshape, a transpose, a reshape."""
    lead, (channels, height, width) = x.shape[:-3], x.shape[-3:]
    k = len(lead)
    grouped = x.reshape(lead + (channels // (r * r), r, r, height, width))
    moved = np.transpose(grouped, tuple(range(k)) + (k, k + 3, k + 1, k + 4, k + 2))
    return moved.reshape(lead + (channels // (r * r), height * r, width * r))


def _unshuffled(x, r):
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W): the inverse of `_shuffled`."""
    lead, (channels, height, width) = x.shape[:-3], x.shape[-3:]
    k = len(lead)
    grouped = x.reshape(lead + (channels, height // r, r, width // r, r))
    moved = np.transpose(grouped, tuple(range(k)) + (k, k + 2, k + 4, k + 1, k + 3))
    return moved.reshape(lead + (channels * r * r, height // r, width // r))


class PixelShuffle(Primitive, node="PixelShuffleBackward0", backward_on_arrays=True):
    """pixel_shuffle as one node, as PyTorch's; its adjoint (and inverse) is pixel_unshuffle."""

    @staticmethod
    def forward(ctx, x, r):
        ctx.r = r
        return np.ascontiguousarray(_shuffled(x, r))

    @staticmethod
    def backward(ctx, grad):
        return PixelUnshuffle.call(grad, ctx.r), None

    jvp = linear_jvp


class PixelUnshuffle(Primitive, node="PixelUnshuffleBackward0", backward_on_arrays=True):
    """pixel_unshuffle as one node; its adjoint (and inverse) is pixel_shuffle."""

    @staticmethod
    def forward(ctx, x, r):
        ctx.r = r
        return np.ascontiguousarray(_unshuffled(x, r))

    @staticmethod
    def backward(ctx, grad):
        return PixelShuffle.call(grad, ctx.r), None

    jvp = linear_jvp


@op(PixelShuffle)
def pixel_shuffle(input, upscale_factor):
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r): sub-pixel convolution's rearrangement (a reshape and permute)."""
    _check_tensor(input, "input", "pixel_shuffle")
    shape = input._data.shape
    r = int(upscale_factor)
    if len(shape) < 3 or shape[-3] % (r * r):
        raise RuntimeError(
            f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
            f"of upscale_factor, but input.size(-3)={shape[-3] if len(shape) >= 3 else None} is not "
            f"divisible by {r * r} (input of size {list(shape)})"
        )
    return PixelShuffle.apply(input, r)


@op(PixelUnshuffle)
def pixel_unshuffle(input, downscale_factor):
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W): the inverse of pixel_shuffle."""
    _check_tensor(input, "input", "pixel_unshuffle")
    shape = input._data.shape
    r = int(downscale_factor)
    if len(shape) < 3 or shape[-2] % r or shape[-1] % r:
        raise RuntimeError(
            f"pixel_unshuffle expects height and width to be divisible by downscale_factor={r}, "
            f"but got input of size {list(shape)}"
        )
    return PixelUnshuffle.apply(input, r)


# ================================================================ unfold / fold (im2col / col2im)
class Im2Col(Primitive, node="Im2ColBackward0"):
    """(N, C, H, W) -> (N, C*kH*kW, L): every window as a column; its adjoint is Col2Im."""

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


class Col2Im(Primitive, node="Col2ImBackward0"):
    """(N, C*kH*kW, L) -> (N, C, H, W): columns summed back into place; its adjoint is Im2Col."""

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
        raise RuntimeError(
            f"unfold: Given input with spatial size {list(input.shape[2:])}, kernel_size="
            f"{list(kernel)}, dilation={list(dilation)}, padding={list(padding)}, calculated shape "
            f"of the array of sliding blocks as {list(out_size)}, but its components must be at "
            f"least one."
        )
    output = Im2Col.apply(input, kernel, dilation, padding, stride)
    return output.squeeze(0) if unbatched else output


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Combine sliding blocks (N, C * prod(kernel_size), L) into (N, C, *output_size), summing overlaps."""
    _check_tensor(input, "input", "fold")
    unbatched = input._data.ndim == 2
    if unbatched:
        input = input.unsqueeze(0)
    if input._data.ndim != 3:
        raise RuntimeError(
            f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
            f"non-zero dimensions for input, but got: {list(input.shape)}"
        )
    output_size = _ntuple(output_size, 2, "output_size", "fold")
    kernel = _ntuple(kernel_size, 2, "kernel_size", "fold")
    dilation = _ntuple(dilation, 2, "dilation", "fold")
    padding = _ntuple(padding, 2, "padding", "fold")
    stride = _ntuple(stride, 2, "stride", "fold")
    blocks = math.prod(_out_size(output_size, kernel, stride, padding, dilation))
    channels, length = input._data.shape[1:]
    if channels % math.prod(kernel) or length != blocks:
        raise RuntimeError(
            f"fold: expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size ({math.prod(kernel)}) and dimension 2 to match the calculated number of "
            f"sliding blocks ({blocks}), but got input of size {list(input.shape)}"
        )
    output = Col2Im.apply(input, output_size, kernel, dilation, padding, stride)
    return output.squeeze(0) if unbatched else output
