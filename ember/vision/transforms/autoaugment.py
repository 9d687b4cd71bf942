"""Automatic augmentation: RandAugment and TrivialAugmentWide, and the single random photometric transforms.

Each augmentation picks an operation and a magnitude from a table of magnitude bins, as torchvision's
do, and draws from ember's global generator. AutoAugment (its learned policy tables) and AugMix are
not provided.
"""

import math

import ember

from ..._backend import np
from ..._tensor import Tensor
from ...nn.modules.module import Module
from . import functional as F
from .functional import InterpolationMode, _interpolation_mode

__all__ = [
    "RandAugment",
    "TrivialAugmentWide",
    "RandomPosterize",
    "RandomSolarize",
    "RandomAdjustSharpness",
    "RandomAutocontrast",
    "RandomEqualize",
]


def _apply_op(img, op_name, magnitude, interpolation, fill):
    """One augmentation operation at `magnitude` (shears are slopes, translations pixels, rotations degrees)."""
    if op_name == "ShearX":  # shear about the top-left corner, as the original implementations do
        return F.affine(
            img,
            angle=0.0,
            translate=[0, 0],
            scale=1.0,
            shear=[math.degrees(math.atan(magnitude)), 0.0],
            interpolation=interpolation,
            fill=fill,
            center=[0, 0],
        )
    if op_name == "ShearY":
        return F.affine(
            img,
            angle=0.0,
            translate=[0, 0],
            scale=1.0,
            shear=[0.0, math.degrees(math.atan(magnitude))],
            interpolation=interpolation,
            fill=fill,
            center=[0, 0],
        )
    if op_name == "TranslateX":
        return F.affine(
            img,
            angle=0.0,
            translate=[int(magnitude), 0],
            scale=1.0,
            shear=[0.0, 0.0],
            interpolation=interpolation,
            fill=fill,
        )
    if op_name == "TranslateY":
        return F.affine(
            img,
            angle=0.0,
            translate=[0, int(magnitude)],
            scale=1.0,
            shear=[0.0, 0.0],
            interpolation=interpolation,
            fill=fill,
        )
    if op_name == "Rotate":
        return F.rotate(img, magnitude, interpolation=interpolation, fill=fill)
    adjustments = {
        "Brightness": F.adjust_brightness,
        "Color": F.adjust_saturation,
        "Contrast": F.adjust_contrast,
        "Sharpness": F.adjust_sharpness,
    }
    if op_name in adjustments:
        return adjustments[op_name](img, 1.0 + magnitude)
    if op_name == "Posterize":
        return F.posterize(img, int(magnitude))
    if op_name == "Solarize":
        return F.solarize(img, magnitude)
    if op_name == "AutoContrast":
        return F.autocontrast(img)
    if op_name == "Equalize":
        return F.equalize(img)
    if op_name == "Invert":
        return F.invert(img)
    if op_name == "Identity":
        return img
    raise ValueError(f"The provided operator {op_name} is not recognized.")


def _tensor_fill(fill, img):
    if not isinstance(img, Tensor) or fill is None:
        return fill
    if isinstance(fill, (int, float)):
        return [float(fill)] * F.get_image_num_channels(img)
    return [float(value) for value in fill]


def _randint(high):
    return int(ember.randint(0, high, (1,)).item())


class _Augment(Module):
    def __init__(self, interpolation=InterpolationMode.NEAREST, fill=None):
        super().__init__()
        self.interpolation = _interpolation_mode(interpolation)
        self.fill = fill

    def _apply_random_op(self, img, space, magnitude_index):
        names = list(space)
        op_name = names[_randint(len(names))]
        magnitudes, signed = space[op_name]
        magnitude = float(magnitudes[magnitude_index(len(magnitudes))]) if magnitudes.ndim > 0 else 0.0
        if signed and _randint(2):
            magnitude = -magnitude
        return _apply_op(img, op_name, magnitude, self.interpolation, _tensor_fill(self.fill, img))


def _posterize_bits(num_bins, lowest):
    return 8 - np.round(np.arange(num_bins) / ((num_bins - 1) / lowest)).astype(np.int64)


class RandAugment(_Augment):
    """Apply `num_ops` operations picked at random, all at the same `magnitude` (of `num_magnitude_bins`)."""

    def __init__(
        self, num_ops=2, magnitude=9, num_magnitude_bins=31, interpolation=InterpolationMode.NEAREST, fill=None
    ):
        super().__init__(interpolation, fill)
        self.num_ops, self.magnitude, self.num_magnitude_bins = num_ops, magnitude, num_magnitude_bins

    def _augmentation_space(self, num_bins, image_size):
        width, height = image_size
        return {
            "Identity": (np.array(0.0), False),
            "ShearX": (np.linspace(0.0, 0.3, num_bins), True),
            "ShearY": (np.linspace(0.0, 0.3, num_bins), True),
            "TranslateX": (np.linspace(0.0, 150.0 / 331.0 * width, num_bins), True),
            "TranslateY": (np.linspace(0.0, 150.0 / 331.0 * height, num_bins), True),
            "Rotate": (np.linspace(0.0, 30.0, num_bins), True),
            "Brightness": (np.linspace(0.0, 0.9, num_bins), True),
            "Color": (np.linspace(0.0, 0.9, num_bins), True),
            "Contrast": (np.linspace(0.0, 0.9, num_bins), True),
            "Sharpness": (np.linspace(0.0, 0.9, num_bins), True),
            "Posterize": (_posterize_bits(num_bins, 4), False),
            "Solarize": (np.linspace(255.0, 0.0, num_bins), False),
            "AutoContrast": (np.array(0.0), False),
            "Equalize": (np.array(0.0), False),
        }

    def forward(self, img):
        for _ in range(self.num_ops):
            space = self._augmentation_space(self.num_magnitude_bins, F.get_image_size(img))
            img = self._apply_random_op(img, space, lambda count: self.magnitude)
        return img

    def __repr__(self):
        return (
            f"{self.__class__.__name__}(num_ops={self.num_ops}, magnitude={self.magnitude}, "
            f"num_magnitude_bins={self.num_magnitude_bins}, interpolation={self.interpolation}, fill={self.fill})"
        )


class TrivialAugmentWide(_Augment):
    """Apply one operation picked at random at a random magnitude (Müller & Hutter, 2021)."""

    def __init__(self, num_magnitude_bins=31, interpolation=InterpolationMode.NEAREST, fill=None):
        super().__init__(interpolation, fill)
        self.num_magnitude_bins = num_magnitude_bins

    def _augmentation_space(self, num_bins):
        return {
            "Identity": (np.array(0.0), False),
            "ShearX": (np.linspace(0.0, 0.99, num_bins), True),
            "ShearY": (np.linspace(0.0, 0.99, num_bins), True),
            "TranslateX": (np.linspace(0.0, 32.0, num_bins), True),
            "TranslateY": (np.linspace(0.0, 32.0, num_bins), True),
            "Rotate": (np.linspace(0.0, 135.0, num_bins), True),
            "Brightness": (np.linspace(0.0, 0.99, num_bins), True),
            "Color": (np.linspace(0.0, 0.99, num_bins), True),
            "Contrast": (np.linspace(0.0, 0.99, num_bins), True),
            "Sharpness": (np.linspace(0.0, 0.99, num_bins), True),
            "Posterize": (_posterize_bits(num_bins, 6), False),
            "Solarize": (np.linspace(255.0, 0.0, num_bins), False),
            "AutoContrast": (np.array(0.0), False),
            "Equalize": (np.array(0.0), False),
        }

    def forward(self, img):
        return self._apply_random_op(img, self._augmentation_space(self.num_magnitude_bins), _randint)

    def __repr__(self):
        return (
            f"{self.__class__.__name__}(num_magnitude_bins={self.num_magnitude_bins}, "
            f"interpolation={self.interpolation}, fill={self.fill})"
        )


class _RandomApplyOne(Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def _apply(self, img):
        raise NotImplementedError

    def forward(self, img):
        return self._apply(img) if float(ember.rand(1).item()) < self.p else img

    def __repr__(self):
        return f"{self.__class__.__name__}(p={self.p})"


class RandomPosterize(_RandomApplyOne):
    """posterize(img, bits) with probability p."""

    def __init__(self, bits, p=0.5):
        super().__init__(p)
        self.bits = bits

    def _apply(self, img):
        return F.posterize(img, self.bits)


class RandomSolarize(_RandomApplyOne):
    """solarize(img, threshold) with probability p."""

    def __init__(self, threshold, p=0.5):
        super().__init__(p)
        self.threshold = threshold

    def _apply(self, img):
        return F.solarize(img, self.threshold)


class RandomAdjustSharpness(_RandomApplyOne):
    """adjust_sharpness(img, sharpness_factor) with probability p."""

    def __init__(self, sharpness_factor, p=0.5):
        super().__init__(p)
        self.sharpness_factor = sharpness_factor

    def _apply(self, img):
        return F.adjust_sharpness(img, self.sharpness_factor)


class RandomAutocontrast(_RandomApplyOne):
    """autocontrast(img) with probability p."""

    def _apply(self, img):
        return F.autocontrast(img)


class RandomEqualize(_RandomApplyOne):
    """equalize(img) with probability p."""

    def _apply(self, img):
        return F.equalize(img)
