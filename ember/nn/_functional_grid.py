"""`F.affine_grid` and `F.grid_sample`: sampling an image at arbitrary points (spatial transformer networks).

`grid_sample` reads `input` (N, C, H, W) or (N, C, D, H, W) at the points of `grid` (N, H', W', 2)
or (N, D', H', W', 3), given in [-1, 1] coordinates (x first). It is composed of ember ops: the
neighbours of each point are gathered and weighted (bilinear: the 2 or 4 or 8 corners; bicubic:
16 taps with Keys' cubic, A = -0.75; nearest: the rounded point), so both the input and the grid
get gradients, and gradients of gradients, from the ops' own derivatives.
"""

import itertools

from .. import ops as _ops
from .._warn import warn as _warn

__all__ = ["affine_grid", "grid_sample"]

_MODES = ("bilinear", "nearest", "bicubic")
_PADDING_MODES = ("zeros", "border", "reflection")
_CUBIC_A = -0.75


def _default_align_corners(align_corners):
    if align_corners is None:
        _warn(
            "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
            "Please specify align_corners=True if the old behavior is desired. See the documentation of "
            "grid_sample for details.",
            UserWarning,
            stacklevel=3,
        )
        return False
    return align_corners


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of affine transforms `theta` (N, 2, 3) for an output of `size` (N, C, H, W),
    or (N, 3, 4) for (N, C, D, H, W): each output pixel's [-1, 1] coordinates, transformed."""
    align_corners = _default_align_corners(align_corners)
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(size)
    spatial = len(size) - 2
    if spatial not in (2, 3):
        raise NotImplementedError(
            f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got size {size}."
        )
    if theta.dim() != 3 or tuple(theta.shape[1:]) != (spatial, spatial + 1):
        raise ValueError(
            f"Expected a batch of {spatial}D affine matrices of shape Nx{spatial}x{spatial + 1} for size "
            f"torch.Size({list(size)}). Got torch.Size({list(theta.shape)})."
        )
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    # Per output dimension (x, y[, z] order: the last spatial dimension first) its [-1, 1] positions.
    steps = [_base_coordinates(extent, align_corners, theta.dtype) for extent in reversed(size[2:])]
    mesh = _ops.meshgrid(*reversed(steps), indexing="ij")  # each (D, H, W) or (H, W)
    base = _ops.stack(list(reversed(mesh)) + [_ops.ones_like(mesh[0])], dim=-1)
    points = base.reshape(1, -1, spatial + 1)
    grid = points @ theta.transpose(1, 2)
    return grid.reshape((size[0],) + size[2:] + (spatial,))


def _base_coordinates(steps, align_corners, dtype):
    if steps <= 1:
        return _ops.zeros(steps, dtype=dtype)
    positions = _ops.linspace(-1.0, 1.0, steps, dtype=dtype)
    return positions if align_corners else positions * ((steps - 1) / steps)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """`input` read at the points of `grid` (in [-1, 1], x first): bilinear, nearest or bicubic
    (4-D only) interpolation; outside points read zeros, the border, or the reflected image."""
    if mode not in _MODES:
        raise ValueError(
            f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '{mode}'"
        )
    if padding_mode not in _PADDING_MODES:
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', "
            f"but got: '{padding_mode}'"
        )
    align_corners = _default_align_corners(align_corners)
    _check_shapes(input, grid, mode)
    spatial = input.dim() - 2
    sizes = tuple(input.shape[2:])
    # grid's last dimension lists x (the last spatial dimension) first
    unnormalized = [_unnormalize(grid[..., spatial - 1 - d], sizes[d], align_corners) for d in range(spatial)]
    if mode == "bicubic":
        return _bicubic(input, unnormalized, sizes, padding_mode, align_corners)
    coordinates = [
        _pad_coordinate(coordinate, size, padding_mode, align_corners) for coordinate, size in zip(unnormalized, sizes)
    ]
    if mode == "nearest":
        nearest = _read(input, [coordinate.detach().round() for coordinate in coordinates], sizes)
        return nearest + (grid * 0).sum()  # the grid's gradient is zero, not missing (as PyTorch)
    lows = [coordinate.detach().floor() for coordinate in coordinates]
    output = None
    for corner in itertools.product((0, 1), repeat=spatial):
        weight, index = None, []
        for coordinate, low, bit in zip(coordinates, lows, corner):
            fraction = coordinate - low
            factor = fraction if bit else 1 - fraction
            weight = factor if weight is None else weight * factor
            index.append(low + bit)
        term = _read(input, index, sizes) * weight.unsqueeze(1)
        output = term if output is None else output + term
    return output


def _check_shapes(input, grid, mode):
    if input.dim() not in (4, 5) or grid.dim() != input.dim():
        raise RuntimeError(
            "grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but got input "
            f"with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input with sizes "
            f"{list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    if grid.shape[-1] != input.dim() - 2:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {input.dim() - 2} in last dimension, but got grid with "
            f"sizes {list(grid.shape)}"
        )
    if input.dtype != grid.dtype:
        raise RuntimeError(
            f"grid_sampler(): expected input and grid to have same dtype, but input has {input.dtype} and grid has "
            f"{grid.dtype}"
        )
    if mode == "bicubic" and input.dim() != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if any(size == 0 for size in input.shape[2:]):
        raise RuntimeError(
            f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes {list(input.shape)}"
        )


def _unnormalize(coordinate, size, align_corners):
    """[-1, 1] -> pixel index: -1 and 1 are the corner pixels' centres (align_corners) or their outer edges."""
    if align_corners:
        return (coordinate + 1) / 2 * (size - 1)
    return ((coordinate + 1) * size - 1) / 2


def _pad_coordinate(coordinate, size, padding_mode, align_corners):
    """Where an index outside the image reads from: itself (zeros), the border, or its reflection."""
    if padding_mode == "border":
        return coordinate.clamp(0, size - 1)
    if padding_mode == "reflection":
        if align_corners:
            reflected = _reflect(coordinate, 0, 2 * (size - 1))
        else:
            reflected = _reflect(coordinate, -1, 2 * size - 1)
        return reflected.clamp(0, size - 1)
    return coordinate


def _reflect(coordinate, twice_low, twice_high):
    """Reflect into [twice_low / 2, twice_high / 2] as many times as needed (as a mirror pair)."""
    if twice_low == twice_high:
        return _ops.zeros_like(coordinate)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    distance = (coordinate - low).abs()
    flips = (distance / span).detach().floor()
    extra = distance - flips * span
    even = _ops.remainder(flips, 2) == 0
    return _ops.where(even, extra + low, span - extra + low)


def _read(input, index, sizes):
    """input[n, :, index...] for float indices (N, *out) per spatial dimension; zero where outside."""
    inside = None
    clamped = []
    for position, size in zip(index, sizes):
        valid = (position >= 0) & (position <= size - 1)
        inside = valid if inside is None else inside & valid
        clamped.append(position.clamp(0, size - 1).long())
    flat_index = clamped[0]
    for position, size in zip(clamped[1:], sizes[1:]):
        flat_index = flat_index * size + position
    batch, channels = input.shape[:2]
    out_shape = tuple(flat_index.shape[1:])
    gathered = input.reshape(batch, channels, -1).gather(
        2, flat_index.reshape(batch, 1, -1).expand(batch, channels, flat_index[0].numel())
    )
    return gathered.reshape((batch, channels) + out_shape) * inside.unsqueeze(1).to(input.dtype)


def _cubic_weights(t):
    """Keys' cubic convolution weights of the taps at -1, 0, 1, 2 for a fractional position t."""
    a = _CUBIC_A

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _bicubic(input, unnormalized, sizes, padding_mode, align_corners):
    y, x = unnormalized
    y0, x0 = y.detach().floor(), x.detach().floor()
    wy, wx = _cubic_weights(y - y0), _cubic_weights(x - x0)
    output = None
    for i in range(4):
        for j in range(4):
            tap_y = _pad_coordinate(y0 + (i - 1), sizes[0], padding_mode, align_corners)
            tap_x = _pad_coordinate(x0 + (j - 1), sizes[1], padding_mode, align_corners)
            term = _read(input, [tap_y, tap_x], sizes) * (wy[i] * wx[j]).unsqueeze(1)
            output = term if output is None else output + term
    return output
