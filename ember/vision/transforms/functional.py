"""torchvision.transforms.functional: each operation on a PIL image or on a tensor image (..., C, H, W).

PIL images go through Pillow's own operations; tensors through NumPy (see `_functional_tensor`), with
torchvision's conventions: sizes are (h, w), padding is (left, top, right, bottom), angles are
degrees counter-clockwise for `rotate` and clockwise for `affine`'s rotation, as torchvision defines.

Example:
    import ember.vision.transforms.functional as TF
    image = TF.resize(TF.to_tensor(pil_image), [32, 32])
"""

import functools
import math
import numbers
from enum import Enum

from ... import _dtype
from ..._backend import np
from ..._tensor import Tensor, new_tensor
from .. import _pil
from . import _functional_pil as F_pil
from . import _functional_tensor as F_t
from ..._warn import warn as _warn

__all__ = [
    "InterpolationMode",
    "get_dimensions",
    "get_image_size",
    "get_image_num_channels",
    "to_tensor",
    "pil_to_tensor",
    "to_pil_image",
    "convert_image_dtype",
    "normalize",
    "resize",
    "pad",
    "crop",
    "center_crop",
    "resized_crop",
    "hflip",
    "vflip",
    "rotate",
    "affine",
    "to_grayscale",
    "rgb_to_grayscale",
    "adjust_brightness",
    "adjust_contrast",
    "adjust_saturation",
    "adjust_hue",
    "adjust_gamma",
    "gaussian_blur",
    "invert",
    "erase",
    "five_crop",
    "ten_crop",
    "posterize",
    "solarize",
    "autocontrast",
    "equalize",
    "adjust_sharpness",
]


class InterpolationMode(Enum):
    """Interpolation methods (torchvision's names and values)."""

    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"


_PIL_FILTERS = {
    InterpolationMode.NEAREST: 0,
    InterpolationMode.NEAREST_EXACT: 0,
    InterpolationMode.LANCZOS: 1,
    InterpolationMode.BILINEAR: 2,
    InterpolationMode.BICUBIC: 3,
    InterpolationMode.BOX: 4,
    InterpolationMode.HAMMING: 5,
}
_FROM_PIL_FILTER = {
    0: InterpolationMode.NEAREST,
    1: InterpolationMode.LANCZOS,
    2: InterpolationMode.BILINEAR,
    3: InterpolationMode.BICUBIC,
    4: InterpolationMode.BOX,
    5: InterpolationMode.HAMMING,
}


def _interpolation_mode(interpolation):
    """An InterpolationMode from the enum, its value string, or a PIL filter constant (as torchvision accepts)."""
    if isinstance(interpolation, InterpolationMode):
        return interpolation
    if isinstance(interpolation, str):
        return InterpolationMode(interpolation)
    if isinstance(interpolation, int) and interpolation in _FROM_PIL_FILTER:
        return _FROM_PIL_FILTER[interpolation]
    raise TypeError(
        f"Argument interpolation should be an InterpolationMode or a corresponding Pillow integer "
        f"constant, got {interpolation!r}"
    )


def _is_tensor(image):
    return isinstance(image, Tensor)


def _geometric(function):
    """A function whose tv_tensor inputs (ember.vision.tv_tensors) go to their kernels: boxes and key
    points move with the pixels, masks resample by nearest neighbour (see _tv_kernels)."""

    @functools.wraps(function)
    def dispatch(img, *args, **kwargs):
        if type(img) is not Tensor and isinstance(img, Tensor):
            from . import _tv_kernels

            return _tv_kernels.apply(function, img, args, kwargs)
        return function(img, *args, **kwargs)

    return dispatch


def _check_image(image):
    if not _is_tensor(image) and not _pil.is_pil_image(image):
        raise TypeError(f"img should be PIL Image or Tensor. Got {type(image)}")


@_geometric
def get_dimensions(img):
    """[channels, height, width] of a PIL image or a tensor."""
    _check_image(img)
    return F_t.get_dimensions(img) if _is_tensor(img) else F_pil.get_dimensions(img)


def get_image_size(img):
    """[width, height] (note the order, as in torchvision)."""
    _, height, width = get_dimensions(img)
    return [width, height]


def get_image_num_channels(img):
    """The number of channels of a (C, H, W) tensor image or a PIL image."""
    return get_dimensions(img)[0]


# ---------------------------------------------------------------- conversions
def to_tensor(pic):
    """A PIL image or a NumPy array (H, W[, C]) as a (C, H, W) tensor; uint8 data is scaled to [0, 1] floats.

    Other integer PIL modes (I, I;16) keep their values, as in torchvision; floats keep theirs.
    """
    if isinstance(pic, np.ndarray):
        if pic.ndim not in (2, 3):
            raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
        array = pic[:, :, None] if pic.ndim == 2 else pic
        array = np.ascontiguousarray(array.transpose(2, 0, 1))
        if array.dtype == np.uint8:
            return new_tensor(array.astype(_dtype.get_default_dtype().numpy_dtype) / np.float32(255))
        return new_tensor(array)
    if not _pil.is_pil_image(pic):
        raise TypeError(f"pic should be PIL Image or ndarray. Got {type(pic)}")
    mode_dtypes = {"I": np.int32, "I;16": np.int16, "I;16B": np.int16, "F": np.float32}
    array = np.array(pic, mode_dtypes.get(pic.mode, np.uint8), copy=True)
    if pic.mode == "1":
        array = 255 * array
    array = array.reshape(pic.size[1], pic.size[0], len(pic.getbands())).transpose(2, 0, 1)
    array = np.ascontiguousarray(array)
    if array.dtype == np.uint8:
        return new_tensor(array.astype(_dtype.get_default_dtype().numpy_dtype) / np.float32(255))
    return new_tensor(array)


def pil_to_tensor(pic):
    """A PIL image as a (C, H, W) tensor of its own dtype (uint8 for L/RGB), without scaling."""
    if not _pil.is_pil_image(pic):
        raise TypeError(f"pic should be PIL Image. Got {type(pic)}")
    array = np.array(pic, copy=True)
    if array.ndim == 2:
        array = array[:, :, None]
    if pic.mode == "1":
        array = array.astype(np.uint8)
    return new_tensor(np.ascontiguousarray(array.transpose(2, 0, 1)))


def to_pil_image(pic, mode=None):
    """A tensor (C, H, W) or array (H, W, C) as a PIL image; floats are taken as [0, 1] and scaled to bytes.

    As torchvision, float values are multiplied by 255 and truncated (not rounded) to uint8 unless
    mode is 'F' (values outside [0, 1] are clipped, where torchvision lets them wrap around). One channel gives 'L' (uint8), 'I;16', 'I' or 'F'; two 'LA'; three 'RGB'; four 'RGBA'.
    """
    Image = _pil.pil_image()
    if _is_tensor(pic):
        if pic.ndim not in (2, 3):
            raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
        array = pic.detach().numpy()
        if array.ndim == 2:
            array = array[None]
        if array.shape[0] > 4 and array.shape[-1] <= 4:
            raise ValueError(f"pic should not have > 4 channels. Got {array.shape[0]} channels.")
        if np.issubdtype(array.dtype, np.floating) and mode != "F":
            array = np.clip(array * 255, 0, 255).astype(np.uint8)  # torchvision wraps values outside [0, 1]
        array = np.transpose(array, (1, 2, 0))
    elif isinstance(pic, np.ndarray):
        if pic.ndim not in (2, 3):
            raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
        array = pic[:, :, None] if pic.ndim == 2 else pic
    else:
        raise TypeError(f"pic should be Tensor or ndarray. Got {type(pic)}.")
    channels = array.shape[-1]
    if channels > 4:
        raise ValueError(f"pic should not have > 4 channels. Got {channels} channels.")
    if channels == 1:
        array = array[:, :, 0]
        expected = {
            np.dtype(np.uint8): "L",
            np.dtype(np.int16): "I;16",
            np.dtype(np.uint16): "I;16",
            np.dtype(np.int32): "I",
            np.dtype(np.float32): "F",
        }.get(array.dtype)
        if expected is None:
            raise TypeError(f"Input type {array.dtype} is not supported")
        if mode is not None and mode != expected:
            raise ValueError(f"Incorrect mode ({mode}) supplied for input type {array.dtype}. Should be {expected}")
        if expected == "I;16":
            array = array.astype(np.uint16)
        return Image.fromarray(np.ascontiguousarray(array))
    allowed = {2: ["LA"], 3: ["RGB", "YCbCr", "HSV"], 4: ["RGBA", "CMYK", "RGBX"]}[channels]
    if mode is not None and mode not in allowed:
        raise ValueError(f"Only modes {allowed} are supported for {channels}D inputs")
    if array.dtype != np.uint8:
        raise TypeError(
            f"Input type {array.dtype} is not supported for {channels}-channel images "
            "(expected uint8, or floats in [0, 1] in a tensor)"
        )
    mode = mode or allowed[0]
    height, width = array.shape[:2]
    return Image.frombytes(mode, (width, height), np.ascontiguousarray(array).tobytes())


def convert_image_dtype(image, dtype=None):
    """Convert a tensor image to `dtype`, rescaling values (uint8 255 <-> float 1.0), as torchvision."""
    if not _is_tensor(image):
        raise TypeError(f"Input img should be Tensor Image. Got {type(image)}")
    return F_t.convert_image_dtype(image, _dtype.to_dtype(dtype if dtype is not None else _dtype.float32))


def normalize(tensor, mean, std, inplace=False):
    """(tensor - mean) / std per channel of a float tensor (..., C, H, W); keeps autograd history."""
    if not _is_tensor(tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(tensor)}")
    if not tensor.dtype.is_floating_point:
        raise TypeError(f"Input tensor should be a float tensor. Got {tensor.dtype}.")
    if tensor.ndim < 3:
        raise ValueError(
            f"Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = {tuple(tensor.shape)}"
        )
    numpy_dtype = tensor.dtype.numpy_dtype
    mean_array = np.asarray(mean.detach().numpy() if _is_tensor(mean) else mean, dtype=numpy_dtype)
    std_array = np.asarray(std.detach().numpy() if _is_tensor(std) else std, dtype=numpy_dtype)
    if (std_array == 0).any():
        raise ValueError(f"std evaluated to zero after conversion to {tensor.dtype}, leading to division by zero.")
    shape = (-1, 1, 1) if mean_array.ndim <= 1 else mean_array.shape
    mean_tensor = new_tensor(mean_array.reshape(shape) if mean_array.ndim <= 1 else mean_array)
    std_tensor = new_tensor(std_array.reshape(shape) if std_array.ndim <= 1 else std_array)
    if inplace:
        return tensor.sub_(mean_tensor).div_(std_tensor)
    return (tensor - mean_tensor) / std_tensor


# ---------------------------------------------------------------- geometry
def _output_size(height, width, size, max_size):
    """torchvision's rule: an int (or [int]) matches the smaller edge, keeping the aspect ratio."""
    if isinstance(size, numbers.Number):
        size = [int(size)]
    size = list(size)
    if len(size) == 2:
        if max_size is not None:
            raise ValueError(
                "max_size should only be passed if size specifies the length of the smaller edge, "
                f"i.e. size should be an int or a sequence of length 1 in torchscript mode; got {size}"
            )
        return size
    if len(size) != 1:
        raise ValueError(f"size must be an int or a sequence of one or two ints; got {size}")
    short, long = (width, height) if width <= height else (height, width)
    new_short, new_long = size[0], int(size[0] * long / short)
    if max_size is not None:
        if max_size <= new_short:
            raise ValueError(
                f"max_size = {max_size} must be strictly greater than the requested size for the "
                f"smaller edge size = {size}"
            )
        if new_long > max_size:
            new_short, new_long = int(max_size * new_short / new_long), max_size
    return [new_long, new_short] if width <= height else [new_short, new_long]


@_geometric
def resize(img, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
    """Resize to `size` ((h, w), or an int for the smaller edge).

    Tensors use PyTorch's interpolation (antialiased like PIL when `antialias=True`, the default);
    PIL images are always antialiased, as in torchvision.
    """
    _check_image(img)
    interpolation = _interpolation_mode(interpolation)
    _, height, width = get_dimensions(img)
    output_size = _output_size(height, width, size, max_size)
    if _is_tensor(img):
        if antialias is None:
            antialias = False
        return F_t.resize(img, output_size, interpolation.value, antialias)
    if antialias is False:
        _warn("Anti-alias option is always applied for PIL Image input. Argument antialias is ignored.")
    if [height, width] == output_size:
        return img.copy()
    return F_pil.resize(img, output_size, _PIL_FILTERS[interpolation])


def _padding_ltrb(padding):
    if isinstance(padding, numbers.Number):
        return [int(padding)] * 4
    padding = list(padding)
    if len(padding) == 1:
        return padding * 4
    if len(padding) == 2:
        return [padding[0], padding[1], padding[0], padding[1]]
    if len(padding) == 4:
        return padding
    raise ValueError(f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element tuple")


@_geometric
def pad(img, padding, fill=0, padding_mode="constant"):
    """Pad on all sides: an int, (left/right, top/bottom) or (left, top, right, bottom).

    padding_mode is 'constant' (with `fill`), 'edge', 'reflect' or 'symmetric'.
    """
    _check_image(img)
    if not isinstance(padding, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate padding arg")
    if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
    ltrb = _padding_ltrb(padding)
    if _is_tensor(img):
        return F_t.pad(img, ltrb, 0 if fill is None else fill, padding_mode)
    return F_pil.pad(img, ltrb, fill, padding_mode)


@_geometric
def crop(img, top, left, height, width):
    """The window starting at (top, left) of size (height, width); outside the image is zero."""
    _check_image(img)
    if _is_tensor(img):
        return F_t.crop(img, top, left, height, width)
    return F_pil.crop(img, top, left, height, width)


def _pair(size, name="size"):
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    size = list(size)
    if len(size) == 1:
        return int(size[0]), int(size[0])
    if len(size) != 2:
        raise ValueError(f"Please provide only two dimensions (h, w) for {name}.")
    return int(size[0]), int(size[1])


def center_crop(img, output_size):
    """Crop the centre (h, w); an image smaller than that is padded with zeros first."""
    crop_height, crop_width = _pair(output_size)
    _, height, width = get_dimensions(img)
    if crop_width > width or crop_height > height:
        padding = [
            (crop_width - width) // 2 if crop_width > width else 0,
            (crop_height - height) // 2 if crop_height > height else 0,
            (crop_width - width + 1) // 2 if crop_width > width else 0,
            (crop_height - height + 1) // 2 if crop_height > height else 0,
        ]
        img = pad(img, padding, fill=0)
        _, height, width = get_dimensions(img)
        if crop_width == width and crop_height == height:
            return img
    top = round((height - crop_height) / 2.0)
    left = round((width - crop_width) / 2.0)
    return crop(img, top, left, crop_height, crop_width)


def resized_crop(img, top, left, height, width, size, interpolation=InterpolationMode.BILINEAR, antialias=True):
    """crop, then resize to `size`."""
    return resize(crop(img, top, left, height, width), size, interpolation, antialias=antialias)


@_geometric
def hflip(img):
    """Mirror left-right."""
    _check_image(img)
    return F_t.hflip(img) if _is_tensor(img) else F_pil.hflip(img)


@_geometric
def vflip(img):
    """Mirror top-bottom."""
    _check_image(img)
    return F_t.vflip(img) if _is_tensor(img) else F_pil.vflip(img)


def five_crop(img, size):
    """The four corner crops and the centre crop (tl, tr, bl, br, center)."""
    crop_height, crop_width = _pair(size)
    _, height, width = get_dimensions(img)
    if crop_width > width or crop_height > height:
        raise ValueError(f"Requested crop size {(crop_height, crop_width)} is bigger than input size {(height, width)}")
    return (
        crop(img, 0, 0, crop_height, crop_width),
        crop(img, 0, width - crop_width, crop_height, crop_width),
        crop(img, height - crop_height, 0, crop_height, crop_width),
        crop(img, height - crop_height, width - crop_width, crop_height, crop_width),
        center_crop(img, [crop_height, crop_width]),
    )


def ten_crop(img, size, vertical_flip=False):
    """five_crop of the image and of its flipped version."""
    flipped = vflip(img) if vertical_flip else hflip(img)
    return five_crop(img, size) + five_crop(flipped, size)


def _inverse_affine_matrix(center, angle, translate, scale, shear):
    """The 2 x 3 map from output to input coordinates of rotate-about-center, scale, shear, translate.

    The forward map is T * C * R * S * Sh * C^-1 (angle clockwise in image coordinates, y down);
    this returns its inverse, which is what samplers need.
    """
    rotation = math.radians(angle)
    shear_x, shear_y = math.radians(shear[0]), math.radians(shear[1])
    center_x, center_y = center
    translate_x, translate_y = translate
    a = math.cos(rotation - shear_y) / math.cos(shear_y)
    b = -math.cos(rotation - shear_y) * math.tan(shear_x) / math.cos(shear_y) - math.sin(rotation)
    c = math.sin(rotation - shear_y) / math.cos(shear_y)
    d = -math.sin(rotation - shear_y) * math.tan(shear_x) / math.cos(shear_y) + math.cos(rotation)
    matrix = [d / scale, -b / scale, 0.0, -c / scale, a / scale, 0.0]
    matrix[2] += matrix[0] * (-center_x - translate_x) + matrix[1] * (-center_y - translate_y)
    matrix[5] += matrix[3] * (-center_x - translate_x) + matrix[4] * (-center_y - translate_y)
    matrix[2] += center_x
    matrix[5] += center_y
    return matrix


def _tensor_fill(fill, image):
    if fill is None:
        return None
    return [float(fill)] if isinstance(fill, numbers.Number) else [float(value) for value in fill]


@_geometric
def rotate(img, angle, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=None):
    """Rotate by `angle` degrees counter-clockwise about `center` (default: the image centre).

    expand=True enlarges the output to hold the whole rotated image; `fill` colours the area outside.
    """
    _check_image(img)
    interpolation = _interpolation_mode(interpolation)
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError("Argument center should be a sequence")
    if not _is_tensor(img):
        return F_pil.rotate(img, angle, _PIL_FILTERS[interpolation], expand, center, fill)
    _, height, width = get_dimensions(img)
    center_from_middle = [0.0, 0.0] if center is None else [center[0] - width * 0.5, center[1] - height * 0.5]
    matrix = _inverse_affine_matrix(center_from_middle, -angle, [0.0, 0.0], 1.0, [0.0, 0.0])
    output_size = None
    if expand:
        out_width, out_height = F_t.affine_output_size(matrix, width, height)
        output_size = (out_height, out_width)
    return F_t.affine(img, matrix, interpolation.value, _tensor_fill(fill, img), output_size)


@_geometric
def affine(img, angle, translate, scale, shear, interpolation=InterpolationMode.NEAREST, fill=None, center=None):
    """Rotate (degrees, clockwise), translate (pixels), scale and shear (degrees) about the centre."""
    _check_image(img)
    interpolation = _interpolation_mode(interpolation)
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if not isinstance(translate, (list, tuple)) or len(translate) != 2:
        raise TypeError("Argument translate should be a sequence of length 2")
    if scale <= 0.0:
        raise ValueError("Argument scale should be positive")
    if isinstance(shear, numbers.Number):
        shear = [shear, 0.0]
    shear = list(shear)
    if len(shear) == 1:
        shear = [shear[0], shear[0]]
    if len(shear) != 2:
        raise ValueError(f"Shear should be a sequence containing two values. Got {shear}")
    _, height, width = get_dimensions(img)
    if not _is_tensor(img):
        pil_center = [width * 0.5, height * 0.5] if center is None else list(center)
        matrix = _inverse_affine_matrix(pil_center, angle, list(translate), scale, shear)
        return F_pil.affine(img, matrix, _PIL_FILTERS[interpolation], fill)
    center_from_middle = [0.0, 0.0] if center is None else [center[0] - width * 0.5, center[1] - height * 0.5]
    matrix = _inverse_affine_matrix(center_from_middle, angle, [float(t) for t in translate], scale, shear)
    return F_t.affine(img, matrix, interpolation.value, _tensor_fill(fill, img))


# ---------------------------------------------------------------- colour
def to_grayscale(img, num_output_channels=1):
    """A PIL image converted to grayscale ('L'), with 1 or 3 identical channels."""
    if not _pil.is_pil_image(img):
        raise TypeError("Input should be PIL Image")
    return F_pil.to_grayscale(img, num_output_channels)


def rgb_to_grayscale(img, num_output_channels=1):
    """Grayscale as 0.2989 R + 0.587 G + 0.114 B (tensors), or PIL's 'L' conversion; 1 or 3 channels."""
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    _check_image(img)
    if _is_tensor(img):
        return F_t.rgb_to_grayscale(img, num_output_channels)
    return F_pil.to_grayscale(img, num_output_channels)


def _colour(name, factor, factor_name, low=0.0):
    def check(img):
        _check_image(img)
        if factor < low:
            raise ValueError(f"{factor_name} ({factor}) is not non-negative.")
        return getattr(F_t if _is_tensor(img) else F_pil, name)(img, factor)

    return check


def adjust_brightness(img, brightness_factor):
    """Multiply by the factor (0: black, 1: unchanged), clamped to the valid range."""
    return _colour("adjust_brightness", brightness_factor, "brightness_factor")(img)


def adjust_contrast(img, contrast_factor):
    """Blend with the mean grey level (0: solid grey, 1: unchanged)."""
    return _colour("adjust_contrast", contrast_factor, "contrast_factor")(img)


def adjust_saturation(img, saturation_factor):
    """Blend with the grayscale image (0: grey, 1: unchanged, 2: twice as saturated)."""
    return _colour("adjust_saturation", saturation_factor, "saturation_factor")(img)


def adjust_hue(img, hue_factor):
    """Turn the hue by `hue_factor` of a full circle, in [-0.5, 0.5]."""
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    _check_image(img)
    return F_t.adjust_hue(img, hue_factor) if _is_tensor(img) else F_pil.adjust_hue(img, hue_factor)


def adjust_gamma(img, gamma, gain=1):
    """gain * image ** gamma on [0, 1] values."""
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    _check_image(img)
    return F_t.adjust_gamma(img, gamma, gain) if _is_tensor(img) else F_pil.adjust_gamma(img, gamma, gain)


def invert(img):
    """max - image (255 for uint8, 1.0 for floats)."""
    _check_image(img)
    return F_t.invert(img) if _is_tensor(img) else F_pil.invert(img)


def gaussian_blur(img, kernel_size, sigma=None):
    """Blur with a Gaussian kernel (kernel_size odd; sigma defaults to 0.3 * ((k - 1) * 0.5 - 1) + 0.8).

    PIL images are blurred as uint8 tensors and converted back, as torchvision does.
    """
    if not isinstance(kernel_size, (int, list, tuple)):
        raise TypeError(f"kernel_size should be int or a sequence of integers. Got {type(kernel_size)}")
    kernel_size = [kernel_size, kernel_size] if isinstance(kernel_size, int) else list(kernel_size)
    if len(kernel_size) != 2:
        raise ValueError(f"If kernel_size is a sequence its length should be 2. Got {len(kernel_size)}")
    if any(size % 2 == 0 or size < 0 for size in kernel_size):
        raise ValueError(f"kernel_size should have odd and positive integers. Got {kernel_size}")
    if sigma is None:
        sigma = [size * 0.15 + 0.35 for size in kernel_size]
    if isinstance(sigma, (int, float)):
        sigma = [float(sigma), float(sigma)]
    sigma = list(sigma)
    if len(sigma) == 1:
        sigma = [sigma[0], sigma[0]]
    if len(sigma) != 2:
        raise ValueError(f"If sigma is a sequence, its length should be 2. Got {len(sigma)}")
    if any(value <= 0 for value in sigma):
        raise ValueError(f"sigma should have positive values. Got {sigma}")
    _check_image(img)
    if _is_tensor(img):
        return F_t.gaussian_blur(img, kernel_size, sigma)
    blurred = F_t.gaussian_blur(pil_to_tensor(img), kernel_size, sigma)
    return to_pil_image(blurred, mode=img.mode)


def erase(img, i, j, h, w, v, inplace=False):
    """Set the window (i, j, h, w) of a tensor image to `v`."""
    if not _is_tensor(img):
        raise TypeError(f"img should be Tensor Image. Got {type(img)}")
    return F_t.erase(img, i, j, h, w, v, inplace)


def posterize(img, bits):
    """Keep the `bits` most significant bits of each channel (0-8; uint8 tensors or PIL images)."""
    if not 0 <= bits <= 8:
        raise ValueError(f"The number if bits should be between 0 and 8. Got {bits}")
    _check_image(img)
    return F_t.posterize(img, bits) if _is_tensor(img) else F_pil.posterize(img, bits)


def solarize(img, threshold):
    """Invert every value at or above `threshold`."""
    _check_image(img)
    return F_t.solarize(img, threshold) if _is_tensor(img) else F_pil.solarize(img, threshold)


def autocontrast(img):
    """Rescale each channel so its darkest value becomes black and its lightest white."""
    _check_image(img)
    return F_t.autocontrast(img) if _is_tensor(img) else F_pil.autocontrast(img)


def equalize(img):
    """Equalise the histogram of each channel (uint8 tensors or PIL images)."""
    _check_image(img)
    return F_t.equalize(img) if _is_tensor(img) else F_pil.equalize(img)


def adjust_sharpness(img, sharpness_factor):
    """0 gives a smoothed image, 1 the original, 2 twice as sharp."""
    return _colour("adjust_sharpness", sharpness_factor, "sharpness_factor")(img)
