"""What the geometric functions of `transforms.functional` do with tv_tensors (ember.vision.tv_tensors).

`functional` sends a tv_tensor here (`apply`), so that every transform built on those functions
(RandomResizedCrop, CenterCrop, FiveCrop, RandomCrop with padding ...) moves boxes with the pixels:
- Image, Video: the tensor path, and the result wrapped back into the class;
- Mask: the tensor path with nearest-neighbour resampling (labels are not averaged);
- BoundingBoxes (unrotated formats) and KeyPoints: their coordinate kernels below, which also
  update `canvas_size`; a function without one raises NotImplementedError rather than leave the
  coordinates where they were.
The formulas are torchvision's: boxes are continuous coordinates (an hflip maps x to W - x), key points
are pixel indices (W - 1 - x); crops and pads clamp boxes to the new canvas unless their
`clamping_mode` is None.
"""

import inspect

from ... import _tensor
from ...ops import creation, joining
from .. import tv_tensors as tv

__all__ = ["apply", "convert_format", "clamp"]

Tensor = _tensor.Tensor
Format = tv.BoundingBoxFormat
_RESAMPLING = ("resize", "rotate", "affine")  # the functions that take `interpolation`


def apply(function, inpt, args, kwargs):
    """`function(inpt, *args, **kwargs)` for a Tensor subclass `inpt` (see the module docstring)."""
    if not isinstance(inpt, tv.TVTensor) or type(inpt) not in _KINDS:
        return function(inpt, *args, **kwargs)
    arguments = inspect.signature(function).bind(inpt, *args, **kwargs)
    arguments.apply_defaults()
    named = dict(arguments.arguments)
    return _KINDS[type(inpt)](function, inpt, named)


def _pixels(function, inpt, named):
    named[next(iter(named))] = inpt.as_subclass(Tensor)
    return _rewrapped(function(**named), inpt)


def _mask(function, inpt, named):
    plain = inpt.as_subclass(Tensor)
    flat = plain.ndim < 3
    named[next(iter(named))] = plain.unsqueeze(0) if flat else plain
    if function.__name__ in _RESAMPLING:
        from .functional import InterpolationMode

        named["interpolation"] = InterpolationMode.NEAREST
        if "antialias" in named:
            named["antialias"] = False
    result = function(**named)
    if isinstance(result, Tensor) and flat:
        result = result.squeeze(0)
    return _rewrapped(result, inpt)


def _rewrapped(result, like):
    return tv.wrap(result, like=like) if isinstance(result, Tensor) else result


def _coordinates(kernels, kind):
    def transform(function, inpt, named):
        kernel = kernels.get(function.__name__)
        if kernel is None:
            raise NotImplementedError(
                f"{function.__name__}() has no kernel for {kind} in ember (supported: "
                f"{', '.join(sorted(kernels))}); transform the image alone, or convert the {kind} yourself"
            )
        if kind == "BoundingBoxes" and tv.is_rotated_bounding_format(inpt.format):
            raise NotImplementedError(f"{function.__name__}() of rotated bounding boxes ({inpt.format}) in ember")
        named.pop(next(iter(named)))
        return kernel(inpt, inpt.as_subclass(Tensor), **named)

    return transform


# ------------------------------------------------------------------ box formats and clamping
def _float(values):
    return values if values.is_floating_point() else values.float()


def convert_format(boxes, old_format, new_format):
    """Plain (N, 4) boxes from `old_format` to `new_format` (unrotated), integer arithmetic kept integral."""
    old_format, new_format = tv._format(old_format), tv._format(new_format)
    if old_format == new_format:
        return boxes.clone()
    rounding = None if boxes.is_floating_point() else "floor"
    first, second = boxes[..., :2], boxes[..., 2:]
    if old_format == Format.XYWH:
        boxes = joining.cat([first, first + second], -1)
    elif old_format == Format.CXCYWH:
        half = second.div(-2, rounding_mode=rounding).abs()
        corner = first - half
        boxes = joining.cat([corner, corner + second], -1)
    first, second = boxes[..., :2], boxes[..., 2:]
    if new_format == Format.XYWH:
        return joining.cat([first, second - first], -1)
    if new_format == Format.CXCYWH:
        size = second - first
        return joining.cat([(first * 2 + size).div(2, rounding_mode=rounding), size], -1)
    return boxes


def clamp(boxes, format, canvas_size, clamping_mode="soft"):
    """Plain boxes kept inside a canvas of (height, width) (soft and hard agree for unrotated boxes)."""
    if clamping_mode is None:
        return boxes.clone()
    xyxy = convert_format(_float(boxes), format, Format.XYXY)
    height, width = canvas_size
    xyxy = joining.stack(
        [xyxy[..., 0].clamp(0, width), xyxy[..., 1].clamp(0, height), xyxy[..., 2].clamp(0, width),
         xyxy[..., 3].clamp(0, height)],
        -1,
    )  # fmt: skip
    return convert_format(xyxy, Format.XYXY, format).to(boxes.dtype)


def _offsets(format, left, top):
    """What a shift of the canvas by (left, top) adds to each number of a box."""
    return [left, top, left, top] if format == Format.XYXY else [left, top, 0, 0]


def _like(like, values, **metadata):
    return tv.wrap(values, like=like, **metadata)


# ------------------------------------------------------------------ bounding-box kernels
def _box_dimensions(inpt, boxes):
    return [1, *inpt.canvas_size]


def _box_hflip(inpt, boxes):
    return _like(inpt, _mirror(boxes, inpt.format, inpt.canvas_size[1], 0))


def _box_vflip(inpt, boxes):
    return _like(inpt, _mirror(boxes, inpt.format, inpt.canvas_size[0], 1))


def _mirror(boxes, format, extent, axis):
    """Boxes mirrored along `axis` (0: x, 1: y) of a canvas `extent` wide."""
    columns = list(boxes.unbind(-1))
    if format == Format.XYXY:
        columns[axis], columns[axis + 2] = extent - columns[axis + 2], extent - columns[axis]
    elif format == Format.XYWH:
        columns[axis] = extent - (columns[axis] + columns[axis + 2])
    else:
        columns[axis] = extent - columns[axis]
    return joining.stack(columns, -1)


def _box_crop(inpt, boxes, top, left, height, width):
    shifted = boxes - creation.tensor(_offsets(inpt.format, left, top), dtype=boxes.dtype)
    canvas = (height, width)
    return _like(inpt, clamp(shifted, inpt.format, canvas, inpt.clamping_mode), canvas_size=canvas)


def _box_pad(inpt, boxes, padding, fill=0, padding_mode="constant"):
    if padding_mode != "constant":
        raise ValueError(f"Padding mode '{padding_mode}' is not supported with bounding boxes")
    from .functional import _padding_ltrb

    left, top, right, bottom = _padding_ltrb(padding)
    shifted = boxes + creation.tensor(_offsets(inpt.format, left, top), dtype=boxes.dtype)
    canvas = (inpt.canvas_size[0] + top + bottom, inpt.canvas_size[1] + left + right)
    return _like(inpt, clamp(shifted, inpt.format, canvas, inpt.clamping_mode), canvas_size=canvas)


def _resize_ratios(canvas_size, size, max_size):
    from .functional import _output_size

    height, width = canvas_size
    new_height, new_width = _output_size(height, width, size, max_size)
    return new_width / width, new_height / height, (new_height, new_width)


def _box_resize(inpt, boxes, size, interpolation=None, max_size=None, antialias=True):
    w_ratio, h_ratio, canvas = _resize_ratios(inpt.canvas_size, size, max_size)
    if canvas == inpt.canvas_size:
        return inpt
    scaled = boxes.mul(creation.tensor([w_ratio, h_ratio, w_ratio, h_ratio])).to(boxes.dtype)
    return _like(inpt, scaled, canvas_size=canvas)


# ------------------------------------------------------------------ key-point kernels
def _point_hflip(inpt, points):
    x, y = points.unbind(-1)
    return _like(inpt, joining.stack([(inpt.canvas_size[1] - 1) - x, y], -1))


def _point_vflip(inpt, points):
    x, y = points.unbind(-1)
    return _like(inpt, joining.stack([x, (inpt.canvas_size[0] - 1) - y], -1))


def _point_crop(inpt, points, top, left, height, width):
    return _like(inpt, points - creation.tensor([left, top], dtype=points.dtype), canvas_size=(height, width))


def _point_pad(inpt, points, padding, fill=0, padding_mode="constant"):
    from .functional import _padding_ltrb

    left, top, right, bottom = _padding_ltrb(padding)
    canvas = (inpt.canvas_size[0] + top + bottom, inpt.canvas_size[1] + left + right)
    return _like(inpt, points + creation.tensor([left, top], dtype=points.dtype), canvas_size=canvas)


def _point_resize(inpt, points, size, interpolation=None, max_size=None, antialias=True):
    w_ratio, h_ratio, canvas = _resize_ratios(inpt.canvas_size, size, max_size)
    if canvas == inpt.canvas_size:
        return inpt
    return _like(inpt, points.mul(creation.tensor([w_ratio, h_ratio])).to(points.dtype), canvas_size=canvas)


_BOX_KERNELS = {
    "get_dimensions": _box_dimensions,
    "hflip": _box_hflip,
    "vflip": _box_vflip,
    "crop": _box_crop,
    "pad": _box_pad,
    "resize": _box_resize,
}
_POINT_KERNELS = {
    "get_dimensions": _box_dimensions,
    "hflip": _point_hflip,
    "vflip": _point_vflip,
    "crop": _point_crop,
    "pad": _point_pad,
    "resize": _point_resize,
}
_KINDS = {
    tv.Image: _pixels,
    tv.Video: _pixels,
    tv.Mask: _mask,
    tv.BoundingBoxes: _coordinates(_BOX_KERNELS, "BoundingBoxes"),
    tv.KeyPoints: _coordinates(_POINT_KERNELS, "KeyPoints"),
}
