"""torchvision.ops: the building blocks the classification models use (detection ops are not provided)."""

from .misc import Conv2dNormActivation

__all__ = ["Conv2dNormActivation"]
