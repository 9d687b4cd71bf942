"""v2 transforms of detection pipelines (torchvision's detection references and tutorial):
RandomPhotometricDistort (colour, so boxes and masks pass), RandomZoomOut (a random pad onto a larger
canvas) and RandomIoUCrop (a random crop that keeps boxes), which move them."""

import ember

from ..._pil import is_pil_image
from ... import tv_tensors
from .. import functional as F
from ._transform import ANNOTATIONS, Transform, leaves, rebuild

__all__ = ["RandomIoUCrop", "RandomPhotometricDistort", "RandomZoomOut", "permute_channels"]


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


class RandomIoUCrop(Transform):
    """SSD's random crop: pick a minimum IoU from `sampler_options` (1.0 or more: no crop), then try up
    to `trials` crops (sides `min_scale`..`max_scale` of the image, aspect ratio within bounds) until one
    holds a box centre and overlaps some such box by that IoU. Boxes whose centres fall outside are
    set to zeros, for a SanitizeBoundingBoxes after it to drop. The sample must hold boxes."""

    _annotations = "move"

    def __init__(
        self, min_scale=0.3, max_scale=1.0, min_aspect_ratio=0.5, max_aspect_ratio=2.0, sampler_options=None, trials=40
    ):
        self.min_scale, self.max_scale = min_scale, max_scale
        self.min_aspect_ratio, self.max_aspect_ratio = min_aspect_ratio, max_aspect_ratio
        self.options = [0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0] if sampler_options is None else sampler_options
        self.trials = trials

    def __call__(self, *inputs):
        sample = inputs if len(inputs) > 1 else inputs[0]
        found = leaves(sample, [])
        chosen = self._parts_to_transform(found)
        boxes = [leaf for leaf in found if isinstance(leaf, tv_tensors.BoundingBoxes)]
        pixels = [leaf for leaf in found if id(leaf) in chosen and not isinstance(leaf, ANNOTATIONS)]
        if not boxes or not pixels:
            raise TypeError("RandomIoUCrop() requires input sample to contain tensor or PIL images and bounding boxes")
        crop = self._crop_parameters(F.get_dimensions(pixels[0])[1:], boxes[0])
        if crop is None:
            return sample
        top, left, height, width, inside = crop

        def replace(leaf):
            if id(leaf) not in chosen:
                return leaf
            output = F.crop(leaf, top, left, height, width)
            if isinstance(output, tv_tensors.BoundingBoxes):
                output[~inside] = 0  # degenerate: a later SanitizeBoundingBoxes drops them
            return output

        return rebuild(sample, replace)

    def _crop_parameters(self, size, boxes):
        height, width = size
        from ...ops.boxes import box_iou
        from ._boxes import convert_bounding_box_format

        xyxy = convert_bounding_box_format(boxes, new_format="XYXY").as_subclass(ember.Tensor)
        centre_x, centre_y = 0.5 * (xyxy[..., 0] + xyxy[..., 2]), 0.5 * (xyxy[..., 1] + xyxy[..., 3])
        while True:
            min_overlap = self.options[int(ember.randint(0, len(self.options), (1,)).item())]
            if min_overlap >= 1.0:
                return None
            for _ in range(self.trials):
                scales = self.min_scale + (self.max_scale - self.min_scale) * ember.rand(2)
                new_width, new_height = int(width * float(scales[0])), int(height * float(scales[1]))
                if new_height == 0 or not self.min_aspect_ratio <= new_width / new_height <= self.max_aspect_ratio:
                    continue
                offsets = ember.rand(2)
                left, top = int((width - new_width) * float(offsets[0])), int((height - new_height) * float(offsets[1]))
                right, bottom = left + new_width, top + new_height
                if left == right or top == bottom:
                    continue
                inside = (left < centre_x) & (centre_x < right) & (top < centre_y) & (centre_y < bottom)
                if not inside.any():
                    continue
                window = ember.tensor([[left, top, right, bottom]], dtype=xyxy.dtype)
                if box_iou(xyxy[inside], window).max() < min_overlap:
                    continue
                return top, left, new_height, new_width, inside

    def __repr__(self):
        return f"{type(self).__name__}(min_scale={self.min_scale}, max_scale={self.max_scale})"
