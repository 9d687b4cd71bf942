"""Indexing: `x[index]`, `x[index] = value` and `where`."""
from .._backend import np
from .._tensor import Tensor, new_tensor
from ..autograd.function import Function
from ._common import prepare_binary

__all__ = ["getitem", "setitem", "where", "index_put"]


def _unwrap_index(index):
    """Tensors in an index become arrays; returns (index, is_advanced, node name)."""
    items = index if isinstance(index, tuple) else (index,)
    unwrapped, advanced, all_ints = [], False, True
    for item in items:
        if isinstance(item, Tensor):
            item = item._data
            if item.dtype.kind not in "iub":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            if item.ndim == 0 and item.dtype.kind in "iu":
                item = int(item)
        elif isinstance(item, (list, np.ndarray)):
            item = np.asarray(item)
            if item.dtype.kind == "f":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if isinstance(item, np.ndarray):
            advanced = True
        if not isinstance(item, (int, np.integer)) or isinstance(item, bool):
            all_ints = False
        unwrapped.append(item)
    if advanced:
        name = "IndexBackward0"
    elif all_ints:
        name = "SelectBackward0"
    else:
        name = "SliceBackward0"
    return tuple(unwrapped), advanced, name


class _Index(Function):
    _array_forward = True

    @staticmethod
    def forward(ctx, a, index, advanced):
        ctx.input_shape, ctx.index, ctx.advanced = a.shape, index, advanced
        return a[index]

    @staticmethod
    def backward(ctx, grad):
        return IndexGradient.apply(grad, ctx.input_shape, ctx.index, ctx.advanced), None, None


class SelectBackward(_Index):
    _node_name = "SelectBackward0"


class SliceBackward(_Index):
    _node_name = "SliceBackward0"


class IndexBackward(_Index):
    _node_name = "IndexBackward0"


_INDEX_FUNCTIONS = {"SelectBackward0": SelectBackward, "SliceBackward0": SliceBackward,
                    "IndexBackward0": IndexBackward}


class IndexGradient(Function):
    """Scatter a gradient into zeros of the input's shape (summing repeated advanced indices)."""

    _array_forward = True
    _node_name = "IndexBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, shape, index, advanced):
        ctx.index = index
        result = np.zeros(shape, dtype=grad.dtype)
        if advanced:
            np.add.at(result, index, grad)
        else:
            result[index] = grad
        return result

    @staticmethod
    def backward(ctx, grad):
        return grad[ctx.index], None, None, None


def getitem(input, index):
    """`input[index]`: basic indexing gives a view, advanced (tensor/list/bool) indexing a copy."""
    from .shape import make_view, _Replay
    index, advanced, name = _unwrap_index(index)
    try:
        output = _INDEX_FUNCTIONS[name].apply(input, index, advanced)
    except IndexError as error:
        raise IndexError(f"{error} (indexing a tensor of shape {list(input.shape)})") from None
    if not advanced:
        make_view(output, input, _Replay(getitem, index))
    return output


class IndexPut(Function):
    """Out-of-place `x[index] = value`, the graph behind `setitem` on tensors that need gradients."""

    _array_forward = True
    _node_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, a, value, index):
        ctx.index, ctx.value_shape = index, np.shape(value)
        result = a.copy()
        result[index] = value
        return result

    @staticmethod
    def backward(ctx, grad):
        grad_a = grad_value = None
        if ctx.needs_input_grad[0]:
            grad_a = index_put(grad, ctx.index, 0.0)
        if ctx.needs_input_grad[1]:
            grad_value = grad[ctx.index]
        return grad_a, grad_value, None


def index_put(input, index, value):
    """A copy of `input` with `input[index] = value` (differentiable in both)."""
    index, _, _ = _unwrap_index(index)
    if isinstance(value, Tensor) and value._data.dtype != input._data.dtype:
        value = value.to(input.dtype)
    return IndexPut.apply(input, value, index)


def setitem(input, index, value):
    """`input[index] = value`, in place (recorded when gradients are involved)."""
    from .inplace import apply_inplace
    apply_inplace(input, "setitem", _index_put_for_setitem, index, value)


def _index_put_for_setitem(input, index, value):
    return index_put(input, index, value)


class Where(Function):
    _array_forward = True
    _node_name = "WhereBackward0"

    @staticmethod
    def forward(ctx, condition, a, b):
        ctx.condition = condition
        return np.where(condition, a, b)

    @staticmethod
    def backward(ctx, grad):
        condition = new_tensor(ctx.condition)
        needs_a, needs_b = ctx.needs_input_grad[1:]
        return (None, where(condition, grad, 0.0) if needs_a else None,
                where(condition, 0.0, grad) if needs_b else None)


def where(condition, input=None, other=None):
    """Elements of `input` where `condition` holds, else of `other` (either may be a number).

    With only `condition`, the indices of its nonzero elements (as `nonzero(as_tuple=True)`).
    """
    if input is None and other is None:
        from . import nonzero
        return nonzero(condition, as_tuple=True)
    condition_array = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    if condition_array.dtype != np.bool_:
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
        raise RuntimeError(f"where: condition {list(condition_array.shape)}, input {list(np.shape(input))} and "
                           f"other {list(np.shape(other))} cannot be broadcast together") from None
