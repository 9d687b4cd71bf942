"""torchvision.transforms.v2, the subset classification pipelines use.

The classes are v1's (same arguments, defaults and randomness) plus ToImage, ToDtype and
ToPureTensor, and like v2 they accept a whole sample: `transform(image, label)` or
`transform((image, label))` transforms the image and passes everything else through. The images of
a sample are the PIL images in it, or if there are none its first tensor, as v2 decides for plain
tensors. Differences: tv_tensors (BoundingBoxes, Mask) are not supported; several images in one
sample get the same random parameters only when the transform draws them independently of the
image content (all geometric transforms here do).
"""

import warnings

import ember

from ...._tensor import Tensor
from ..._pil import is_pil_image
from .. import autoaugment as _autoaugment
from .. import functional as _functional_v1
from .. import transforms as _v1
from . import functional
from ._augment import CutMix, MixUp

__all__ = (
    list(_v1.__all__)
    + list(_autoaugment.__all__)
    + ["ToImage", "ToDtype", "ToPureTensor", "Identity", "Transform", "CutMix", "MixUp", "functional"]
)


def _leaves(sample, found):
    if isinstance(sample, (tuple, list)):
        for item in sample:
            _leaves(item, found)
    elif isinstance(sample, dict):
        for item in sample.values():
            _leaves(item, found)
    else:
        found.append(sample)
    return found


def _rebuild(sample, replace):
    if isinstance(sample, (tuple, list)):
        return type(sample)(_rebuild(item, replace) for item in sample)
    if isinstance(sample, dict):
        return {key: _rebuild(value, replace) for key, value in sample.items()}
    return replace(sample)


class Transform:
    """Base of the v2 transforms: finds the images of a sample and transforms each of them with `transform`."""

    def _transform_image(self, image):
        raise NotImplementedError

    def __call__(self, *inputs):
        sample = inputs if len(inputs) > 1 else inputs[0]
        leaves = _leaves(sample, [])
        images = [leaf for leaf in leaves if is_pil_image(leaf)]
        if not images:
            images = [next((leaf for leaf in leaves if isinstance(leaf, Tensor)), None)]
        chosen = {id(image) for image in images if image is not None}
        state = ember.get_rng_state()

        def replace(leaf):
            if id(leaf) not in chosen:
                return leaf
            ember.set_rng_state(state)  # the same random parameters for every image of the sample
            return self._transform_image(leaf)

        return _rebuild(sample, replace)


def _v2_class(v1_class):
    def _transform_image(self, image):
        return v1_class.__call__(self, image)

    return type(
        v1_class.__name__,
        (Transform, v1_class),
        {
            "_transform_image": _transform_image,
            "__doc__": v1_class.__doc__,
            "__module__": __name__,
            "__call__": Transform.__call__,
        },
    )


for _module in (_v1, _autoaugment):
    for _name in _module.__all__:
        _class = getattr(_module, _name)
        if isinstance(_class, type) and _name != "InterpolationMode":
            globals()[_name] = _v2_class(_class)
InterpolationMode = _v1.InterpolationMode


class ToImage(Transform):
    """A PIL image, NumPy array (H, W, C) or tensor -> a tensor image (C, H, W), values unchanged (uint8 stays)."""

    def _transform_image(self, image):
        if is_pil_image(image):
            return _functional_v1.pil_to_tensor(image)
        if isinstance(image, Tensor):
            return image
        return functional.to_image(image)

    def __repr__(self):
        return "ToImage()"


class ToDtype(Transform):
    """Convert tensor images to `dtype`; with scale=True also rescale values (uint8 [0, 255] -> float [0, 1])."""

    def __init__(self, dtype, scale=False):
        if isinstance(dtype, dict):
            raise NotImplementedError(
                "ToDtype with a dict of dtypes (per tv_tensor type) is not supported in ember; pass one dtype"
            )
        self.dtype, self.scale = dtype, scale

    def _transform_image(self, image):
        return functional.to_dtype(image, self.dtype, self.scale)

    def __repr__(self):
        return f"ToDtype(dtype={self.dtype}, scale={self.scale})"


class ToPureTensor(Transform):
    """Plain tensors already: a no-op kept for v2 pipelines."""

    def _transform_image(self, image):
        return image


class Identity(ToPureTensor):
    """Returns its input."""


_ToTensorV2 = globals()["ToTensor"]


class ToTensor(_ToTensorV2):
    """Deprecated in v2 (as in torchvision): use Compose([ToImage(), ToDtype(ember.float32, scale=True)])."""

    def __init__(self):
        warnings.warn(
            "The transform `ToTensor()` is deprecated and will be removed in a future release. Instead, "
            "please use `v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])`.",
            UserWarning,
            stacklevel=2,
        )
        super().__init__()
