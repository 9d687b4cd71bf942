"""More element-wise ops: rounding, sign, clamp, integer division, bitwise logic."""
from .._backend import np
from .._tensor import Tensor, new_tensor
from ..autograd.function import Function
from ._common import prepare_binary

__all__ = ["sign", "clamp", "clip", "floor_divide", "remainder", "bitwise_not", "bitwise_and",
           "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "logical_not",
           "logical_and", "logical_or", "logical_xor"]
INPLACE_VARIANTS = ("sign", "clamp", "clip", "floor_divide", "remainder", "bitwise_and", "bitwise_or",
                    "bitwise_xor", "bitwise_not", "logical_not")


def sign(input):
    """-1, 0 or 1 per element; its gradient is zero everywhere."""
    return _constant_result(np.sign(input._data), input)


def _constant_result(array, like):
    """A result whose derivative is zero: it carries no graph."""
    return new_tensor(np.asarray(array))


class Clamp(Function):
    _array_forward = True
    _node_name = "ClampBackward1"

    @staticmethod
    def forward(ctx, a, low, high):
        result = np.clip(a, low, high) if (low is not None or high is not None) else a.copy()
        ctx.mask = np.ones(a.shape, dtype=bool)
        if low is not None:
            ctx.mask &= a >= low
        if high is not None:
            ctx.mask &= a <= high
        return result.astype(a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        return grad * new_tensor(ctx.mask), None, None


def clamp(input, min=None, max=None):
    """Limit values to [min, max] (either bound may be None); the gradient passes inside the range."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    low = min._data if isinstance(min, Tensor) else min
    high = max._data if isinstance(max, Tensor) else max
    return Clamp.apply(input, low, high)


clip = clamp


def _rounded_division(input, other, rounding_mode):
    input, other = prepare_binary(input, other, "div")
    a = input._data if isinstance(input, Tensor) else input
    b = other._data if isinstance(other, Tensor) else other
    if rounding_mode == "floor":
        result = np.floor_divide(a, b)
    elif rounding_mode == "trunc":
        quotient = np.true_divide(a, b)
        result = np.trunc(quotient)
        if np.asarray(a).dtype.kind in "iu" and np.asarray(b).dtype.kind in "iu":
            result = result.astype(np.result_type(a, b))
    else:
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    return new_tensor(np.asarray(result))


def floor_divide(input, other):
    return _rounded_division(input, other, "floor")


def remainder(input, other):
    input, other = prepare_binary(input, other, "remainder")
    from .elementwise import sub, mul
    return sub(input, mul(floor_divide(input, other), other))


def _bitwise(ufunc, a, b, op_name):
    a, b = prepare_binary(a, b, op_name)
    arrays = [x._data if isinstance(x, Tensor) else x for x in (a, b)]
    for array in arrays:
        if np.asarray(array).dtype.kind == "f":
            raise RuntimeError(f"\"{op_name}_cpu\" not implemented for 'Float'")
    return new_tensor(np.asarray(ufunc(*arrays)))


def bitwise_not(input):
    if input._data.dtype.kind == "f":
        raise RuntimeError("\"bitwise_not_cpu\" not implemented for 'Float'")
    return new_tensor(np.invert(input._data))


def bitwise_and(input, other):
    return _bitwise(np.bitwise_and, input, other, "bitwise_and")


def bitwise_or(input, other):
    return _bitwise(np.bitwise_or, input, other, "bitwise_or")


def bitwise_xor(input, other):
    return _bitwise(np.bitwise_xor, input, other, "bitwise_xor")


def bitwise_left_shift(input, other):
    return _bitwise(np.left_shift, input, other, "bitwise_left_shift")


def bitwise_right_shift(input, other):
    return _bitwise(np.right_shift, input, other, "bitwise_right_shift")


def logical_not(input):
    return new_tensor(np.logical_not(input._data))


def _logical(ufunc, a, b):
    arrays = [x._data if isinstance(x, Tensor) else x for x in (a, b)]
    return new_tensor(np.asarray(ufunc(*arrays)))


def logical_and(input, other):
    return _logical(np.logical_and, input, other)


def logical_or(input, other):
    return _logical(np.logical_or, input, other)


def logical_xor(input, other):
    return _logical(np.logical_xor, input, other)
