"""Comparisons: element-wise results are bool tensors, outside the graph."""

from .._backend import np
from .._tensor import Tensor, new_tensor
from ._common import prepare_binary, check_broadcastable
from ._declare import op, alias

__all__ = [
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "equal",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "not_equal",
    "isclose",
    "allclose",
    "isnan",
    "isinf",
    "isfinite",
    "isposinf",
    "isneginf",
    "isreal",
    "isin",
    "signbit",
    "searchsorted",
]
# `x.eq_(y)` stores the comparison's 0/1 in x's own dtype (see inplace_methods).


_ORDERINGS = frozenset(("lt", "le", "gt", "ge"))


def _compare(ufunc, a, b, op_name):
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        raise TypeError(f"{op_name}: expected a Tensor")
    if b is None or (not isinstance(b, (Tensor, int, float, bool, complex, np.ndarray, np.generic, list, tuple))):
        return NotImplemented
    a, b = prepare_binary(a, b, op_name)
    if op_name in _ORDERINGS and any(isinstance(x, Tensor) and x._data.dtype.kind == "c" for x in (a, b)):
        raise NotImplementedError(
            f"\"{op_name}_cpu\" not implemented for 'ComplexFloat': complex numbers have no order "
            "(compare their .abs() or .real instead)"
        )
    a_data = a._data if isinstance(a, Tensor) else a
    b_data = b._data if isinstance(b, Tensor) else b
    try:
        return new_tensor(np.asarray(ufunc(a_data, b_data)))
    except ValueError:
        check_broadcastable(a, b, op_name)
        raise


@op(method=True, inplace=True)
def eq(input, other):
    """A bool tensor: True where `input == other`, broadcasting (what `a == b` calls)."""
    return _compare(np.equal, input, other, "eq")


@op(method=True, inplace=True)
def ne(input, other):
    """A bool tensor: True where `input != other`, broadcasting (what `a != b` calls); `not_equal` is the same
    function.
    """
    return _compare(np.not_equal, input, other, "ne")


@op(method=True, inplace=True)
def lt(input, other):
    """A bool tensor: True where `input < other`, broadcasting; `less` is the same function."""
    return _compare(np.less, input, other, "lt")


@op(method=True, inplace=True)
def le(input, other):
    """A bool tensor: True where `input <= other`, broadcasting; `less_equal` is the same function."""
    return _compare(np.less_equal, input, other, "le")


@op(method=True, inplace=True)
def gt(input, other):
    """A bool tensor: True where `input > other`, broadcasting; `greater` is the same function."""
    return _compare(np.greater, input, other, "gt")


@op(method=True, inplace=True)
def ge(input, other):
    """A bool tensor: True where `input >= other`, broadcasting; `greater_equal` is the same function."""
    return _compare(np.greater_equal, input, other, "ge")


@op(method=True)
def equal(input, other):
    """True (a Python bool) when both tensors have the same shape and equal elements; NaN is never equal.
    Different dtypes are compared by value, as PyTorch does (`equal(tensor([1]), tensor([1.]))` is True)."""
    _check_tensor(input, "equal", 1, "input")
    _check_tensor(other, "equal", 2, "other")
    return input._data.shape == other._data.shape and bool(np.array_equal(input._data, other._data))


@op(method=True)
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Element-wise `|input - other| <= atol + rtol * |other|` (a bool tensor), broadcasting.

    Equal elements (infinities included) are close; NaN is close to NaN only with `equal_nan`. Both
    tensors must have the same dtype, as in PyTorch.
    """
    _check_tensor(input, "isclose", 1, "input")
    _check_tensor(other, "isclose", 2, "other")
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(
            f"isclose: {input.dtype} did not match {other.dtype}: both tensors must have the same "
            "dtype (convert one with .to())"
        )
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    a, b = input._data, other._data
    try:
        close = a == b
    except ValueError:
        check_broadcastable(input, other, "isclose")
        raise
    if a.dtype == np.bool_:
        a, b = a.astype(np.int64), b.astype(np.int64)
    if equal_nan and a.dtype.kind in "fcV":
        close = close | (np.isnan(a) & np.isnan(b))
    with np.errstate(invalid="ignore", over="ignore"):
        # Integers are compared in float64, where |a - b| cannot wrap around.
        difference = np.abs(a - b) if a.dtype.kind in "fcV" else np.abs(a.astype(np.float64) - b)
        allowed = atol + rtol * np.abs(b)
        close = close | (np.isfinite(difference) & (difference <= allowed))
    return new_tensor(np.asarray(close))


@op(method=True)
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True (a Python bool) when every element of `isclose(input, other, ...)` is."""
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


def _check_tensor(value, op_name, position, name):
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{op_name}(): argument '{name}' (position {position}) must be Tensor, not {type(value).__name__}"
        )


def _classify(ufunc, input, op_name, integer_result):
    """A bool tensor from `ufunc` on floating/complex data; for integer and bool tensors the answer is
    the same for every element (`integer_result`)."""
    _check_tensor(input, op_name, 1, "input")
    data = input._data
    if data.dtype.kind in "fcV":
        return new_tensor(np.asarray(ufunc(data)))
    return new_tensor(np.full(data.shape, integer_result))


@op(method=True)
def isnan(input):
    """A bool tensor: True where an element is NaN (always False for integer tensors)."""
    return _classify(np.isnan, input, "isnan", False)


@op(method=True)
def isinf(input):
    """A bool tensor: True where an element is +inf or -inf."""
    return _classify(np.isinf, input, "isinf", False)


@op(method=True)
def isfinite(input):
    """A bool tensor: True where an element is neither inf nor NaN (always True for integers)."""
    return _classify(np.isfinite, input, "isfinite", True)


def _real_only(input, op_name):
    _check_tensor(input, op_name, 1, "input")
    if input._data.dtype.kind == "c":
        raise RuntimeError(f"{op_name} does not support complex inputs.")


@op(method=True)
def isposinf(input):
    """A bool tensor: True where an element is +inf (complex tensors are refused)."""
    _real_only(input, "isposinf")
    return _classify(np.isposinf, input, "isposinf", False)


@op(method=True)
def isneginf(input):
    """A bool tensor: True where an element is -inf (complex tensors are refused)."""
    _real_only(input, "isneginf")
    return _classify(np.isneginf, input, "isneginf", False)


@op(method=True)
def isreal(input):
    """True where the imaginary part is zero: every element of a real tensor."""
    _check_tensor(input, "isreal", 1, "input")
    data = input._data
    if data.dtype.kind == "c":
        return new_tensor(np.asarray(data.imag == 0))
    return new_tensor(np.ones(data.shape, dtype=bool))


@op(method=True)
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """True where an element of `elements` occurs in `test_elements` (either may be a number)."""
    values = elements._data if isinstance(elements, Tensor) else np.asarray(elements)
    tests = test_elements._data if isinstance(test_elements, Tensor) else np.asarray(test_elements)
    return new_tensor(np.asarray(np.isin(values, tests, assume_unique=assume_unique, invert=invert)))


@op(method=True)
def signbit(input):
    """True where the sign bit is set (including -0.0)."""
    _check_tensor(input, "signbit", 1, "input")
    return new_tensor(np.asarray(np.signbit(input._data)))


@op(method=True)
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):
    """Indices where `input`'s values would be inserted to keep each innermost row of
    `sorted_sequence` sorted (int64; a 1-d sequence serves every value)."""
    _check_tensor(sorted_sequence, "searchsorted", 1, "sorted_sequence")
    side = side or ("right" if right else "left")
    sequence = sorted_sequence._data
    values = input._data if isinstance(input, Tensor) else np.asarray(input)
    order = sorter._data if isinstance(sorter, Tensor) else sorter
    if sequence.ndim == 1:
        result = np.searchsorted(sequence, values, side=side, sorter=order)
    else:
        if sequence.shape[:-1] != values.shape[:-1]:
            raise RuntimeError(
                f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                f"dimensions of boundaries tensor and input value tensor must match, but we got "
                f"boundaries tensor {list(sequence.shape)} and input value tensor {list(values.shape)}"
            )
        rows, value_rows = sequence.reshape(-1, sequence.shape[-1]), values.reshape(-1, values.shape[-1])
        sorters = order.reshape(-1, order.shape[-1]) if order is not None else [None] * len(rows)
        result = np.stack(
            [
                np.searchsorted(row, value_row, side=side, sorter=row_order)
                for row, value_row, row_order in zip(rows, value_rows, sorters)
            ]
        ).reshape(values.shape)
    return new_tensor(np.asarray(result, dtype=np.int32 if out_int32 else np.int64))


# PyTorch's other names for the ops above.
greater = alias(gt, "greater", method=True, inplace=True)
greater_equal = alias(ge, "greater_equal", method=True, inplace=True)
less = alias(lt, "less", method=True, inplace=True)
less_equal = alias(le, "less_equal", method=True, inplace=True)
not_equal = alias(ne, "not_equal", method=True, inplace=True)
