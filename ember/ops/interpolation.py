"""Resampling of spatial dims (`torch.nn.functional.interpolate`): nearest, linear and cubic modes as
index gathers or small (out, in) weight matrices applied with matmul, so results are differentiable twice.
"""

import math

from .._backend import np
from .._tensor import new_tensor
from .pooling import _adaptive_avg_pool

__all__ = []  # interpolate is torch.nn.functional's only, not a top-level function


def _source_positions(in_size, out_size, scale, align_corners, mode):
    """Where each output sample falls in the input, in input coordinates (PyTorch's area_pixel rules)."""
    index = np.arange(out_size, dtype=np.float64)
    if mode in ("nearest", "nearest-exact"):
        ratio = (1.0 / scale) if scale else in_size / out_size
        shift = 0.5 if mode == "nearest-exact" else 0.0
        return np.minimum(np.floor((index + shift) * ratio), in_size - 1).astype(np.int64)
    if align_corners:
        return index * ((in_size - 1) / (out_size - 1) if out_size > 1 else 0.0)
    ratio = (1.0 / scale) if scale else in_size / out_size
    source = (index + 0.5) * ratio - 0.5
    return np.maximum(source, 0.0) if mode == "linear" else source


def _cubic_weights(t, a=-0.75):
    """Keys' cubic convolution weights of the four taps around a fractional position t in [0, 1)."""

    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _interpolation_matrix(in_size, out_size, scale, align_corners, mode, dtype):
    """(out, in) matrix whose rows hold the linear (2 taps) or cubic (4 taps) weights of each output."""
    source = _source_positions(in_size, out_size, scale, align_corners, "linear" if mode == "linear" else mode)
    matrix = np.zeros((out_size, in_size), dtype=np.float64)
    rows = np.arange(out_size)
    base = np.floor(source).astype(np.int64)
    t = source - base
    if mode == "linear":
        base = np.minimum(base, in_size - 1)
        upper = np.minimum(base + 1, in_size - 1)
        np.add.at(matrix, (rows, base), 1 - t)
        np.add.at(matrix, (rows, upper), t)
    else:
        for offset, weight in zip(range(-1, 3), _cubic_weights(t)):
            np.add.at(matrix, (rows, np.clip(base + offset, 0, in_size - 1)), weight)
    return new_tensor(matrix.astype(dtype))


_MODE_DIMS = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}


def interpolate(
    input,
    size=None,
    scale_factor=None,
    mode="nearest",
    align_corners=None,
    recompute_scale_factor=None,
    antialias=False,
):
    """Resize the spatial dims of (N, C, ...) to `size` or by `scale_factor`.

    Modes: 'nearest', 'nearest-exact', 'linear' (3-D input), 'bilinear' / 'bicubic' (4-D),
    'trilinear' (5-D), 'area' (adaptive average pooling). Linear modes are separable: one small
    (out, in) weight matrix per dim, applied with matmul (so the result is differentiable twice).
    """
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not available in ember")
    n = input.dim() - 2
    if n < 1:
        raise ValueError(
            f"interpolate: expected an input with a batch and a channel dim (N, C, ...), got {list(input.shape)}"
        )
    if mode in _MODE_DIMS and _MODE_DIMS[mode] != n:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {_MODE_DIMS[mode] + 2}D input")
    if align_corners is not None and mode in ("nearest", "nearest-exact", "area"):
        raise ValueError(
            "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear"
        )
    align_corners = bool(align_corners)
    if (size is None) == (scale_factor is None):
        raise ValueError("either size or scale_factor should be defined, and not both")
    in_size = tuple(input.shape[2:])
    if size is not None:
        out_size = tuple(int(s) for s in (size if isinstance(size, (tuple, list)) else (size,) * n))
        if len(out_size) != n:
            raise ValueError(
                f"Input and output must have the same number of spatial dimensions, but got input with "
                f"spatial dimensions of {list(in_size)} and output size of {list(out_size)}."
            )
        scales = (None,) * n
    else:
        scales = tuple(
            float(s) for s in (scale_factor if isinstance(scale_factor, (tuple, list)) else (scale_factor,) * n)
        )
        out_size = tuple(int(math.floor(i * s)) for i, s in zip(in_size, scales))
        if recompute_scale_factor:
            scales = (None,) * n
    if mode == "area":
        return _adaptive_avg_pool(input, out_size, n, "interpolate")
    output = input
    for offset, (i, o, scale) in enumerate(zip(in_size, out_size, scales)):
        dim = 2 + offset
        if mode in ("nearest", "nearest-exact"):
            index = _source_positions(i, o, scale, False, mode)
            output = output[(slice(None),) * dim + (new_tensor(index),)]
        elif mode in ("linear", "bilinear", "trilinear", "bicubic"):
            kind = "cubic" if mode == "bicubic" else "linear"
            matrix = _interpolation_matrix(i, o, scale, align_corners, kind, input._data.dtype)
            output = (output.transpose(dim, -1) @ matrix.t()).transpose(dim, -1)
        else:
            raise NotImplementedError(
                f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) "
                f"for the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                f"nearest-exact (got {mode})"
            )
    return output.contiguous()
