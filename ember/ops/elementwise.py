"""Element-wise primitives: forward on arrays, backward with ember ops (so it can be differentiated).

Broadcasting is not undone here: the engine sums each gradient back to its input's shape.
"""

from .._backend import np
from .._tensor import Tensor
from .. import _dtype, _precision
from ..autograd.function import Primitive
from ._common import prepare_binary, check_broadcastable
from ._tangents import add_tangents, diagonal_jvp, linear_jvp
from ._declare import op, alias

__all__ = [
    "add",
    "sub",
    "mul",
    "div",
    "true_divide",
    "pow",
    "neg",
    "exp",
    "log",
    "sin",
    "cos",
    "tanh",
    "sigmoid",
    "relu",
    "sqrt",
    "abs",
    "rsub",
    "multiply",
    "subtract",
    "divide",
    "negative",
    "absolute",
    "square",
]


# ---------------------------------------------------------------- binary arithmetic
class Add(Primitive, node="AddBackward0", wraps_numbers=True, backward_on_arrays=True):
    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, grad):
        needs_a, needs_b = ctx.needs_input_grad
        return (grad if needs_a else None), (grad if needs_b else None)

    @staticmethod
    def jvp(ctx, tangent_a, tangent_b):
        return add_tangents(tangent_a, tangent_b)


class Sub(Primitive, node="SubBackward0", wraps_numbers=True, backward_on_arrays=True):
    @staticmethod
    def forward(ctx, a, b):
        return a - b

    @staticmethod
    def backward(ctx, grad):
        needs_a, needs_b = ctx.needs_input_grad
        return (grad if needs_a else None), (-grad if needs_b else None)

    @staticmethod
    def jvp(ctx, tangent_a, tangent_b):
        return add_tangents(tangent_a, None if tangent_b is None else -tangent_b)


class Mul(Primitive, node="MulBackward0", wraps_numbers=True, backward_on_arrays=True, holomorphic=True):
    @staticmethod
    def forward(ctx, a, b):
        # Save only what the wanted gradients use (as PyTorch), so `y.add_(y * 2)`-style in-place
        # changes of an input that needs no gradient do not invalidate this node.
        needs_a, needs_b = ctx.needs_input_grad
        ctx.save_for_backward(a if needs_b else None, b if needs_a else None)
        return a * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        needs_a, needs_b = ctx.needs_input_grad
        return (grad * b if needs_a else None), (grad * a if needs_b else None)

    @staticmethod
    def jvp(ctx, tangent_a, tangent_b):
        a, b = ctx.inputs
        return add_tangents(None if tangent_a is None else tangent_a * b, None if tangent_b is None else a * tangent_b)


class Div(Primitive, node="DivBackward0", wraps_numbers=True, backward_on_arrays=True, holomorphic=True):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, b)
        return a / b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        needs_a, needs_b = ctx.needs_input_grad
        grad_a = grad / b if needs_a else None
        grad_b = -grad * a / (b * b) if needs_b else None
        return grad_a, grad_b

    @staticmethod
    def jvp(ctx, tangent_a, tangent_b):
        a, b = ctx.inputs
        return add_tangents(
            None if tangent_a is None else tangent_a / b, None if tangent_b is None else -tangent_b * ctx.outputs / b
        )


class PowScalar(Primitive, node="PowBackward0", backward_on_arrays=True, holomorphic=True):
    """tensor ** number."""

    @staticmethod
    def forward(ctx, a, exponent):
        ctx.save_for_backward(a)
        ctx.exponent = exponent
        return a**exponent

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        exponent = ctx.exponent
        if exponent == 0:
            return grad * 0.0, None
        return grad * exponent * a ** (exponent - 1), None

    @staticmethod
    def jvp(ctx, tangent, _):
        a, exponent = ctx.inputs
        if exponent == 0:
            return tangent * 0.0
        return tangent * exponent * a ** (exponent - 1)


def _integer_power(a, b):
    """a ** b for integers, where NumPy refuses negative exponents: as in PyTorch's integer pow,
    1 ** -n is 1, (-1) ** -n is +-1, and any other base gives 0 (the truncated 1 / a ** n)."""
    negative = b < 0
    if not negative.any():
        return a**b
    result = np.power(a, np.where(negative, 0, b))
    at_negative = np.where(a == 1, 1, np.where(a == -1, np.where(b % 2 == 0, 1, -1), 0))
    return np.where(negative, at_negative, result).astype(result.dtype)


class PowTensor(Primitive, node="PowBackward1", holomorphic=True):
    """tensor ** tensor (and number ** tensor, with the number made a tensor)."""

    @staticmethod
    def forward(ctx, a, b):
        result = _integer_power(a, b) if b.dtype.kind == "i" and a.dtype.kind in "iu" else a**b
        ctx.save_for_backward(a, b, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, b, result = ctx.saved_tensors
        needs_a, needs_b = ctx.needs_input_grad
        # Where b == 0 the gradient is 0, also at a == 0 where b * a ** (b - 1) is 0 * inf (as PyTorch).
        grad_a = grad * where(b == 0, 0.0, b * a ** (b - 1)) if needs_a else None
        # d(a**b)/db = a**b * log(a); where a == 0 and b >= 0 it is 0 (PyTorch's convention).
        real_b = b.real if b.is_complex() else b  # (complex numbers have no order: the real part's sign)
        grad_b = grad * where((a == 0) & (real_b >= 0), 0.0, result * log(a)) if needs_b else None
        return grad_a, grad_b

    @staticmethod
    def jvp(ctx, tangent_a, tangent_b):
        a, b = ctx.inputs
        return add_tangents(
            None if tangent_a is None else tangent_a * b * a ** (b - 1),
            None if tangent_b is None else tangent_b * where(a == 0, 0.0, ctx.outputs * log(a)),
        )


_FLOAT16 = np.dtype(np.float16)
_FULL_WIDTH_FLOATS = frozenset([np.dtype(np.float32), np.dtype(np.float64)])  # a set test is the fastest check


def _binary(function, a, b, op_name, out=None):
    """Apply a binary primitive after PyTorch's type promotion; `out=` copies the result into a tensor."""
    # The common cases need no promotion: same-dtype tensors, or a float32/float64 tensor with a Python
    # float (float16 is not one: see _with_unrounded_number).
    if not (
        type(a) is Tensor
        and (
            (type(b) is float and a._data.dtype in _FULL_WIDTH_FLOATS)
            or (type(b) is Tensor and a._data.dtype is b._data.dtype)
        )
    ):
        a, b = prepare_binary(a, b, op_name)
        if (function is Mul or function is Div) and _is_half_with_inexact_number(a, b):
            return _with_unrounded_number(function, a, b, out)
    try:
        result = function.apply(a, b)
    except ValueError:
        check_broadcastable(a, b, op_name)
        raise
    return result if out is None else _write_out(result, out)


def _bfloat16_with_alpha(function, input, other, alpha, out):
    """`input ± alpha * other` for bfloat16, as PyTorch's fused kernel: in float32 with alpha rounded
    to bfloat16, the result rounded once."""
    narrow = _dtype.result_type(input, other)
    alpha = np.asarray(alpha, dtype=narrow.numpy_dtype).item()
    result = function(input.float(), other.float(), alpha=alpha).to(narrow)
    return result if out is None else _write_out(result, out)


def _is_bfloat16_with_number(a, b):
    tensor, number = (a, b) if type(a) is Tensor else (b, a)
    return type(number) in (float, int) and type(tensor) is Tensor and tensor._data.dtype.kind == "V"


def _is_half_with_inexact_number(a, b):
    """A float16 or bfloat16 tensor and a number it cannot hold (0.1, 0.999; not 2 or 0.5, which stay
    one op)."""
    tensor, number = (a, b) if type(a) is Tensor else (b, a)
    if type(number) not in (float, int) or type(tensor) is not Tensor:
        return False
    dtype = tensor._data.dtype
    if not (dtype.kind == "V" or dtype is _FLOAT16):
        return False
    with np.errstate(over="ignore"):
        return np.asarray(number, dtype=dtype).item() != number


def _with_unrounded_number(function, a, b, out):
    """A float16 or bfloat16 tensor times (or divided by) a Python number, as PyTorch computes it: in
    float32 with the number unrounded, the result rounded once (NumPy would round the number to the
    half type first: 0.999 to 1.0 in bfloat16, 0.1 to 0.0999756 in float16, so 3 * 0.1 printed 0.2998).
    PyTorch's add and sub do round the number, as NumPy does."""
    narrow = a.dtype if type(a) is Tensor else b.dtype
    result = function.apply(*[operand.float() if type(operand) is Tensor else operand for operand in (a, b)])
    result = result.to(narrow)
    return result if out is None else _write_out(result, out)


@op(Add, method=True, inplace=True)
def add(input, other, *, alpha=1, out=None):
    """`input + alpha * other`, broadcasting, with PyTorch's type promotion."""
    if alpha != 1:
        _check_alpha(input, other, alpha)
        if _is_bfloat16_with_number(input, alpha) and isinstance(other, Tensor):
            return _bfloat16_with_alpha(add, input, other, alpha, out)
        other = mul(other, alpha) if isinstance(other, Tensor) else other * alpha
    return _binary(Add, input, other, "add", out)


@op(Sub, method=True, inplace=True)
def sub(input, other, *, alpha=1, out=None):
    """`input - alpha * other`."""
    if not (_is_floating_operand(input) and _is_floating_operand(other)):
        _refuse_bool_subtraction(input, other)
    if alpha != 1:
        _check_alpha(input, other, alpha)
        if _is_bfloat16_with_number(input, alpha) and isinstance(other, Tensor):
            return _bfloat16_with_alpha(sub, input, other, alpha, out)
        other = mul(other, alpha) if isinstance(other, Tensor) else other * alpha
    return _binary(Sub, input, other, "sub", out)


def _check_alpha(input, other, alpha):
    """A float alpha needs a floating result: PyTorch refuses to round it into an integer one."""
    if isinstance(alpha, float) and not any(
        isinstance(value, (float, complex)) or isinstance(value, Tensor) and value._data.dtype.kind in "fcV"
        for value in (input, other)
    ):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")


def _is_floating_operand(value):
    return type(value) is float or type(value) is Tensor and value._data.dtype.kind in "fV"


def _refuse_bool_subtraction(input, other):
    if (
        isinstance(input, Tensor)
        and input._data.dtype == np.bool_
        and isinstance(other, Tensor)
        and other._data.dtype == np.bool_
    ):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if _is_bool_operand(input) or _is_bool_operand(other):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead."
        )


@op(method=True)
def rsub(input, other, *, alpha=1):
    """`other - alpha * input`: subtraction with the operands reversed (what `2 - x` calls)."""
    return sub(other, input, alpha=alpha)


@op(Mul, method=True, inplace=True)
def mul(input, other, *, out=None):
    """Element-wise product, broadcasting."""
    return _binary(Mul, input, other, "mul", out)


@op(Div, method=True, inplace=True)
def div(input, other, *, rounding_mode=None, out=None):
    """True division (integers give the default float dtype), or `rounding_mode` 'trunc'/'floor'."""
    if rounding_mode is not None:
        from .pointwise import _rounded_division

        return _write_out(_rounded_division(input, other, rounding_mode), out)
    if not (_is_floating_operand(input) and _is_floating_operand(other)):
        if isinstance(input, Tensor) and isinstance(other, Tensor):
            # Promote first, then make the common dtype floating: int / float16 is float16, int / int float32.
            input, other = prepare_binary(input, other, "div")
        input, other = _to_floating(input), _to_floating(other)
    return _binary(Div, input, other, "div", out)


def _is_bool_operand(value):
    return value is True or value is False or (isinstance(value, Tensor) and value._data.dtype == np.bool_)


def _to_floating(value):
    if isinstance(value, Tensor):
        if value._data.dtype.kind not in "fcV":
            return value.to(_dtype.get_default_dtype())
        return value
    if isinstance(value, (int, bool)):
        return float(value)
    return value


@op(PowScalar, PowTensor, method=True, inplace=True)
def pow(input, exponent, *, out=None):
    """`input ** exponent`; either side may be a number."""
    if not isinstance(exponent, Tensor):
        if not isinstance(input, Tensor):
            raise TypeError("pow: expected at least one tensor operand")
        if input._data.dtype.kind in "iu" and isinstance(exponent, int) and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if input._data.dtype.kind in "iu" and isinstance(exponent, int) and exponent > np.iinfo(input._data.dtype).max:
            raise RuntimeError(
                f"value cannot be converted to type {input._data.dtype}_t without overflow "
                f"(exponent {exponent} for a {input.dtype} tensor)"
            )
        input, exponent = prepare_binary(input, exponent, "pow")
        if isinstance(exponent, Tensor):
            return _binary(PowTensor, input, exponent, "pow", out)
        return _write_out(PowScalar.apply(input, exponent), out)
    if not isinstance(input, Tensor):
        input, exponent = prepare_binary(input, exponent, "pow")
        from .creation import full

        input = full((), input, dtype=exponent.dtype)
    return _binary(PowTensor, input, exponent, "pow", out)


@op(method=True, inplace=True)
def square(input):
    """`input ** 2` (bool tensors give int64, as in PyTorch)."""
    if isinstance(input, Tensor) and input._data.dtype == np.bool_:
        input = input.to(_dtype.int64)
    return pow(input, 2)


def _write_out(result, out):
    """Honour an `out=` argument by copying into it (no gradient flows through `out`)."""
    if out is None:
        return result
    from .inplace import copy_into_out

    return copy_into_out(out, result)


# ---------------------------------------------------------------- unary maths
class Neg(Primitive, node="NegBackward0", backward_on_arrays=True):
    @staticmethod
    def forward(ctx, a):
        return -a

    @staticmethod
    def backward(ctx, grad):
        return -grad

    jvp = linear_jvp


class Exp(Primitive, node="ExpBackward0", backward_on_arrays=True, holomorphic=True):
    @staticmethod
    def forward(ctx, a):
        result = np.exp(a)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return grad * result

    @staticmethod
    def jvp(ctx, tangent):
        return tangent * ctx.outputs


class Log(Primitive, node="LogBackward0", backward_on_arrays=True, holomorphic=True):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.log(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / a

    @staticmethod
    def jvp(ctx, tangent):
        return tangent / ctx.inputs[0]


class Sin(Primitive, node="SinBackward0", backward_on_arrays=True, holomorphic=True):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.sin(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * Cos.call(a)

    @staticmethod
    def jvp(ctx, tangent):
        return tangent * cos(ctx.inputs[0])


class Cos(Primitive, node="CosBackward0", backward_on_arrays=True, holomorphic=True):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.cos(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return -grad * Sin.call(a)

    @staticmethod
    def jvp(ctx, tangent):
        return tangent * -sin(ctx.inputs[0])


class Tanh(Primitive, node="TanhBackward0", backward_on_arrays=True, holomorphic=True):
    @staticmethod
    def forward(ctx, a):
        result = np.tanh(a)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return TanhBackward.call(grad, result)

    @staticmethod
    def jvp(ctx, tangent):
        return tangent * (1 - ctx.outputs * ctx.outputs)


class TanhBackward(Primitive, node="TanhBackwardBackward0", backward_on_arrays=True, holomorphic=True):
    """`grad * (1 - y**2)` as one op (PyTorch's tanh_backward): one node instead of three in backward."""

    @staticmethod
    def forward(ctx, grad, result):
        ctx.save_for_backward(grad, result)
        return grad * (1 - result * result)

    @staticmethod
    def backward(ctx, grad_grad):
        grad, result = ctx.saved_tensors
        needs_grad, needs_result = ctx.needs_input_grad
        return (
            TanhBackward.call(grad_grad, result) if needs_grad else None,
            grad_grad * grad * result * -2.0 if needs_result else None,
        )

    jvp = diagonal_jvp  # element-wise in both inputs; forward-over-reverse runs it (functional.hvp)


def _sigmoid_array(a):
    # exp of a non-positive number only: stable on both tails.
    e = np.exp(-np.abs(a))
    return np.where(a >= 0, 1 / (1 + e), e / (1 + e)).astype(a.dtype, copy=False)


class Sigmoid(Primitive, node="SigmoidBackward0", backward_on_arrays=True, holomorphic=True):
    """A primitive rather than 1/(1+exp(-x)): that composite overflows for large negative x."""

    @staticmethod
    def forward(ctx, a):
        if a.dtype.kind == "c":  # no tails to guard: the formula as it stands
            result = 1 / (1 + np.exp(-a))
            ctx.save_for_backward(result)
            return result
        result = _precision.in_float32(_sigmoid_array, a)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return SigmoidBackward.call(grad, result)

    @staticmethod
    def jvp(ctx, tangent):
        return tangent * ctx.outputs * (1 - ctx.outputs)


class SigmoidBackward(Primitive, node="SigmoidBackwardBackward0", backward_on_arrays=True, holomorphic=True):
    """`grad * y * (1 - y)` as one op (PyTorch's sigmoid_backward)."""

    @staticmethod
    def forward(ctx, grad, result):
        ctx.save_for_backward(grad, result)
        return grad * result * (1 - result)

    @staticmethod
    def backward(ctx, grad_grad):
        grad, result = ctx.saved_tensors
        needs_grad, needs_result = ctx.needs_input_grad
        return (
            SigmoidBackward.call(grad_grad, result) if needs_grad else None,
            grad_grad * grad * (1.0 - 2.0 * result) if needs_result else None,
        )

    jvp = diagonal_jvp


class Relu(Primitive, node="ReluBackward0", backward_on_arrays=True):
    @staticmethod
    def forward(ctx, a):
        result = np.maximum(a, 0)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return ReluBackward.call(grad, result)

    @staticmethod
    def jvp(ctx, tangent):
        return tangent * (ctx.outputs > 0)


class ReluBackward(Primitive, node="ThresholdBackwardBackward0", backward_on_arrays=True):
    """`grad` where the output is positive, else 0, as one op (PyTorch's threshold_backward)."""

    @staticmethod
    def forward(ctx, grad, result):
        ctx.save_for_backward(result)
        return grad * (result > 0)

    @staticmethod
    def backward(ctx, grad_grad):
        (result,) = ctx.saved_tensors
        return (ReluBackward.call(grad_grad, result) if ctx.needs_input_grad[0] else None), None

    jvp = diagonal_jvp


class Sqrt(Primitive, node="SqrtBackward0", backward_on_arrays=True, holomorphic=True):
    @staticmethod
    def forward(ctx, a):
        result = np.sqrt(a)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return grad / (2 * result)

    @staticmethod
    def jvp(ctx, tangent):
        return tangent * 0.5 / ctx.outputs


class Abs(Primitive, node="AbsBackward0"):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return np.abs(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * a.sgn()  # z / |z| for complex z: PyTorch's gradient of |z|

    @staticmethod
    def jvp(ctx, tangent):
        a = ctx.inputs[0]
        if a._data.dtype.kind == "c":
            return (tangent * a.sgn().conj()).real  # d|z| = Re(conj(z) dz) / |z|
        return tangent * a.sign()


def _unary(function, input, op_name, floating=True):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op_name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if floating and input._data.dtype.kind not in "fcV":
        input = input.to(_dtype.get_default_dtype())
    return function.apply(input)


@op(Neg, method=True, inplace=True)
def neg(input):
    """`-input`, element-wise (bool tensors are refused: use `logical_not` or `~` to invert a mask)."""
    if isinstance(input, Tensor) and input._data.dtype == np.bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return _unary(Neg, input, "neg", floating=False)


@op(Exp, method=True, inplace=True)
def exp(input, *, out=None):
    """e to the power of each element; integer tensors give the default float dtype."""
    result = _unary(Exp, input, "exp")
    return result if out is None else _write_out(result, out)


@op(Log, method=True, inplace=True)
def log(input, *, out=None):
    """The natural logarithm, element-wise (-inf at 0, NaN below); integers give the default float dtype."""
    result = _unary(Log, input, "log")
    return result if out is None else _write_out(result, out)


@op(Sin, method=True, inplace=True)
def sin(input, *, out=None):
    """The sine (radians), element-wise; integers give the default float dtype."""
    result = _unary(Sin, input, "sin")
    return result if out is None else _write_out(result, out)


@op(Cos, method=True, inplace=True)
def cos(input, *, out=None):
    """The cosine (radians), element-wise; integers give the default float dtype."""
    result = _unary(Cos, input, "cos")
    return result if out is None else _write_out(result, out)


@op(Tanh, method=True, inplace=True)
def tanh(input, *, out=None):
    """The hyperbolic tangent, element-wise; integers give the default float dtype."""
    result = _unary(Tanh, input, "tanh")
    return result if out is None else _write_out(result, out)


@op(Sigmoid, method=True, inplace=True)
def sigmoid(input):
    """The logistic function `1 / (1 + exp(-x))`, element-wise, computed without overflow for large `|x|`."""
    return _unary(Sigmoid, input, "sigmoid")


@op(Relu, method=True, inplace=True)
def relu(input):
    """`max(0, x)`, element-wise; keeps the input's dtype (integers stay integers)."""
    return _unary(Relu, input, "relu", floating=False)


@op(Sqrt, method=True, inplace=True)
def sqrt(input, *, out=None):
    """The square root, element-wise (NaN below 0); integers give the default float dtype."""
    result = _unary(Sqrt, input, "sqrt")
    return result if out is None else _write_out(result, out)


@op(Abs, method=True, inplace=True)
def abs(input):
    """The absolute value, element-wise, in the input's dtype (integers stay integers)."""
    return _unary(Abs, input, "abs", floating=False)


def where(condition, input, other):
    from .indexing import where as _where

    return _where(condition, input, other)


# PyTorch's other names for the ops above.
true_divide = alias(div, "true_divide", method=True, inplace=True)
multiply = alias(mul, "multiply", method=True, inplace=True)
subtract = alias(sub, "subtract", method=True, inplace=True)
divide = alias(div, "divide", method=True, inplace=True)
negative = alias(neg, "negative", method=True, inplace=True)
absolute = alias(abs, "absolute", method=True, inplace=True)
