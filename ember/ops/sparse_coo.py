"""Sparse COO tensors, as PyTorch defines them: `sparse_coo_tensor`, `coalesce`, `to_dense`,
`to_sparse`, `indices()`/`values()`, and the product of a sparse matrix with a dense one.

A sparse tensor is a `Tensor` whose `_data` is a `SparseCoo` (see `ember._sparse_coo`), so these
primitives are ordinary ones: forward works on the COO arrays, backward on tensors. Gradients follow
PyTorch: `torch.mm(sparse, dense)` gives the sparse operand a dense gradient, `torch.sparse.mm` a
sparse one on the operand's own pattern; `values` of a `sparse_coo_tensor` get the gradient at
their indices (each duplicate the full gradient of its position).
"""

from .._backend import np
from .._layout import sparse_coo
from .._sparse_coo import SparseCoo
from .._tensor import Tensor, new_tensor
from .. import _dtype
from ..autograd.function import Primitive
from ._declare import op
from ._tangents import add_tangents, linear_jvp

__all__ = ["sparse_coo_tensor", "spmm"]


def is_sparse(tensor):
    return isinstance(tensor, Tensor) and type(tensor._data) is SparseCoo


def _coo(tensor, name):
    if not is_sparse(tensor):
        raise RuntimeError(f"{name} expected a sparse COO tensor (layout torch.sparse_coo), got a dense (strided) one")
    return tensor._data


class SparseCooTensor(Primitive, node="SparseCooTensorWithDimsAndTensorsBackward0"):
    @staticmethod
    def forward(ctx, indices, values, shape, coalesced):
        ctx.save_for_backward(indices)
        return SparseCoo(indices, values, shape, coalesced)

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        dense = to_dense(grad) if is_sparse(grad) else grad
        return None, dense[tuple(indices)], None, None

    @staticmethod
    def jvp(ctx, tangent_indices, tangent_values, tangent_shape, tangent_coalesced):
        indices, _, shape, coalesced = ctx.inputs
        return None if tangent_values is None else SparseCooTensor.apply(indices, tangent_values, shape, coalesced)


def _make(indices, values, shape, coalesced=False):
    """A sparse tensor from index and value tensors, differentiable with respect to `values`."""
    return SparseCooTensor.apply(indices, values, tuple(shape), coalesced)


@op(SparseCooTensor)
def sparse_coo_tensor(
    indices,
    values,
    size=None,
    *,
    dtype=None,
    device=None,
    requires_grad=False,
    check_invariants=None,
    is_coalesced=None,
):
    """A sparse COO tensor of `size` with `values` at `indices` (sparse_dim x nnz, int64).

    Without `size`, each sparse dim is one more than its largest index. Repeated indices are kept
    (their values add up in `to_dense()` and are summed by `coalesce()`). Unlike PyTorch, the
    indices are always checked against `size` (NumPy makes that cheap), so `check_invariants` only
    says what PyTorch would do.
    """
    from .creation import tensor as _tensor_of

    indices = indices if isinstance(indices, Tensor) else _tensor_of(indices, dtype=_dtype.int64)
    values = values if isinstance(values, Tensor) else _tensor_of(values, dtype=dtype)
    if dtype is not None and values.dtype is not dtype:
        values = values.to(dtype)
    if indices._data.ndim != 2:
        raise RuntimeError(
            f"sparse_coo_tensor: indices must be sparse_dim x nnz, but got: {list(indices.shape)}; "
            "give them as a 2-D tensor with one row per sparse dimension"
        )
    if indices._data.dtype.kind not in "iuf":  # floating indices are truncated to int64, as PyTorch does
        raise RuntimeError(f"sparse_coo_tensor: indices must be an int64 tensor, got {indices.dtype}")
    if indices._data.dtype != np.int64:
        indices = indices.long()
    sparse_dim, nnz = indices._data.shape
    if values._data.ndim == 0 or values._data.shape[0] != nnz:
        raise RuntimeError(
            f"sparse_coo_tensor: indices and values must have the same nnz, but got nnz from indices: {nnz}, "
            f"nnz from values: {values._data.shape[0] if values._data.ndim else 'a 0-d tensor'}"
        )
    array = indices._data
    if size is None:
        size = tuple(int(top) + 1 for top in array.max(axis=1)) if nnz else (0,) * sparse_dim
        size += values._data.shape[1:]
    size = tuple(int(length) for length in size)
    if len(size) != sparse_dim + values._data.ndim - 1:
        raise RuntimeError(
            f"sparse_coo_tensor: number of dimensions must be sparse_dim ({sparse_dim}) + dense_dim "
            f"({values._data.ndim - 1}), but got {len(size)} (size={size})"
        )
    if nnz:
        low, high = array.min(axis=1), array.max(axis=1)
        for dim in range(sparse_dim):
            if low[dim] < 0 or high[dim] >= size[dim]:
                raise RuntimeError(
                    f"sparse_coo_tensor: size is inconsistent with indices: for dim {dim}, size is {size[dim]} but "
                    f"found index {high[dim] if high[dim] >= size[dim] else low[dim]}"
                )
    if tuple(values._data.shape[1:]) != size[sparse_dim:]:
        raise RuntimeError(
            f"sparse_coo_tensor: values has dense shape {tuple(values._data.shape[1:])}, size wants {size[sparse_dim:]}"
        )
    result = _make(indices, values, size, bool(is_coalesced) or nnz <= 1)
    if requires_grad:
        result.requires_grad_()
    return result


class ToDense(Primitive, node="ToDenseBackward0"):
    @staticmethod
    def forward(ctx, coo, masked_grad):
        ctx.pattern = coo.coalesce() if masked_grad else None
        return coo.to_dense()

    @staticmethod
    def backward(ctx, grad):
        pattern = ctx.pattern
        if pattern is None:  # masked_grad=False: the gradient stays dense
            return grad, None
        indices = new_tensor(pattern.indices)
        return _make(indices, grad[tuple(indices)], pattern.shape, True), None

    jvp = linear_jvp


@op(ToDense, method=True)
def to_dense(input, dtype=None, *, masked_grad=None):
    """The dense (strided) tensor a sparse one stands for (a dense input is returned as it is).

    The sparse input's gradient is sparse on its own pattern, or dense with `masked_grad=False`."""
    if not is_sparse(input):
        return input
    result = ToDense.apply(input, masked_grad is None or bool(masked_grad))
    return result if dtype is None else result.to(dtype)


class ToSparse(Primitive, node="ToSparseBackward0"):
    @staticmethod
    def forward(ctx, array, sparse_dim):
        return SparseCoo.from_dense(array, sparse_dim)

    @staticmethod
    def backward(ctx, grad):
        return (to_dense(grad) if is_sparse(grad) else grad), None

    @staticmethod
    def jvp(ctx, tangent, tangent_sparse_dim):
        pattern = ctx.outputs._data  # the tangent on the output's own pattern
        indices = new_tensor(pattern.indices)
        return _make(indices, to_dense(tangent)[tuple(indices)], pattern.shape, True)


@op(ToSparse, method=True)
def to_sparse(input, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """The nonzero entries of a dense tensor as a coalesced sparse COO tensor (`sparse_dim` leading dims sparse)."""
    if layout not in (None, sparse_coo):
        raise NotImplementedError(f"to_sparse: ember has only the torch.sparse_coo layout, not {layout}")
    if blocksize is not None:
        raise RuntimeError("to_sparse: blocksize is for the block layouts (sparse_bsr/bsc), which ember lacks")
    if dense_dim is not None:
        if sparse_dim is not None:
            raise RuntimeError("to_sparse: give sparse_dim or dense_dim, not both")
        sparse_dim = input._data.ndim - dense_dim
    if is_sparse(input):
        return input
    return ToSparse.apply(input, input._data.ndim if sparse_dim is None else sparse_dim)


class Coalesce(Primitive, node="CoalesceBackward0"):
    @staticmethod
    def forward(ctx, coo):
        return coo.coalesce()

    @staticmethod
    def backward(ctx, grad):
        return grad  # the same tensor, written differently

    jvp = linear_jvp


@op(Coalesce, method=True)
def coalesce(input):
    """Sorted, unique indices, the values of a repeated index summed."""
    return Coalesce.apply(_coo_tensor(input, "coalesce"))


@op(method=True)
def is_coalesced(input):
    """Whether the indices are known sorted and unique (`coalesce()` makes them so)."""
    return _coo(input, "is_coalesced").coalesced


class Values(Primitive, node="ValuesBackward0"):
    @staticmethod
    def forward(ctx, coo):
        ctx.pattern = coo
        return coo.values

    @staticmethod
    def backward(ctx, grad):
        pattern = ctx.pattern
        return _make(new_tensor(pattern.indices), grad, pattern.shape, pattern.coalesced)

    jvp = linear_jvp


@op(Values, method=True)
def values(input):
    """The values of a coalesced sparse tensor (nnz x dense dims), differentiable."""
    _require_coalesced(input, "values")
    return Values.apply(input)


@op(method=True)
def indices(input):
    """The indices of a coalesced sparse tensor (sparse_dim x nnz, int64)."""
    return new_tensor(_require_coalesced(input, "indices").indices)


@op()
def _values(input):
    """The stored values, coalesced or not (not differentiable, as in PyTorch)."""
    return new_tensor(_coo(input, "_values").values)


@op()
def _indices(input):
    """The stored indices, coalesced or not."""
    return new_tensor(_coo(input, "_indices").indices)


@op()
def _nnz(input):
    """The number of stored entries (repeated indices counted)."""
    return _coo(input, "_nnz").nnz


@op(method=True)
def sparse_dim(input):
    """How many leading dims are sparse (0 for a dense tensor)."""
    return input._data.sparse_dim if is_sparse(input) else 0


@op(method=True)
def dense_dim(input):
    """How many trailing dims each stored value has (all dims for a dense tensor)."""
    data = input._data
    return data.ndim - data.sparse_dim if type(data) is SparseCoo else data.ndim


def _coo_tensor(tensor, name):
    _coo(tensor, name)
    return tensor


def _require_coalesced(tensor, name):
    coo = _coo(tensor, name)
    if not coo.coalesced:
        raise RuntimeError(f"Cannot get {name} on an uncoalesced tensor, please call .coalesce() first")
    return coo


class SparseTranspose(Primitive, node="TransposeBackward0"):
    @staticmethod
    def forward(ctx, coo):
        return SparseCoo(coo.indices[::-1].copy(), coo.values, coo.shape[::-1])

    @staticmethod
    def backward(ctx, grad):
        return transpose_matrix(grad)

    jvp = linear_jvp


def transpose_sparse(input, dim0, dim1):
    """`transpose` of a sparse tensor: two sparse dims swapped (PyTorch's order: the result uncoalesced)."""
    coo = input._data
    dim0, dim1 = dim0 % max(coo.ndim, 1), dim1 % max(coo.ndim, 1)
    if dim0 == dim1:
        return input
    if coo.ndim != 2 or coo.sparse_dim != 2:
        raise NotImplementedError(
            f"transpose: ember transposes sparse matrices (2 sparse dims) only, got size {coo.shape} "
            f"with {coo.sparse_dim} sparse dims; call .to_dense() first"
        )
    return SparseTranspose.apply(input)


def sparse_sum(input, dim=None, dtype=None, keepdim=False):
    """`torch.sparse.sum`: over all dims a dense 0-d tensor; over some dims a sparse tensor while sparse
    dims remain (entries that sum to zero are dropped, unlike PyTorch)."""
    if keepdim:
        raise NotImplementedError("sum: keepdim=True is not supported for sparse tensors (as in PyTorch)")
    from .reduction import sum as dense_sum

    dense = to_dense(input)
    if dtype is not None:
        dense = dense.to(dtype)
    if dim is None:
        return dense_sum(dense)
    dims = {d % input.dim() for d in ((dim,) if isinstance(dim, int) else dim)}
    result = dense_sum(dense, tuple(sorted(dims)))
    remaining_sparse = len([d for d in range(sparse_dim(input)) if d not in dims])
    return to_sparse(result, remaining_sparse) if remaining_sparse else result


def transpose_matrix(tensor):
    """The transpose of a sparse or dense matrix."""
    return SparseTranspose.apply(tensor) if is_sparse(tensor) else tensor.t()


class SparseMm(Primitive, node="MmBackward0"):
    """`sparse @ dense` for a 2-D sparse matrix without dense dims: each stored (row, col, value)
    adds value * dense[col] to row `row` of the result."""

    @staticmethod
    def forward(ctx, coo, dense):
        ctx.save_for_backward(coo, dense)
        rows, columns = coo.indices
        result = np.zeros((coo.shape[0],) + dense.shape[1:], np.result_type(coo.values, dense))
        np.add.at(result, rows, coo.values[:, None] * dense[columns])
        return result

    @staticmethod
    def backward(ctx, grad):
        sparse, dense = ctx.saved_tensors
        needs_sparse, needs_dense = ctx.needs_input_grad
        grad_dense = SparseMm.apply(transpose_matrix(sparse), grad) if needs_dense else None
        grad_sparse = _sparse_operand_grad(ctx, sparse, dense, grad) if needs_sparse else None
        return grad_sparse, grad_dense

    @staticmethod
    def jvp(ctx, tangent_sparse, tangent_dense):
        sparse, dense = ctx.inputs
        apply = ctx._forward_cls.apply
        return add_tangents(
            None if tangent_sparse is None else apply(tangent_sparse, dense),
            None if tangent_dense is None else apply(sparse, tangent_dense),
        )


def _sparse_operand_grad(ctx, sparse, dense, grad):
    if ctx._forward_cls is SparseMm:
        return grad.mm(dense.t())  # torch.mm gives the sparse operand a dense gradient
    pattern = sparse._data.coalesce()
    rows, columns = new_tensor(pattern.indices)
    return _make(new_tensor(pattern.indices), (grad[rows] * dense[columns]).sum(-1), pattern.shape, False)


class SparseAddmm(SparseMm, node="SparseAddmmBackward0"):
    """`torch.sparse.mm`: as SparseMm, but the sparse operand's gradient is sparse, on its own pattern."""


def sparse_dense_product(name, sparse, dense, masked_grad=False):
    """`sparse @ dense` for a 2-D sparse COO matrix and a dense matrix (or vector)."""
    coo = sparse._data
    if is_sparse(dense):  # sparse @ sparse is sparse, as in PyTorch; both operands get dense gradients
        return to_sparse(sparse_dense_product(name, sparse, to_dense(dense, masked_grad=False), masked_grad))
    if coo.ndim != 2 or coo.sparse_dim != 2:
        raise RuntimeError(f"{name}: the sparse operand must be a 2-D matrix with 2 sparse dims, got size {coo.shape}")
    if dense._data.ndim not in (1, 2) or dense._data.shape[0] != coo.shape[1]:
        raise RuntimeError(
            f"{name}: mat1 and mat2 shapes cannot be multiplied ({coo.shape[0]}x{coo.shape[1]} and "
            f"{'x'.join(str(length) for length in dense._data.shape)})"
        )
    if coo.dtype != dense._data.dtype:
        raise RuntimeError(
            f"{name}: expected mat1 and mat2 to have the same dtype, but got: {sparse.dtype} != {dense.dtype}"
        )
    if dense._data.ndim == 1:
        return sparse_dense_product(name, sparse, dense.unsqueeze(1), masked_grad).squeeze(1)
    return (SparseAddmm if masked_grad else SparseMm).apply(sparse, dense)


@op(method=True)
def sparse_mask(input, mask):
    """The entries of dense `input` at the positions `mask` stores, as a coalesced sparse tensor
    (mask's values are ignored); the gradient reaches `input` at those positions only."""
    if is_sparse(input):
        raise NotImplementedError("sparse_mask: ember masks dense tensors only; call .to_dense() on self first")
    pattern = _coo(mask, "sparse_mask(): mask").coalesce()
    if tuple(input._data.shape) != tuple(pattern.shape):
        raise RuntimeError(
            f"sparse_mask(): operands have incompatible sizes; self has size {list(input.shape)} but mask has "
            f"size {list(pattern.shape)}"
        )
    indices = new_tensor(pattern.indices)
    return _make(indices, input[tuple(indices)], pattern.shape, True)


def dense_sparse_product(name, dense, sparse):
    """`dense @ sparse` for a dense matrix and a 2-D sparse COO matrix: (sparse.T @ dense.T).T, dense."""
    if dense._data.ndim != 2:
        raise RuntimeError(f"{name}: self must be a matrix ({name} got shape {list(dense.shape)})")
    return sparse_dense_product(name, transpose_matrix(sparse), dense.t()).t()


@op(SparseMm)
def spmm(input, mat2):
    """`input @ mat2` for a sparse COO matrix `input` and a dense `mat2` (PyTorch's legacy name of `mm`)."""
    if not is_sparse(input):
        return input.mm(mat2)
    return sparse_dense_product("spmm", input, mat2)
