"""Dimension helpers that scripts reach for: broadcast_tensors, atleast_1d/2d/3d, ravel, rot90,
hsplit/vsplit/dsplit, unsafe_split/unsafe_chunk, narrow_copy, and the in-place shape methods
(`transpose_`, `t_`, `squeeze_`, `unsqueeze_`, ...) that change a tensor's shape without copying.
"""

import numbers

from .._backend import np
from .._tensor import Tensor, new_tensor
from ..autograd import grad_mode
from ..autograd.function import Primitive
from ._common import normalize_dim
from ._declare import op, alias
from ._tangents import linear_jvp
from .inplace import _check_leaf
from .joining import Cat, Split, _slice_along, _split_sizes, vstack, tensor_split, narrow
from .shape import (
    _ChainedReplay,
    Squeeze,
    Transpose,
    Unsqueeze,
    contiguous,
    expand,
    squeeze,
    transpose,
    t,
    unsqueeze,
    view,
)
from .broadcast import broadcast_shapes

__all__ = [
    "broadcast_tensors",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "ravel",
    "row_stack",
    "rot90",
    "hsplit",
    "vsplit",
    "dsplit",
    "unsafe_split",
    "unsafe_chunk",
    "unsafe_split_with_sizes",
    "narrow_copy",
]  # (and the Tensor methods transpose_, swapaxes_, swapdims_, t_, squeeze_, unsqueeze_)


@op()
def broadcast_tensors(*tensors):
    """Views of the tensors expanded to their common broadcast shape."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = broadcast_shapes(*(tuple(item.shape) for item in tensors))
    return tuple(item if tuple(item.shape) == shape else expand(item, shape) for item in tensors)


def _at_least(op_name, ndim, tensors):
    """One tensor in, one out; several (or a list), a tuple out: as PyTorch's atleast_*d."""
    single = len(tensors) == 1 and isinstance(tensors[0], Tensor)
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    results = []
    for item in tensors:
        if not isinstance(item, Tensor):
            raise TypeError(f"{op_name}(): expected Tensors, got {type(item).__name__}")
        shape = item._data.shape
        if len(shape) >= ndim:
            results.append(item)
        elif len(shape) == 0:
            results.append(view(item, (1,) * ndim))
        elif len(shape) == 1:
            results.append(unsqueeze(item, 0) if ndim == 2 else unsqueeze(unsqueeze(item, 0), -1))
        else:
            results.append(unsqueeze(item, -1))
    return results[0] if single else tuple(results)


@op()
def atleast_1d(*tensors):
    """The tensor with at least one dim (0-d becomes shape (1,)); several tensors give a tuple."""
    return _at_least("atleast_1d", 1, tensors)


@op()
def atleast_2d(*tensors):
    """At least two dims: 0-d -> (1, 1), (n,) -> (1, n)."""
    return _at_least("atleast_2d", 2, tensors)


@op()
def atleast_3d(*tensors):
    """At least three dims: 0-d -> (1, 1, 1), (n,) -> (1, n, 1), (m, n) -> (m, n, 1)."""
    return _at_least("atleast_3d", 3, tensors)


@op(method=True)
def ravel(input):
    """The elements as a 1-d tensor: a view when the memory allows, else a contiguous copy."""
    return view(contiguous(input), -1)


row_stack = alias(vstack, "row_stack")


# ----------------------------------------------------------------------------- rot90
class Rot90(Primitive, node="Rot90Backward0"):
    @staticmethod
    def forward(ctx, a, k, dims):
        ctx.k, ctx.dims = k, dims
        return np.ascontiguousarray(np.rot90(a, k, dims))

    @staticmethod
    def backward(ctx, grad):
        return Rot90.apply(grad, -ctx.k % 4, ctx.dims), None, None

    jvp = linear_jvp


@op(Rot90, method=True)
def rot90(input, k=1, dims=(0, 1)):
    """Rotate by 90 degrees `k` times in the plane of `dims`, from the first dim towards the second."""
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    ndim = input._data.ndim
    if ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {ndim}")
    first, second = (normalize_dim(d, ndim, "rot90") for d in dims)
    if first == second:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {first} and dim1 = {second}")
    return Rot90.apply(input, int(k) % 4, (first, second))


# ----------------------------------------------------------------------------- hsplit / vsplit / dsplit
def _directional_split(input, sections, dim, least, op_name):
    ndim = input._data.ndim
    if ndim < least:
        raise RuntimeError(
            f"torch.{op_name} requires a tensor with at least {least} dimension, but got a tensor with {ndim} dimensions!"
        )
    if isinstance(sections, numbers.Integral) and not isinstance(sections, bool):
        size = input._data.shape[dim]
        if sections == 0 or size % sections:
            raise RuntimeError(
                f"torch.{op_name} attempted to split along dimension {dim}, but the size of the dimension {size} "
                f"is not divisible by the split_size {sections}!"
            )
    return tensor_split(input, sections, dim)


@op(method=True)
def hsplit(input, indices_or_sections):
    """Split column-wise (dim 1; dim 0 for 1-d tensors) into equal sections or at indices."""
    dim = 1 if input._data.ndim >= 2 else 0
    return _directional_split(input, indices_or_sections, dim, 1, "hsplit")


@op(method=True)
def vsplit(input, indices_or_sections):
    """Split row-wise (dim 0) of a tensor with at least two dims."""
    return _directional_split(input, indices_or_sections, 0, 2, "vsplit")


@op(method=True)
def dsplit(input, indices_or_sections):
    """Split depth-wise (dim 2) of a tensor with at least three dims."""
    return _directional_split(input, indices_or_sections, 2, 3, "dsplit")


# ----------------------------------------------------------------------------- unsafe_split / unsafe_chunk
class UnsafeSplit(Split, node="UnsafeSplitBackward0"):
    """`split` whose outputs autograd does not track as views (PyTorch's "unsafe": in-place changes
    of a piece are neither refused nor seen by the input's other users)."""

    @staticmethod
    def backward(ctx, *grads):
        return Cat.apply(ctx.dim, *grads), None, None


@op(UnsafeSplit, method=True)
def unsafe_split(tensor, split_size, dim=0):
    """`split` into pieces of `split_size` without view tracking."""
    dim = normalize_dim(dim, tensor._data.ndim, "unsafe_split")
    sizes, _ = _split_sizes(tensor, split_size, dim)
    return UnsafeSplit.apply(tensor, dim, tuple(sizes))


@op(method=True)
def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """`split_with_sizes` without view tracking: pieces of the given sizes that may be changed in place."""
    return unsafe_split(input, list(split_sizes), dim)


@op(method=True)
def unsafe_chunk(input, chunks, dim=0):
    """`chunk` without view tracking."""
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim = normalize_dim(dim, input._data.ndim, "unsafe_chunk")
    size = input._data.shape[dim]
    return unsafe_split(input, max(-(-size // chunks), 1) if size else 0, dim)


# ----------------------------------------------------------------------------- narrow_copy
class NarrowCopy(Primitive, node="NarrowCopyBackward0"):
    @staticmethod
    def forward(ctx, a, dim, start, length):
        ctx.dim, ctx.start, ctx.length, ctx.shape = dim, start, length, a.shape
        return a[_slice_along(dim, start, start + length)].copy()

    @staticmethod
    def backward(ctx, grad):
        from .scatters import slice_scatter
        from .creation import zeros

        whole = zeros(ctx.shape, dtype=grad.dtype)
        return slice_scatter(whole, grad, ctx.dim, ctx.start, ctx.start + ctx.length), None, None, None

    jvp = linear_jvp


@op(NarrowCopy, method=True)
def narrow_copy(input, dim, start, length):
    """`narrow` as a new tensor (not a view)."""
    piece = narrow(input, dim, start, length)  # checks the arguments with narrow's messages
    dim = normalize_dim(dim, input._data.ndim, "narrow_copy")
    start = start + input._data.shape[dim] if start < 0 else start
    return NarrowCopy.apply(input, dim, int(start), int(piece._data.shape[dim]))


# ----------------------------------------------------------------------------- in-place shape methods
class TransposeInplace(Transpose, node="TransposeBackward1"):
    pass


class TInplace(Primitive, node="TBackward1"):
    """`t_()`: NumPy's `.T` transposes a matrix and leaves 0-d and 1-d arrays as they are."""

    @staticmethod
    def forward(ctx, a):
        return a.T

    @staticmethod
    def backward(ctx, grad):
        return t(grad)

    jvp = linear_jvp


class SqueezeInplace(Squeeze, node="SqueezeBackward3"):
    pass


class SqueezeDimInplace(Squeeze, node="SqueezeBackward4"):
    pass


class SqueezeDimsInplace(Squeeze, node="SqueezeBackward5"):
    pass


class UnsqueezeInplace(Unsqueeze, node="UnsqueezeBackward1"):
    pass


def _restride(tensor, op_name, reshaped, primitive, *args):
    """Give `tensor` the shape and strides of `reshaped(tensor)` over the same memory; with a history,
    its node becomes `primitive`'s (PyTorch's in-place twin of the view op)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{op_name}: expected a Tensor, got {type(tensor).__name__}")
    recording = grad_mode.state.enabled and tensor._requires_grad
    if recording:
        _check_leaf(tensor, op_name)
    with grad_mode.no_grad():
        array = reshaped(tensor)._data
    if recording:
        stand_in = new_tensor(tensor._data, tensor._requires_grad, tensor._grad_fn, tensor._output_nr)
        stand_in._fw_grad = getattr(tensor, "_fw_grad", None)
        result = primitive.apply(stand_in, *args)
        tensor._grad_fn, tensor._output_nr = result._grad_fn, result._output_nr
        if getattr(result, "_fw_grad", None) is not None:  # forward AD: the view op's jvp made it
            tensor._fw_grad = result._fw_grad
    if tensor._base is not None:  # a view keeps knowing how to rebuild itself from its base
        tensor._view_replay = _ChainedReplay(tensor._view_replay, reshaped)
    tensor._data = array
    tensor._bump_version()
    if tensor._base is not None:
        tensor._view_version = tensor._version_counter.value  # its grad_fn is current
    return tensor


@op(TransposeInplace, method=True)
def transpose_(input, dim0, dim1):
    """Swap two dims of this tensor itself (no copy)."""
    ndim = input._data.ndim
    dim0, dim1 = normalize_dim(dim0, ndim, "transpose_"), normalize_dim(dim1, ndim, "transpose_")
    return _restride(input, "transpose_", lambda x: transpose(x, dim0, dim1), TransposeInplace, dim0, dim1)


@op(TInplace, method=True)
def t_(input):
    """Transpose this matrix itself (0-d and 1-d tensors stay as they are)."""
    ndim = input._data.ndim
    if ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    return _restride(input, "t_", t, TInplace)


@op(SqueezeInplace, SqueezeDimInplace, SqueezeDimsInplace, method=True)
def squeeze_(input, dim=None):
    """Drop size-1 dims of this tensor itself (all, or those among `dim`)."""
    shape = input._data.shape
    if dim is None:
        primitive = SqueezeInplace
    elif isinstance(dim, (int, np.integer)):
        primitive = SqueezeDimInplace
    else:
        primitive = SqueezeDimsInplace
    dims = tuple(d for d in _normalized_dims(dim, len(shape)) if shape[d] == 1)
    return _restride(input, "squeeze_", lambda x: squeeze(x, dim), primitive, dims)


def _normalized_dims(dim, ndim):
    from ._common import normalize_dims

    return normalize_dims(dim, ndim, "squeeze_") if ndim else ()


@op(UnsqueezeInplace, method=True)
def unsqueeze_(input, dim):
    """Insert a size-1 dim into this tensor itself."""
    ndim = input._data.ndim + 1
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})")
    dim = dim % ndim
    return _restride(input, "unsqueeze_", lambda x: unsqueeze(x, dim), UnsqueezeInplace, dim)


swapaxes_ = alias(transpose_, "swapaxes_", method=True)
swapdims_ = alias(transpose_, "swapdims_", method=True)
