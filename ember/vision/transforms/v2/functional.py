"""torchvision.transforms.v2.functional: v1's functions (their geometric ones also take tv_tensors),
plus to_image, to_dtype and the bounding-box functions."""

from ...._backend import np
from ...._tensor import Tensor, new_tensor
from ..._pil import is_pil_image
from ..functional import *  # the public functions, listed in __all__
from ..functional import __all__ as _v1_names
from ..functional import convert_image_dtype, get_dimensions, hflip, pil_to_tensor, vflip
from ... import tv_tensors
from ._boxes import clamp_bounding_boxes, convert_bounding_box_format
from ._detection import permute_channels

__all__ = list(_v1_names) + [
    "to_image",
    "to_dtype",
    "horizontal_flip",
    "vertical_flip",
    "clamp_bounding_boxes",
    "convert_bounding_box_format",
    "get_size",
    "permute_channels",
]

horizontal_flip, vertical_flip = hflip, vflip  # v2's names


def get_size(inpt):
    """[height, width] of an image, video, mask, or of the canvas of boxes and key points."""
    return list(get_dimensions(inpt)[1:])


def to_image(inpt):
    """A PIL image, NumPy array (H, W[, C]) or tensor as a (C, H, W) tensor without rescaling."""
    if is_pil_image(inpt):
        return pil_to_tensor(inpt)
    if isinstance(inpt, Tensor):
        return inpt
    if isinstance(inpt, np.ndarray):
        array = inpt[:, :, None] if inpt.ndim == 2 else inpt
        return new_tensor(np.ascontiguousarray(array.transpose(2, 0, 1)))
    raise TypeError(f"Input can either be a pure Tensor, a numpy array, or a PIL image, but got {type(inpt)} instead.")


def to_dtype(inpt, dtype, scale=False):
    """`inpt.to(dtype)`, or with scale=True convert_image_dtype's rescaling."""
    if not isinstance(inpt, Tensor):
        raise TypeError(f"to_dtype expects a tensor, got {type(inpt)}")
    if not scale or isinstance(inpt, (tv_tensors.Mask, tv_tensors.BoundingBoxes, tv_tensors.KeyPoints)):
        return inpt.to(dtype)  # (values of masks and coordinates are never rescaled)
    if isinstance(inpt, tv_tensors.TVTensor):
        return tv_tensors.wrap(convert_image_dtype(inpt.as_subclass(Tensor), dtype), like=inpt)
    return convert_image_dtype(inpt, dtype)
