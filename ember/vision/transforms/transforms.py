"""torchvision.transforms' classes: callables (most are nn.Modules, as in torchvision) around `functional`.

Random transforms draw from ember's global generator (`ember.manual_seed` makes them repeatable),
except RandomChoice and RandomOrder, which use Python's `random` module as torchvision's do.
"""

import math
import numbers
import random
from collections.abc import Sequence

import ember

from ..._tensor import Tensor
from ...nn.modules.module import Module
from . import functional as F
from .functional import InterpolationMode, _interpolation_mode

__all__ = [
    "Compose",
    "ToTensor",
    "PILToTensor",
    "ToPILImage",
    "ConvertImageDtype",
    "Normalize",
    "Lambda",
    "Resize",
    "CenterCrop",
    "RandomCrop",
    "RandomResizedCrop",
    "RandomHorizontalFlip",
    "RandomVerticalFlip",
    "RandomRotation",
    "RandomAffine",
    "Grayscale",
    "RandomGrayscale",
    "ColorJitter",
    "Pad",
    "RandomApply",
    "RandomChoice",
    "RandomOrder",
    "GaussianBlur",
    "RandomErasing",
    "RandomInvert",
    "FiveCrop",
    "TenCrop",
    "InterpolationMode",
]


def _uniform(low, high):
    return low + (high - low) * float(ember.rand(1).item())


def _randint(low, high):
    return int(ember.randint(low, high, (1,)).item())


def _happens(probability):
    return float(ember.rand(1).item()) < probability


def _size_pair(size, error_message):
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if isinstance(size, Sequence) and len(size) == 1:
        return size[0], size[0]
    if len(size) != 2:
        raise ValueError(error_message)
    return tuple(size)


class Compose:
    """Apply transforms one after the other. Example: `Compose([ToTensor(), Normalize((0.5,), (0.5,))])`."""

    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for transform in self.transforms:
            img = transform(img)
        return img

    def __repr__(self):
        lines = "".join(f"\n    {transform}" for transform in self.transforms)
        return f"{self.__class__.__name__}({lines}\n)"


class ToTensor:
    """A PIL image or NumPy array (H, W, C) in [0, 255] -> a float tensor (C, H, W) in [0, 1]."""

    def __call__(self, pic):
        return F.to_tensor(pic)

    def __repr__(self):
        return f"{self.__class__.__name__}()"


class PILToTensor:
    """A PIL image -> a tensor (C, H, W) of the same dtype (uint8), not rescaled."""

    def __call__(self, pic):
        return F.pil_to_tensor(pic)

    def __repr__(self):
        return f"{self.__class__.__name__}()"


class ToPILImage:
    """A tensor (C, H, W) or array (H, W, C) -> a PIL image (see functional.to_pil_image)."""

    def __init__(self, mode=None):
        self.mode = mode

    def __call__(self, pic):
        return F.to_pil_image(pic, self.mode)

    def __repr__(self):
        return f"{self.__class__.__name__}({'' if self.mode is None else f'mode={self.mode}'})"


class ConvertImageDtype(Module):
    """Convert a tensor image to `dtype`, rescaling its values."""

    def __init__(self, dtype):
        super().__init__()
        self.dtype = dtype

    def forward(self, image):
        return F.convert_image_dtype(image, self.dtype)


class Normalize(Module):
    """(image - mean) / std per channel of a float tensor image.

    Example: `Normalize(mean=(0.1307,), std=(0.3081,))` for MNIST.
    """

    def __init__(self, mean, std, inplace=False):
        super().__init__()
        self.mean, self.std, self.inplace = mean, std, inplace

    def forward(self, tensor):
        return F.normalize(tensor, self.mean, self.std, self.inplace)

    def __repr__(self):
        return f"{self.__class__.__name__}(mean={self.mean}, std={self.std})"


class Lambda:
    """A user function as a transform."""

    def __init__(self, lambd):
        if not callable(lambd):
            raise TypeError(f"Argument lambd should be callable, got {type(lambd).__name__!r}")
        self.lambd = lambd

    def __call__(self, img):
        return self.lambd(img)

    def __repr__(self):
        return f"{self.__class__.__name__}()"


class Resize(Module):
    """Resize to `size` ((h, w), or an int: the smaller edge, keeping the aspect ratio)."""

    def __init__(self, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
        super().__init__()
        if not isinstance(size, (int, Sequence)):
            raise TypeError(f"Size should be int or sequence. Got {type(size)}")
        if isinstance(size, Sequence) and len(size) not in (1, 2):
            raise ValueError("If size is a sequence, it should have 1 or 2 values")
        self.size, self.max_size, self.antialias = size, max_size, antialias
        self.interpolation = _interpolation_mode(interpolation)

    def forward(self, img):
        return F.resize(img, self.size, self.interpolation, self.max_size, self.antialias)

    def __repr__(self):
        return (
            f"{self.__class__.__name__}(size={self.size}, interpolation={self.interpolation.value}, "
            f"max_size={self.max_size}, antialias={self.antialias})"
        )


class CenterCrop(Module):
    """Crop the centre to `size` (an int gives a square)."""

    def __init__(self, size):
        super().__init__()
        self.size = _size_pair(size, "Please provide only two dimensions (h, w) for size.")

    def forward(self, img):
        return F.center_crop(img, self.size)

    def __repr__(self):
        return f"{self.__class__.__name__}(size={self.size})"


class Pad(Module):
    """Pad the borders (see functional.pad)."""

    def __init__(self, padding, fill=0, padding_mode="constant"):
        super().__init__()
        if not isinstance(padding, (numbers.Number, tuple, list)):
            raise TypeError("Got inappropriate padding arg")
        if isinstance(padding, Sequence) and len(padding) not in (1, 2, 4):
            raise ValueError(
                f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element tuple"
            )
        if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
            raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode

    def forward(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)

    def __repr__(self):
        return f"{self.__class__.__name__}(padding={self.padding}, fill={self.fill}, padding_mode={self.padding_mode})"


class RandomCrop(Module):
    """Crop a random window of `size`, optionally padding first (`padding`, or `pad_if_needed`)."""

    @staticmethod
    def get_params(img, output_size):
        """The random crop `forward` would take: `(top, left, height, width)` of an `output_size` window inside
        `img`.
        """
        _, height, width = F.get_dimensions(img)
        crop_height, crop_width = output_size
        if height < crop_height or width < crop_width:
            raise ValueError(
                f"Required crop size {(crop_height, crop_width)} is larger than input image size {(height, width)}"
            )
        if width == crop_width and height == crop_height:
            return 0, 0, height, width
        return _randint(0, height - crop_height + 1), _randint(0, width - crop_width + 1), crop_height, crop_width

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant"):
        super().__init__()
        self.size = _size_pair(size, "Please provide only two dimensions (h, w) for size.")
        self.padding, self.pad_if_needed, self.fill, self.padding_mode = padding, pad_if_needed, fill, padding_mode

    def forward(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        _, height, width = F.get_dimensions(img)
        if self.pad_if_needed and width < self.size[1]:
            img = F.pad(img, [self.size[1] - width, 0], self.fill, self.padding_mode)
        if self.pad_if_needed and height < self.size[0]:
            img = F.pad(img, [0, self.size[0] - height], self.fill, self.padding_mode)
        top, left, height, width = self.get_params(img, self.size)
        return F.crop(img, top, left, height, width)

    def __repr__(self):
        return f"{self.__class__.__name__}(size={self.size}, padding={self.padding})"


class RandomResizedCrop(Module):
    """Crop a random area (a `scale` fraction, aspect ratio in `ratio`) and resize it to `size`."""

    def __init__(
        self,
        size,
        scale=(0.08, 1.0),
        ratio=(3.0 / 4.0, 4.0 / 3.0),
        interpolation=InterpolationMode.BILINEAR,
        antialias=True,
    ):
        super().__init__()
        self.size = _size_pair(size, "Please provide only two dimensions (h, w) for size.")
        if not isinstance(scale, Sequence):
            raise TypeError("Scale should be a sequence")
        if not isinstance(ratio, Sequence):
            raise TypeError("Ratio should be a sequence")
        self.interpolation = _interpolation_mode(interpolation)
        self.antialias, self.scale, self.ratio = antialias, scale, ratio

    @staticmethod
    def get_params(img, scale, ratio):
        """The random crop `forward` would take: `(top, left, height, width)` of a window whose area fraction is
        drawn from `scale` and aspect ratio (log-uniformly) from `ratio`; after 10 failed tries, a central crop.
        """
        _, height, width = F.get_dimensions(img)
        area = height * width
        log_ratio = (math.log(ratio[0]), math.log(ratio[1]))
        for _ in range(10):
            target_area = area * _uniform(scale[0], scale[1])
            aspect_ratio = math.exp(_uniform(log_ratio[0], log_ratio[1]))
            crop_width = round(math.sqrt(target_area * aspect_ratio))
            crop_height = round(math.sqrt(target_area / aspect_ratio))
            if 0 < crop_width <= width and 0 < crop_height <= height:
                top = _randint(0, height - crop_height + 1)
                left = _randint(0, width - crop_width + 1)
                return top, left, crop_height, crop_width
        in_ratio = width / height  # fall back to a centre crop with the nearest allowed ratio
        if in_ratio < min(ratio):
            crop_width, crop_height = width, round(width / min(ratio))
        elif in_ratio > max(ratio):
            crop_height, crop_width = height, round(height * max(ratio))
        else:
            crop_width, crop_height = width, height
        return (height - crop_height) // 2, (width - crop_width) // 2, crop_height, crop_width

    def forward(self, img):
        top, left, height, width = self.get_params(img, self.scale, self.ratio)
        return F.resized_crop(img, top, left, height, width, self.size, self.interpolation, antialias=self.antialias)

    def __repr__(self):
        return (
            f"{self.__class__.__name__}(size={self.size}, scale={tuple(round(s, 4) for s in self.scale)}, "
            f"ratio={tuple(round(r, 4) for r in self.ratio)}, interpolation={self.interpolation.value}, "
            f"antialias={self.antialias})"
        )


class RandomHorizontalFlip(Module):
    """Mirror left-right with probability p."""

    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, img):
        return F.hflip(img) if _happens(self.p) else img

    def __repr__(self):
        return f"{self.__class__.__name__}(p={self.p})"


class RandomVerticalFlip(RandomHorizontalFlip):
    """Mirror top-bottom with probability p."""

    def forward(self, img):
        return F.vflip(img) if _happens(self.p) else img


def _degree_range(degrees, name):
    if isinstance(degrees, numbers.Number):
        if degrees < 0:
            raise ValueError(f"If {name} is a single number, it must be positive.")
        return [-float(degrees), float(degrees)]
    if len(degrees) != 2:
        raise ValueError(f"If {name} is a sequence, it must be of len 2.")
    return [float(value) for value in degrees]


class RandomRotation(Module):
    """Rotate by an angle drawn from `degrees` ((min, max), or d for (-d, d)), counter-clockwise."""

    def __init__(self, degrees, interpolation=InterpolationMode.NEAREST, expand=False, center=None, fill=0):
        super().__init__()
        self.degrees = _degree_range(degrees, "degrees")
        self.interpolation = _interpolation_mode(interpolation)
        self.expand, self.center, self.fill = expand, center, fill

    @staticmethod
    def get_params(degrees):
        """A rotation angle drawn uniformly from `degrees` (min, max)."""
        return _uniform(float(degrees[0]), float(degrees[1]))

    def forward(self, img):
        fill = self.fill
        if isinstance(img, Tensor) and isinstance(fill, (int, float)):
            fill = [float(fill)] * F.get_image_num_channels(img)
        return F.rotate(img, self.get_params(self.degrees), self.interpolation, self.expand, self.center, fill)

    def __repr__(self):
        return (
            f"{self.__class__.__name__}(degrees={self.degrees}, interpolation={self.interpolation.value}, "
            f"expand={self.expand}, fill={self.fill})"
        )


class RandomAffine(Module):
    """A random rotation (degrees), translation (fractions of the size), scale and shear about the centre."""

    def __init__(
        self,
        degrees,
        translate=None,
        scale=None,
        shear=None,
        interpolation=InterpolationMode.NEAREST,
        fill=0,
        center=None,
    ):
        super().__init__()
        self.degrees = _degree_range(degrees, "degrees")
        if translate is not None and not all(0.0 <= value <= 1.0 for value in translate):
            raise ValueError("translation values should be between 0 and 1")
        if scale is not None and any(value <= 0 for value in scale):
            raise ValueError("scale values should be positive")
        if shear is not None:
            shear = (
                _degree_range(shear, "shear")
                if isinstance(shear, numbers.Number) or len(shear) == 2
                else [float(value) for value in shear]
            )
        self.translate, self.scale, self.shear = translate, scale, shear
        self.interpolation = _interpolation_mode(interpolation)
        self.fill, self.center = fill, center

    @staticmethod
    def get_params(degrees, translate, scale_ranges, shears, img_size):
        """The random affine `forward` would apply: `(angle, (dx, dy), scale, (shear_x, shear_y))`."""
        angle = _uniform(float(degrees[0]), float(degrees[1]))
        if translate is not None:
            max_dx, max_dy = float(translate[0] * img_size[0]), float(translate[1] * img_size[1])
            translations = (round(_uniform(-max_dx, max_dx)), round(_uniform(-max_dy, max_dy)))
        else:
            translations = (0, 0)
        scale = _uniform(scale_ranges[0], scale_ranges[1]) if scale_ranges is not None else 1.0
        shear_x = shear_y = 0.0
        if shears is not None:
            shear_x = _uniform(shears[0], shears[1])
            if len(shears) == 4:
                shear_y = _uniform(shears[2], shears[3])
        return angle, translations, scale, (shear_x, shear_y)

    def forward(self, img):
        fill = self.fill
        if isinstance(img, Tensor) and isinstance(fill, (int, float)):
            fill = [float(fill)] * F.get_image_num_channels(img)
        angle, translate, scale, shear = self.get_params(
            self.degrees, self.translate, self.scale, self.shear, F.get_image_size(img)
        )
        return F.affine(img, angle, list(translate), scale, list(shear), self.interpolation, fill, self.center)

    def __repr__(self):
        parts = [f"degrees={self.degrees}"]
        parts += [
            f"{name}={getattr(self, name)}"
            for name in ("translate", "scale", "shear")
            if getattr(self, name) is not None
        ]
        if self.interpolation != InterpolationMode.NEAREST:
            parts.append(f"interpolation={self.interpolation.value}")
        if self.fill != 0:
            parts.append(f"fill={self.fill}")
        if self.center is not None:
            parts.append(f"center={self.center}")
        return f"{self.__class__.__name__}({', '.join(parts)})"


class Grayscale(Module):
    """Convert to grayscale with 1 or 3 output channels."""

    def __init__(self, num_output_channels=1):
        super().__init__()
        self.num_output_channels = num_output_channels

    def forward(self, img):
        return F.rgb_to_grayscale(img, self.num_output_channels)

    def __repr__(self):
        return f"{self.__class__.__name__}(num_output_channels={self.num_output_channels})"


class RandomGrayscale(Module):
    """Convert to grayscale (keeping the channel count) with probability p."""

    def __init__(self, p=0.1):
        super().__init__()
        self.p = p

    def forward(self, img):
        channels = F.get_image_num_channels(img)
        return F.rgb_to_grayscale(img, channels) if _happens(self.p) else img

    def __repr__(self):
        return f"{self.__class__.__name__}(p={self.p})"


class ColorJitter(Module):
    """Random brightness, contrast, saturation and hue changes, applied in a random order.

    Each of brightness/contrast/saturation is a factor range (b, or (min, max)): b gives
    [max(0, 1 - b), 1 + b]. hue is h (giving [-h, h]) or (min, max) within [-0.5, 0.5].
    """

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        self.brightness = self._check_input(brightness, "brightness")
        self.contrast = self._check_input(contrast, "contrast")
        self.saturation = self._check_input(saturation, "saturation")
        self.hue = self._check_input(hue, "hue", center=0, bound=(-0.5, 0.5), clip_first_on_zero=False)

    @staticmethod
    def _check_input(value, name, center=1, bound=(0, float("inf")), clip_first_on_zero=True):
        if isinstance(value, numbers.Number):
            if value < 0:
                raise ValueError(f"If {name} is a single number, it must be non negative.")
            value = [center - float(value), center + float(value)]
            if clip_first_on_zero:
                value[0] = max(value[0], 0.0)
        elif isinstance(value, (tuple, list)) and len(value) == 2:
            value = [float(value[0]), float(value[1])]
        else:
            raise TypeError(f"{name} should be a single number or a list/tuple with length 2.")
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"{name} values should be between {bound}, but got {value}.")
        return None if value[0] == value[1] == center else tuple(value)

    @staticmethod
    def get_params(brightness, contrast, saturation, hue):
        """The random jitter `forward` would apply: the order of the four adjustments and each factor (None where not
        jittered).
        """
        order = ember.randperm(4).tolist()

        def pick(bounds):
            return None if bounds is None else _uniform(bounds[0], bounds[1])

        return order, pick(brightness), pick(contrast), pick(saturation), pick(hue)

    def forward(self, img):
        order, brightness, contrast, saturation, hue = self.get_params(
            self.brightness, self.contrast, self.saturation, self.hue
        )
        for index in order:
            if index == 0 and brightness is not None:
                img = F.adjust_brightness(img, brightness)
            elif index == 1 and contrast is not None:
                img = F.adjust_contrast(img, contrast)
            elif index == 2 and saturation is not None:
                img = F.adjust_saturation(img, saturation)
            elif index == 3 and hue is not None:
                img = F.adjust_hue(img, hue)
        return img

    def __repr__(self):
        return (
            f"{self.__class__.__name__}(brightness={self.brightness}, contrast={self.contrast}, "
            f"saturation={self.saturation}, hue={self.hue})"
        )


class GaussianBlur(Module):
    """Blur with a Gaussian of `kernel_size` and a sigma drawn from `sigma` ((min, max) or a fixed value)."""

    def __init__(self, kernel_size, sigma=(0.1, 2.0)):
        super().__init__()
        self.kernel_size = _size_pair(kernel_size, "Kernel size should be a tuple/list of two integers")
        if any(size <= 0 or size % 2 == 0 for size in self.kernel_size):
            raise ValueError("Kernel size value should be an odd and positive number.")
        if isinstance(sigma, numbers.Number):
            if sigma <= 0:
                raise ValueError("If sigma is a single number, it must be positive.")
            sigma = (float(sigma), float(sigma))
        elif isinstance(sigma, Sequence) and len(sigma) == 2:
            if not 0.0 < sigma[0] <= sigma[1]:
                raise ValueError("sigma values should be positive and of the form (min, max).")
        else:
            raise ValueError("sigma should be a single number or a list/tuple with length 2.")
        self.sigma = sigma

    @staticmethod
    def get_params(sigma_min, sigma_max):
        """A blur sigma drawn uniformly from [sigma_min, sigma_max]."""
        return _uniform(float(sigma_min), float(sigma_max))

    def forward(self, img):
        sigma = self.get_params(self.sigma[0], self.sigma[1])
        return F.gaussian_blur(img, self.kernel_size, [sigma, sigma])

    def __repr__(self):
        return f"{self.__class__.__name__}(kernel_size={self.kernel_size}, sigma={self.sigma})"


class RandomInvert(RandomHorizontalFlip):
    """Invert the colours with probability p."""

    def forward(self, img):
        return F.invert(img) if _happens(self.p) else img


class RandomApply(Module):
    """Apply the list of transforms (in order) with probability p, else none of them."""

    def __init__(self, transforms, p=0.5):
        super().__init__()
        self.transforms, self.p = transforms, p

    def forward(self, img):
        if self.p < float(ember.rand(1).item()):
            return img
        for transform in self.transforms:
            img = transform(img)
        return img

    def __repr__(self):
        lines = "".join(f"\n    {transform}" for transform in self.transforms)
        return f"{self.__class__.__name__}(\n    p={self.p}{lines}\n)"


class RandomChoice:
    """Apply one transform picked at random (weights `p`), with Python's `random` as torchvision."""

    def __init__(self, transforms, p=None):
        if p is not None and len(p) != len(transforms):
            raise ValueError(f"Length of p doesn't match the number of transforms: {len(p)} != {len(transforms)}")
        self.transforms, self.p = transforms, p

    def __call__(self, *args):
        transform = random.choices(self.transforms, weights=self.p)[0]
        return transform(*args)

    def __repr__(self):
        return f"{self.__class__.__name__}(transforms={self.transforms}, p={self.p})"


class RandomOrder:
    """Apply all transforms in a random order (Python's `random`, as torchvision)."""

    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        order = list(range(len(self.transforms)))
        random.shuffle(order)
        for index in order:
            img = self.transforms[index](img)
        return img

    def __repr__(self):
        lines = "".join(f"\n    {transform}" for transform in self.transforms)
        return f"{self.__class__.__name__}({lines}\n)"


class RandomErasing(Module):
    """Erase a random rectangle of a tensor image with probability p (Zhong et al., 2017).

    value: a number, a per-channel sequence, or 'random' (normal noise).
    """

    def __init__(self, p=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False):
        super().__init__()
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError("Argument value should be either a number or str or a sequence")
        if isinstance(value, str) and value != "random":
            raise ValueError("If value is str, it should be 'random'")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            raise ValueError("Scale and ratio should be of kind (min, max)")
        if not 0 <= p <= 1:
            raise ValueError("Random erasing probability should be between 0 and 1")
        self.p, self.scale, self.ratio, self.value, self.inplace = p, scale, ratio, value, inplace

    @staticmethod
    def get_params(img, scale, ratio, value=None):
        """The random rectangle `forward` would erase and its fill: `(top, left, height, width, value)`; the whole
        image unchanged if 10 tries find none.
        """
        channels, height, width = img.shape[-3], img.shape[-2], img.shape[-1]
        area = height * width
        log_ratio = (math.log(ratio[0]), math.log(ratio[1]))
        for _ in range(10):
            erase_area = area * _uniform(scale[0], scale[1])
            aspect_ratio = math.exp(_uniform(log_ratio[0], log_ratio[1]))
            erase_height = round(math.sqrt(erase_area * aspect_ratio))
            erase_width = round(math.sqrt(erase_area / aspect_ratio))
            if not (erase_height < height and erase_width < width):
                continue
            if value is None:
                fill = ember.randn(channels, erase_height, erase_width, dtype=img.dtype)
            else:
                fill = ember.tensor(value, dtype=img.dtype).reshape(-1, 1, 1) if len(value) > 1 else value[0]
            top = _randint(0, height - erase_height + 1)
            left = _randint(0, width - erase_width + 1)
            return top, left, erase_height, erase_width, fill
        return 0, 0, height, width, img

    def forward(self, img):
        if not _happens(self.p):
            return img
        if isinstance(self.value, numbers.Number):
            value = [float(self.value)]
        elif isinstance(self.value, str):
            value = None
        else:
            value = [float(v) for v in self.value]
        channels = img.shape[-3]
        if value is not None and len(value) not in (1, channels):
            raise ValueError(
                f"If value is a sequence, it should have either a single value or {channels} (number of input channels)"
            )
        top, left, height, width, fill = self.get_params(img, self.scale, self.ratio, value)
        return F.erase(img, top, left, height, width, fill, self.inplace)

    def __repr__(self):
        return (
            f"{self.__class__.__name__}(p={self.p}, scale={self.scale}, ratio={self.ratio}, value={self.value}, "
            f"inplace={self.inplace})"
        )


class FiveCrop(Module):
    """The four corner crops and the centre crop of `size`, as a tuple."""

    def __init__(self, size):
        super().__init__()
        self.size = _size_pair(size, "Please provide only two dimensions (h, w) for size.")

    def forward(self, img):
        return F.five_crop(img, self.size)

    def __repr__(self):
        return f"{self.__class__.__name__}(size={self.size})"


class TenCrop(Module):
    """FiveCrop of the image and of its flipped version."""

    def __init__(self, size, vertical_flip=False):
        super().__init__()
        self.size = _size_pair(size, "Please provide only two dimensions (h, w) for size.")
        self.vertical_flip = vertical_flip

    def forward(self, img):
        return F.ten_crop(img, self.size, self.vertical_flip)

    def __repr__(self):
        return f"{self.__class__.__name__}(size={self.size}, vertical_flip={self.vertical_flip})"
