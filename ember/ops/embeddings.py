"""Embedding lookup (with padding_idx, max_norm, scale_grad_by_freq)."""

from .._backend import np
from .._tensor import Tensor, new_tensor
from ..autograd.function import Primitive
from ._nn_common import _check_tensor
from ._declare import op

__all__ = ["embedding"]


# ================================================================ embedding
class Embedding(Primitive, node="EmbeddingBackward0"):
    """Rows of `weight` picked by integer `indices`; backward sums gradients into the picked rows
    (or, with `sparse`, gives them as a sparse COO gradient, one entry per lookup, as PyTorch's)."""

    @staticmethod
    def forward(ctx, weight, indices, padding_idx, scale_grad_by_freq, sparse=False):
        ctx.save_for_backward(indices)
        ctx.options = weight.shape[0], padding_idx, scale_grad_by_freq
        ctx.sparse = sparse
        return weight[indices]

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        if ctx.sparse:
            return _sparse_gradient(grad, indices, *ctx.options), None, None, None, None
        return _EmbeddingScatter.apply(grad, indices, *ctx.options), None, None, None, None


def _sparse_gradient(grad, indices, num_weights, padding_idx, scale_grad_by_freq):
    """The weight's gradient as PyTorch's sparse embedding gives it: uncoalesced, an entry per looked-up
    index (the padding index's left out), the gradient's rows as values."""
    from .sparse_coo import sparse_coo_tensor

    if scale_grad_by_freq:
        raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse gradients")
    flat = indices._data.reshape(-1).astype(np.int64)
    rows = grad.reshape(-1, grad.shape[-1])
    if padding_idx is not None:
        kept = np.flatnonzero(flat != padding_idx)
        flat, rows = flat[kept], rows[new_tensor(kept)]
    return sparse_coo_tensor(new_tensor(flat[None]), rows, (num_weights, grad.shape[-1]))


class _EmbeddingScatter(Primitive, node="EmbeddingBackwardBackward0"):
    """Embedding's weight gradient: grad rows summed per index (the padding row gets none)."""

    @staticmethod
    def forward(ctx, grad, indices, num_weights, padding_idx, scale_grad_by_freq):
        ctx.save_for_backward(indices)
        ctx.options = padding_idx, scale_grad_by_freq
        rows = grad.reshape(-1, grad.shape[-1])
        flat = indices.ravel()
        if scale_grad_by_freq:
            counts = np.bincount(flat, minlength=num_weights)
            rows = rows / counts[flat, None].astype(grad.dtype)
        result = np.zeros((num_weights, grad.shape[-1]), dtype=grad.dtype)
        _add_rows_at(result, flat, rows)
        if padding_idx is not None:
            result[padding_idx] = 0
        return result

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        padding_idx, scale_grad_by_freq = ctx.options
        weight = None
        if padding_idx is not None or scale_grad_by_freq:
            flat = indices._data.ravel()
            factor = np.ones(flat.shape, dtype=grad._data.dtype)
            if scale_grad_by_freq:
                factor /= np.bincount(flat, minlength=grad._data.shape[0])[flat]
            if padding_idx is not None:
                factor[flat == padding_idx] = 0
            weight = new_tensor(factor.reshape(indices._data.shape + (1,)))
        picked = Embedding.apply(grad, indices, None, False, False)
        return (picked if weight is None else picked * weight), None, None, None, None


_INDEX_BLOCK = 2**20  # elements of the flat index array made at a time (8 MiB)


def _add_rows_at(result, flat, rows):
    """`np.add.at(result, flat, rows)` for 2-D `result` and `rows`, through element positions in the
    flattened arrays: NumPy's 1-D fast path of `ufunc.at` is ~5x faster than its row loop, with the
    same additions in the same order. In blocks of rows, so the index array stays small."""
    width = rows.shape[1]
    target = result.reshape(-1)
    columns = np.arange(width)
    block = max(1, _INDEX_BLOCK // max(width, 1))
    for start in range(0, flat.shape[0], block):
        positions = (flat[start : start + block, None] * width + columns).reshape(-1)
        np.add.at(target, positions, rows[start : start + block].reshape(-1))


def _embedding_renorm(weight, indices, max_norm, norm_type):
    """Rescale, in place, the rows `indices` picks whose norm exceeds `max_norm` (as PyTorch does)."""
    rows = np.unique(indices)
    data = weight._data
    norms = np.linalg.norm(data[rows].astype(np.float64), ord=norm_type, axis=1)
    too_long = norms > max_norm
    if too_long.any():
        scale = (max_norm / (norms[too_long] + 1e-7)).astype(data.dtype)
        data[rows[too_long]] *= scale[:, None]
        weight._bump_version()


def _embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    _check_tensor(input, "input", "embedding")
    _check_tensor(weight, "weight", "embedding")
    if input._data.dtype.kind not in "iu":
        raise RuntimeError(
            f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
            f"Long, Int; but got {input.dtype} instead (while checking arguments for embedding); "
            f"convert it with .long()"
        )
    if weight._data.ndim != 2:
        raise RuntimeError(f"embedding: 'weight' must be 2-D (num_embeddings, embedding_dim), got {list(weight.shape)}")
    num_weights = weight._data.shape[0]
    indices = input._data
    if indices.size and (indices.min() < 0 or indices.max() >= num_weights):
        bad = indices[(indices < 0) | (indices >= num_weights)].ravel()[0]
        raise IndexError(
            f"index {bad} is out of range for an embedding of {num_weights} rows (indices must be in "
            f"[0, {num_weights - 1}])"
        )
    if padding_idx is not None:
        if not -num_weights <= padding_idx < num_weights:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= num_weights
    if max_norm is not None:
        _embedding_renorm(weight, indices, max_norm, norm_type)
    return Embedding.apply(weight, indices, padding_idx, scale_grad_by_freq, bool(sparse))


@op()
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """`torch.embedding` (weight first): rows of `weight` at `indices`. See `nn.functional.embedding`."""
    return _embedding(
        indices,
        weight,
        None if padding_idx == -1 else padding_idx,
        scale_grad_by_freq=scale_grad_by_freq,
        sparse=sparse,
    )


def one_hot(tensor, num_classes=-1):
    """(*) int64 class indices -> (*, num_classes) int64 with a 1 at each index."""
    if not isinstance(tensor, Tensor) or tensor._data.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    indices = tensor._data
    if num_classes == -1:
        if indices.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(indices.max()) + 1
    if indices.size and indices.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if indices.size and indices.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return new_tensor((indices[..., None] == np.arange(num_classes)).astype(np.int64))
