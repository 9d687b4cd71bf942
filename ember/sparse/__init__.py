"""`torch.sparse`: products and sums of sparse COO tensors, and the legacy sparse constructors.

The sparse tensor itself and its methods are `ember.ops.sparse_coo`; this namespace holds what
PyTorch puts under `torch.sparse`.
"""

import warnings

from .. import _dtype
from .._tensor import Tensor
from ..ops import sparse_coo as _coo
from ..ops.sparse_coo import sparse_coo_tensor
from ..ops._declare import op
from .._warn import warn as _warn

__all__ = ["mm", "sum", "FloatTensor", "DoubleTensor", "LongTensor"]


@op(_coo.SparseAddmm, name="sparse.mm")
def mm(mat1, mat2, reduce="sum"):
    """`mat1 @ mat2` for a sparse COO `mat1` and a dense `mat2`.

    Unlike `torch.mm`, the gradient of a sparse `mat1` is sparse, on `mat1`'s own (coalesced)
    pattern, as PyTorch's `torch.sparse.mm` gives it. Only `reduce="sum"` is supported.
    """
    if reduce != "sum":
        raise NotImplementedError(f"torch.sparse.mm: ember has only reduce='sum', not {reduce!r}")
    if not _coo.is_sparse(mat1):
        return mat1.mm(mat2)
    return _coo.sparse_dense_product("sparse.mm", mat1, mat2, masked_grad=True)


@op(name="sparse.sum")
def sum(input, dim=None, dtype=None):  # noqa: A001 - PyTorch's name
    """The sum of the entries of a sparse tensor: over all dims a dense 0-d tensor; over some dims a
    sparse tensor while sparse dims remain (entries that sum to zero are dropped, unlike PyTorch)."""
    return _coo.sparse_sum(input, dim, dtype)


class _LegacySparseType(type):
    """`torch.sparse.FloatTensor(indices, values, size)` or `(*sizes)`: PyTorch's pre-1.0 spellings
    of `torch.sparse_coo_tensor`."""

    def __call__(cls, *args, **kwargs):
        _warn(
            f"torch.sparse.{cls.__name__}(indices, values, shape) is deprecated; use "
            "torch.sparse_coo_tensor(indices, values, shape, dtype=...)",
            DeprecationWarning,
            stacklevel=2,
        )
        if args and isinstance(args[0], Tensor):
            return sparse_coo_tensor(*args, dtype=cls.dtype, **kwargs)
        sizes = tuple(args[0]) if len(args) == 1 and not isinstance(args[0], int) else args
        from .. import ops

        return sparse_coo_tensor(
            ops.zeros(len(sizes), 0, dtype=_dtype.int64), ops.zeros(0, dtype=cls.dtype), sizes, **kwargs
        )

    def __instancecheck__(cls, instance):
        return isinstance(instance, Tensor) and instance.is_sparse and instance.dtype is cls.dtype


FloatTensor = _LegacySparseType("FloatTensor", (), {"dtype": _dtype.float32})
DoubleTensor = _LegacySparseType("DoubleTensor", (), {"dtype": _dtype.float64})
LongTensor = _LegacySparseType("LongTensor", (), {"dtype": _dtype.int64})
