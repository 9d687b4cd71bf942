"""torchvision.transforms.v2: the classification and detection pipelines' transforms.

The classes are v1's (same arguments, defaults and randomness) plus ToImage, ToDtype, ToPureTensor
and the box transforms (ConvertBoundingBoxFormat, ClampBoundingBoxes, SanitizeBoundingBoxes), and
like v2 they accept a whole sample: `transform(image, target)` or `transform((image, target))`. The
pixels of a sample are its PIL images and tv_tensors Images and Videos, or if there are none its
first plain tensor, as v2 decides; tv_tensors Masks, BoundingBoxes and KeyPoints move with them
through the geometric transforms and pass the others; everything else passes through. Compose,
RandomApply, RandomChoice and RandomOrder hand each transform the whole sample, as v2's do.
Differences from torchvision: the automatic augmentations (RandAugment, TrivialAugmentWide) refuse
masks and boxes instead of moving them; several images in one sample get the same random parameters
only when the transform draws them independently of the image content (all geometric transforms here
do).
"""

import warnings

import ember

from ...._backend import np
from ...._tensor import Tensor
from ..._pil import is_pil_image
from .. import autoaugment as _autoaugment
from .. import functional as _functional_v1
from .. import transforms as _v1
from ... import tv_tensors
from . import functional
from ._augment import CutMix, MixUp
from ._transform import ANNOTATIONS as _ANNOTATIONS
from ._transform import Transform, is_plain_tensor as _is_plain_tensor
from ._containers import Compose, RandomApply, RandomChoice, RandomOrder
from ._detection import RandomIoUCrop, RandomPhotometricDistort, RandomZoomOut
from ._boxes import ClampBoundingBoxes, ConvertBoundingBoxFormat, SanitizeBoundingBoxes
from ...._warn import warn as _warn

__all__ = (
    list(_v1.__all__)
    + list(_autoaugment.__all__)
    + ["ToImage", "ToDtype", "ToPureTensor", "Identity", "Transform", "CutMix", "MixUp", "functional"]
    + ["ClampBoundingBoxes", "ConvertBoundingBoxFormat", "SanitizeBoundingBoxes"]
    + ["RandomIoUCrop", "RandomPhotometricDistort", "RandomZoomOut"]
)


# What each v1 transform does with masks, boxes and key points: the geometric ones move them, the
# others (colour, dtype, normalisation, erasing) leave them; the automatic augmentation policies mix
# both, so they refuse them.
_MOVES = {
    "Resize", "CenterCrop", "RandomCrop", "RandomResizedCrop", "RandomHorizontalFlip", "RandomVerticalFlip",
    "RandomRotation", "RandomAffine", "Pad", "FiveCrop", "TenCrop",
}  # fmt: skip
_REFUSES = {"RandAugment", "TrivialAugmentWide"}
_CONTAINERS = {"Compose", "RandomApply", "RandomChoice", "RandomOrder"}


def _v2_class(v1_class):
    def _transform_image(self, image):
        return v1_class.__call__(self, image)

    name = v1_class.__name__
    return type(
        name,
        (Transform, v1_class),
        {
            "_transform_image": _transform_image,
            "_annotations": "move" if name in _MOVES else "refuse" if name in _REFUSES else "pass",
            "__doc__": v1_class.__doc__,
            "__module__": __name__,
            "__call__": Transform.__call__,
        },
    )


for _module in (_v1, _autoaugment):
    for _name in _module.__all__:
        _class = getattr(_module, _name)
        if isinstance(_class, type) and _name != "InterpolationMode" and _name not in _CONTAINERS:
            globals()[_name] = _v2_class(_class)
InterpolationMode = _v1.InterpolationMode


class ToImage(Transform):
    """A PIL image, NumPy array (H, W, C) or tensor -> a tv_tensors.Image (C, H, W), values unchanged
    (uint8 stays)."""

    def _parts_to_transform(self, found):
        return super()._parts_to_transform(found) | {id(leaf) for leaf in found if isinstance(leaf, np.ndarray)}

    def _transform_image(self, image):
        return tv_tensors.Image(functional.to_image(image))

    def __repr__(self):
        return "ToImage()"


class ToDtype(Transform):
    """Convert images (tv_tensors Images and Videos, or the plain tensor taken for the image) to `dtype`;
    with scale=True also rescale their values (uint8 [0, 255] -> float [0, 1]). A dict maps tv_tensor
    classes to dtypes instead ("others": the rest; None: leave as it is), e.g.
    `{tv_tensors.Image: ember.float32, tv_tensors.Mask: ember.int64, "others": None}`."""

    def __init__(self, dtype, scale=False):
        self.dtype, self.scale = dtype, scale

    def _parts_to_transform(self, found):
        chosen = super()._parts_to_transform(found)
        if isinstance(self.dtype, dict):
            chosen |= {id(leaf) for leaf in found if isinstance(leaf, tv_tensors.TVTensor)}
        return chosen

    def _transform_image(self, image):
        dtype = self.dtype
        if isinstance(dtype, dict):
            if type(image) in dtype:
                dtype = dtype[type(image)]
            elif tv_tensors.Image in dtype and _is_plain_tensor(image):
                dtype = dtype[tv_tensors.Image]  # the plain tensor taken for the image
            elif "others" in dtype:
                dtype = dtype["others"]
            else:
                raise ValueError(
                    f"No dtype was specified for type {type(image)}. If you only need to convert the dtype of "
                    "images or videos, you can just pass e.g. dtype=torch.float32. If you're passing a dict as "
                    'dtype, you can use "others" as a catch-all key e.g. dtype={tv_tensors.Mask: torch.int64, '
                    '"others": None} to pass-through the rest of the inputs.'
                )
        if dtype is None:
            if self.scale and not isinstance(image, _ANNOTATIONS):
                _warn("scale was set to True but no dtype was specified for images or videos: no scaling will be done.")
            return image
        return functional.to_dtype(image, dtype, self.scale)

    def __repr__(self):
        return f"ToDtype(dtype={self.dtype}, scale={self.scale})"


class ToPureTensor(Transform):
    """tv_tensors (Image, Mask, BoundingBoxes ...) -> plain tensors, for the model."""

    _keeps_class = False

    def _parts_to_transform(self, found):
        return {id(leaf) for leaf in found if isinstance(leaf, tv_tensors.TVTensor)}

    def _transform_image(self, image):
        return image.as_subclass(Tensor)


class Identity(Transform):
    """Returns its input."""

    def __call__(self, *inputs):
        return inputs if len(inputs) > 1 else inputs[0]


_ToTensorV2 = globals()["ToTensor"]


class ToTensor(_ToTensorV2):
    """Deprecated in v2 (as in torchvision): use Compose([ToImage(), ToDtype(ember.float32, scale=True)])."""

    def __init__(self):
        _warn(
            "The transform `ToTensor()` is deprecated and will be removed in a future release. Instead, "
            "please use `v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])`.",
            UserWarning,
            stacklevel=2,
        )
        super().__init__()
