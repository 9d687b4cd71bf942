"""Indexing: `x[index]`, `x[index] = value`, and the index ops (gather, scatter, index_select, ...).

`x[index]` follows PyTorch, not NumPy, where the two differ: the basic part of an index (ints,
slices, None, Ellipsis) is applied first as a view, then the advanced part (integer and bool
tensors) indexes that view. So `x[0, :, [0, 1]]` on a (3, 4, 5) tensor is (4, 2) as in PyTorch
(NumPy gives (2, 4)).
"""

import operator
from collections.abc import Sequence

from .._backend import np
from .._validation import check_fits
from .._tensor import Tensor, new_tensor
from .. import _dtype
from ..autograd import grad_mode
from ..autograd.function import Primitive
from ._common import c_contiguous, prepare_binary, normalize_dim
from .shape import make_view, _Replay
from ._tangents import linear_jvp
from ._declare import op
from .._warn import warn as _warn

__all__ = [
    "getitem",
    "setitem",
    "where",
    "index_put",
    "index_select",
    "masked_select",
    "masked_fill",
    "gather",
    "scatter",
    "scatter_add",
    "scatter_reduce",
    "index_reduce",
    "nonzero_static",
    "index_add",
    "index_copy",
    "index_fill",
    "take",
    "take_along_dim",
    "put",
    "nonzero",
    "argwhere",
    "masked_scatter",
]

# `x.masked_fill_(...)`, `x.scatter_(...)`, ...: made by ops.inplace_methods from these.

_FULL = slice(None)
_grad_state = grad_mode.state
_INDEX_TYPES_MESSAGE = "tensors used as indices must be long, int, byte or bool tensors"


# ----------------------------------------------------------------------------- parsing an index
def _index_item(item):
    """One entry of an index as int, slice, None, Ellipsis, or an int/bool ndarray."""
    kind = type(item)
    if kind is int or kind is slice or item is None or item is Ellipsis:
        return item
    if kind is bool or kind is np.bool_:
        return np.array(item)
    if isinstance(item, Tensor):
        return _index_array(item._data)
    if isinstance(item, np.ndarray):
        return _index_array(item)
    if isinstance(item, (list, tuple, range)) or (isinstance(item, Sequence) and not isinstance(item, (str, bytes))):
        values = [value._data if isinstance(value, Tensor) else value for value in item]
        array = np.asarray(values) if values else np.zeros(0, dtype=np.int64)
        if array.dtype.kind not in "iub":
            raise IndexError(_INDEX_TYPES_MESSAGE + f" (got a sequence of {array.dtype})")
        return array
    if isinstance(item, np.integer) or hasattr(kind, "__index__"):
        return operator.index(item)
    raise IndexError(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
        f"valid indices (got {type(item).__name__})"
    )


def _index_array(array):
    kind = array.dtype.kind
    if kind == "b":
        return array
    if array.dtype == np.uint8:
        _warn(
            "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.",
            UserWarning,
            stacklevel=4,
        )
        return array.astype(bool)
    if array.dtype not in (np.int64, np.int32):
        raise IndexError(_INDEX_TYPES_MESSAGE + f" (got {_dtype.from_numpy_dtype(array.dtype)})")
    return int(array) if array.ndim == 0 else array


def _check_slice(item, size):
    """Slice bounds may be tensors; steps must be positive (PyTorch has no negative strides)."""
    start, stop, step = item.start, item.stop, item.step
    if step is not None:
        step = operator.index(step)
        if step <= 0:
            raise ValueError("step must be greater than zero" if step else "slice step cannot be zero")
    if (
        type(start) not in (int, type(None))
        or type(stop) not in (int, type(None))
        or type(item.step) not in (int, type(None))
    ):
        item = slice(
            None if start is None else operator.index(start), None if stop is None else operator.index(stop), step
        )
    return item, item.indices(size) != (0, size, 1)


def _out_of_bounds(index, dim, size):
    return IndexError(f"index {index} is out of bounds for dimension {dim} with size {size}")


def _check_int_array(array, dim, size):
    if array.size:
        high, low = array.max(), array.min()
        if high >= size or low < -size:
            raise _out_of_bounds(high if high >= size else low, dim, size)


def parse_index(shape, index):
    """Split `index` into (basic, advanced, name).

    `basic` is a NumPy basic index (ints, slices, None, Ellipsis last) that gives a view; `advanced`
    is None or the tuple of integer/bool arrays (and full slices) to apply to that view; `name` is the
    grad_fn name PyTorch gives the view (the last operation that changed it).
    """
    if type(index) is list and _list_is_tuple(index):
        _warn(
            "Using a non-tuple sequence for multidimensional indexing is deprecated (as in PyTorch); "
            "use x[tuple(seq)] instead of x[seq].",
            UserWarning,
            stacklevel=4,
        )
        index = tuple(index)
    single = type(index) is not tuple
    items = [_index_item(item) for item in ((index,) if single else index)]
    consumed = 0
    for item in items:
        if item is not None and item is not Ellipsis:
            consumed += item.ndim if isinstance(item, np.ndarray) and item.dtype.kind == "b" else 1
    if consumed > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")

    basic, advanced, name, dim = [], [], None, 0
    has_advanced = False
    for item in items:
        if item is None:
            basic.append(None)
            advanced.append(_FULL)
            name = "UnsqueezeBackward0"
        elif item is Ellipsis:  # as in PyTorch, only the first Ellipsis stands for any dims
            count, consumed = len(shape) - consumed, len(shape)
            basic.extend([_FULL] * count)
            advanced.extend([_FULL] * count)
            dim += count
        elif type(item) is int:
            size = shape[dim]
            if not -size <= item < size:
                raise _out_of_bounds(item, dim, size)
            basic.append(item)
            name = "SelectBackward0"
            dim += 1
        elif type(item) is slice:
            item, changes = _check_slice(item, shape[dim])
            basic.append(item)
            advanced.append(_FULL)
            if changes or single:
                name = "SliceBackward0"
            dim += 1
        elif item.dtype.kind == "b":
            has_advanced = True
            if item.ndim and item.shape != tuple(shape[dim : dim + item.ndim]):
                bad = dim + next(i for i, size in enumerate(item.shape) if size != shape[dim + i])
                raise IndexError(
                    f"The shape of the mask {list(item.shape)} at index {bad} does not match the "
                    f"shape of the indexed tensor {list(shape)} at index {bad}"
                )
            basic.extend([_FULL] * item.ndim)
            advanced.append(item)
            dim += item.ndim
        else:
            has_advanced = True
            _check_int_array(item, dim, shape[dim])
            basic.append(_FULL)
            advanced.append(item)
            dim += 1
    basic.append(Ellipsis)  # keeps an all-int index a 0-d view instead of a NumPy scalar copy
    return tuple(basic), tuple(advanced) if has_advanced else None, name or "AliasBackward0"


def _list_is_tuple(index):
    """PyTorch's (and old NumPy's) rule: a short list holding tensors, sequences, slices, None or
    Ellipsis is a tuple of indices, so `x[[[0, 1], [2, 2]]]` is `x[[0, 1], [2, 2]]`."""
    return len(index) < 32 and any(
        isinstance(item, (Tensor, list, tuple, slice, np.ndarray)) or item is None or item is Ellipsis for item in index
    )


def _is_identity(basic):
    return all(item is _FULL or item is Ellipsis for item in basic)


# ----------------------------------------------------------------------------- basic indexing (views)
class BasicIndex(Primitive):
    """`a[basic_index]`: a view. The node takes the name of the view's last step, as in PyTorch."""

    @staticmethod
    def forward(ctx, a, index):
        ctx.input_shape, ctx.index = a.shape, index
        return a[index]

    @staticmethod
    def backward(ctx, grad):
        return BasicIndexGradient.apply(grad, ctx.input_shape, ctx.index), None

    jvp = linear_jvp


class SelectBackward(BasicIndex, node="SelectBackward0"):
    pass


class SliceBackward(BasicIndex, node="SliceBackward0"):
    pass


class UnsqueezeBackward(BasicIndex, node="UnsqueezeBackward0"):
    pass


class AliasBackward(BasicIndex, node="AliasBackward0"):
    pass


_BASIC_FUNCTIONS = {
    cls._backward_cls.__name__: cls for cls in (SelectBackward, SliceBackward, UnsqueezeBackward, AliasBackward)
}


class BasicIndexGradient(Primitive, node="SliceBackwardBackward0"):
    """Zeros of `shape` with `grad` written at `index`: the backward of a basic index (and padding)."""

    @staticmethod
    def forward(ctx, grad, shape, index):
        ctx.index = index
        result = np.zeros(shape, dtype=grad.dtype)
        result[index] = grad
        return result

    @staticmethod
    def backward(ctx, grad):
        return BasicIndex.apply(grad, ctx.index), None, None

    jvp = linear_jvp


def basic_view(input, basic, name):
    """`input[basic]` as a view of `input` (shares memory and version counter)."""
    output = _BASIC_FUNCTIONS[name].apply(input, basic)
    return make_view(output, input, _Replay(basic_view, basic, name))


# ----------------------------------------------------------------------------- advanced indexing
class Index(Primitive, node="IndexBackward0"):
    """`a[advanced_index]` with integer/bool arrays: a copy; backward scatters with accumulation."""

    @staticmethod
    def forward(ctx, a, index):
        ctx.input_shape, ctx.index = a.shape, index
        return c_contiguous(a[index])  # (NumPy's comes out transposed for an index past the first dim)

    @staticmethod
    def backward(ctx, grad):
        zeros = new_tensor(np.zeros(ctx.input_shape, dtype=grad._data.dtype))
        return IndexPut.apply(zeros, grad, ctx.index, True), None

    jvp = linear_jvp


def _accumulate(result, index, value):
    """`result[index] += value`, adding repeated indices (bool masks never repeat: the fast path)."""
    if all(not isinstance(item, np.ndarray) or item.dtype.kind == "b" for item in index):
        result[index] += value
    else:
        np.add.at(result, index, value)


class IndexPut(Primitive, node="IndexPutBackward0"):
    """A copy of `a` with `a[index] = value` (or `+= value` with accumulate)."""

    @staticmethod
    def forward(ctx, a, value, index, accumulate):
        ctx.index, ctx.accumulate = index, accumulate
        result = a.copy()
        try:
            if accumulate:
                _accumulate(result, index, value)
            else:
                result[index] = value
        except ValueError:
            raise RuntimeError(
                f"shape mismatch: value tensor of shape {list(np.shape(value))} cannot be "
                f"broadcast to indexing result of shape {list(a[index].shape)}"
            ) from None
        return result

    @staticmethod
    def backward(ctx, grad):
        grad_a = grad_value = None
        if ctx.needs_input_grad[0]:
            grad_a = grad if ctx.accumulate else IndexPut.apply(grad, 0.0, ctx.index, False)
        if ctx.needs_input_grad[1]:
            grad_value = Index.apply(grad, ctx.index)
        return grad_a, grad_value, None, None

    @staticmethod
    def jvp(ctx, tangent, tangent_value, *_):
        """index_put(a, value, index, ...): the value may be a constant (a number or an array)."""
        from .creation import zeros_like

        a, value, *rest = ctx.inputs
        if tangent_value is None:
            tangent_value = zeros_like(value) if isinstance(value, Tensor) else 0.0
        return IndexPut.apply(zeros_like(a) if tangent is None else tangent, tangent_value, *rest)


@op(Index, method=True)
def getitem(input, index):
    """`input[index]`: basic indexing (ints, slices, None, ...) gives a view, advanced indexing
    (integer/bool tensors, lists) a copy. Negative steps raise ValueError, as in PyTorch."""
    if type(index) is int:  # the most common index: a fast path
        size = input._data.shape[0] if input._data.ndim else 0
        if not -size <= index < size:
            if not input._data.ndim:
                raise IndexError(
                    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                    "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
                )
            raise _out_of_bounds(index, 0, size)
        return basic_view(input, (index, Ellipsis), "SelectBackward0")
    basic, advanced, name = parse_index(input._data.shape, index)
    if advanced is None:
        return basic_view(input, basic, name)
    if not _is_identity(basic):
        input = basic_view(input, basic, name)
    return Index.apply(input, advanced)


def _value_for(target, value, op_name, same_dtype):
    """`value` as what can be written into `target`: a number, or a tensor of its dtype without the
    leading size-1 dims PyTorch ignores."""
    if not isinstance(value, Tensor):
        if isinstance(value, (int, float, bool, complex, np.generic)):
            value = value.item() if isinstance(value, np.generic) else value
            if isinstance(value, complex) and value.imag and target._data.dtype.kind != "c":
                raise RuntimeError(
                    f"value cannot be converted to type {target.dtype} without overflow: {value} has an "
                    "imaginary part (write into a complex tensor, or take .real first)"
                )
            check_fits(value, target._data.dtype, op_name)
            return value
        from .creation import tensor

        value = tensor(value, dtype=target.dtype)
    if value._data.dtype != target._data.dtype:
        if same_dtype:
            raise RuntimeError(
                f"{op_name} requires the source and destination dtypes match, got {target.dtype} for the "
                f"destination and {value.dtype} for the source."
            )
        value = value.to(target.dtype)
    shape = value._data.shape
    leading = 0
    while leading < len(shape) and shape[leading] == 1 and len(shape) - leading > target._data.ndim:
        leading += 1
    return value.reshape(shape[leading:]) if leading else value


def _copy_value(target, value):
    """What `target.copy_(value)` stores: `value` broadcast to the target's shape."""
    if not isinstance(value, Tensor):
        return new_tensor(np.full(target._data.shape, value, dtype=target._data.dtype))
    shape, target_shape = value._data.shape, target._data.shape
    if shape == target_shape:
        return value
    if len(shape) > len(target_shape) or any(s != 1 and s != t for s, t in zip(shape[::-1], target_shape[::-1])):
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(shape)} cannot be broadcast to indexing "
            f"result of shape {list(target_shape)}"
        )
    return value.expand(target_shape)


def _index_put_value(target, index, value, accumulate=False):
    return IndexPut.apply(target, value, index, accumulate)


@op(Index, method=True)
def setitem(input, index, value):
    """`input[index] = value`, in place: numbers, tensors of any dtype (cast as `copy_` does for basic
    indices; advanced indices need the same dtype, as in PyTorch) and broadcasting values."""
    from .inplace import apply_inplace

    if not isinstance(input, Tensor):
        raise TypeError(f"setitem: expected a Tensor, got {type(input).__name__}")
    basic, advanced, name = parse_index(input._data.shape, index)
    if advanced is None:
        target = basic_view(input, basic, name)
        apply_inplace(target, "copy_", _copy_value, _value_for(target, value, "copy_", False))
        return
    target = input if _is_identity(basic) else basic_view(input, basic, name)
    value = _value_for(target, value, "Index put", True)
    apply_inplace(target, "index_put_", _index_put_value, advanced, value)


@op(Index, IndexPut, method=True, inplace=True)
def index_put(input, indices, values, accumulate=False):
    """A copy of `input` with `input[indices] = values` (`+=` with accumulate); `indices` is a tuple of
    index tensors, one per leading dim (None for a full dim)."""
    items = tuple(_FULL if item is None else item for item in indices)
    basic, advanced, name = parse_index(input._data.shape, items)
    if advanced is None:
        advanced = tuple(item for item in basic if item is not Ellipsis)
    values = _value_for(input, values, "Index put", True)
    return IndexPut.apply(input, values, advanced, bool(accumulate))


# ----------------------------------------------------------------------------- where / nonzero
class Where(Primitive, node="WhereBackward0"):
    @staticmethod
    def forward(ctx, condition, a, b):
        ctx.condition = condition
        return np.where(condition, a, b)

    @staticmethod
    def backward(ctx, grad):
        condition = new_tensor(ctx.condition)
        needs_a, needs_b = ctx.needs_input_grad[1:]
        return (
            None,
            where(condition, grad, 0.0) if needs_a else None,
            where(condition, 0.0, grad) if needs_b else None,
        )

    @staticmethod
    def jvp(ctx, _, tangent_a, tangent_b):
        """The condition arrives as an array; either value may be a constant (tangent zero)."""
        return where(
            new_tensor(ctx.inputs[0]), 0.0 if tangent_a is None else tangent_a, 0.0 if tangent_b is None else tangent_b
        )


@op(Where, method=True)
def where(condition, input=None, other=None):
    """Elements of `input` where `condition` holds, else of `other` (either may be a number).

    With only `condition`, the indices of its nonzero elements (as `nonzero(as_tuple=True)`).
    """
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    condition_array = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    if condition_array.dtype != np.bool_:
        if isinstance(condition, Tensor):
            raise RuntimeError(
                f"where expected condition to be a boolean tensor, but got a tensor with dtype {condition.dtype} "
                "(compare it first, e.g. `condition != 0`)"
            )
        condition_array = condition_array.astype(bool)
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        from .creation import tensor

        input = tensor(input)
    input, other = prepare_binary(input, other, "where")
    if not isinstance(other, Tensor):
        other = np.asarray(other, dtype=input._data.dtype)
    elif not isinstance(input, Tensor):
        input = np.asarray(input, dtype=other._data.dtype)
    try:
        return Where.apply(condition_array, input, other)
    except ValueError:
        raise RuntimeError(
            f"where: condition {list(condition_array.shape)}, input {list(np.shape(input))} and "
            f"other {list(np.shape(other))} cannot be broadcast together"
        ) from None


@op(method=True)
def nonzero(input, *, as_tuple=False):
    """Indices of the nonzero elements: an (n, ndim) int64 tensor, or one 1-d tensor per dim."""
    array = input._data if input._data.ndim else input._data.reshape(1)
    if as_tuple:
        return tuple(new_tensor(indices.astype(np.int64)) for indices in np.nonzero(array))
    return new_tensor(np.argwhere(input._data).astype(np.int64))


@op(method=True)
def nonzero_static(input, *, size, fill_value=-1):
    """`nonzero` with a fixed number of rows: the first `size` indices of nonzero elements, padded
    with rows of `fill_value` when there are fewer (a shape known before the data, for export)."""
    if type(size) is not int and not isinstance(size, np.integer):
        raise TypeError(f"nonzero_static(): argument 'size' must be int, not {type(size).__name__}")
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, got {size}")
    found = np.argwhere(input._data)[:size].astype(np.int64)
    padded = np.full((size, input._data.ndim), fill_value, dtype=np.int64)
    padded[: len(found)] = found
    return new_tensor(padded)


@op(method=True)
def argwhere(input):
    """The indices of the nonzero elements, one row per element (an (n, input.dim()) int64 tensor)."""
    return nonzero(input)


# ----------------------------------------------------------------------------- index tensors and dims
def _index_of(index, op_name, dtypes=(np.int64,), names="int64"):
    if not isinstance(index, Tensor):
        raise TypeError(f"{op_name}(): argument 'index' must be Tensor, not {type(index).__name__}")
    array = index._data
    if array.dtype not in dtypes:
        raise RuntimeError(f"{op_name}(): Expected dtype {names} for index, got {index.dtype}")
    return array


def _along(dim, index):
    """The NumPy index `[:, ..., :, index]` that picks `index` along `dim`."""
    return (_FULL,) * dim + (index,)


def _dim_index(input, dim, index, op_name, negative=False):
    """Checked (dim, index array) of the index_* ops: a vector (or scalar) of int64 positions, in
    [0, size) as PyTorch checks them (`negative`: index_fill's [-size, size), counted from the end)."""
    dim = normalize_dim(dim, input._data.ndim, op_name)
    array = _index_of(index, op_name, (np.int64, np.int32), "int32 or int64")
    if array.ndim > 1:
        raise IndexError(f"{op_name}(): Index is supposed to be a vector")
    size = input._data.shape[dim] if input._data.ndim else 1
    low = -size if negative else 0
    if array.size and (array.max() >= size or array.min() < low):
        raise IndexError(
            f"{op_name}(): index out of range in self (index values must be in [{low}, {size - 1}] "
            f"for dimension {dim} of size {size})"
        )
    return dim, array.reshape(-1)


def _as_nd(array):
    """0-d arrays as 1-d: PyTorch's index ops treat a scalar like a one-element vector."""
    return array.reshape(1) if array.ndim == 0 else array


class IndexSelect(Primitive, node="IndexSelectBackward0"):
    @staticmethod
    def forward(ctx, a, dim, index):
        ctx.input_shape, ctx.dim, ctx.index = a.shape, dim, index
        result = np.take(_as_nd(a), index, axis=dim)
        return result.reshape(()) if a.ndim == 0 else result

    @staticmethod
    def backward(ctx, grad):
        zeros = new_tensor(np.zeros(ctx.input_shape, dtype=grad._data.dtype))
        return IndexAdd.apply(zeros, ctx.dim, new_tensor(ctx.index), grad, 1), None, None


@op(IndexSelect, method=True)
def index_select(input, dim, index):
    """The entries of `input` at positions `index` (a vector) along `dim`."""
    dim, array = _dim_index(input, dim, index, "index_select")
    return IndexSelect.apply(input, dim, array)


class IndexAdd(Primitive, node="IndexAddBackward0"):
    @staticmethod
    def forward(ctx, a, dim, index, source, alpha):
        ctx.dim, ctx.index, ctx.alpha, ctx.source_shape = dim, index, alpha, source.shape
        result = _as_nd(a).copy()
        np.add.at(result, _along(dim, index), _as_nd(source) if alpha == 1 else _as_nd(source) * alpha)
        return result.reshape(a.shape)

    @staticmethod
    def backward(ctx, grad):
        grad_source = None
        if ctx.needs_input_grad[3]:
            grad_source = index_select(grad, ctx.dim, new_tensor(ctx.index)).reshape(ctx.source_shape)
            if ctx.alpha != 1:
                grad_source = grad_source * ctx.alpha
        return grad, None, None, grad_source, None


def _check_source(input, dim, index, source, op_name):
    if not isinstance(source, Tensor):
        raise TypeError(f"{op_name}(): argument 'source' must be Tensor, not {type(source).__name__}")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"{op_name}(): self ({input.dtype}) and source ({source.dtype}) must have the same scalar type"
        )
    expected = list(input._data.shape)
    if expected:
        expected[dim] = index.size
    if list(source._data.shape) != expected and not (source._data.ndim == 0 and index.size == 1):
        raise RuntimeError(
            f"{op_name}(): source of shape {list(source.shape)} does not match the expected shape "
            f"{expected} (self's shape with dim {dim} of size len(index) = {index.size})"
        )


@op(IndexAdd, method=True, inplace=True)
def index_add(input, dim, index, source, *, alpha=1):
    """A copy of `input` with `alpha * source` added at positions `index` along `dim` (repeats add up)."""
    dim, array = _dim_index(input, dim, index, "index_add")
    _check_source(input, dim, array, source, "index_add")
    return IndexAdd.apply(input, dim, array, source, alpha)


class IndexCopy(Primitive, node="IndexCopyBackward0"):
    @staticmethod
    def forward(ctx, a, dim, index, source):
        ctx.dim, ctx.index, ctx.source_shape = dim, index, source.shape
        result = _as_nd(a).copy()
        result[_along(dim, index)] = _as_nd(source)
        return result.reshape(a.shape)

    @staticmethod
    def backward(ctx, grad):
        index = new_tensor(ctx.index)
        grad_a = grad_source = None
        if ctx.needs_input_grad[0]:
            grad_a = index_fill(grad, ctx.dim, index, 0)
        if ctx.needs_input_grad[3]:
            grad_source = index_select(grad, ctx.dim, index).reshape(ctx.source_shape)
        return grad_a, None, None, grad_source


@op(IndexCopy, method=True, inplace=True)
def index_copy(input, dim, index, source):
    """A copy of `input` with the slices at `index` along `dim` replaced by those of `source`."""
    dim, array = _dim_index(input, dim, index, "index_copy")
    _check_source(input, dim, array, source, "index_copy")
    return IndexCopy.apply(input, dim, array, source)


class IndexFill(Primitive, node="IndexFillBackward0"):
    @staticmethod
    def forward(ctx, a, dim, index, value):
        ctx.dim, ctx.index = dim, index
        result = _as_nd(a).copy()
        result[_along(dim, index)] = value
        return result.reshape(a.shape)

    @staticmethod
    def backward(ctx, grad):
        index = new_tensor(ctx.index)
        grad_a = grad_value = None
        if ctx.needs_input_grad[0]:
            grad_a = index_fill(grad, ctx.dim, index, 0)
        if ctx.needs_input_grad[3]:
            grad_value = index_select(grad, ctx.dim, index).sum()
        return grad_a, None, None, grad_value


class IndexFillTensor(IndexFill, node="IndexFillBackward1"):
    pass


def _fill_value(input, value, op_name):
    """A number, or a 0-d tensor (kept in the graph) cast to `input`'s dtype."""
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(
                f"{op_name} only supports a 0-dimensional value tensor, but got tensor with "
                f"{value._data.ndim} dimension(s)."
            )
        return value.to(input.dtype)
    if isinstance(value, np.generic):
        value = value.item()
    if not isinstance(value, (int, float, bool, complex)):
        raise TypeError(f"{op_name}(): argument 'value' must be a Number or a 0-d Tensor, not {type(value).__name__}")
    check_fits(value, input._data.dtype, op_name)
    return value


@op(IndexFill, IndexFillTensor, method=True, inplace=True)
def index_fill(input, dim, index, value):
    """A copy of `input` with the slices at `index` along `dim` set to `value` (number or 0-d tensor)."""
    dim, array = _dim_index(input, dim, index, "index_fill", negative=True)
    value = _fill_value(input, value, "index_fill_")
    function = IndexFillTensor if isinstance(value, Tensor) else IndexFill
    return function.apply(input, dim, array, value)


# ----------------------------------------------------------------------------- masks
def _mask_of(mask, op_name):
    if not isinstance(mask, Tensor):
        raise TypeError(f"{op_name}(): argument 'mask' must be Tensor, not {type(mask).__name__}")
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"{op_name} only supports boolean masks, but got mask with dtype {mask.dtype.name}")
    return mask._data


def _broadcast_shape(shape_a, shape_b, op_name):
    try:
        return np.broadcast_shapes(shape_a, shape_b)
    except ValueError:
        raise RuntimeError(
            f"{op_name}: the shape of the mask {list(shape_b)} must be broadcastable with the "
            f"shape of the input {list(shape_a)}"
        ) from None


_BITS_OF_SIZE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _select_bits(bits, mask, value):
    """`bits` with `value` where `mask`, as (bits & keep) | fill on the elements' bit patterns: two
    vectorized passes, where np.copyto(where=) and np.where go element by element (an attention mask
    (32, 32) over (32, 4, 32, 32) scores: copy and copyto 141 us, this 115 us, and 52 us for a zero
    fill). Exact for every value, NaN and signed zeros included: the bits are copied, not computed."""
    keep = np.where(mask, bits.dtype.type(0), ~bits.dtype.type(0))
    result = np.bitwise_and(bits, keep, order="C")  # (C order, as np.where gives)
    if value != 0:
        result |= np.where(mask, value, bits.dtype.type(0))
    return result


class MaskedFill(Primitive, node="MaskedFillBackward0"):
    @staticmethod
    def forward(ctx, a, mask, value):
        ctx.mask = mask
        value = np.asarray(value, dtype=a.dtype)
        if np.broadcast_shapes(a.shape, mask.shape) != a.shape:
            return np.where(mask, value, a)
        bits = _BITS_OF_SIZE.get(a.dtype.itemsize)
        if bits is None or a.dtype.kind == "O":
            result = a.copy()  # (C order, as np.where gives)
            np.copyto(result, value, where=mask)
            return result
        return _select_bits(a.view(bits), mask, value.view(bits)).view(a.dtype)

    @staticmethod
    def backward(ctx, grad):
        mask = new_tensor(ctx.mask)
        grad_a = grad_value = None
        if ctx.needs_input_grad[0]:
            grad_a = masked_fill(grad, mask, 0)
        if ctx.needs_input_grad[2]:
            grad_value = masked_fill(grad, ~mask, 0).sum()
        return grad_a, None, grad_value


class MaskedFillTensor(MaskedFill, node="MaskedFillBackward1"):
    pass


@op(MaskedFill, MaskedFillTensor, method=True, inplace=True)
def masked_fill(input, mask, value):
    """A copy of `input` with `value` (a number or 0-d tensor) where the bool `mask` is True."""
    mask_array = _mask_of(mask, "masked_fill_")
    _broadcast_shape(input._data.shape, mask_array.shape, "masked_fill")
    value = _fill_value(input, value, "masked_fill_")
    function = MaskedFillTensor if isinstance(value, Tensor) else MaskedFill
    return function.apply(input, mask_array, value)


class MaskedSelect(Primitive, node="MaskedSelectBackward0"):
    @staticmethod
    def forward(ctx, a, mask):
        shape = np.broadcast_shapes(a.shape, mask.shape)
        ctx.mask = np.broadcast_to(mask, shape)
        return np.broadcast_to(a, shape)[ctx.mask]

    @staticmethod
    def backward(ctx, grad):
        # The engine sums the gradient of a broadcast input back to its shape.
        zeros = new_tensor(np.zeros(ctx.mask.shape, dtype=grad._data.dtype))
        return IndexPut.apply(zeros, grad, (ctx.mask,), True), None


@op(MaskedSelect, method=True)
def masked_select(input, mask):
    """The elements of `input` where `mask` (broadcast with it) is True, as a 1-d tensor."""
    mask_array = _mask_of(mask, "masked_select")
    _broadcast_shape(input._data.shape, mask_array.shape, "masked_select")
    return MaskedSelect.apply(input, mask_array)


class MaskedScatter(Primitive, node="MaskedScatterBackward0"):
    @staticmethod
    def forward(ctx, a, mask, source):
        shape = np.broadcast_shapes(a.shape, mask.shape)
        ctx.mask, ctx.source_shape = np.broadcast_to(mask, shape), source.shape
        count = int(ctx.mask.sum())
        if count > source.size:
            raise RuntimeError(
                f"masked_scatter: the mask has {count} True elements but source has only {source.size} elements"
            )
        result = np.array(np.broadcast_to(a, shape))
        result[ctx.mask] = source.reshape(-1)[:count]
        return result

    @staticmethod
    def backward(ctx, grad):
        mask = new_tensor(ctx.mask)
        grad_a = grad_source = None
        if ctx.needs_input_grad[0]:
            grad_a = masked_fill(grad, mask, 0)
        if ctx.needs_input_grad[2]:
            selected = masked_select(grad, mask)
            size = int(np.prod(ctx.source_shape))
            padded = BasicIndexGradient.apply(selected, (size,), (slice(0, selected._data.size),))
            grad_source = padded.reshape(ctx.source_shape)
        return grad_a, None, grad_source


@op(MaskedScatter, method=True, inplace=True)
def masked_scatter(input, mask, source):
    """A copy of `input` with the elements where `mask` is True taken, in order, from `source`."""
    mask_array = _mask_of(mask, "masked_scatter_")
    _broadcast_shape(input._data.shape, mask_array.shape, "masked_scatter")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"masked_scatter_: expected self and source to have same dtypes but got {input.dtype} and {source.dtype}"
        )
    return MaskedScatter.apply(input, mask_array, source)


# ----------------------------------------------------------------------------- gather / scatter
def _gather_index(input, dim, index, op_name):
    """Checked (dim, full NumPy index) for gather/scatter: `index` picks along `dim`, the other dims
    run over index's own extent (which may be smaller than input's)."""
    ndim = input._data.ndim
    dim = normalize_dim(dim, ndim, op_name)
    array = _index_of(index, op_name, (np.int64, np.int32), "int64")
    if max(array.ndim, 1) != max(ndim, 1):
        name = "input" if op_name == "gather" else "self"
        raise RuntimeError(
            f"Index tensor must have the same number of dimensions as {name} tensor ({op_name}: "
            f"index is {array.ndim}-d, {name} is {ndim}-d)"
        )
    shape = input._data.shape if ndim else (1,)
    array = array.reshape(-1) if array.ndim == 0 else array
    for d, (size, limit) in enumerate(zip(array.shape, shape)):
        if d != dim and size > limit:
            raise RuntimeError(
                f"Size does not match at dimension {d} expected index {list(array.shape)} to be "
                f"smaller than self {list(shape)} apart from dimension {dim}"
            )
    if array.size:
        high, low = array.max(), array.min()
        if high >= shape[dim] or low < 0:  # (no counting from the end, as in PyTorch)
            raise RuntimeError(
                f"index {high if high >= shape[dim] else low} is out of bounds for dimension {dim} "
                f"with size {shape[dim]}"
            )
    grids = list(np.ogrid[tuple(slice(0, size) for size in array.shape)]) if array.ndim else []
    if grids:
        grids[dim] = array
    return dim, tuple(grids) if grids else (array,)


def _source_part(source, index):
    """The leading corner of `source` that lines up with `index` (source may be larger)."""
    shape = index[0].shape if len(index) == 1 else np.broadcast_shapes(*(i.shape for i in index))
    source = _as_nd(source)
    if source.shape == shape:
        return source
    if source.ndim == len(shape) and any(have < need for have, need in zip(source.shape, shape)):
        raise RuntimeError(f"Expected index {list(shape)} to be no larger size than src {list(source.shape)}")
    return source[tuple(slice(0, size) for size in shape)]


def _pad_to(grad, index, shape):
    """Gradient of `_source_part`: zeros of `shape` with `grad` in the leading corner."""
    if tuple(grad._data.shape) == tuple(shape):
        return grad
    return BasicIndexGradient.apply(grad, shape, tuple(slice(0, size) for size in grad._data.shape))


class Gather(Primitive, node="GatherBackward0"):
    @staticmethod
    def forward(ctx, a, dim, index):
        ctx.input_shape, ctx.dim, ctx.index = a.shape, dim, index
        return _as_nd(a)[index].reshape(index[dim].shape)

    @staticmethod
    def backward(ctx, grad):
        zeros = new_tensor(np.zeros(ctx.input_shape, dtype=grad._data.dtype))
        return ScatterAdd.apply(zeros, ctx.dim, ctx.index, grad), None, None


@op(Gather, method=True)
def gather(input, dim, index, *, sparse_grad=False, out=None):
    """`out[i][j] = input[index[i][j]][j]` for dim 0 (and likewise for other dims)."""
    dim, full_index = _gather_index(input, dim, index, "gather")
    result = Gather.apply(input, dim, full_index)
    if index._data.ndim == 0:
        result = result.reshape(())
    if out is not None:
        from .inplace import copy_into_out

        return copy_into_out(out, result)
    return result


class ScatterAdd(Primitive, node="ScatterAddBackward0"):
    @staticmethod
    def forward(ctx, a, dim, index, src):
        ctx.dim, ctx.index, ctx.src_shape = dim, index, src.shape
        result = _as_nd(a).copy()
        np.add.at(result, index, _source_part(src, index))
        return result.reshape(a.shape)

    @staticmethod
    def backward(ctx, grad):
        grad_src = None
        if ctx.needs_input_grad[3]:
            grad_src = _pad_to(Gather.apply(grad, ctx.dim, ctx.index), ctx.index, ctx.src_shape)
        return grad, None, None, grad_src


class Scatter(Primitive, node="ScatterBackward0"):
    @staticmethod
    def forward(ctx, a, dim, index, src):
        ctx.dim, ctx.index, ctx.src_shape = dim, index, np.shape(src)
        result = _as_nd(a).copy()
        result[index] = _source_part(src, index) if isinstance(src, np.ndarray) else src
        return result.reshape(a.shape)

    @staticmethod
    def backward(ctx, grad):
        grad_a = grad_src = None
        if ctx.needs_input_grad[0]:
            grad_a = Scatter.apply(grad, ctx.dim, ctx.index, 0.0)
        if ctx.needs_input_grad[3]:
            grad_src = _pad_to(Gather.apply(grad, ctx.dim, ctx.index), ctx.index, ctx.src_shape)
        return grad_a, None, None, grad_src


class ScatterValue(Scatter, node="ScatterBackward1"):
    pass


_REDUCERS = {
    "sum": np.add,
    "add": np.add,
    "prod": np.multiply,
    "multiply": np.multiply,
    "mean": np.add,
    "amax": np.maximum,
    "amin": np.minimum,
}


class ScatterWithReduce(Primitive, node="NotImplemented"):
    """The deprecated `scatter(..., reduce=)`: PyTorch has no gradient for it either."""

    @staticmethod
    def forward(ctx, a, dim, index, src, reduce):
        result = _as_nd(a).copy()
        source = _source_part(src, index) if isinstance(src, np.ndarray) else src
        _REDUCERS[reduce].at(result, index, source)
        return result.reshape(a.shape)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError(
            "the derivative for 'scatter' with the 'reduce' argument is not implemented (as in "
            "PyTorch); use scatter_reduce or scatter_add instead."
        )


def _scatter_source(input, src, value, op_name):
    if src is None:
        src = value
    if isinstance(src, Tensor):
        if src._data.dtype != input._data.dtype:
            raise RuntimeError(f"{op_name}(): Expected self.dtype to be equal to src.dtype")
        return src
    if isinstance(src, np.generic):
        return src.item()
    if not isinstance(src, (int, float, bool, complex)):
        raise TypeError(f"{op_name}(): argument 'src' must be Tensor or a number, not {type(src).__name__}")
    return src


@op(Scatter, ScatterValue, ScatterWithReduce, method=True, inplace=True)
def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """A copy of `input` with `src` (a tensor or a number) written at `index` along `dim`:
    `out[index[i][j]][j] = src[i][j]` for dim 0. With `reduce='add'|'multiply'` combine instead."""
    dim, full_index = _gather_index(input, dim, index, "scatter")
    src = _scatter_source(input, src, value, "scatter")
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError(f"reduce argument must be either add or multiply, got {reduce}")
        if isinstance(src, Tensor):
            _warn(
                "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed "
                "in a future PyTorch release. Use torch.scatter_reduce instead for more reduction "
                "options.",
                UserWarning,
                stacklevel=2,
            )
        return ScatterWithReduce.apply(input, dim, full_index, src, reduce)
    function = Scatter if isinstance(src, Tensor) else ScatterValue
    return function.apply(input, dim, full_index, src)


@op(ScatterAdd, method=True, inplace=True)
def scatter_add(input, dim, index, src):
    """A copy of `input` with `src` added at `index` along `dim` (repeated positions add up)."""
    dim, full_index = _gather_index(input, dim, index, "scatter_add")
    src = _scatter_source(input, src, None, "scatter_add")
    if not isinstance(src, Tensor):
        raise TypeError("scatter_add(): argument 'src' must be Tensor")
    return ScatterAdd.apply(input, dim, full_index, src)


class ScatterReduce(Primitive, node="ScatterReduceBackward0"):
    """`scatter_reduce`, and through its subclass `index_reduce`: `src` combined into a copy of `a` at
    the full NumPy `index` (one position per element of the part of `src` that `index` covers)."""

    # The message of the node that refuses a second derivative where the formula has none (see backward).
    double_backward_error = (
        "scatter_reduce(): Double backward is unsupported for src when >1 zeros in src are scattered to the same "
        "position in self"
    )

    @staticmethod
    def forward(ctx, a, dim, index, src, reduce, include_self):
        ctx.dim, ctx.index, ctx.src_shape = dim, index, src.shape
        ctx.reduce, ctx.include_self = reduce, include_self
        result = _as_nd(a).copy()
        source = _source_part(src, index)
        if not include_self:
            result[index] = _REDUCE_IDENTITY[reduce](result.dtype)
        _REDUCERS[reduce].at(result, index, source)
        if reduce == "mean":
            result = _divide_by_counts(result, _scatter_counts(result.shape, index, include_self))
        result = result.reshape(a.shape)
        if reduce in ("prod", "amax", "amin"):
            ctx.save_for_backward(a, src, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        """PyTorch's formula (its scatter_reduce and index_reduce backwards are one formula), so gradients
        match where the reduction is not differentiable too: ties of amax/amin share the gradient evenly,
        the input's own value counting as one of the tied even when include_self=False leaves it out
        (its share is then dropped, as in PyTorch); a zero in a product gets the product of the others."""
        index, dim, reduce, include_self = ctx.index, ctx.dim, ctx.reduce, ctx.include_self
        needs_input, needs_src = ctx.needs_input_grad[0], ctx.needs_input_grad[3]
        input_shape = grad._data.shape
        if not input_shape:  # a 0-d input: the forward's one-element vector
            grad = grad.reshape(1)
        if reduce in ("sum", "mean"):
            if reduce == "mean":
                counts = np.maximum(_scatter_counts(grad._data.shape, index, include_self), 1)
                grad = grad / new_tensor(counts.astype(grad._data.dtype))
            grad_input, grad_src = grad, Gather.apply(grad, dim, index) if needs_src else None
        else:
            input, src, result = (_as_nd_tensor(saved) for saved in ctx.saved_tensors)
            if reduce == "prod":
                grad_input, grad_src = _prod_backward(ctx, grad, input, src, result, needs_input, needs_src)
            else:
                grad_input, grad_src = _extremum_backward(ctx, grad, input, _source_tensor(src, index), result)
        if needs_input:
            if not include_self:
                grad_input = Scatter.apply(grad_input, dim, index, 0.0)
            grad_input = grad_input.reshape(input_shape)
        else:
            grad_input = None
        if needs_src:
            grad_src = grad_src.reshape(()) if not ctx.src_shape else _pad_to(grad_src, index, ctx.src_shape)
        return grad_input, None, None, grad_src if needs_src else None, None, None


def _prod_backward(ctx, grad, input, src, result, needs_input, needs_src):
    """A product's derivative by one factor is the product of the others: `result / factor`, except where
    the factor is zero, where the product is computed again with that zero replaced by one."""
    # The op itself again (IndexReduce under index_reduce), so a double backward's graph names it as PyTorch's.
    function, dim, index, include_self = ctx._forward_cls, ctx.dim, ctx.index, ctx.include_self
    grad_input = grad_src = None
    if needs_input:
        masked_input = masked_fill(input, new_tensor(input._data == 0), 1)
        grad_input = grad * function.apply(masked_input, dim, index, src, "prod", include_self) / masked_input
    if needs_src:
        src = _source_tensor(src, index)
        src_zero = src._data == 0
        zeros_at_position = np.zeros(grad._data.shape, dtype=np.int64)
        np.add.at(zeros_at_position, index, src_zero)
        zeros_with_src = zeros_at_position[index]
        single_zero = new_tensor(src_zero & (zeros_with_src == 1))
        product_of_others = function.apply(input, dim, index, masked_fill(src, single_zero, 1), "prod", include_self)
        grad_src = where(
            single_zero,
            Gather.apply(grad * product_of_others, dim, index),
            Gather.apply(grad * result, dim, index) / masked_fill(src, new_tensor(src_zero), 1),
        )
        # With two zeros at one position the gradient is zero, but its own derivative is not what the
        # formula above would give: refused when differentiated, as in PyTorch.
        if _grad_state.enabled and (zeros_with_src > 1).any():
            grad_src = _NoDoubleBackward.apply(grad_src, function.double_backward_error)
    return grad_input, grad_src


def _extremum_backward(ctx, grad, input, src, result):
    """amax/amin: the gradient of each position shared evenly by the values equal to its result."""
    dim, index = ctx.dim, ctx.index
    dtype = grad._data.dtype
    input_is_result = new_tensor((input._data == result._data).astype(dtype))
    src_is_result = new_tensor((src._data == result._data[index]).astype(dtype))
    grad_shared = grad / ScatterAdd.apply(input_is_result, dim, index, src_is_result)
    return input_is_result * grad_shared, src_is_result * Gather.apply(grad_shared, dim, index)


class _NoDoubleBackward(Primitive, node="DelayedError"):
    """Passes a gradient through; differentiating it raises `message` (PyTorch's DelayedError node)."""

    @staticmethod
    def forward(ctx, grad, message):
        ctx.message = message
        return grad.copy()

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError(ctx.message)


def _as_nd_tensor(tensor):
    return tensor.reshape(1) if tensor._data.ndim == 0 else tensor


def _source_tensor(src, index):
    """The part of `src` that `index` covers, as a tensor (a 0-d src as a one-element vector)."""
    src = _as_nd_tensor(src)
    part = _source_part(src._data, index)
    return src if part is src._data else BasicIndex.apply(src, tuple(slice(0, s) for s in part.shape))


def _lowest(dtype):
    return False if dtype.kind == "b" else -np.inf if dtype.kind in "fV" else np.iinfo(dtype).min


def _highest(dtype):
    return True if dtype.kind == "b" else np.inf if dtype.kind in "fV" else np.iinfo(dtype).max


# What a position starts from when include_self=False leaves its own value out.
_REDUCE_IDENTITY = {
    "sum": lambda dtype: 0,
    "mean": lambda dtype: 0,
    "prod": lambda dtype: 1,
    "amax": _lowest,
    "amin": _highest,
}


def _scatter_counts(shape, index, include_self):
    """How many values each position of a scatter_reduce result combines."""
    counts = np.full(shape, 1 if include_self else 0, dtype=np.int64)
    np.add.at(counts, index, 1)
    return counts


def _divide_by_counts(sums, counts):
    """Means from sums and counts (a position that combines nothing keeps its sum). The counts take the
    sums' dtype, as in PyTorch: no float64 temporaries for float32, and integer means round down."""
    counts = np.maximum(counts, 1).astype(sums.dtype)
    return np.floor_divide(sums, counts) if sums.dtype.kind in "iu" else sums / counts


def _check_reduce_dtype(input, reduce, op_name):
    """The dtypes PyTorch has no kernel for: a bool mean (floor division) and complex amax/amin."""
    kind = input._data.dtype.kind
    if (kind == "b" and reduce == "mean") or (kind == "c" and reduce in ("amax", "amin")):
        raise NotImplementedError(f"{op_name}(): reduce={reduce!r} is not implemented for {input.dtype} tensors")


@op(ScatterReduce, method=True, inplace=True)
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """Combine `src` into a copy of `input` at `index` along `dim` with `reduce` ('sum', 'prod',
    'mean', 'amax' or 'amin'); `include_self=False` leaves the old values out of the reduction."""
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # spellings PyTorch also accepts
    if reduce not in _REDUCE_IDENTITY:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    dim, full_index = _gather_index(input, dim, index, "scatter_reduce")
    src = _scatter_source(input, src, None, "scatter_reduce")
    if not isinstance(src, Tensor):
        raise TypeError("scatter_reduce(): argument 'src' must be Tensor")
    _check_reduce_dtype(input, reduce, "scatter_reduce")
    return ScatterReduce.apply(input, dim, full_index, src, reduce, bool(include_self))


class IndexReduce(ScatterReduce, node="IndexReduceBackward0"):
    """`index_reduce` is `scatter_reduce` with its vector index spread over the whole of `source`
    (`_spread_index`): the same forward, and PyTorch's backward for it is the same formula."""

    double_backward_error = (
        "index_reduce(): Double backward is unsupported for source when >1 zeros in source are scattered to the "
        "same position in self"
    )


_INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")


def _spread_index(index, dim, shape):
    """The full NumPy index that sends slice `i` of a source of `shape` along `dim` to slice `index[i]`."""
    if not shape:  # a 0-d source: one element, at the one position of a 0-d input
        return (index.reshape(1),)
    grids = list(np.ogrid[tuple(slice(0, size) for size in shape)])
    grids[dim] = np.broadcast_to(index.reshape((1,) * dim + (-1,) + (1,) * (len(shape) - dim - 1)), shape)
    return tuple(grids)


def _index_reduce_index(input, dim, index, source, reduce, include_self):
    """Checked (dim, index vector) of index_reduce, with PyTorch's exception classes. Unlike index_add,
    PyTorch refuses negative positions here, and wants `source` of `input`'s rank."""
    name = "index_reduce"
    if not isinstance(reduce, str):
        raise TypeError(f"{name}(): argument 'reduce' must be str, not {type(reduce).__name__}")
    if reduce not in _INDEX_REDUCTIONS:
        raise RuntimeError(f"{name}(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    if not isinstance(include_self, (bool, np.bool_)):
        raise TypeError(f"{name}(): argument 'include_self' must be bool, not {type(include_self).__name__}")
    if not hasattr(type(dim), "__index__") and not isinstance(dim, Tensor):
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
    if not isinstance(source, Tensor):
        raise TypeError(f"{name}(): argument 'source' must be Tensor, not {type(source).__name__}")
    shape, source_shape = input._data.shape, source._data.shape
    dim = normalize_dim(dim, len(shape), name)
    array = _index_of(index, name, (np.int64, np.int32), "int32 or int64")
    if array.ndim > 1:
        raise IndexError(
            f"{name}(): Index is supposed to be a vector, but got {array.ndim}-d index {list(array.shape)}"
        )
    array = array.reshape(-1)
    if not source_shape and array.size != 1:
        raise IndexError(f"{name}(): a 0-d source holds one slice, but index has {array.size} elements")
    if source_shape and dim >= len(source_shape):
        raise RuntimeError(f"{name}(): dim {dim} is out of bounds of the {len(source_shape)}-d source")
    if source_shape and source_shape[dim] != array.size:
        raise RuntimeError(
            f"{name}(): Number of indices ({array.size}) should be equal to source.size(dim): "
            f"({source_shape[dim]}), for dim: {dim}"
        )
    if len(source_shape) != len(shape) or any(s != t for d, (s, t) in enumerate(zip(source_shape, shape)) if d != dim):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified dimension. "
            f"Got self.shape = {list(shape)} source.shape = {list(source_shape)} ({name}, dim {dim})"
        )
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"{name}(): self ({input.dtype}) and source ({source.dtype}) must have the same scalar type")
    size = shape[dim] if shape else 1
    if array.size and (array.min() < 0 or array.max() >= size):
        bad = array.min() if array.min() < 0 else array.max()
        raise IndexError(
            f"{name}(): index out of range in self: index {bad} for dimension {dim} of size {size} "
            "(negative positions are refused here, as in PyTorch)"
        )
    _check_reduce_dtype(input, reduce, name)
    return dim, array


@op(IndexReduce, method=True, inplace=True)
def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    """A copy of `input` with the slices of `source` combined into the slices at positions `index`
    along `dim`: for dim 0, row `index[i]` of the result combines `source[i]` with `reduce`, one of
    'prod', 'mean', 'amax' or 'amin'. `index` is a vector of int64 or int32 positions in
    [0, input.size(dim)), repeats allowed (every slice sent to a position is combined); `source` has
    `input`'s shape but for len(index) along `dim`. `include_self=False` leaves `input`'s own values out
    of the positions that receive any; the others keep them. Returns a new tensor (`out=` writes it there).

    'mean' divides by the number of values combined (floor division for integer dtypes). The gradient
    of amax/amin is shared evenly among tied values, and that of a zero in a product is the product of
    the others, as PyTorch's.

    Example::

        >>> x = ember.ones(3, 2)
        >>> ember.index_reduce(x, 0, ember.tensor([0, 2, 0]), ember.tensor([[2.0, 3.0], [4.0, 5.0], [6.0, 7.0]]), "prod")
        tensor([[12., 21.],
                [ 1.,  1.],
                [ 4.,  5.]])

    Difference from PyTorch: no "index_reduce() is in beta" warning.
    """
    dim, array = _index_reduce_index(input, dim, index, source, reduce, include_self)
    if out is not None and out._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"index_reduce(): Expected out tensor to have dtype {input.dtype}, but got {out.dtype} instead"
        )
    full_index = _spread_index(array, dim, source._data.shape)
    result = IndexReduce.apply(input, dim, full_index, source, reduce, bool(include_self))
    if out is not None:
        from .inplace import copy_into_out

        return copy_into_out(out, result)
    return result


# ----------------------------------------------------------------------------- flat indices
def _flat_index(input, index, op_name):
    array = _index_of(index, op_name)
    size = input._data.size
    if array.size and (array.max() >= size or array.min() < -size):
        bad = array.max() if array.max() >= size else array.min()
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {size} elements.")
    return array


class Take(Primitive, node="TakeBackward0"):
    @staticmethod
    def forward(ctx, a, index):
        ctx.input_shape, ctx.index = a.shape, index
        return a.reshape(-1)[index]

    @staticmethod
    def backward(ctx, grad):
        zeros = new_tensor(np.zeros(ctx.input_shape, dtype=grad._data.dtype))
        return Put.apply(zeros, ctx.index, grad, True), None


@op(Take, method=True)
def take(input, index):
    """The elements of `input`, seen as 1-d, at `index` (result has index's shape)."""
    return Take.apply(input, _flat_index(input, index, "take"))


class Put(Primitive, node="PutBackward0"):
    @staticmethod
    def forward(ctx, a, index, source, accumulate):
        ctx.index, ctx.accumulate, ctx.source_shape = index, accumulate, source.shape
        result = a.copy()
        flat = result.reshape(-1)
        if accumulate:
            np.add.at(flat, index.reshape(-1), source.reshape(-1))
        else:
            flat[index.reshape(-1)] = source.reshape(-1)
        return result

    @staticmethod
    def backward(ctx, grad):
        grad_a = grad_source = None
        if ctx.needs_input_grad[0]:
            grad_a = (
                grad
                if ctx.accumulate
                else Put.apply(grad, ctx.index, np.zeros(ctx.source_shape, dtype=grad._data.dtype), False)
            )
        if ctx.needs_input_grad[2]:
            grad_source = Take.apply(grad, ctx.index).reshape(ctx.source_shape)
        return grad_a, None, grad_source, None


@op(Put, method=True, inplace=True)
def put(input, index, source, accumulate=False):
    """A copy of `input` with `source` written at the flat positions `index` (`+=` with accumulate)."""
    array = _flat_index(input, index, "put")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"put_(): self ({input.dtype}) and source ({source.dtype}) must have the same scalar type")
    if source._data.size != array.size:
        raise IndexError(
            f"put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source._data.size}, index.numel() = {array.size}"
        )
    return Put.apply(input, array, source, bool(accumulate))


@op(method=True)
def take_along_dim(input, indices, dim=None):
    """`gather` after broadcasting `input` and `indices` in every dim but `dim` (flat when dim is None)."""
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    ndim = input._data.ndim
    dim = normalize_dim(dim, ndim, "take_along_dim")
    if indices._data.ndim != ndim:
        raise RuntimeError(
            f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
            f"but got {ndim} dimensions for input, and {indices._data.ndim} dimensions for indices"
        )
    input_shape, index_shape = list(input._data.shape), list(indices._data.shape)
    input_shape[dim] = index_shape[dim] = 1
    shape = list(_broadcast_shape(tuple(input_shape), tuple(index_shape), "take_along_dim"))
    input_target, index_target = list(shape), list(shape)
    input_target[dim], index_target[dim] = input._data.shape[dim], indices._data.shape[dim]
    if list(input._data.shape) != input_target:
        input = input.expand(input_target)
    if list(indices._data.shape) != index_target:
        indices = indices.expand(index_target)
    return gather(input, dim, indices)
