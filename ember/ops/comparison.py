"""Comparisons: element-wise results are bool tensors, outside the graph."""
from .._backend import np
from .._tensor import Tensor, new_tensor
from ._common import prepare_binary, check_broadcastable

__all__ = ["eq", "ne", "lt", "le", "gt", "ge", "equal", "greater", "greater_equal", "less", "less_equal",
           "not_equal"]


def _compare(ufunc, a, b, op_name):
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        raise TypeError(f"{op_name}: expected a Tensor")
    if b is None or (not isinstance(b, (Tensor, int, float, bool, complex, np.ndarray, np.generic, list, tuple))):
        return NotImplemented
    a, b = prepare_binary(a, b, op_name)
    a_data = a._data if isinstance(a, Tensor) else a
    b_data = b._data if isinstance(b, Tensor) else b
    try:
        return new_tensor(np.asarray(ufunc(a_data, b_data)))
    except ValueError:
        check_broadcastable(a, b, op_name)
        raise


def eq(input, other):
    return _compare(np.equal, input, other, "eq")


def ne(input, other):
    return _compare(np.not_equal, input, other, "ne")


def lt(input, other):
    return _compare(np.less, input, other, "lt")


def le(input, other):
    return _compare(np.less_equal, input, other, "le")


def gt(input, other):
    return _compare(np.greater, input, other, "gt")


def ge(input, other):
    return _compare(np.greater_equal, input, other, "ge")


def equal(input, other):
    """True when both tensors have the same shape and elements."""
    return input._data.shape == other._data.shape and bool(np.array_equal(input._data, other._data))


greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne
