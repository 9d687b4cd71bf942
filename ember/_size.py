"""`Size`: the tuple that `tensor.shape` returns."""

__all__ = ["Size"]


class Size(tuple):
    """A tuple of dimension sizes; prints as PyTorch does (`torch.Size([2, 3])`)."""

    def __new__(cls, sizes=()):
        sizes = tuple(sizes)
        if not all(type(size) is int for size in sizes):
            sizes = tuple(_as_size(index, size) for index, size in enumerate(sizes))
        return tuple.__new__(cls, sizes)

    def __repr__(self):
        return f"torch.Size({list(self)})"

    __str__ = __repr__

    def numel(self):
        """The number of elements a tensor of this shape holds (the product of the sizes; 1 for `Size([])`)."""
        count = 1
        for size in self:
            count *= size
        return count

    def __getitem__(self, index):
        result = super().__getitem__(index)
        return Size(result) if isinstance(index, slice) else result

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))

    def __mul__(self, count):
        return Size(tuple(self) * count)

    __rmul__ = __mul__


def _as_size(index, size):
    """An int, or what stands for one (a one-element integer tensor, a NumPy integer), as PyTorch takes."""
    if isinstance(size, int):
        return int(size)
    if hasattr(size, "__index__") and not isinstance(size, float):
        try:
            return size.__index__()
        except TypeError:
            pass
    raise TypeError(f"torch.Size() takes an iterable of 'int' (item {index} is '{type(size).__name__}')")
