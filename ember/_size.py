"""`Size`: the tuple that `tensor.shape` returns."""

__all__ = ["Size"]


class Size(tuple):
    """A tuple of dimension sizes; prints as PyTorch does (`torch.Size([2, 3])`)."""

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
