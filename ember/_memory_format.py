"""`torch.memory_format` and its four values, which scripts pass to `clone`, `contiguous`, `to`, ...

ember stores every tensor as a NumPy array in C order, so it has one layout: the functions that
take `memory_format=` accept any of these and return that layout (as `contiguous_format` would).
"""

__all__ = ["memory_format", "contiguous_format", "preserve_format", "channels_last", "channels_last_3d"]


class memory_format:
    """A memory layout's name; compared by identity, printed as `torch.<name>`."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
        return self._name  # unpickles as the module-level singleton


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
