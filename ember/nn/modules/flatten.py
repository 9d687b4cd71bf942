"""`Flatten` and `Unflatten`."""

from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Flatten dimensions `start_dim`..`end_dim` into one (by default all but the batch dimension)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Expand dimension `dim` into `unflattened_size` (a tuple or list of ints)."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if isinstance(dim, int):
            self._require_tuple_int(unflattened_size)
        else:
            raise TypeError("invalid argument type for dim parameter")
        self.dim = dim
        self.unflattened_size = unflattened_size

    def _require_tuple_int(self, value):
        if isinstance(value, (tuple, list)):
            for index, element in enumerate(value):
                if not isinstance(element, int):
                    raise TypeError(
                        f"unflattened_size must be tuple of ints, but found element of type "
                        f"{type(element).__name__} at pos {index}"
                    )
            return
        raise TypeError(f"unflattened_size must be a tuple of ints, but found type {type(value).__name__}")

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
