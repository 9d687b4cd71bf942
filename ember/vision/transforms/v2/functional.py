"""torchvision.transforms.v2.functional: v1's functions plus to_image and to_dtype."""

from ...._backend import np
from ...._tensor import Tensor, new_tensor
from ..._pil import is_pil_image
from ..functional import *  # the public functions, listed in __all__
from ..functional import __all__ as _v1_names
from ..functional import convert_image_dtype, pil_to_tensor

__all__ = list(_v1_names) + ["to_image", "to_dtype"]


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
    return convert_image_dtype(inpt, dtype) if scale else inpt.to(dtype)
