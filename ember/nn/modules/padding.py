"""Padding layers: constant (and zero), reflection, replication and circular padding."""

from .. import functional as F
from .module import Module
from .utils import _ntuple

__all__ = [
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
]


class _PadNd(Module):
    """Pads the last `_dims` dimensions; `padding` is an int (all sides) or (left, right, top, bottom, ...)."""

    _dims = None
    _mode = None

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(2 * self._dims)(padding)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    _mode = "constant"

    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


def _padding_class(name, base, dims, mode=None, doc=None):
    namespace = {"_dims": dims, "__doc__": doc or f"{base.__name__.strip('_')} over the last {dims} dimension(s)."}
    if mode is not None:
        namespace["_mode"] = mode
    return type(name, (base,), namespace)


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


ConstantPad1d = _padding_class("ConstantPad1d", _ConstantPadNd, 1)
ConstantPad2d = _padding_class("ConstantPad2d", _ConstantPadNd, 2)
ConstantPad3d = _padding_class("ConstantPad3d", _ConstantPadNd, 3)
ZeroPad1d = _padding_class("ZeroPad1d", _ZeroPadNd, 1)
ZeroPad2d = _padding_class("ZeroPad2d", _ZeroPadNd, 2)
ZeroPad3d = _padding_class("ZeroPad3d", _ZeroPadNd, 3)
ReflectionPad1d = _padding_class("ReflectionPad1d", _PadNd, 1, "reflect")
ReflectionPad2d = _padding_class("ReflectionPad2d", _PadNd, 2, "reflect")
ReflectionPad3d = _padding_class("ReflectionPad3d", _PadNd, 3, "reflect")
ReplicationPad1d = _padding_class("ReplicationPad1d", _PadNd, 1, "replicate")
ReplicationPad2d = _padding_class("ReplicationPad2d", _PadNd, 2, "replicate")
ReplicationPad3d = _padding_class("ReplicationPad3d", _PadNd, 3, "replicate")
CircularPad1d = _padding_class("CircularPad1d", _PadNd, 1, "circular")
CircularPad2d = _padding_class("CircularPad2d", _PadNd, 2, "circular")
CircularPad3d = _padding_class("CircularPad3d", _PadNd, 3, "circular")
