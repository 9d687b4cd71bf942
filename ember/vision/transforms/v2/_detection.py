"""v2 transforms of detection pipelines (torchvision's detection references and tutorial):
RandomPhotometricDistort (colour, so boxes and masks pass) and RandomZoomOut (a random pad onto a
larger canvas, so they move)."""

import ember

from ..._pil import is_pil_image
from ... import tv_tensors
from .. import functional as F
from ._transform import Transform

__all__ = ["RandomPhotometricDistort", "RandomZoomOut", "permute_channels"]


def _uniform(low, high):
    return float(ember.empty(1).uniform_(low, high).item())


def _happens(p):
    return float(ember.rand(1).item()) < p


class RandomPhotometricDistort(Transform):
    """SSD's colour distortion: each of brightness, contrast, saturation and hue changes with
    probability p (contrast before or after the other two, at random), and the channels are shuffled
    with probability p."""

    def __init__(self, brightness=(0.875, 1.125), contrast=(0.5, 1.5), saturation=(0.5, 1.5), hue=(-0.05, 0.05), p=0.5):
        self.brightness, self.contrast, self.saturation, self.hue, self.p = brightness, contrast, saturation, hue, p

    def _transform_image(self, image):
        channels = F.get_dimensions(image)[0]
        factors = [
            _uniform(*bounds) if _happens(self.p) else None
            for bounds in (self.brightness, self.contrast, self.saturation, self.hue)
        ]
        brightness, contrast, saturation, hue = factors
        contrast_first = float(ember.rand(()).item()) < 0.5
        permutation = ember.randperm(channels) if _happens(self.p) else None
        if brightness is not None:
            image = F.adjust_brightness(image, brightness)
        if contrast is not None and contrast_first:
            image = F.adjust_contrast(image, contrast)
        if saturation is not None:
            image = F.adjust_saturation(image, saturation)
        if hue is not None:
            image = F.adjust_hue(image, hue)
        if contrast is not None and not contrast_first:
            image = F.adjust_contrast(image, contrast)
        if permutation is not None:
            image = permute_channels(image, permutation)
        return image

    def __repr__(self):
        return f"{type(self).__name__}(p={self.p})"


def permute_channels(inpt, permutation):
    """The channels of a (..., C, H, W) image in the order `permutation` gives."""
    if is_pil_image(inpt):
        inpt = F.pil_to_tensor(inpt)
    return inpt[..., permutation, :, :]


class RandomZoomOut(Transform):
    """With probability p, place the sample on a canvas `side_range` times its size (a random factor),
    at a random position, filled with `fill` (a number, or a dict by tv_tensor class with "others")."""

    _annotations = "move"

    def __init__(self, fill=0, side_range=(1.0, 4.0), p=0.5):
        if side_range[0] < 1.0 or side_range[0] > side_range[1]:
            raise ValueError(f"Invalid side range provided {side_range}.")
        self.fill, self.side_range, self.p = fill, side_range, p

    def _transform_image(self, inpt):
        if float(ember.rand(1).item()) >= self.p:
            return inpt
        _, height, width = F.get_dimensions(inpt)
        low, high = self.side_range
        ratio = low + float(ember.rand(1).item()) * (high - low)
        canvas_width, canvas_height = int(width * ratio), int(height * ratio)
        offsets = ember.rand(2)
        left, top = int((canvas_width - width) * float(offsets[0])), int((canvas_height - height) * float(offsets[1]))
        padding = [left, top, canvas_width - (left + width), canvas_height - (top + height)]
        return F.pad(inpt, padding, fill=_fill_for(self.fill, inpt))

    def __repr__(self):
        return f"{type(self).__name__}(fill={self.fill}, side_range={self.side_range}, p={self.p})"


def _fill_for(fill, inpt):
    """The fill of `inpt`'s class from a per-class dict (plain tensors and PIL images count as Images)."""
    if not isinstance(fill, dict):
        return fill
    kind = type(inpt) if isinstance(inpt, tv_tensors.TVTensor) else tv_tensors.Image
    return fill.get(kind, fill.get("others", 0))
