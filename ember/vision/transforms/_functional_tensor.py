"""Image transforms on tensors of shape (..., C, H, W) or (..., H, W), computed on their NumPy arrays.

These are data-pipeline operations (as in torchvision, where they are not meant to be differentiated):
each takes a tensor, works on `tensor.detach().numpy()` and returns a new tensor of the same dtype.
uint8 images are computed in float and rounded back where torchvision rounds (resizing, blurring)
and truncated where it truncates (colour blending). `normalize` alone is written with ember ops, so a
tensor that requires grad keeps its graph through it.
"""

from ..._backend import np
from ..._tensor import Tensor, new_tensor


def to_array(image):
    if not isinstance(image, Tensor):
        raise TypeError(f"img should be a Tensor. Got {type(image)}")
    if image.ndim < 2:
        raise TypeError(
            f"Tensor is not a torch image: expected at least 2 dimensions (..., H, W), got shape {tuple(image.shape)}"
        )
    return image.detach().numpy()


def from_array(array, dtype):
    """A tensor of NumPy dtype `dtype`; floats that become integers are rounded and clipped to the range."""
    if np.issubdtype(dtype, np.integer) and not np.issubdtype(array.dtype, np.integer):
        info = np.iinfo(dtype)
        array = np.clip(np.round(array), info.min, info.max)
    return new_tensor(np.ascontiguousarray(array.astype(dtype, copy=False)))


def max_value(dtype):
    return 1.0 if np.issubdtype(dtype, np.floating) else float(np.iinfo(dtype).max)


def get_dimensions(image):
    shape = to_array(image).shape
    channels = 1 if len(shape) == 2 else shape[-3]
    return [channels, shape[-2], shape[-1]]


def _work_dtype(dtype):
    return dtype if np.issubdtype(dtype, np.floating) else np.float32


# ---------------------------------------------------------------- resizing
def _cubic(x, a):
    x = np.abs(x)
    return np.where(
        x <= 1, ((a + 2) * x - (a + 3)) * x * x + 1, np.where(x < 2, ((a * x - 5 * a) * x + 8 * a) * x - 4 * a, 0.0)
    )


_KERNELS = {"bilinear": (lambda x: np.clip(1 - np.abs(x), 0, None), 1.0), "bicubic": (lambda x: _cubic(x, -0.5), 2.0)}


def _antialiased_weights(in_size, out_size, mode):
    """PIL's resampling weights (also PyTorch's `antialias=True`): the kernel widens by the scale when shrinking."""
    kernel, support = _KERNELS[mode]
    scale = in_size / out_size
    stretch = max(scale, 1.0)
    support *= stretch
    weights = np.zeros((out_size, in_size))
    for index in range(out_size):
        center = scale * (index + 0.5)
        low = max(int(center - support + 0.5), 0)
        high = min(int(center + support + 0.5), in_size)
        taps = kernel((np.arange(low, high) - center + 0.5) / stretch)
        weights[index, low:high] = taps / taps.sum()
    return weights


def _interpolation_weights(in_size, out_size, mode):
    """PyTorch's `interpolate(..., align_corners=False)` without antialiasing, as a matrix (out, in)."""
    scale = in_size / out_size
    weights = np.zeros((out_size, in_size))
    rows = np.arange(out_size)
    if mode in ("nearest", "nearest-exact"):
        offset = 0.5 if mode == "nearest-exact" else 0.0
        # in float32 as PyTorch computes it: (i + 0.5) * 30 / 13 lands on 14.999999, not 15
        source = (rows + offset).astype(np.float32) * np.float32(scale)
        weights[rows, np.minimum(np.floor(source).astype(np.int64), in_size - 1)] = 1.0
        return weights
    source = (rows + 0.5) * scale - 0.5
    if mode == "bilinear":
        source = np.maximum(source, 0.0)
        left = np.floor(source).astype(np.int64)
        fraction = source - left
        np.add.at(weights, (rows, np.minimum(left, in_size - 1)), 1 - fraction)
        np.add.at(weights, (rows, np.minimum(left + 1, in_size - 1)), fraction)
        return weights
    left = np.floor(source).astype(np.int64)
    fraction = source - left
    for tap in range(-1, 3):
        np.add.at(weights, (rows, np.clip(left + tap, 0, in_size - 1)), _cubic(tap - fraction, -0.75))
    return weights


def resize(image, size, interpolation, antialias):
    """Resize the last two dimensions to `size` = (h, w)."""
    array = to_array(image)
    height, width = array.shape[-2:]
    new_height, new_width = size
    if (new_height, new_width) == (height, width):
        return from_array(array.copy(), array.dtype)
    if interpolation not in ("nearest", "nearest-exact", "bilinear", "bicubic"):
        raise ValueError(
            f"interpolation {interpolation!r} is not supported for tensors: use nearest, "
            "nearest-exact, bilinear or bicubic (or a PIL image)"
        )
    smooth = antialias and interpolation in ("bilinear", "bicubic")
    weights_of = _antialiased_weights if smooth else _interpolation_weights
    work = _work_dtype(array.dtype)
    rows = weights_of(height, new_height, interpolation).astype(work)
    columns = weights_of(width, new_width, interpolation).astype(work)
    result = rows @ array.astype(work) @ columns.T
    if interpolation == "bicubic" and not np.issubdtype(array.dtype, np.floating):
        result = np.clip(result, 0, max_value(array.dtype))
    return from_array(result, array.dtype)


# ---------------------------------------------------------------- geometry
def crop(image, top, left, height, width):
    """The window [top, top + height) x [left, left + width); parts outside the image are zeros."""
    array = to_array(image)
    image_height, image_width = array.shape[-2:]
    result = np.zeros(array.shape[:-2] + (height, width), dtype=array.dtype)
    source_top, source_left = max(top, 0), max(left, 0)
    source_bottom, source_right = min(top + height, image_height), min(left + width, image_width)
    if source_bottom > source_top and source_right > source_left:
        result[..., source_top - top : source_bottom - top, source_left - left : source_right - left] = array[
            ..., source_top:source_bottom, source_left:source_right
        ]
    return new_tensor(result)


def pad(image, padding, fill, padding_mode):
    """Pad the last two dimensions by (left, top, right, bottom)."""
    array = to_array(image)
    left, top, right, bottom = padding
    if min(padding) < 0:  # negative padding crops, as in torchvision
        height, width = array.shape[-2:]
        array = array[..., max(-top, 0) : height - max(-bottom, 0), max(-left, 0) : width - max(-right, 0)]
        left, top, right, bottom = (max(value, 0) for value in padding)
    widths = [(0, 0)] * (array.ndim - 2) + [(top, bottom), (left, right)]
    if padding_mode != "constant":
        return new_tensor(np.pad(array, widths, mode=padding_mode))
    if isinstance(fill, (tuple, list)) and len(fill) != 1:  # one value per channel, as v2 takes it
        fill = np.asarray(fill, dtype=array.dtype)
        if array.ndim < 3 or fill.shape[0] != array.shape[-3]:
            raise ValueError(f"pad: a fill of {fill.shape[0]} values for an image of shape {array.shape}")
        padded = np.pad(array, widths, mode="constant")
        border = np.ones(padded.shape[-2:], bool)
        border[top : top + array.shape[-2], left : left + array.shape[-1]] = False
        padded[..., border] = fill[:, None]
        return new_tensor(padded)
    return new_tensor(
        np.pad(array, widths, mode="constant", constant_values=fill[0] if isinstance(fill, (tuple, list)) else fill)
    )


def hflip(image):
    return new_tensor(np.ascontiguousarray(to_array(image)[..., ::-1]))


def vflip(image):
    return new_tensor(np.ascontiguousarray(to_array(image)[..., ::-1, :]))


def affine(image, matrix, interpolation, fill, output_size=None):
    """Sample the image through `matrix` (2 x 3, from output to input coordinates centred on the image).

    Coordinates are measured from the image centre with pixel centres at half-integers, as torchvision's
    grid does, so a rotation by 90 degrees of a square image is an exact rot90.
    """
    array = to_array(image)
    height, width = array.shape[-2:]
    out_height, out_width = output_size or (height, width)
    ys, xs = np.meshgrid(
        np.arange(out_height) + 0.5 - out_height / 2, np.arange(out_width) + 0.5 - out_width / 2, indexing="ij"
    )
    a, b, c, d, e, f = matrix
    source_x = a * xs + b * ys + c + width / 2 - 0.5
    source_y = d * xs + e * ys + f + height / 2 - 0.5
    work = _work_dtype(array.dtype)
    flat = array.reshape((-1, height, width)).astype(work)
    if interpolation in ("nearest", "nearest-exact"):
        column, row = np.floor(source_x + 0.5).astype(np.int64), np.floor(source_y + 0.5).astype(np.int64)
        inside = (column >= 0) & (column < width) & (row >= 0) & (row < height)
        sampled = flat[:, np.clip(row, 0, height - 1), np.clip(column, 0, width - 1)]
    elif interpolation == "bilinear":
        left, top = np.floor(source_x).astype(np.int64), np.floor(source_y).astype(np.int64)
        dx, dy = (source_x - left).astype(work), (source_y - top).astype(work)
        sampled = np.zeros((flat.shape[0], out_height, out_width), dtype=work)
        coverage = np.zeros((out_height, out_width), dtype=work)  # how much of the sample lies inside
        for row_offset, column_offset, weight in (
            (0, 0, (1 - dx) * (1 - dy)),
            (0, 1, dx * (1 - dy)),
            (1, 0, (1 - dx) * dy),
            (1, 1, dx * dy),
        ):
            row, column = top + row_offset, left + column_offset
            valid = (column >= 0) & (column < width) & (row >= 0) & (row < height)
            sampled += flat[:, np.clip(row, 0, height - 1), np.clip(column, 0, width - 1)] * (weight * valid)
            coverage += weight * valid
    else:
        raise ValueError(
            f"interpolation {interpolation!r} is not supported by rotate/affine on tensors: use nearest or bilinear"
        )
    if fill is None:  # outside is zero (and bilinear samples at the border blend with zero)
        result = np.where(inside, sampled, 0) if interpolation != "bilinear" else sampled
    else:
        fill_values = np.broadcast_to(
            np.asarray(fill, dtype=work).reshape(-1), (array.shape[-3] if array.ndim > 2 else 1,)
        )
        fill_values = np.resize(fill_values, flat.shape[0])[:, None, None]
        if interpolation == "bilinear":  # torchvision blends by the sampled coverage of the image
            result = sampled * coverage + (1 - coverage) * fill_values
        else:
            result = np.where(inside, sampled, fill_values)
    return from_array(result.reshape(array.shape[:-2] + (out_height, out_width)), array.dtype)


# ---------------------------------------------------------------- colour
def _as_float(array):
    return (
        array.astype(_work_dtype(array.dtype)) / np.float32(max_value(array.dtype))
        if not np.issubdtype(array.dtype, np.floating)
        else array
    )


def _grayscale_array(array):
    red, green, blue = array[..., 0, :, :], array[..., 1, :, :], array[..., 2, :, :]
    return (0.2989 * red + 0.587 * green + 0.114 * blue).astype(array.dtype)[..., None, :, :]


def rgb_to_grayscale(image, num_output_channels):
    array = to_array(image)
    if array.ndim < 3 or array.shape[-3] not in (1, 3):
        raise TypeError(f"Input image tensor should have 1 or 3 channels, got shape {tuple(array.shape)}")
    gray = _grayscale_array(array) if array.shape[-3] == 3 else array.copy()
    if num_output_channels == 3:
        gray = np.repeat(gray, 3, axis=-3)
    return new_tensor(np.ascontiguousarray(gray))


def _blend(first, second, ratio):
    bound = max_value(first.dtype)
    mixed = np.clip(ratio * first.astype(np.float64) + (1.0 - ratio) * second, 0, bound)
    return new_tensor(mixed.astype(first.dtype))  # truncates integers, as torchvision's .to(dtype)


def _check_channels(array, allowed, name):
    channels = 1 if array.ndim == 2 else array.shape[-3]
    if channels not in allowed:
        raise TypeError(
            f"{name}: input image tensor permitted channel values are {list(allowed)}, but found "
            f"{channels} (shape {tuple(array.shape)})"
        )
    return channels


def adjust_brightness(image, factor):
    array = to_array(image)
    _check_channels(array, (1, 3), "adjust_brightness")
    return _blend(array, 0.0, factor)


def adjust_contrast(image, factor):
    array = to_array(image)
    channels = _check_channels(array, (1, 3), "adjust_contrast")
    gray = _grayscale_array(array) if channels == 3 else array
    mean = gray.astype(np.float64).mean(axis=(-3, -2, -1), keepdims=True) if array.ndim > 2 else gray.mean()
    return _blend(array, mean, factor)


def adjust_saturation(image, factor):
    array = to_array(image)
    if _check_channels(array, (1, 3), "adjust_saturation") == 1:
        return new_tensor(array.copy())
    return _blend(array, _grayscale_array(array), factor)


def _rgb_to_hsv(rgb):
    red, green, blue = rgb[..., 0, :, :], rgb[..., 1, :, :], rgb[..., 2, :, :]
    maximum, minimum = rgb.max(axis=-3), rgb.min(axis=-3)
    spread = maximum - minimum
    saturation = spread / np.where(maximum == 0, 1, maximum)
    safe = np.where(spread == 0, 1, spread)
    hue = np.where(
        maximum == red,
        ((green - blue) / safe) % 6,
        np.where(maximum == green, (blue - red) / safe + 2, (red - green) / safe + 4),
    )
    hue = np.where(spread == 0, 0, hue) / 6.0
    return hue % 1.0, saturation, maximum


def _hsv_to_rgb(hue, saturation, value):
    sector = np.floor(hue * 6.0)
    fraction = hue * 6.0 - sector
    sector = sector.astype(np.int64) % 6
    p, q, t = value * (1 - saturation), value * (1 - saturation * fraction), value * (1 - saturation * (1 - fraction))
    choices = [(value, t, p), (q, value, p), (p, value, t), (p, q, value), (t, p, value), (value, p, q)]
    channels = [np.choose(sector, [choice[index] for choice in choices]) for index in range(3)]
    return np.stack(channels, axis=-3)


def adjust_hue(image, factor):
    array = to_array(image)
    if _check_channels(array, (1, 3), "adjust_hue") == 1:
        return new_tensor(array.copy())
    floats = _as_float(array)
    hue, saturation, value = _rgb_to_hsv(floats)
    rgb = _hsv_to_rgb((hue + factor) % 1.0, saturation, value)
    if not np.issubdtype(array.dtype, np.floating):
        rgb = rgb * (max_value(array.dtype) + 1.0 - 1e-3)  # convert_image_dtype's float -> integer rule
        return new_tensor(rgb.astype(array.dtype))
    return new_tensor(rgb.astype(array.dtype))


def adjust_gamma(image, gamma, gain):
    array = to_array(image)
    floats = _as_float(array)
    result = np.clip(gain * floats**gamma, 0, 1)
    if not np.issubdtype(array.dtype, np.floating):
        return new_tensor((result * (max_value(array.dtype) + 1.0 - 1e-3)).astype(array.dtype))
    return new_tensor(result.astype(array.dtype))


def invert(image):
    array = to_array(image)
    return new_tensor((max_value(array.dtype) - array).astype(array.dtype))


def gaussian_kernel1d(kernel_size, sigma):
    half = (kernel_size - 1) * 0.5
    positions = np.linspace(-half, half, kernel_size)
    kernel = np.exp(-0.5 * (positions / sigma) ** 2)
    return kernel / kernel.sum()


def gaussian_blur(image, kernel_size, sigma):
    """Separable Gaussian blur with reflect padding; kernel_size and sigma are (x, y)."""
    array = to_array(image)
    work = _work_dtype(array.dtype)
    result = array.astype(work)
    for axis, size, deviation in ((-1, kernel_size[0], sigma[0]), (-2, kernel_size[1], sigma[1])):
        kernel = gaussian_kernel1d(size, deviation).astype(work)
        half = size // 2
        widths = [(0, 0)] * result.ndim
        widths[axis] = (half, half)
        padded = np.pad(result, widths, mode="reflect")
        length = result.shape[axis]
        result = sum(
            weight * np.take(padded, np.arange(offset, offset + length), axis=axis)
            for offset, weight in enumerate(kernel)
        )
    return from_array(result, array.dtype)


def erase(image, top, left, height, width, value, inplace):
    if not inplace:
        image = image.clone()
    image[..., top : top + height, left : left + width] = value
    return image


def convert_image_dtype(image, dtype):
    """torchvision's rules: int -> float divides by the maximum; float -> int scales by max + 1 - eps."""
    array = image.detach().numpy()
    target = dtype.numpy_dtype
    if array.dtype == target:
        return image
    source_float = np.issubdtype(array.dtype, np.floating)
    target_float = np.issubdtype(target, np.floating)
    if source_float and target_float:
        return new_tensor(array.astype(target))
    if source_float:
        if (array.dtype == np.float32 and target in (np.int32, np.int64)) or (
            array.dtype == np.float64 and target == np.int64
        ):
            raise RuntimeError(f"The cast from {image.dtype} to {dtype} cannot be performed safely.")
        return new_tensor((array * (max_value(target) + 1.0 - 1e-3)).astype(target))
    if target_float:
        return new_tensor(array.astype(target) / target.type(max_value(array.dtype)))
    source_max, target_max = int(max_value(array.dtype)), int(max_value(target))
    if source_max > target_max:
        factor = (source_max + 1) // (target_max + 1)
        return new_tensor((array // factor).astype(target))
    factor = (target_max + 1) // (source_max + 1)
    return new_tensor(array.astype(target) * factor)


def affine_output_size(matrix, width, height):
    """The canvas (width, height) that holds the whole image after `matrix` (rotate with expand=True)."""
    a, b, _, d, e, _ = matrix
    # the forward map is the inverse of `matrix`'s linear part
    determinant = a * e - b * d
    forward = np.array([[e, -b], [-d, a]]) / determinant
    corners = np.array(
        [
            [-0.5 * width, -0.5 * height],
            [-0.5 * width, 0.5 * height],
            [0.5 * width, 0.5 * height],
            [0.5 * width, -0.5 * height],
        ]
    )
    moved = corners @ forward.T
    tolerance = 1e-4
    low = np.floor(moved.min(axis=0) + tolerance)
    high = np.ceil(moved.max(axis=0) - tolerance)
    size = high - low
    return int(size[0]), int(size[1])


def _require_uint8(array, name):
    if array.dtype != np.uint8:
        raise TypeError(f"{name}: only torch.uint8 image tensors are supported, but found {array.dtype}")


def posterize(image, bits):
    array = to_array(image)
    _require_uint8(array, "posterize")
    return new_tensor(array & np.uint8((0xFF << (8 - bits)) & 0xFF))


def solarize(image, threshold):
    array = to_array(image)
    bound = max_value(array.dtype)
    if threshold > bound:
        raise TypeError(f"Threshold should be less than bound of img ({bound}), got {threshold}")
    return new_tensor(np.where(array >= threshold, (bound - array).astype(array.dtype), array))


def autocontrast(image):
    """Stretch each channel to the full range; a constant channel is left as it is."""
    array = to_array(image)
    bound = max_value(array.dtype)
    floats = array.astype(_work_dtype(array.dtype))
    low = floats.min(axis=(-2, -1), keepdims=True)
    high = floats.max(axis=(-2, -1), keepdims=True)
    flat = high == low
    scale = bound / np.where(flat, 1, high - low)
    low = np.where(flat, 0, low)
    scale = np.where(flat, 1, scale)
    return new_tensor(np.clip((floats - low) * scale, 0, bound).astype(array.dtype))


def _equalize_channel(channel):
    histogram = np.bincount(channel.ravel(), minlength=256)
    nonzero = histogram[histogram != 0]
    step = int(nonzero[:-1].sum()) // 255
    if step == 0:
        return channel
    lut = (np.cumsum(histogram) + step // 2) // step
    lut = np.clip(np.concatenate([[0], lut[:-1]]), 0, 255).astype(np.uint8)
    return lut[channel]


def equalize(image):
    """Histogram equalisation per channel of a uint8 image (PIL's ImageOps.equalize rule)."""
    array = to_array(image)
    _require_uint8(array, "equalize")
    flat = array.reshape((-1,) + array.shape[-2:])
    return new_tensor(np.stack([_equalize_channel(channel) for channel in flat]).reshape(array.shape))


def adjust_sharpness(image, factor):
    """Blend with a smoothed image (3x3 kernel [1 1 1; 1 5 1; 1 1 1] / 13, borders kept), as PIL does."""
    array = to_array(image)
    if array.shape[-1] <= 2 or array.shape[-2] <= 2:
        return new_tensor(array.copy())
    floats = array.astype(_work_dtype(array.dtype))
    kernel = np.ones((3, 3), dtype=floats.dtype)
    kernel[1, 1] = 5.0
    kernel /= kernel.sum()
    height, width = array.shape[-2:]
    smoothed = sum(
        kernel[row, column] * floats[..., row : height - 2 + row, column : width - 2 + column]
        for row in range(3)
        for column in range(3)
    )
    if not np.issubdtype(array.dtype, np.floating):
        smoothed = np.round(smoothed)
    degenerate = floats.copy()
    degenerate[..., 1:-1, 1:-1] = smoothed
    return _blend(array, degenerate.astype(array.dtype), factor)
