"""Ops on how numbers are built: greatest common divisor and least common multiple of integers, and
the float's mantissa and exponent (ldexp, frexp, nextafter); plus float_power_, whose in-place form
needs a double-precision tensor as PyTorch's does.
"""

import math

from .._backend import np
from .._tensor import Tensor, new_tensor
from .. import _dtype, return_types
from ..autograd.function import Primitive
from ._common import prepare_binary, check_broadcastable
from ._declare import op
from ._tangents import add_tangents
from .inplace import apply_inplace
from .pointwise import float_power

__all__ = ["gcd", "lcm", "ldexp", "frexp", "nextafter"]  # (gcd_ ... made by inplace_methods; float_power_ a method)

_LOG_TWO = math.log(2.0)


def _tensor_operands(input, other, op_name):
    for position, (name, value) in enumerate((("input", input), ("other", other)), start=1):
        if not isinstance(value, Tensor):
            raise TypeError(
                f"{op_name}(): argument '{name}' (position {position}) must be Tensor, not {type(value).__name__}"
            )
    return prepare_binary(input, other, op_name)


def _integer_kernel(ufunc, input, other, op_name):
    input, other = _tensor_operands(input, other, op_name)
    if input._data.dtype.kind not in "iu":
        raise NotImplementedError(
            f"\"{op_name}_cpu\" not implemented for '{_dtype.kernel_name(input.dtype)}': {op_name} takes integer "
            "tensors"
        )
    check_broadcastable(input, other, op_name)
    return new_tensor(np.asarray(ufunc(input._data, other._data)).astype(input._data.dtype, copy=False))


@op(method=True, inplace=True)
def gcd(input, other):
    """Element-wise greatest common divisor of integer tensors (gcd(0, 0) = 0, always >= 0)."""
    return _integer_kernel(np.gcd, input, other, "gcd")


@op(method=True, inplace=True)
def lcm(input, other):
    """Element-wise least common multiple of integer tensors (0 where either is 0, always >= 0)."""
    return _integer_kernel(np.lcm, input, other, "lcm")


# ----------------------------------------------------------------------------- ldexp
class Ldexp(Primitive, node="LdexpBackward0"):
    """input * 2 ** other; d/dinput = 2 ** other, d/dother = result * log 2."""

    @staticmethod
    def forward(ctx, input, other):
        result = input * np.exp2(other).astype(input.dtype, copy=False)
        ctx.save_for_backward(input, other)
        return result

    @staticmethod
    def backward(ctx, grad):
        from .elementwise import pow

        input, other = ctx.saved_tensors
        needs_input, needs_other = ctx.needs_input_grad
        scale = pow(2.0, other)
        grad_input = grad * scale if needs_input else None
        grad_other = grad * input * scale * _LOG_TWO if needs_other else None
        return grad_input, grad_other

    @staticmethod
    def jvp(ctx, tangent_input, tangent_other):
        from .elementwise import pow

        input, other = ctx.inputs
        scale = pow(2.0, other)
        return add_tangents(
            tangent_input if tangent_input is None else tangent_input * scale,
            tangent_other if tangent_other is None else tangent_other * input * scale * _LOG_TWO,
        )


@op(Ldexp, method=True, inplace=True)
def ldexp(input, other):
    """`input * 2 ** other`; integer operands give the default float dtype."""
    input, other = _tensor_operands(input, other, "ldexp")
    if input._data.dtype.kind not in "fcV":
        default = _dtype.get_default_dtype()
        input, other = input.to(default), other if other._data.dtype.kind in "iu" else other.to(default)
    check_broadcastable(input, other, "ldexp")
    return Ldexp.apply(input, other)


# ----------------------------------------------------------------------------- frexp
class Frexp(Primitive, node="FrexpBackward0"):
    """(mantissa, exponent) with input = mantissa * 2 ** exponent; d mantissa/d input = 2 ** -exponent."""

    @staticmethod
    def forward(ctx, a):
        mantissa, exponent = np.frexp(a)
        exponent = exponent.astype(np.int32)
        ctx.mark_non_differentiable(exponent)
        ctx.save_for_backward(exponent)
        return mantissa, exponent

    @staticmethod
    def backward(ctx, grad_mantissa, grad_exponent):
        (exponent,) = ctx.saved_tensors
        return grad_mantissa / exponent.to(grad_mantissa.dtype).exp2()

    @staticmethod
    def jvp(ctx, tangent):
        if tangent is None:
            return None, None
        exponent = ctx.outputs[1]
        return tangent / exponent.to(tangent.dtype).exp2(), None


@op(Frexp, method=True)
def frexp(input):
    """Split floats into a mantissa in [0.5, 1) (in magnitude) and an int32 exponent: a named tuple
    (mantissa, exponent) with input = mantissa * 2 ** exponent."""
    if not isinstance(input, Tensor) or input._data.dtype.kind not in "fV":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa, exponent = Frexp.apply(input)
    return return_types.frexp(mantissa, exponent)


# ----------------------------------------------------------------------------- nextafter
class Nextafter(Primitive, node="NextafterBackward0"):
    """The next float after `input` towards `other`. As PyTorch (2.13's derivatives.yaml), its
    gradient is taken as 1 for `input` (the step is below rounding), except where input == other,
    whose result is `other` itself, and 0 for `other`."""

    @staticmethod
    def forward(ctx, input, other):
        ctx.save_for_backward(input, other)
        return np.nextafter(input, other)

    @staticmethod
    def backward(ctx, grad):
        from .creation import zeros_like
        from .indexing import where

        input, other = ctx.saved_tensors
        needs_input, needs_other = ctx.needs_input_grad
        grad_input = where(input != other, grad, 0.0) if needs_input else None
        return grad_input, (zeros_like(grad) if needs_other else None)

    @staticmethod
    def jvp(ctx, tangent_input, tangent_other):
        from .indexing import where

        input, other = ctx.inputs
        return None if tangent_input is None else where(input != other, tangent_input, 0.0)


@op(Nextafter, method=True, inplace=True)
def nextafter(input, other):
    """The next representable float after `input` in the direction of `other` (same float dtype)."""
    _tensor_operands(input, other, "nextafter")
    for operand in (input, other):
        if operand._data.dtype.kind not in "fV":
            raise NotImplementedError(
                f"\"nextafter_cpu\" not implemented for '{_dtype.kernel_name(operand.dtype)}': nextafter takes "
                "floating-point tensors"
            )
    if input.dtype is not other.dtype:
        raise RuntimeError(
            f"nextafter: expected both tensors to have the same dtype, got {input.dtype} and {other.dtype}"
        )
    check_broadcastable(input, other, "nextafter")
    return Nextafter.apply(input, other)


# ----------------------------------------------------------------------------- float_power_
@op(method=True)
def float_power_(input, exponent):
    """In-place `float_power`: the tensor must already be float64 (or complex128), as the result is."""
    wanted = "complex128" if input._data.dtype.kind == "c" else "float64"
    if input.dtype.name != wanted:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {_dtype.kernel_name(input.dtype)} but the operation's result "
            f"requires dtype {_dtype.kernel_name(getattr(_dtype, wanted))}: convert it with .double() first"
        )
    return apply_inplace(input, "float_power_", float_power, exponent)
