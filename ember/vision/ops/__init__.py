"""torchvision.ops: the building blocks the classification models use, and the box functions of
detection code (IoU, generalized IoU, non-maximum suppression, format conversion). The detection
layers (RoIAlign, deformable convolution) are not provided."""

from .boxes import *  # noqa: F401,F403
from .boxes import __all__ as _box_names
from .misc import Conv2dNormActivation

__all__ = ["Conv2dNormActivation", *_box_names]
