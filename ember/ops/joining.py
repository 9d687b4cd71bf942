"""Joining and splitting: cat, stack, split, chunk, unbind, narrow, flip, roll, repeat, diagonals, unfold.

Splits (`split`, `chunk`, `unbind`, `tensor_split`, `narrow`), `diagonal` and `unfold` return views
that share memory with their input; the others return new tensors.
"""

import math
import numbers

from .._backend import np, as_strided
from .._validation import allocate, int_argument
from .._tensor import Tensor, new_tensor
from .. import _dtype
from ..autograd.function import Primitive
from ._common import c_contiguous, normalize_dim
from .shape import make_view, _Replay, parse_shape
from .indexing import BasicIndex, basic_view, index_select
from ._tangents import linear_jvp
from ._declare import op, alias
from .._warn import warn as _warn

__all__ = [
    "cat",
    "concat",
    "concatenate",
    "stack",
    "hstack",
    "vstack",
    "dstack",
    "column_stack",
    "split",
    "split_with_sizes",
    "tensor_split",
    "chunk",
    "unbind",
    "narrow",
    "select",
    "flip",
    "fliplr",
    "flipud",
    "roll",
    "repeat",
    "tile",
    "repeat_interleave",
    "tril",
    "triu",
    "diag",
    "diagonal",
    "diag_embed",
    "diagflat",
    "meshgrid",
    "cartesian_prod",
    "unfold",
]


def _tensor_list(tensors, op_name):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(
            f"{op_name}(): argument 'tensors' (position 1) must be tuple of Tensors, not {type(tensors).__name__}"
        )
    for position, item in enumerate(tensors):
        if not isinstance(item, Tensor):
            raise TypeError(
                f"{op_name}(): expected Tensor as element {position} in argument 0, but got {type(item).__name__}"
            )
    if not tensors:
        if op_name == "stack":  # (PyTorch's cat raises ValueError, its stack RuntimeError)
            raise RuntimeError("stack expects a non-empty TensorList")
        raise ValueError(f"torch.{op_name}(): expected a non-empty list of Tensors")
    return list(tensors)


def _promoted(tensors):
    """The tensors cast (in the graph) to PyTorch's common dtype."""
    target = tensors[0].dtype
    for item in tensors[1:]:
        target = _dtype.promote_types(target, item.dtype)
    return [item if item.dtype is target else item.to(target) for item in tensors]


def _slice_along(dim, start, stop):
    return (slice(None),) * dim + (slice(start, stop), Ellipsis)


# ----------------------------------------------------------------------------- cat / stack
class Cat(Primitive, node="CatBackward0"):
    @staticmethod
    def forward(ctx, dim, *arrays):
        ctx.dim, ctx.sizes = dim, [array.shape[dim] for array in arrays]
        return np.concatenate(arrays, axis=dim)

    @staticmethod
    def backward(ctx, grad):
        grads, start = [None], 0
        for needed, size in zip(ctx.needs_input_grad[1:], ctx.sizes):
            grads.append(BasicIndex.apply(grad, _slice_along(ctx.dim, start, start + size)) if needed else None)
            start += size
        return tuple(grads)

    jvp = linear_jvp


@op(Cat, method=True)
def cat(tensors, dim=0, *, out=None):
    """Join tensors along an existing dim; dtypes are promoted as in PyTorch. 1-d empty tensors are
    skipped (PyTorch's legacy rule)."""
    tensors = _tensor_list(tensors, "cat")
    for position, item in enumerate(tensors):
        if item._data.ndim == 0:
            raise RuntimeError(
                f"zero-dimensional tensor (at position {position}) cannot be concatenated; "
                "torch.stack joins scalars into a new dimension"
            )
    kept = [item for item in tensors if item._data.shape != (0,)] or tensors[:1]
    reference = kept[0]._data.shape
    dim = normalize_dim(dim, len(reference), "cat")
    for number, item in enumerate(tensors):
        shape = item._data.shape
        if shape == (0,) and len(kept) < len(tensors):
            continue
        if len(shape) != len(reference):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(reference)} and {len(shape)}")
        for d, (size, expected) in enumerate(zip(shape, reference)):
            if d != dim and size != expected:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {dim}. Expected size {expected} "
                    f"but got size {size} for tensor number {number} in the list."
                )
    result = Cat.apply(dim, *_promoted(kept))
    if out is not None:
        from .inplace import copy_into_out

        return copy_into_out(out, result)
    return result


class Stack(Primitive, node="StackBackward0"):
    @staticmethod
    def forward(ctx, dim, *arrays):
        ctx.dim = dim
        return np.stack(arrays, axis=dim)

    @staticmethod
    def backward(ctx, grad):
        prefix = (slice(None),) * ctx.dim
        return (None,) + tuple(
            BasicIndex.apply(grad, prefix + (position, Ellipsis)) if needed else None
            for position, needed in enumerate(ctx.needs_input_grad[1:])
        )

    jvp = linear_jvp


@op(Stack, method=True)
def stack(tensors, dim=0, *, out=None):
    """Join same-shape tensors along a new dim."""
    tensors = _tensor_list(tensors, "stack")
    reference = tensors[0]._data.shape
    for number, item in enumerate(tensors):
        if item._data.shape != reference:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(reference)} at entry 0 "
                f"and {list(item.shape)} at entry {number}"
            )
    dim = normalize_dim(dim, len(reference) + 1, "stack")
    result = Stack.apply(dim, *_promoted(tensors))
    if out is not None:
        from .inplace import copy_into_out

        return copy_into_out(out, result)
    return result


def _at_least(tensor, ndim):
    """`atleast_1d/2d/3d`: 0-d -> (1,), 1-d (n,) -> (1, n), 2-d (m, n) -> (m, n, 1)."""
    shape = tensor._data.shape
    if len(shape) >= ndim:
        return tensor
    if len(shape) == 0:
        return tensor.reshape((1,) * ndim)
    if len(shape) == 1:
        return tensor.reshape((1, shape[0]) + (1,) * (ndim - 2))
    return tensor.reshape(shape + (1,))


@op(method=True)
def hstack(tensors, *, out=None):
    """Concatenate column-wise: along dim 1, or dim 0 for 1-d tensors."""
    tensors = [_at_least(item, 1) for item in _tensor_list(tensors, "hstack")]
    return cat(tensors, 0 if tensors[0]._data.ndim == 1 else 1, out=out)


@op(method=True)
def vstack(tensors, *, out=None):
    """Concatenate row-wise (1-d tensors become rows)."""
    return cat([_at_least(item, 2) for item in _tensor_list(tensors, "vstack")], 0, out=out)


@op(method=True)
def dstack(tensors, *, out=None):
    """Concatenate depth-wise, along dim 2 of the tensors made at least 3-d."""
    return cat([_at_least(item, 3) for item in _tensor_list(tensors, "dstack")], 2, out=out)


@op(Stack, method=True)
def column_stack(tensors, *, out=None):
    """Stack 0-d/1-d tensors as columns (and concatenate 2-d ones) along dim 1."""
    tensors = _tensor_list(tensors, "column_stack")
    columns = [item.reshape(item._data.size, 1) if item._data.ndim <= 1 else item for item in tensors]
    return cat(columns, 1, out=out)


# ----------------------------------------------------------------------------- splitting (views)
class _MultiOutputView(_Replay):
    """The replay of an output of split/chunk/unbind. PyTorch forbids in-place changes of these
    (when gradients are recorded) because the node is shared by all the outputs."""

    __slots__ = ("node_name",)
    forbids_inplace = True

    def __init__(self, node_name, function, *args):
        super().__init__(function, *args)
        self.node_name = node_name

    def inplace_error(self, output_nr):
        return RuntimeError(
            f"Output {output_nr} of {self.node_name} is a view and is being modified inplace. This view is the "
            "output of a function that returns multiple views. Such functions do not allow the output views to "
            "be modified inplace. You should replace the inplace operation by an out-of-place one (e.g. clone() "
            "the output first)."
        )


class Split(Primitive, node="SplitBackward0"):
    @staticmethod
    def forward(ctx, a, dim, sizes):
        ctx.dim, ctx.shape = dim, a.shape
        parts, start = [], 0
        for size in sizes:
            parts.append(a[_slice_along(dim, start, start + size)])
            start += size
        return tuple(parts)

    @staticmethod
    def backward(ctx, *grads):
        return Cat.apply(ctx.dim, *grads), None, None


class SplitWithSizes(Split, node="SplitWithSizesBackward0"):
    pass


def _views_of(outputs, input, node_name, make_replay):
    for position, output in enumerate(outputs):
        make_view(output, input, _MultiOutputView(node_name, *make_replay(position)))
    return outputs


def _split_sizes(input, split_size_or_sections, dim):
    size = input._data.shape[dim]
    if isinstance(split_size_or_sections, (numbers.Integral, Tensor)):
        step = int(split_size_or_sections)
        if step < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
        if step == 0:
            if size:
                raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
            return [0], False
        return [min(step, size - start) for start in range(0, size, step)] or [0], False
    sizes = [int(s) for s in split_size_or_sections]
    if sum(sizes) != size or any(s < 0 for s in sizes):
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at "
            f"dimension {dim}), but got split_sizes={sizes}"
        )
    return sizes, True


@op(Split, SplitWithSizes, method=True)
def split(tensor, split_size_or_sections, dim=0):
    """Views of consecutive pieces along `dim`: of size `split_size` each (the last may be smaller),
    or of the sizes in a list."""
    dim = normalize_dim(dim, tensor._data.ndim, "split")
    sizes, with_sizes = _split_sizes(tensor, split_size_or_sections, dim)
    function = SplitWithSizes if with_sizes else Split
    outputs = function.apply(tensor, dim, tuple(sizes))
    starts = np.cumsum([0] + sizes[:-1]).tolist()
    return _views_of(outputs, tensor, function._backward_cls.__name__, lambda i: (narrow, dim, starts[i], sizes[i]))


@op(method=True)
def split_with_sizes(input, split_sizes, dim=0):
    """`split` with a list of sizes (PyTorch's name for that form)."""
    return split(input, list(split_sizes), dim)


@op(method=True)
def chunk(input, chunks, dim=0):
    """At most `chunks` views of (nearly) equal size along `dim` (as `split` with ceil(size/chunks))."""
    chunks = int_argument(chunks, "chunk", "chunks", 1)
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    dim = normalize_dim(dim, input._data.ndim, "chunk")
    size = input._data.shape[dim]
    return split(input, max(math.ceil(size / chunks), 1) if size else 0, dim)


@op(method=True)
def tensor_split(input, indices_or_sections, dim=0):
    """Views split at the given indices, or into `sections` parts whose sizes differ by at most one."""
    dim = normalize_dim(dim, input._data.ndim, "tensor_split")
    size = input._data.shape[dim]
    if isinstance(indices_or_sections, Tensor) and indices_or_sections._data.ndim == 0:
        indices_or_sections = int(indices_or_sections)
    if isinstance(indices_or_sections, numbers.Integral):
        sections = int(indices_or_sections)
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        small, extra = divmod(size, sections)
        bounds = np.cumsum([0] + [small + 1] * extra + [small] * (sections - extra)).tolist()
    else:
        indices = [
            int(i)
            for i in (indices_or_sections.tolist() if isinstance(indices_or_sections, Tensor) else indices_or_sections)
        ]
        bounds = [0] + indices + [size]
    return tuple(
        basic_view(input, _slice_along(dim, min(start, size), max(min(stop, size), min(start, size))), "SliceBackward0")
        for start, stop in zip(bounds[:-1], bounds[1:])
    )


class Unbind(Primitive, node="UnbindBackward0"):
    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        prefix = (slice(None),) * dim
        return tuple(a[prefix + (position, Ellipsis)] for position in range(a.shape[dim]))

    @staticmethod
    def backward(ctx, *grads):
        return Stack.apply(ctx.dim, *grads), None


@op(Unbind, method=True)
def unbind(input, dim=0):
    """The slices along `dim`, as a tuple of views."""
    ndim = input._data.ndim
    if ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    dim = normalize_dim(dim, ndim, "unbind")
    outputs = Unbind.apply(input, dim)
    outputs = outputs if type(outputs) is tuple else (outputs,)
    prefix = (slice(None),) * dim
    return _views_of(
        outputs, input, "UnbindBackward0", lambda i: (basic_view, prefix + (i, Ellipsis), "SelectBackward0")
    )


@op(method=True)
def narrow(input, dim, start, length):
    """The view `input[..., start:start + length, ...]` along `dim` (start may be negative)."""
    ndim = input._data.ndim
    if ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = normalize_dim(dim, ndim, "narrow")
    size = input._data.shape[dim]
    start, length = int_argument(start, "narrow", "start", 2), int_argument(length, "narrow", "length", 3)
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    start %= size if size else 1
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return basic_view(input, _slice_along(dim, start, start + length), "SliceBackward0")


@op(method=True)
def select(input, dim, index):
    """The view `input[..., index, ...]` along `dim`, with that dimension removed."""
    ndim = input._data.ndim
    if ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = normalize_dim(dim, ndim, "select")
    size = input._data.shape[dim]
    index = int(index)
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(input.shape)} at dimension {dim}"
        )
    return basic_view(input, (slice(None),) * dim + (index % size, Ellipsis), "SelectBackward0")


# ----------------------------------------------------------------------------- rearranging copies
def _dims_of(dims, ndim, op_name):
    dims = (dims,) if isinstance(dims, numbers.Integral) else tuple(dims)
    normalized = tuple(normalize_dim(d, ndim, op_name) for d in dims)
    if len(set(normalized)) != len(normalized):
        raise RuntimeError(
            f"dims has duplicates, original flip dims size={len(dims)}, but unique flip dims "
            f"size={len(set(normalized))}"
        )
    return normalized


class Flip(Primitive, node="FlipBackward0"):
    @staticmethod
    def forward(ctx, a, dims):
        ctx.dims = dims
        return np.flip(a, dims).copy() if dims else a.copy()

    @staticmethod
    def backward(ctx, grad):
        return Flip.apply(grad, ctx.dims), None


@op(Flip, method=True)
def flip(input, dims):
    """A copy with the order of elements reversed along `dims`."""
    return Flip.apply(input, _dims_of(dims, input._data.ndim, "flip"))


@op(method=True)
def fliplr(input):
    """The columns in reverse order (`flip(input, (1,))`); needs at least 2 dimensions."""
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


@op(method=True)
def flipud(input):
    """The rows in reverse order (`flip(input, (0,))`); needs at least 1 dimension."""
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


class Roll(Primitive, node="RollBackward0"):
    @staticmethod
    def forward(ctx, a, shifts, dims):
        ctx.shifts, ctx.dims = shifts, dims
        return c_contiguous(np.roll(a, shifts, dims))

    @staticmethod
    def backward(ctx, grad):
        negated = -ctx.shifts if isinstance(ctx.shifts, int) else tuple(-s for s in ctx.shifts)
        return Roll.apply(grad, negated, ctx.dims), None, None


@op(Roll, method=True)
def roll(input, shifts, dims=None):
    """Shift elements cyclically along `dims` (over the flattened tensor when dims is None)."""
    shifts = int(shifts) if isinstance(shifts, (numbers.Integral, Tensor)) else tuple(int(s) for s in shifts)
    if dims is None:
        if not isinstance(shifts, int):
            if len(shifts) != 1:
                raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
            shifts = shifts[0]
        return Roll.apply(input, shifts, None)
    dims = (dims,) if isinstance(dims, numbers.Integral) else tuple(dims)
    shift_tuple = (shifts,) if isinstance(shifts, int) else shifts
    if len(shift_tuple) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shift_tuple)}, dims:{len(dims)}")
    dims = tuple(normalize_dim(d, input._data.ndim, "roll") for d in dims)
    return Roll.apply(input, shift_tuple, dims)


class Repeat(Primitive, node="RepeatBackward0"):
    @staticmethod
    def forward(ctx, a, repeats):
        shape = (1,) * (len(repeats) - a.ndim) + a.shape
        ctx.input_shape, ctx.shape, ctx.repeats = a.shape, shape, repeats
        return allocate(
            lambda _: np.tile(a.reshape(shape), repeats),
            tuple(size * times for size, times in zip(shape, repeats)),
            a.dtype,
        )

    @staticmethod
    def backward(ctx, grad):
        # Each output dim r*s is the pair (r, s): summing over the r's undoes the tiling.
        interleaved = tuple(size for pair in zip(ctx.repeats, ctx.shape) for size in pair)
        summed = grad.reshape(interleaved).sum(tuple(range(0, len(interleaved), 2)))
        return summed.reshape(ctx.input_shape), None


@op(Repeat, method=True)
def repeat(input, *sizes):
    """Tile the tensor `sizes[i]` times along each dim (new leading dims when sizes is longer)."""
    sizes = parse_shape(sizes, "repeat", "repeats")
    if len(sizes) < input._data.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of "
            f"tensor (repeat dims {list(sizes)} for a tensor of shape {list(input.shape)})"
        )
    if any(size < 0 for size in sizes):
        raise RuntimeError(f"Trying to create tensor with negative dimension: repeats {list(sizes)}")
    return Repeat.apply(input, sizes)


@op(method=True)
def tile(input, dims):
    """`repeat`, with leading 1s added to `dims` when it is shorter than the tensor's rank."""
    dims = parse_shape((dims,) if isinstance(dims, numbers.Integral) else tuple(dims), "tile", "dims")
    return repeat(input, (1,) * (input._data.ndim - len(dims)) + dims)


@op(Repeat, method=True)
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeat each element `repeats` times (an int, or one count per element along `dim`).

    `repeat_interleave(counts)` alone gives the indices `[0]*counts[0] + [1]*counts[1] + ...`.
    """
    if repeats is None:
        counts = input._data
        if counts.ndim > 1 or counts.dtype.kind not in "iu":
            raise RuntimeError("repeat_interleave: repeats must be 0-dim or 1-dim tensor of integers")
        return new_tensor(np.repeat(np.arange(counts.size, dtype=np.int64), counts.reshape(-1)))
    if dim is None:
        input, dim = input.reshape(-1), 0
    dim = normalize_dim(dim, input._data.ndim, "repeat_interleave")
    if isinstance(repeats, Tensor) and repeats._data.ndim == 0:
        repeats = int(repeats)
    if isinstance(repeats, numbers.Integral):
        if repeats < 0:
            raise RuntimeError("repeats can not be negative")
        shape = input._data.shape
        expanded = input.unsqueeze(dim + 1).expand(shape[: dim + 1] + (int(repeats),) + shape[dim + 1 :])
        return expanded.contiguous().view(shape[:dim] + (shape[dim] * int(repeats),) + shape[dim + 1 :])
    counts = repeats if isinstance(repeats, Tensor) else new_tensor(np.asarray(repeats, dtype=np.int64))
    if counts._data.size != input._data.shape[dim]:
        raise RuntimeError(
            f"repeats must have the same size as input along dim, but got repeats.size(0) = "
            f"{counts._data.size} and input.size({dim}) = {input._data.shape[dim]}"
        )
    if (counts._data < 0).any():
        raise RuntimeError("repeats can not be negative")
    return index_select(input, dim, repeat_interleave(counts))


# ----------------------------------------------------------------------------- triangles and diagonals
class Tril(Primitive, node="TrilBackward0"):
    _numpy = staticmethod(np.tril)

    @staticmethod
    def forward(ctx, a, diagonal):
        ctx.diagonal = diagonal
        return type(ctx)._forward_cls._numpy(a, diagonal)

    @staticmethod
    def backward(ctx, grad):
        return type(ctx)._forward_cls.apply(grad, ctx.diagonal), None


class Triu(Tril, node="TriuBackward0"):
    _numpy = staticmethod(np.triu)


def _triangle(function, input, diagonal, op_name):
    if input._data.ndim < 2:
        raise RuntimeError(f"{op_name}: input tensor must have at least 2 dimensions")
    return function.apply(input, int(diagonal))


@op(Tril, method=True, inplace=True)
def tril(input, diagonal=0, *, out=None):
    """The lower triangle (on and below `diagonal`) of the last two dims; the rest zeroed."""
    return _triangle(Tril, input, diagonal, "tril")


@op(Triu, method=True, inplace=True)
def triu(input, diagonal=0, *, out=None):
    """The upper triangle (on and above `diagonal`) of the last two dims; the rest zeroed."""
    return _triangle(Triu, input, diagonal, "triu")


def _diagonal_view(array, offset, dim1, dim2):
    """A writable NumPy view of a diagonal (np.diagonal's is read-only), last dim = the diagonal."""
    shape, strides = array.shape, array.strides
    if offset >= 0:
        length = max(0, min(shape[dim1], shape[dim2] - offset))
        start = (slice(None),) * dim2 + (slice(min(offset, shape[dim2]), None),)
    else:
        length = max(0, min(shape[dim1] + offset, shape[dim2]))
        start = (slice(None),) * dim1 + (slice(min(-offset, shape[dim1]), None),)
    other = [d for d in range(array.ndim) if d not in (dim1, dim2)]
    new_shape = tuple(shape[d] for d in other) + (length,)
    new_strides = tuple(strides[d] for d in other) + (strides[dim1] + strides[dim2],)
    shifted = array[start]
    if length == 0 or shifted.size == 0:
        return np.empty(new_shape, dtype=array.dtype)
    return as_strided(shifted, new_shape, new_strides)


class Diagonal(Primitive, node="DiagonalBackward0"):
    @staticmethod
    def forward(ctx, a, offset, dim1, dim2):
        ctx.input_shape, ctx.args = a.shape, (offset, dim1, dim2)
        return _diagonal_view(a, offset, dim1, dim2)

    @staticmethod
    def backward(ctx, grad):
        return DiagonalGradient.apply(grad, ctx.input_shape, *ctx.args), None, None, None


class DiagonalCopy(Diagonal, node="DiagonalBackward0_copy"):
    @staticmethod
    def forward(ctx, a, offset, dim1, dim2):
        return Diagonal.forward(ctx, a, offset, dim1, dim2).copy()


class DiagonalGradient(Primitive, node="DiagonalBackwardBackward0"):
    """Zeros of `shape` with `grad` on a diagonal: the backward of `diagonal` (and `diag_embed`)."""

    @staticmethod
    def forward(ctx, grad, shape, offset, dim1, dim2):
        ctx.args = (offset, dim1, dim2)
        result = np.zeros(shape, dtype=grad.dtype)
        _diagonal_view(result, offset, dim1, dim2)[...] = grad
        return result

    @staticmethod
    def backward(ctx, grad):
        return Diagonal.apply(grad, *ctx.args), None, None, None, None


class DiagEmbed(DiagonalGradient, node="DiagEmbedBackward0"):
    pass


def _diagonal_dims(ndim, dim1, dim2, op_name):
    dim1, dim2 = normalize_dim(dim1, ndim, op_name), normalize_dim(dim2, ndim, op_name)
    if dim1 == dim2:
        raise RuntimeError(f"{op_name}(): dim1 and dim2 cannot be identical, but got dim1 = dim2 = {dim1}")
    return dim1, dim2


@op(Diagonal, method=True)
def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal of the (dim1, dim2) planes, as a view whose last dim runs along the diagonal."""
    dim1, dim2 = _diagonal_dims(input._data.ndim, dim1, dim2, "diagonal")
    output = Diagonal.apply(input, int(offset), dim1, dim2)
    return make_view(output, input, _Replay(diagonal, int(offset), dim1, dim2))


@op(DiagEmbed, method=True)
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Tensors whose (dim1, dim2) planes have the last dim of `input` on their `offset` diagonal."""
    ndim = input._data.ndim + 1
    dim1, dim2 = _diagonal_dims(ndim, dim1, dim2, "diag_embed")
    offset = int(offset)
    size = input._data.shape[-1] + abs(offset) if input._data.ndim else 1 + abs(offset)
    batch = list(input._data.shape[:-1])
    shape = []
    for d in range(ndim):
        shape.append(size if d in (dim1, dim2) else batch.pop(0))
    return DiagEmbed.apply(input, tuple(shape), offset, dim1, dim2)


@op(DiagonalCopy, method=True)
def diag(input, diagonal=0):
    """A 1-d tensor -> a square matrix with it on `diagonal`; a matrix -> a copy of that diagonal."""
    ndim = input._data.ndim
    if ndim == 1:
        return diag_embed(input, diagonal, 0, 1)
    if ndim == 2:
        return DiagonalCopy.apply(input, int(diagonal), 0, 1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {ndim}D")


@op(method=True)
def diagflat(input, offset=0):
    """A square matrix with the flattened `input` on its `offset` diagonal."""
    return diag_embed(input.reshape(-1), offset, 0, 1)


# ----------------------------------------------------------------------------- grids
@op(method=True)
def meshgrid(*tensors, indexing=None):
    """Coordinate grids (views, by expand) from 1-d tensors; `indexing` is 'ij' (default) or 'xy'."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        _warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
            UserWarning,
            stacklevel=2,
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    for item in tensors:
        if item._data.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {item.shape}")
    vectors = [item.reshape(-1) for item in tensors]
    swap = indexing == "xy" and len(vectors) >= 2
    if swap:
        vectors[0], vectors[1] = vectors[1], vectors[0]
    shape = tuple(vector._data.size for vector in vectors)
    grids = []
    for position, vector in enumerate(vectors):
        view_shape = [1] * len(vectors)
        view_shape[position] = -1
        grids.append(vector.view(view_shape).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


@op(method=True)
def cartesian_prod(*tensors):
    """All combinations of elements of 1-d tensors, one per row (like itertools.product)."""
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([grid.reshape(-1) for grid in grids], 1)


# ----------------------------------------------------------------------------- sliding windows
def _windows(shape, dim, size, step):
    count = (shape[dim] - size) // step + 1
    return count, np.arange(count)[:, None] * step + np.arange(size)[None, :]


class Unfold(Primitive, node="UnfoldBackward0"):
    @staticmethod
    def forward(ctx, a, dim, size, step):
        ctx.input_shape, ctx.args = a.shape, (dim, size, step)
        count = (a.shape[dim] - size) // step + 1
        shape = a.shape[:dim] + (count,) + a.shape[dim + 1 :] + (size,)
        strides = a.strides[:dim] + (a.strides[dim] * step,) + a.strides[dim + 1 :] + (a.strides[dim],)
        return as_strided(a, shape, strides)

    @staticmethod
    def backward(ctx, grad):
        return UnfoldGradient.apply(grad, ctx.input_shape, *ctx.args), None, None, None


class UnfoldGradient(Primitive, node="UnfoldBackwardBackward0"):
    """Sum each window's gradient back onto the positions it covers (windows may overlap)."""

    @staticmethod
    def forward(ctx, grad, shape, dim, size, step):
        ctx.args = (dim, size, step)
        result = np.zeros(shape, dtype=grad.dtype)
        _, positions = _windows(shape, dim, size, step)
        # grad: (..., count, ..., size) -> (count, size, ...) to line up with `positions`.
        moved = np.moveaxis(np.moveaxis(grad, -1, dim + 1), (dim, dim + 1), (0, 1))
        np.add.at(np.moveaxis(result, dim, 0), positions, moved)
        return result

    @staticmethod
    def backward(ctx, grad):
        return Unfold.apply(grad, *ctx.args), None, None, None, None


@op(Unfold, method=True)
def unfold(input, dimension, size, step):
    """`Tensor.unfold`: a view of all windows of `size` along `dimension`, `step` apart (last dim)."""
    ndim = input._data.ndim
    dim = normalize_dim(dimension, ndim, "unfold")
    length = input._data.shape[dim] if ndim else 1
    size, step = int_argument(size, "unfold", "size", 2), int_argument(step, "unfold", "step", 3)
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {dim} is {length} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    source = input if ndim else input.reshape(1)
    output = Unfold.apply(source, dim, size, step)
    if not ndim:
        output = output.reshape(size)
    return make_view(output, input, _Replay(unfold, dim, size, step))


# PyTorch's other names for the ops above.
concat = alias(cat, "concat", method=True)
concatenate = alias(cat, "concatenate", method=True)
