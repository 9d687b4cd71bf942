"""torchvision.tv_tensors: Tensor subclasses that tell the v2 transforms what a tensor holds.

An `Image` or `Video` is transformed as pixels, a `Mask` as labels (nearest-neighbour resampling,
no colour changes), `BoundingBoxes` and `KeyPoints` as coordinates on a canvas of `canvas_size`
(height, width), moved by the geometric transforms. Ops on them return plain tensors (only `clone`,
`to`, `detach` and `requires_grad_` keep the class), as torchvision's do; `set_return_type("TVTensor")`
keeps the class through every op, and `wrap(tensor, like=...)` gives a tensor the class and metadata
of another.

Differences from torchvision: the geometric kernels for BoundingBoxes cover the unrotated formats
(XYXY, XYWH, CXCYWH); rotated boxes (XYWHR, CXCYWHR, XYXYXYXY) can be made, converted and printed,
and a geometric transform of them raises NotImplementedError.
"""

import enum

from .. import _tensor
from .._torch_function import DisableTorchFunctionSubclass
from ..ops import creation

__all__ = [
    "TVTensor",
    "Image",
    "Video",
    "Mask",
    "BoundingBoxes",
    "BoundingBoxFormat",
    "KeyPoints",
    "is_rotated_bounding_format",
    "set_return_type",
    "wrap",
]

Tensor = _tensor.Tensor


class _ReturnType:
    subclass = False  # set_return_type("TVTensor"): ops keep the class


class set_return_type:
    """Whether ops on tv_tensors return plain tensors ("Tensor", the default) or keep their class
    ("TVTensor"): for the whole program, or inside a `with` block. The transforms always keep it."""

    def __init__(self, return_type):
        choices = {"tensor": False, "tvtensor": True, "tv_tensor": True}
        if return_type.lower() not in choices:
            raise ValueError(f"return_type must be 'Tensor' or 'TVTensor', got {return_type!r}")
        self._previous, _ReturnType.subclass = _ReturnType.subclass, choices[return_type.lower()]

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        _ReturnType.subclass = self._previous


class TVTensor(Tensor):
    """Base of the tv_tensors: its `__torch_function__` makes op results plain tensors."""

    @staticmethod
    def _to_tensor(data, dtype=None, device=None, requires_grad=None):
        if requires_grad is None:
            requires_grad = data.requires_grad if isinstance(data, Tensor) else False
        return creation.as_tensor(data, dtype=dtype, device=device).requires_grad_(requires_grad)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if not all(issubclass(cls, kind) for kind in types):
            return NotImplemented
        with DisableTorchFunctionSubclass():
            output = func(*args, **(kwargs or {}))
            if _ReturnType.subclass or (func in _KEEP_CLASS and args and isinstance(args[0], cls)):
                return cls._wrap_output(output, args, kwargs)
            if isinstance(output, cls):  # an in-place op returned its input
                return output.as_subclass(Tensor)
            return output

    @classmethod
    def _wrap_output(cls, output, args=(), kwargs=None):
        """Op results as `cls` (the metadata of subclasses that have some comes from the first argument
        of their class)."""
        if isinstance(output, Tensor):
            return output if isinstance(output, cls) else cls._rewrap(output, _first_of(cls, args, kwargs))
        if isinstance(output, (tuple, list)):
            return type(output)(cls._wrap_output(part, args, kwargs) for part in output)
        return output

    @classmethod
    def _rewrap(cls, tensor, like, **metadata):
        return tensor.as_subclass(cls)

    def __wrap__(self, tensor, **metadata):
        """`wrap(tensor, like=self, **metadata)`."""
        return type(self)._rewrap(tensor, self, **metadata)

    def _make_repr(self, **metadata):
        extra = ", ".join(f"{key}={value}" for key, value in metadata.items())
        return f"{Tensor.__repr__(self)[:-1]}, {extra})"

    def __deepcopy__(self, memo):
        return self.detach().clone().requires_grad_(self.requires_grad)


_KEEP_CLASS = frozenset((Tensor.clone, Tensor.to, Tensor.detach, Tensor.requires_grad_))


def _first_of(cls, args, kwargs):
    for value in (*args, *(kwargs or {}).values()):
        for item in value if type(value) in (tuple, list) else (value,):
            if isinstance(item, cls):
                return item
    return None


def _pil_to_tensor(data):
    from .transforms.functional import pil_to_tensor

    return pil_to_tensor(data)


def _is_pil(data):
    from ._pil import is_pil_image

    return is_pil_image(data)


class Image(TVTensor):
    """An image (or a batch of them) of shape (..., C, H, W); a (H, W) one gets its channel dimension.
    `data` is anything `ember.as_tensor` takes, or a PIL image."""

    def __new__(cls, data, *, dtype=None, device=None, requires_grad=None):
        if _is_pil(data):
            data = _pil_to_tensor(data)
        tensor = cls._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        if tensor.ndim < 2:
            raise ValueError(f"Image needs at least 2 dimensions (H, W), got shape {tuple(tensor.shape)}")
        if tensor.ndim == 2:
            tensor = tensor.unsqueeze(0)
        return tensor.as_subclass(cls)

    def __repr__(self):
        return self._make_repr()


class Video(TVTensor):
    """A video of shape (..., T, C, H, W)."""

    def __new__(cls, data, *, dtype=None, device=None, requires_grad=None):
        tensor = cls._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        if tensor.ndim < 4:
            raise ValueError(f"Video needs at least 4 dimensions (T, C, H, W), got shape {tuple(tensor.shape)}")
        return tensor.as_subclass(cls)

    def __repr__(self):
        return self._make_repr()


class Mask(TVTensor):
    """Segmentation or detection masks, at least (H, W): labels, which transforms resample by nearest
    neighbour and leave out of colour changes."""

    def __new__(cls, data, *, dtype=None, device=None, requires_grad=None):
        if _is_pil(data):
            data = _pil_to_tensor(data)
        return cls._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad).as_subclass(cls)


class BoundingBoxFormat(enum.Enum):
    """How the numbers of a box are laid out: corners (XYXY), corner and size (XYWH), centre and size
    (CXCYWH), and the rotated formats (XYWHR, CXCYWHR with an angle in degrees; XYXYXYXY, four corners)."""

    XYXY = "XYXY"
    XYWH = "XYWH"
    CXCYWH = "CXCYWH"
    XYWHR = "XYWHR"
    CXCYWHR = "CXCYWHR"
    XYXYXYXY = "XYXYXYXY"


def _format(format):
    if isinstance(format, BoundingBoxFormat):
        return format
    if isinstance(format, str) and format.upper() in BoundingBoxFormat.__members__:
        return BoundingBoxFormat[format.upper()]
    raise ValueError(
        f"format must be a BoundingBoxFormat or one of {list(BoundingBoxFormat.__members__)}, got {format!r}"
    )


def is_rotated_bounding_format(format):
    """Whether `format` is one of the rotated box formats."""
    if not isinstance(format, (BoundingBoxFormat, str)):
        raise ValueError(f"format should be str or BoundingBoxFormat, got {type(format)}")
    return _format(format) in (BoundingBoxFormat.XYWHR, BoundingBoxFormat.CXCYWHR, BoundingBoxFormat.XYXYXYXY)


class BoundingBoxes(TVTensor):
    """N boxes of shape (N, K) (K = 4, or 5 / 8 for rotated formats; one box of shape (K,) becomes
    (1, K)) in `format`, on a canvas of `canvas_size` = (height, width). `clamping_mode` ("soft",
    "hard", or None for none) is how transforms keep boxes inside the canvas."""

    def __new__(cls, data, *, format, canvas_size, clamping_mode="soft", dtype=None, device=None, requires_grad=None):
        tensor = cls._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        if not tensor.is_floating_point() and is_rotated_bounding_format(format):
            raise ValueError(f"Rotated bounding boxes should be floating point tensors, got {tensor.dtype}.")
        return cls._wrap(tensor, format=format, canvas_size=canvas_size, clamping_mode=clamping_mode)

    @classmethod
    def _wrap(cls, tensor, *, format, canvas_size, clamping_mode="soft", check_dims=True):
        if check_dims:
            if tensor.ndim == 1:
                tensor = tensor.unsqueeze(0)
            elif tensor.ndim != 2:
                raise ValueError(f"Expected a 1D or 2D tensor, got {tensor.ndim}D")
        if clamping_mode not in ("soft", "hard", None):
            raise ValueError(f"clamping_mode must be 'soft', 'hard' or None, got {clamping_mode!r}")
        boxes = tensor.as_subclass(cls)
        boxes.format, boxes.canvas_size, boxes.clamping_mode = _format(format), tuple(canvas_size), clamping_mode
        return boxes

    @classmethod
    def _rewrap(cls, tensor, like, **metadata):
        return cls._wrap(
            tensor,
            format=metadata.get("format", like.format),
            canvas_size=metadata.get("canvas_size", like.canvas_size),
            clamping_mode=metadata.get("clamping_mode", like.clamping_mode),
            check_dims=False,
        )

    def __repr__(self):
        return self._make_repr(format=self.format, canvas_size=self.canvas_size, clamping_mode=self.clamping_mode)


class KeyPoints(TVTensor):
    """Points (x, y) of shape (..., 2) on a canvas of `canvas_size` = (height, width): polygons,
    polylines, skeletons. One point of shape (2,) becomes (1, 2)."""

    def __new__(cls, data, *, canvas_size, dtype=None, device=None, requires_grad=None):
        tensor = cls._to_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        if tensor.ndim == 1:
            tensor = tensor.unsqueeze(0)
        elif tensor.shape[-1] != 2:
            raise ValueError(f"Expected a tensor of shape (..., 2), not {tuple(tensor.shape)}")
        return cls._rewrap(tensor, None, canvas_size=canvas_size)

    @classmethod
    def _rewrap(cls, tensor, like, **metadata):
        points = tensor.as_subclass(cls)
        points.canvas_size = tuple(metadata.get("canvas_size", like.canvas_size if like is not None else None))
        return points

    def __repr__(self):
        return self._make_repr(canvas_size=self.canvas_size)


def wrap(wrappee, *, like, **kwargs):
    """`wrappee` (a tensor) as an instance of `like`'s class with `like`'s metadata, less what `kwargs`
    overrides (BoundingBoxes: format, canvas_size, clamping_mode; KeyPoints: canvas_size)."""
    if not hasattr(like, "__wrap__"):
        raise TypeError(f"Expected `like` to have a `__wrap__` method, but got {type(like)}")
    return like.__wrap__(wrappee, **kwargs)
