"""`torch.layout` and its values: how a tensor's elements are stored. ember has two, dense
(`strided`, every tensor backed by a NumPy array) and `sparse_coo` (see ember._sparse_coo)."""

__all__ = ["layout", "strided", "sparse_coo"]


class layout:
    """A storage layout's name; compared by identity, printed as `torch.<name>`."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
        return self._name  # unpickles as the module-level singleton


strided = layout("strided")
sparse_coo = layout("sparse_coo")
