"""Writing a tensor into a region of another, out of place (select_scatter, slice_scatter,
diagonal_scatter, as_strided_scatter), and `as_strided`, the view of raw memory they mirror.

Each scatter is the functional twin of a view op: the result is `input` with the view's region
replaced by `src`. So each derivative is stated once: `src` gets the view of the gradient, `input`
the gradient with that region zeroed (the same scatter with zeros).
"""

from .._backend import np, as_strided as _np_as_strided
from .._tensor import Tensor
from ..autograd.function import Primitive
from ._common import normalize_dim
from ._declare import op
from ._tangents import linear_jvp
from .joining import _diagonal_view, _diagonal_dims, diagonal, select
from .shape import make_view, _Replay

__all__ = ["select_scatter", "slice_scatter", "diagonal_scatter", "as_strided", "as_strided_", "as_strided_scatter"]
# (and the Tensor methods fill_diagonal_ and new_empty_strided)


class _Scatter(Primitive):
    """`input` with `region(copy, *args)` replaced by `src`; subclasses state the region twice: on an
    array (a writable NumPy view) and on a tensor (the ember view op, for the gradient of `src`)."""

    @staticmethod
    def region(array, *args):
        raise NotImplementedError

    @staticmethod
    def take(tensor, *args):
        raise NotImplementedError

    @classmethod
    def forward(cls, ctx, input, src, *args):
        ctx.args = args
        result = input.copy()
        cls.region(result, *args)[...] = src
        return result

    @classmethod
    def backward(cls, ctx, grad):
        from .creation import zeros_like

        needs_input, needs_src = ctx.needs_input_grad[:2]
        region = cls.take(grad, *ctx.args)
        grad_input = cls.apply(grad, zeros_like(region), *ctx.args) if needs_input else None
        return (grad_input, region if needs_src else None) + (None,) * len(ctx.args)

    jvp = linear_jvp


def _check_src(input, src, region_shape, op_name):
    if not isinstance(input, Tensor) or not isinstance(src, Tensor):
        raise TypeError(f"{op_name}(): expected Tensors for input and src")
    if tuple(src._data.shape) != tuple(region_shape):
        raise RuntimeError(
            f"expected src to have a size equal to the slice of self. src size = {list(src._data.shape)}, "
            f"slice size = {list(region_shape)}"
        )
    return src if src.dtype is input.dtype else src.to(input.dtype)


class SelectScatter(_Scatter, node="SelectScatterBackward0"):
    @staticmethod
    def region(array, dim, index):
        return array[(slice(None),) * dim + (index,)]

    @staticmethod
    def take(tensor, dim, index):
        return select(tensor, dim, index)


class SliceScatter(_Scatter, node="SliceScatterBackward0"):
    @staticmethod
    def region(array, dim, start, end, step):
        return array[(slice(None),) * dim + (slice(start, end, step),)]

    @staticmethod
    def take(tensor, dim, start, end, step):
        return tensor[(slice(None),) * dim + (slice(start, end, step),)]


class DiagonalScatter(_Scatter, node="DiagonalScatterBackward0"):
    @staticmethod
    def region(array, offset, dim1, dim2):
        return _diagonal_view(array, offset, dim1, dim2)

    @staticmethod
    def take(tensor, offset, dim1, dim2):
        return diagonal(tensor, offset, dim1, dim2)


@op(SelectScatter, method=True)
def select_scatter(input, src, dim, index):
    """A copy of `input` whose slice at `index` along `dim` is `src`."""
    shape = input._data.shape
    dim = normalize_dim(dim, len(shape), "select_scatter")
    if not -shape[dim] <= index < shape[dim]:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(shape)} at dimension {dim}")
    index = int(index) % shape[dim]
    src = _check_src(input, src, shape[:dim] + shape[dim + 1 :], "select_scatter")
    return SelectScatter.apply(input, src, dim, index)


@op(SliceScatter, method=True)
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """A copy of `input` whose elements `start:end:step` along `dim` are `src`."""
    shape = input._data.shape
    dim = normalize_dim(dim, len(shape), "slice_scatter")
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    start, end, step = slice(start, end, step).indices(shape[dim])
    region = SliceScatter.region(np.empty(shape, dtype=np.bool_), dim, start, end, step)
    src = _check_src(input, src, region.shape, "slice_scatter")
    return SliceScatter.apply(input, src, dim, start, end, step)


@op(DiagonalScatter, method=True)
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of `input` whose diagonal (as `diagonal(offset, dim1, dim2)` picks it) is `src`."""
    dim1, dim2 = _diagonal_dims(input._data.ndim, dim1, dim2, "diagonal_scatter")
    region = _diagonal_view(np.empty(input._data.shape, dtype=np.bool_), offset, dim1, dim2)
    src = _check_src(input, src, region.shape, "diagonal_scatter")
    return DiagonalScatter.apply(input, src, offset, dim1, dim2)


# ----------------------------------------------------------------------------- as_strided
def _storage(array):
    """(the flat memory `array` lives in, as a 1-d array of its dtype; `array`'s offset in it).
    The memory is the outermost NumPy array behind `array`, as `Tensor.storage_offset` counts."""
    root = array
    while getattr(root, "base", None) is not None and hasattr(root.base, "__array_interface__"):
        root = root.base
    if not isinstance(root, np.ndarray) or root.dtype != array.dtype:
        root = array
    itemsize = array.itemsize
    start = root.__array_interface__["data"][0]
    if root.size == 0:
        flat = np.empty(0, dtype=array.dtype)
    else:
        span = sum((length - 1) * stride for length, stride in zip(root.shape, root.strides) if stride > 0)
        flat = _np_as_strided(root, (span // itemsize + 1,), (itemsize,), writeable=root.flags.writeable)
    offset = (array.__array_interface__["data"][0] - start) // itemsize if array.size else 0
    return flat, offset


def _element_strides(array):
    return tuple(step // array.itemsize for step in array.strides)


def _storage_indices(size, stride, offset):
    """The storage position of each element of a strided view (an int64 array of shape `size`)."""
    indices = np.full(tuple(size), offset, dtype=np.int64)
    for dim, (length, step) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[dim] = length
        indices = indices + (np.arange(length, dtype=np.int64) * step).reshape(shape)
    return indices


def _strided_view(array, size, stride, storage_offset, op_name):
    flat, own_offset = _storage(array)
    offset = own_offset if storage_offset is None else int(storage_offset)
    if any(step < 0 for step in stride):
        raise RuntimeError(f"{op_name}: Negative strides are not supported at the moment, got strides: {list(stride)}")
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape: {len(stride)} strides for {len(size)} sizes")
    needed = 0 if 0 in size else offset + sum((length - 1) * step for length, step in zip(size, stride)) + 1
    if needed > flat.size:
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and itemsize "
            f"{array.itemsize} requiring a storage size of {needed * array.itemsize} are out of bounds for storage "
            f"of size {flat.size * array.itemsize}"
        )
    itemsize = array.itemsize
    view = _np_as_strided(
        flat[offset:] if flat.size else flat,
        tuple(size),
        tuple(step * itemsize for step in stride),
        writeable=flat.flags.writeable,
    )
    return view, offset, own_offset, flat.size


class AsStrided(Primitive, node="AsStridedBackward0"):
    """A view of the input's memory with the given sizes and strides. The gradient goes back through
    the memory: each output element adds into its memory position, each input element reads its own."""

    @staticmethod
    def forward(ctx, a, size, stride, storage_offset):
        view, offset, own_offset, storage_size = _strided_view(a, size, stride, storage_offset, "as_strided")
        ctx.output_positions = _storage_indices(size, stride, offset)
        ctx.input_positions = _storage_indices(a.shape, _element_strides(a), own_offset)
        ctx.storage_size = max(storage_size, 1)
        return view

    @staticmethod
    def backward(ctx, grad):
        from .creation import zeros, tensor

        memory = zeros(ctx.storage_size, dtype=grad.dtype)
        memory = memory.index_add(0, tensor(ctx.output_positions.reshape(-1)), grad.reshape(-1))
        return memory[tensor(ctx.input_positions)], None, None, None

    @staticmethod
    def jvp(ctx, tangent, *others):
        if tangent is None:
            return None
        from .creation import zeros, tensor

        memory = zeros(ctx.storage_size, dtype=tangent.dtype)
        memory = memory.index_copy(0, tensor(ctx.input_positions.reshape(-1)), tangent.reshape(-1))
        return memory[tensor(ctx.output_positions)]


def _size_and_stride(size, stride):
    return tuple(int(s) for s in size), tuple(int(s) for s in stride)


@op(AsStrided, method=True)
def as_strided(input, size, stride, storage_offset=None):
    """A view of `input`'s memory with the given `size`, `stride` (in elements) and `storage_offset`
    (default: `input`'s own). Elements may overlap; writing through such a view is undefined."""
    size, stride = _size_and_stride(size, stride)
    result = AsStrided.apply(input, size, stride, storage_offset)
    return make_view(result, input, _Replay(as_strided, size, stride, storage_offset))


class AsStridedInplace(AsStrided, node="AsStridedBackward1"):
    pass


@op(AsStridedInplace, method=True)
def as_strided_(input, size, stride, storage_offset=None):
    """`as_strided` applied to the tensor itself: it takes the new sizes and strides over its memory."""
    from .dimensions import _restride

    size, stride = _size_and_stride(size, stride)
    return _restride(
        input,
        "as_strided_",
        lambda tensor: as_strided(tensor, size, stride, storage_offset),
        AsStridedInplace,
        size,
        stride,
        storage_offset,
    )


class AsStridedScatter(_Scatter, node="AsStridedScatterBackward0"):
    @staticmethod
    def region(array, size, stride, storage_offset):
        return _strided_view(array, size, stride, storage_offset, "as_strided_scatter")[0]

    @staticmethod
    def take(tensor, size, stride, storage_offset):
        return as_strided(tensor.contiguous(), size, stride, storage_offset)

    @classmethod
    def forward(cls, ctx, input, src, *args):
        ctx.args = args
        result = np.ascontiguousarray(input).copy()
        cls.region(result, *args)[...] = src
        return result


@op(AsStridedScatter, method=True)
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A contiguous copy of `input` in whose memory the strided view (`size`, `stride`,
    `storage_offset`) is replaced by `src`."""
    size, stride = _size_and_stride(size, stride)
    offset = 0 if storage_offset is None else storage_offset
    _strided_view(np.empty(input._data.size, dtype=input._data.dtype), size, stride, offset, "as_strided_scatter")
    src = _check_src(input, src, size, "as_strided_scatter")
    return AsStridedScatter.apply(input, src, size, stride, offset)


@op(method=True)
def new_empty_strided(
    input, size, stride, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False
):
    """An uninitialized tensor of `size` laid out with `stride` (in elements) over fresh memory, with
    `input`'s dtype unless `dtype` is given."""
    from .creation import empty

    size, stride = _size_and_stride(size, stride)
    needed = 0 if 0 in size else sum((length - 1) * step for length, step in zip(size, stride)) + 1
    memory = empty(needed, dtype=dtype or input.dtype)
    result = as_strided(memory, size, stride, 0).detach()
    return result.requires_grad_(requires_grad)


def _with_filled_diagonal(input, fill_value, wrap):
    mask = np.zeros(input._data.shape, dtype=np.bool_)
    np.fill_diagonal(mask, True, wrap=wrap)
    from .creation import tensor

    return input.masked_fill(tensor(mask), fill_value)


@op(method=True)
def fill_diagonal_(input, fill_value, wrap=False):
    """Fill the main diagonal (all indices equal) with `fill_value`, in place; for a tall matrix,
    `wrap=True` starts the diagonal again every (columns + 1) rows, as NumPy's `fill_diagonal`."""
    from .inplace import apply_inplace

    shape = input._data.shape
    if len(shape) < 2:
        raise RuntimeError(f"dimensions must larger than 1, got {len(shape)}")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    return apply_inplace(input, "fill_diagonal_", _with_filled_diagonal, fill_value, wrap)
