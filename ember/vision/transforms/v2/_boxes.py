"""The v2 transforms of bounding boxes themselves: change their format, clamp them to the canvas, and
drop the degenerate ones together with their labels and masks."""

from .... import _tensor
from ... import tv_tensors
from .. import _tv_kernels
from ._transform import Transform, leaves, rebuild

__all__ = [
    "ClampBoundingBoxes",
    "ConvertBoundingBoxFormat",
    "SanitizeBoundingBoxes",
    "clamp_bounding_boxes",
    "convert_bounding_box_format",
]

Tensor = _tensor.Tensor


def convert_bounding_box_format(inpt, old_format=None, new_format=None, inplace=False):
    """Boxes in `new_format`: BoundingBoxes (their own format is the old one), or a plain tensor of
    boxes with `old_format` given. `inplace` is accepted for torchvision's signature (a new tensor is made)."""
    if new_format is None:
        raise TypeError("convert_bounding_box_format() missing 1 required argument: 'new_format'")
    if isinstance(inpt, tv_tensors.BoundingBoxes):
        if old_format is not None:
            raise ValueError("For bounding box tv_tensor inputs, `old_format` must not be passed.")
        _unrotated(inpt.format, "convert_bounding_box_format")
        output = _tv_kernels.convert_format(inpt.as_subclass(Tensor), inpt.format, new_format)
        return tv_tensors.wrap(output, like=inpt, format=tv_tensors._format(new_format))
    if isinstance(inpt, Tensor) and not isinstance(inpt, tv_tensors.TVTensor):
        if old_format is None:
            raise ValueError("For pure tensor inputs, `old_format` has to be passed.")
        _unrotated(old_format, "convert_bounding_box_format")
        return _tv_kernels.convert_format(inpt, old_format, new_format)
    raise TypeError(f"Input can either be a plain tensor or a bounding box tv_tensor, but got {type(inpt)} instead.")


def clamp_bounding_boxes(inpt, format=None, canvas_size=None, clamping_mode="auto"):
    """Boxes clamped to their canvas: BoundingBoxes (their own format, canvas and, for "auto", clamping
    mode), or a plain tensor with `format` and `canvas_size` given ("auto" is "soft" then)."""
    if isinstance(inpt, tv_tensors.BoundingBoxes):
        if format is not None or canvas_size is not None:
            raise ValueError("For bounding box tv_tensor inputs, `format` and `canvas_size` must not be passed.")
        mode = inpt.clamping_mode if clamping_mode == "auto" else clamping_mode
        _unrotated(inpt.format, "clamp_bounding_boxes")
        output = _tv_kernels.clamp(inpt.as_subclass(Tensor), inpt.format, inpt.canvas_size, mode)
        return tv_tensors.wrap(output, like=inpt)
    if isinstance(inpt, Tensor) and not isinstance(inpt, tv_tensors.TVTensor):
        if format is None or canvas_size is None:
            raise ValueError("For pure tensor inputs, `format` and `canvas_size` have to be passed.")
        _unrotated(format, "clamp_bounding_boxes")
        return _tv_kernels.clamp(inpt, format, canvas_size, "soft" if clamping_mode == "auto" else clamping_mode)
    raise TypeError(f"Input can either be a plain tensor or a bounding box tv_tensor, but got {type(inpt)} instead.")


def _unrotated(format, what):
    if tv_tensors.is_rotated_bounding_format(format):
        raise NotImplementedError(f"{what}() of rotated bounding boxes ({format}) is not implemented in ember")


class _BoxTransform(Transform):
    """Applies `_transform_boxes` to the BoundingBoxes of a sample and passes the rest through."""

    def _parts_to_transform(self, found):
        return {id(leaf) for leaf in found if isinstance(leaf, tv_tensors.BoundingBoxes)}

    def _transform_image(self, boxes):
        return self._transform_boxes(boxes)


class ConvertBoundingBoxFormat(_BoxTransform):
    """Convert the boxes of a sample to `format` (a BoundingBoxFormat or its name)."""

    def __init__(self, format):
        self.format = tv_tensors._format(format)

    def _transform_boxes(self, boxes):
        return convert_bounding_box_format(boxes, new_format=self.format)

    def __repr__(self):
        return f"{type(self).__name__}(format={self.format})"


class ClampBoundingBoxes(_BoxTransform):
    """Clamp the boxes of a sample to their canvas ("auto": each box tensor's own clamping mode)."""

    def __init__(self, clamping_mode="auto"):
        self.clamping_mode = clamping_mode

    def _transform_boxes(self, boxes):
        return clamp_bounding_boxes(boxes, clamping_mode=self.clamping_mode)

    def __repr__(self):
        return f"{type(self).__name__}()"


class SanitizeBoundingBoxes(Transform):
    """Drop the boxes narrower or shorter than `min_size`, smaller than `min_area`, or outside the
    canvas, and the same rows of every Mask and of the labels (`labels_getter`: "default" finds a
    "labels" key in a dict sample or in the dict second in a tuple; a callable; or None)."""

    def __init__(self, min_size=1.0, min_area=1.0, labels_getter="default"):
        if min_size < 1:
            raise ValueError(f"min_size must be >= 1, got {min_size}.")
        if min_area < 1:
            raise ValueError(f"min_area must be >= 1, got {min_area}.")
        if not (labels_getter == "default" or labels_getter is None or callable(labels_getter)):
            raise ValueError(f"labels_getter should either be 'default', a callable, or None, but got {labels_getter}.")
        self.min_size, self.min_area, self.labels_getter = min_size, min_area, labels_getter

    def __call__(self, *inputs):
        sample = inputs if len(inputs) > 1 else inputs[0]
        labels = self._labels(sample)
        labels = () if labels is None else labels if isinstance(labels, tuple) else (labels,)
        boxes = [leaf for leaf in leaves(sample, []) if isinstance(leaf, tv_tensors.BoundingBoxes)]
        if len(boxes) != 1:
            raise ValueError(f"SanitizeBoundingBoxes needs exactly one BoundingBoxes in the sample, found {len(boxes)}")
        valid = self._valid(boxes[0])

        def replace(leaf):
            if any(leaf is label for label in labels):
                return leaf[valid]
            if isinstance(leaf, (tv_tensors.BoundingBoxes, tv_tensors.Mask)):
                return tv_tensors.wrap(leaf.as_subclass(Tensor)[valid], like=leaf)
            return leaf

        return rebuild(sample, replace)

    def _labels(self, sample):
        if self.labels_getter is None:
            return None
        if callable(self.labels_getter):
            return self.labels_getter(sample)
        found = sample[1] if isinstance(sample, (tuple, list)) and len(sample) > 1 else sample
        if isinstance(found, Tensor):
            return found
        if not isinstance(found, dict):
            raise ValueError(
                "When using the default labels_getter, the input passed to forward must be a dictionary or a "
                f"two-tuple whose second item is a dictionary or a tensor, but got {type(found).__name__} instead."
            )
        key = next((key for key in found if key.lower() == "labels"), None)
        key = key if key is not None else next((key for key in found if "label" in key.lower()), None)
        if key is None:
            raise ValueError(
                "Could not infer where the labels are in the sample. Try passing a callable as the labels_getter "
                "parameter? If there are no labels in the sample by design, pass labels_getter=None."
            )
        return found[key]

    def _valid(self, boxes):
        _unrotated(boxes.format, "SanitizeBoundingBoxes")
        plain = boxes.as_subclass(Tensor)
        xyxy = _tv_kernels.convert_format(plain, boxes.format, tv_tensors.BoundingBoxFormat.XYXY)
        widths, heights = xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1]
        height, width = boxes.canvas_size
        valid = (widths >= self.min_size) & (heights >= self.min_size) & (plain >= 0).all(dim=-1)
        valid &= (plain[:, 0] <= width) & (plain[:, 2] <= width) & (plain[:, 1] <= height) & (plain[:, 3] <= height)
        return valid & (widths * heights >= self.min_area)

    def __repr__(self):
        return f"{type(self).__name__}(min_size={self.min_size}, min_area={self.min_area})"
