"""`torch.layout` and its values: how a tensor's elements are stored. ember has two, dense
(`strided`, every tensor backed by a NumPy array) and `sparse_coo` (see ember._sparse_coo)."""

from ._named_constant import NamedConstant

__all__ = ["layout", "strided", "sparse_coo"]


class layout(NamedConstant):
    """A storage layout."""


strided = layout("strided")
sparse_coo = layout("sparse_coo")
