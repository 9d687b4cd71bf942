"""torchvision.transforms: image transforms for PIL images and tensors (see `transforms` and `functional`)."""

from . import functional
from .autoaugment import *
from .autoaugment import __all__ as _autoaugment_names
from .transforms import *  # the public classes, listed in transforms.__all__
from .transforms import __all__ as _transform_names

__all__ = list(_transform_names) + list(_autoaugment_names) + ["functional"]
