"""`torch.memory_format` and its four values, which scripts pass to `clone`, `contiguous`, `to`, ...

ember stores every tensor as a NumPy array in C order, so it has one layout: the functions that
take `memory_format=` accept any of these and return that layout (as `contiguous_format` would).
"""

from ._named_constant import NamedConstant

__all__ = ["memory_format", "contiguous_format", "preserve_format", "channels_last", "channels_last_3d"]


class memory_format(NamedConstant):
    """A memory layout."""


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
