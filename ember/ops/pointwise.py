"""Element-wise ops beyond the core arithmetic of `elementwise.py`: rounding, sign, clamp, the rest of
the exponential/logarithmic/trigonometric/hyperbolic/special functions, two-operand maths (atan2,
fmod, maximum, ...), the fused lerp/addcmul/addcdiv, integer division, and bitwise logic.

Each differentiable op is a `Function` whose forward works on arrays and whose backward uses ember
ops, so gradients of gradients work. Dtypes follow PyTorch: integer and bool inputs of floating
functions give the default float dtype; rounding an integer tensor gives it back unchanged (a copy).
Piecewise-constant ops (floor, sign, ...) keep a graph node whose gradient is zero, as PyTorch does.
"""

import math

from .._backend import np
from .._validation import check_fits
from .._tensor import Tensor, new_tensor
from .. import _dtype, _precision
from ..autograd.function import Primitive
from ._common import prepare_binary, check_broadcastable
from . import _special
from .comparison import isfinite
from .creation import zeros_like
from .elementwise import _unary, cos, exp, pow, sin
from .indexing import where
from ._tangents import diagonal_jvp
from .complex_numbers import ComplexSgn
from ._declare import op, alias

__all__ = [
    "sign",
    "sgn",
    "ceil",
    "floor",
    "round",
    "trunc",
    "fix",
    "frac",
    "clamp",
    "clip",
    "clamp_min",
    "clamp_max",
    "exp2",
    "expm1",
    "log2",
    "log10",
    "log1p",
    "rsqrt",
    "reciprocal",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "asinh",
    "acosh",
    "atanh",
    "arcsin",
    "arccos",
    "arctan",
    "arcsinh",
    "arccosh",
    "arctanh",
    "erf",
    "erfc",
    "erfinv",
    "deg2rad",
    "rad2deg",
    "logit",
    "sinc",
    "nan_to_num",
    "positive",
    "atan2",
    "arctan2",
    "hypot",
    "logaddexp",
    "logaddexp2",
    "xlogy",
    "copysign",
    "float_power",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "fmod",
    "remainder",
    "floor_divide",
    "heaviside",
    "lerp",
    "addcmul",
    "addcdiv",
    "bitwise_not",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "logical_not",
    "logical_and",
    "logical_or",
    "logical_xor",
]


_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_PI = math.pi
_DEGREES_TO_RADIANS = math.pi / 180.0
_RADIANS_TO_DEGREES = 180.0 / math.pi
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_HALF_SQRT_PI = math.sqrt(math.pi) / 2.0


# ---------------------------------------------------------------- piecewise-constant ops
def _zero_gradient(ctx, grad):
    """The backward of ops that are constant between jumps (floor, sign, ...): zero wherever the
    gradient exists. PyTorch keeps a node for them too."""
    return (zeros_like(grad),) + (None,) * (len(ctx.needs_input_grad) - 1)


def _sign_array(a):
    if a.dtype == np.bool_:
        return a.copy()
    result = np.asarray(np.sign(a))  # an array even for 0-d input, so it can be fixed in place
    if a.dtype.kind in "fV":
        np.nan_to_num(result, copy=False)  # PyTorch: sign(nan) == 0
    return result


def _round_decimals(a, decimals):
    """PyTorch's rounding to `decimals` places: scale by a power of ten in the input's precision,
    round half to even, scale back."""
    if decimals >= 0:
        scale = a.dtype.type(10.0**decimals)
        return np.rint(a * scale) / scale
    scale = a.dtype.type(10.0**-decimals)
    return np.rint(a / scale) * scale


class Sign(Primitive, node="SignBackward0"):
    @staticmethod
    def forward(ctx, a, *args):
        return _sign_array(a, *args)

    backward = staticmethod(_zero_gradient)
    jvp = diagonal_jvp


class Sgn(Primitive, node="SgnBackward0"):
    @staticmethod
    def forward(ctx, a, *args):
        return _sign_array(a, *args)

    backward = staticmethod(_zero_gradient)
    jvp = diagonal_jvp


class Ceil(Primitive, node="CeilBackward0"):
    @staticmethod
    def forward(ctx, a, *args):
        return np.ceil(a, *args)

    backward = staticmethod(_zero_gradient)
    jvp = diagonal_jvp


class Floor(Primitive, node="FloorBackward0"):
    @staticmethod
    def forward(ctx, a, *args):
        return np.floor(a, *args)

    backward = staticmethod(_zero_gradient)
    jvp = diagonal_jvp


class Round(Primitive, node="RoundBackward0"):
    @staticmethod
    def forward(ctx, a, *args):
        return np.rint(a, *args)

    backward = staticmethod(_zero_gradient)
    jvp = diagonal_jvp


class RoundDecimals(Primitive, node="RoundBackward1"):
    @staticmethod
    def forward(ctx, a, *args):
        return _round_decimals(a, *args)

    backward = staticmethod(_zero_gradient)
    jvp = diagonal_jvp


class Trunc(Primitive, node="TruncBackward0"):
    @staticmethod
    def forward(ctx, a, *args):
        return np.trunc(a, *args)

    backward = staticmethod(_zero_gradient)
    jvp = diagonal_jvp


def _check_tensor(input, op_name, position=1, name="input"):
    if not isinstance(input, Tensor):
        raise TypeError(
            f"{op_name}(): argument '{name}' (position {position}) must be Tensor, not {type(input).__name__}"
        )


def _reject_bool(input, op_name):
    if input._data.dtype == np.bool_:
        raise NotImplementedError(
            f"\"{op_name}\" not implemented for 'Bool': convert the tensor with .float() or .long() first"
        )


def _rounding(function, input, op_name, *args):
    """Integer tensors are already rounded: PyTorch returns a copy with the same dtype."""
    _check_tensor(input, op_name)
    _reject_bool(input, op_name)
    if input._data.dtype.kind in "iu":
        return new_tensor(input._data.copy())
    return function.apply(input, *args)


@op(Sign, method=True, inplace=True)
def sign(input):
    """-1, 0 or 1 per element (0 for NaN, as PyTorch); a bool tensor is its own sign. Zero gradient."""
    _check_tensor(input, "sign")
    if input._data.dtype.kind == "c":
        raise NotImplementedError(
            "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead."
        )
    return Sign.apply(input)


@op(Sgn, ComplexSgn, method=True, inplace=True)
def sgn(input):
    """`sign` extended to complex numbers (`z / |z|`, 0 at 0); the same as `sign` for real tensors."""
    _check_tensor(input, "sgn")
    if input._data.dtype.kind == "c":
        return ComplexSgn.apply(input)
    return Sgn.apply(input)


@op(Ceil, method=True, inplace=True)
def ceil(input):
    """Smallest integer >= each element (same dtype). Zero gradient."""
    return _rounding(Ceil, input, "ceil")


@op(Floor, method=True, inplace=True)
def floor(input):
    """Largest integer <= each element (same dtype). Zero gradient."""
    return _rounding(Floor, input, "floor")


@op(Round, RoundDecimals, method=True, inplace=True)
def round(input, *, decimals=None):
    """Round half to even, or to `decimals` places (negative: to tens, hundreds, ...). Zero gradient.

    Example: `ember.round(ember.tensor([0.5, 1.5, 1234.5]), decimals=-2)` -> `[0., 0., 1200.]`.
    """
    if decimals is None:
        return _rounding(Round, input, "round")
    _check_tensor(input, "round")
    if input._data.dtype.kind in "iub":
        raise NotImplementedError(
            f"\"round\" with decimals not implemented for '{input.dtype}' tensors: "
            "only floating tensors can be rounded to decimal places"
        )
    return RoundDecimals.apply(input, int(decimals))


@op(Round, Trunc, method=True, inplace=True)
def trunc(input):
    """Round towards zero (same dtype). Zero gradient."""
    return _rounding(Trunc, input, "trunc")


# ---------------------------------------------------------------- unary maths
class Frac(Primitive, node="FracBackward0"):
    @staticmethod
    def forward(ctx, a):
        result = a - np.trunc(a)
        return result

    @staticmethod
    def backward(ctx, grad):
        return grad

    jvp = diagonal_jvp


class Exp2(Primitive, node="Exp2Backward0", holomorphic=True):
    @staticmethod
    def forward(ctx, a):
        result = np.exp2(a)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return grad * result * _LN2

    jvp = diagonal_jvp


class Expm1(Primitive, node="Expm1Backward0", holomorphic=True):
    @staticmethod
    def forward(ctx, a):
        result = np.expm1(a)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return grad * (result + 1)

    jvp = diagonal_jvp


class Log2(Primitive, node="Log2Backward0", holomorphic=True):
    @staticmethod
    def forward(ctx, a):
        result = np.log2(a)
        ctx.save_for_backward(a)
        return result

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / (a * _LN2)

    jvp = diagonal_jvp


class Log10(Primitive, node="Log10Backward0", holomorphic=True):
    @staticmethod
    def forward(ctx, a):
        # NumPy's float32 loop is 1 ulp off at powers of ten (log10(100) = 2.0000002); through float64
        # the float32 result is the correctly rounded one, as PyTorch's
        result = np.log10(a, dtype=np.float64).astype(np.float32) if a.dtype == np.float32 else np.log10(a)
        ctx.save_for_backward(a)
        return result

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / (a * _LN10)

    jvp = diagonal_jvp


class Log1p(Primitive, node="Log1PBackward0", holomorphic=True):
    @staticmethod
    def forward(ctx, a):
        result = np.log1p(a)
        ctx.save_for_backward(a)
        return result

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / (a + 1)

    jvp = diagonal_jvp


def _reciprocal_square_root(a):
    return 1 / np.sqrt(a)


class Rsqrt(Primitive, node="RsqrtBackward0", holomorphic=True):
    @staticmethod
    def forward(ctx, a):
        result = _precision.in_float32(_reciprocal_square_root, a)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return grad * result * result * result * -0.5

    jvp = diagonal_jvp


class Reciprocal(Primitive, node="ReciprocalBackward0", holomorphic=True):
    @staticmethod
    def forward(ctx, a):
        result = np.reciprocal(a)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return -grad * (result * result)

    jvp = diagonal_jvp


class Tan(Primitive, node="TanBackward0", holomorphic=True):
    @staticmethod
    def forward(ctx, a):
        result = np.tan(a)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return grad * (1 + result * result)

    jvp = diagonal_jvp


class Asin(Primitive, node="AsinBackward0", holomorphic=True):
    @staticmethod
    def forward(ctx, a):
        result = np.arcsin(a)
        ctx.save_for_backward(a)
        return result

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * rsqrt(1 - a * a)

    jvp = diagonal_jvp


class Acos(Primitive, node="AcosBackward0", holomorphic=True):
    @staticmethod
    def forward(ctx, a):
        result = np.arccos(a)
        ctx.save_for_backward(a)
        return result

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return -grad * rsqrt(1 - a * a)

    jvp = diagonal_jvp


class Atan(Primitive, node="AtanBackward0", holomorphic=True):
    @staticmethod
    def forward(ctx, a):
        result = np.arctan(a)
        ctx.save_for_backward(a)
        return result

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / (a * a + 1)

    jvp = diagonal_jvp


class Sinh(Primitive, node="SinhBackward0", holomorphic=True):
    @staticmethod
    def forward(ctx, a):
        result = np.sinh(a)
        ctx.save_for_backward(a)
        return result

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * cosh(a)

    jvp = diagonal_jvp


class Cosh(Primitive, node="CoshBackward0", holomorphic=True):
    @staticmethod
    def forward(ctx, a):
        result = np.cosh(a)
        ctx.save_for_backward(a)
        return result

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * sinh(a)

    jvp = diagonal_jvp


class Asinh(Primitive, node="AsinhBackward0", holomorphic=True):
    @staticmethod
    def forward(ctx, a):
        result = np.arcsinh(a)
        ctx.save_for_backward(a)
        return result

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * rsqrt(a * a + 1)

    jvp = diagonal_jvp


class Acosh(Primitive, node="AcoshBackward0", holomorphic=True):
    @staticmethod
    def forward(ctx, a):
        result = np.arccosh(a)
        ctx.save_for_backward(a)
        return result

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * (rsqrt(a - 1) * rsqrt(a + 1))  # not rsqrt(a*a - 1): its branch is wrong for complex a

    jvp = diagonal_jvp


class Atanh(Primitive, node="AtanhBackward0", holomorphic=True):
    @staticmethod
    def forward(ctx, a):
        result = np.arctanh(a)
        ctx.save_for_backward(a)
        return result

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad / (1 - a * a)

    jvp = diagonal_jvp


class Erf(Primitive, node="ErfBackward0"):
    @staticmethod
    def forward(ctx, a):
        result = _special.erf(a)
        ctx.save_for_backward(a)
        return result

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * exp(-(a * a)) * _TWO_OVER_SQRT_PI

    jvp = diagonal_jvp


class Erfc(Primitive, node="ErfcBackward0"):
    @staticmethod
    def forward(ctx, a):
        result = _special.erfc(a)
        ctx.save_for_backward(a)
        return result

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * exp(-(a * a)) * -_TWO_OVER_SQRT_PI

    jvp = diagonal_jvp


class Erfinv(Primitive, node="ErfinvBackward0"):
    @staticmethod
    def forward(ctx, a):
        result = _special.erfinv(a)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return grad * exp(result * result) * _HALF_SQRT_PI

    jvp = diagonal_jvp


class Deg2Rad(Primitive, node="Deg2RadBackward0"):
    @staticmethod
    def forward(ctx, a):
        result = np.deg2rad(a)
        return result

    @staticmethod
    def backward(ctx, grad):
        return grad * _DEGREES_TO_RADIANS

    jvp = diagonal_jvp


class Rad2Deg(Primitive, node="Rad2DegBackward0"):
    @staticmethod
    def forward(ctx, a):
        result = np.rad2deg(a)
        return result

    @staticmethod
    def backward(ctx, grad):
        return grad * _RADIANS_TO_DEGREES

    jvp = diagonal_jvp


class Sinc(Primitive, node="SincBackward0", holomorphic=True):
    @staticmethod
    def forward(ctx, a):
        result = np.sinc(a)
        ctx.save_for_backward(a)
        return result

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        # d/dx sin(pi x)/(pi x) = (pi x cos(pi x) - sin(pi x)) / (pi x^2), which tends to 0 at x = 0.
        angle = a * _PI
        safe = where(a == 0, 1.0, a)
        derivative = (angle * cos(angle) - sin(angle)) / (safe * safe * _PI)
        return where(a == 0, 0.0, grad * derivative)

    jvp = diagonal_jvp


@op(Frac, method=True, inplace=True)
def frac(input):
    """The fractional part `x - trunc(x)`, with the sign of x. Its gradient is 1."""
    _check_tensor(input, "frac")
    if input._data.dtype.kind not in "fcV":
        raise NotImplementedError(
            f"\"frac\" not implemented for '{input.dtype}' tensors: only floating tensors have a fractional part"
        )
    return Frac.apply(input)


@op(Exp2, method=True, inplace=True)
def exp2(input):
    """2 ** x."""
    return _unary(Exp2, input, "exp2")


@op(Expm1, method=True, inplace=True)
def expm1(input):
    """exp(x) - 1, accurate for small x."""
    return _unary(Expm1, input, "expm1")


@op(Log2, method=True, inplace=True)
def log2(input):
    """The base-2 logarithm, element-wise; integers give the default float dtype."""
    return _unary(Log2, input, "log2")


@op(Log10, method=True, inplace=True)
def log10(input):
    """The base-10 logarithm, element-wise; integers give the default float dtype."""
    return _unary(Log10, input, "log10")


@op(Log1p, method=True, inplace=True)
def log1p(input):
    """log(1 + x), accurate for small x."""
    return _unary(Log1p, input, "log1p")


@op(Rsqrt, method=True, inplace=True)
def rsqrt(input):
    """1 / sqrt(x)."""
    return _unary(Rsqrt, input, "rsqrt")


@op(Reciprocal, method=True, inplace=True)
def reciprocal(input):
    """1 / x; integer tensors give the default float dtype."""
    return _unary(Reciprocal, input, "reciprocal")


@op(Tan, method=True, inplace=True)
def tan(input):
    """The tangent (radians), element-wise; integers give the default float dtype."""
    return _unary(Tan, input, "tan")


@op(Asin, method=True, inplace=True)
def asin(input):
    """The inverse sine, element-wise (NaN outside [-1, 1]); `arcsin` is the same function."""
    return _unary(Asin, input, "asin")


@op(Acos, method=True, inplace=True)
def acos(input):
    """The inverse cosine, element-wise (NaN outside [-1, 1]); `arccos` is the same function."""
    return _unary(Acos, input, "acos")


@op(Atan, method=True, inplace=True)
def atan(input):
    """The inverse tangent, element-wise; `arctan` is the same function."""
    return _unary(Atan, input, "atan")


@op(Sinh, method=True, inplace=True)
def sinh(input):
    """The hyperbolic sine, element-wise."""
    return _unary(Sinh, input, "sinh")


@op(Cosh, method=True, inplace=True)
def cosh(input):
    """The hyperbolic cosine, element-wise."""
    return _unary(Cosh, input, "cosh")


@op(Asinh, method=True, inplace=True)
def asinh(input):
    """The inverse hyperbolic sine, element-wise; `arcsinh` is the same function."""
    return _unary(Asinh, input, "asinh")


@op(Acosh, method=True, inplace=True)
def acosh(input):
    """The inverse hyperbolic cosine, element-wise (NaN below 1); `arccosh` is the same function."""
    return _unary(Acosh, input, "acosh")


@op(Atanh, method=True, inplace=True)
def atanh(input):
    """The inverse hyperbolic tangent, element-wise (+-inf at +-1, NaN outside); `arctanh` is the same function."""
    return _unary(Atanh, input, "atanh")


@op(Erf, method=True, inplace=True)
def erf(input):
    """The error function 2/sqrt(pi) * integral of exp(-t^2) from 0 to x."""
    return _unary(Erf, input, "erf")


@op(Erfc, method=True, inplace=True)
def erfc(input):
    """1 - erf(x), accurate where erf(x) is close to 1."""
    return _unary(Erfc, input, "erfc")


@op(Erfinv, method=True, inplace=True)
def erfinv(input):
    """The inverse of erf on (-1, 1): +-inf at +-1, NaN outside."""
    return _unary(Erfinv, input, "erfinv")


@op(Deg2Rad, method=True, inplace=True)
def deg2rad(input):
    """Degrees to radians, element-wise."""
    return _unary(Deg2Rad, input, "deg2rad")


@op(Rad2Deg, method=True, inplace=True)
def rad2deg(input):
    """Radians to degrees, element-wise."""
    return _unary(Rad2Deg, input, "rad2deg")


@op(Sinc, method=True, inplace=True)
def sinc(input):
    """The normalized sinc, sin(pi x) / (pi x), with sinc(0) = 1."""
    return _unary(Sinc, input, "sinc")


class Logit(Primitive, node="LogitBackward0"):
    @staticmethod
    def forward(ctx, a, eps):
        ctx.save_for_backward(a)
        ctx.eps = eps
        if eps is not None:
            a = np.clip(a, eps, 1 - eps)
        return np.log(a / (1 - a))  # logit(0) = -inf, logit(1) = inf

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        eps = ctx.eps
        gradient = grad / (a * (1 - a))
        if eps is None:
            # Outside [0, 1] logit is undefined: PyTorch gives NaN there.
            return where((a < 0) | (a > 1), float("nan"), gradient), None
        # The clamp to [eps, 1 - eps] flattens the function outside it.
        return where((a < eps) | (a > 1 - eps), 0.0, gradient), None


@op(Logit, method=True, inplace=True)
def logit(input, eps=None):
    """log(p / (1 - p)); with `eps`, p is first clamped to [eps, 1 - eps] (gradient zero outside)."""
    _check_tensor(input, "logit")
    if input._data.dtype.kind not in "fcV":
        input = input.to(_dtype.get_default_dtype())
    return Logit.apply(input, None if eps is None else float(eps))


class NanToNum(Primitive, node="NanToNumBackward0"):
    @staticmethod
    def forward(ctx, a, nan, posinf, neginf):
        ctx.save_for_backward(a)
        return np.nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return where(isfinite(a), grad, 0.0), None, None, None


@op(NanToNum, method=True, inplace=True)
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """Replace NaN by `nan` and +-inf by `posinf`/`neginf` (default: the dtype's largest finite values)."""
    _check_tensor(input, "nan_to_num")
    if input._data.dtype.kind not in "fcV":
        return new_tensor(input._data.copy())
    return NanToNum.apply(input, nan, posinf, neginf)


@op(method=True)
def positive(input):
    """The tensor itself (PyTorch returns `input`, not a copy)."""
    _check_tensor(input, "positive")
    if input._data.dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


# ---------------------------------------------------------------- clamp
class Clamp(Primitive, node="ClampBackward1"):
    """min(max(x, low), high) where either bound may be None, a number or an array (broadcast)."""

    @staticmethod
    def forward(ctx, a, low, high):
        ctx.save_for_backward(a, low, high)
        result = a
        if low is not None:
            result = np.maximum(result, low)
        if high is not None:
            result = np.minimum(result, high)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, low, high = ctx.saved_tensors
        needs_a, needs_low, needs_high = ctx.needs_input_grad
        grad_a = grad_low = grad_high = None
        if needs_a:
            grad_a = where(_within(a, low, high), grad, 0.0)
        # PyTorch: where low > high the result is high, so only high gets the gradient.
        if needs_low:
            below = a < low if high is None else (a < low) & (low < high)
            grad_low = where(below, grad, 0.0)
        if needs_high:
            above = a > high if low is None else (a > high) | (high < low)
            grad_high = where(above, grad, 0.0)
        return grad_a, grad_low, grad_high

    jvp = diagonal_jvp


def _within(a, low, high):
    if low is None:
        return a <= high
    if high is None:
        return a >= low
    return (a >= low) & (a <= high)


class ClampTensor(Clamp, node="ClampBackward0"):
    pass


class ClampMin(Clamp, node="ClampMinBackward0"):
    pass


class ClampMinTensor(Clamp, node="ClampMinBackward1"):
    pass


class ClampMax(Clamp, node="ClampMaxBackward0"):
    pass


class ClampMaxTensor(Clamp, node="ClampMaxBackward1"):
    pass


def _promoted(operands, op_name):
    """Cast the tensor operands (numbers stay numbers) to the result dtype of all of them."""
    representative = operands[0]
    for operand in operands[1:]:
        if operand is not None:
            representative, _ = prepare_binary(representative, operand, op_name)
    target = representative._data.dtype
    return [
        operand.to(representative.dtype) if isinstance(operand, Tensor) and operand._data.dtype != target else operand
        for operand in operands
    ]


def _apply_clamp(input, low, high, op_name, number_function, tensor_function):
    _check_tensor(input, op_name)
    low_is_tensor, high_is_tensor = isinstance(low, Tensor), isinstance(high, Tensor)
    if (low_is_tensor and high is not None and not high_is_tensor) or (
        high_is_tensor and low is not None and not low_is_tensor
    ):
        raise TypeError(
            f"{op_name}(): min and max must both be tensors or both be numbers, got "
            f"{type(low).__name__} and {type(high).__name__}"
        )
    for bound in (low, high):
        if bound is not None and not isinstance(bound, (Tensor, int, float, bool, np.generic)):
            raise TypeError(f"{op_name}(): min and max must be numbers or tensors, not {type(bound).__name__}")
    if input._data.dtype == np.bool_ and not (low_is_tensor or high_is_tensor):
        raise RuntimeError(
            f"{op_name} is not supported for tensors of type bool: convert it with .int() or .float() first"
        )
    input, low, high = _promoted([input, _plain_number(low), _plain_number(high)], op_name)
    if not (low_is_tensor or high_is_tensor):
        check_fits([low, high], input._data.dtype, op_name)
    function = tensor_function if (low_is_tensor or high_is_tensor) else number_function
    try:
        return function.apply(input, low, high)
    except ValueError:
        for bound in (low, high):
            if isinstance(bound, Tensor):
                check_broadcastable(input, bound, op_name)
        raise


def _plain_number(value):
    return value.item() if isinstance(value, np.generic) else value


@op(Clamp, ClampTensor, method=True, inplace=True)
def clamp(input, min=None, max=None):
    """Limit values to [min, max]; either bound may be None, and both numbers or both tensors
    (broadcast). The gradient passes where the input is inside the range; tensor bounds get it where
    they are the result. Where min > max the result is max, as in PyTorch.

    Example: `ember.clamp(ember.tensor([-2., 0.5, 3.]), min=0, max=1)` -> `[0., 0.5, 1.]`.
    """
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return _apply_clamp(input, min, max, "clamp", Clamp, ClampTensor)


@op(ClampMin, ClampMinTensor, method=True, inplace=True)
def clamp_min(input, min):
    """max(input, min) with clamp's gradient rules."""
    return _apply_clamp(input, min, None, "clamp_min", ClampMin, ClampMinTensor)


@op(ClampMax, ClampMaxTensor, method=True, inplace=True)
def clamp_max(input, max):
    """min(input, max) with clamp's gradient rules."""
    return _apply_clamp(input, None, max, "clamp_max", ClampMax, ClampMaxTensor)


# ---------------------------------------------------------------- two-operand maths
class Atan2(Primitive, node="Atan2Backward0"):
    @staticmethod
    def forward(ctx, a, b):
        result = np.arctan2(a, b)
        ctx.save_for_backward(a, b, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, b, result = ctx.saved_tensors
        needs_a, needs_b = ctx.needs_input_grad
        # At the origin the gradient is 0 (as PyTorch), not 0/0 = nan.
        denominator = a * a + b * b
        scale = where(denominator == 0, 0.0, grad / where(denominator == 0, 1.0, denominator))
        return (scale * b if needs_a else None), (scale * -a if needs_b else None)

    jvp = diagonal_jvp


class Hypot(Primitive, node="HypotBackward0"):
    @staticmethod
    def forward(ctx, a, b):
        result = np.hypot(a, b)
        ctx.save_for_backward(a, b, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, b, result = ctx.saved_tensors
        needs_a, needs_b = ctx.needs_input_grad
        return (grad * a / result if needs_a else None), (grad * b / result if needs_b else None)

    jvp = diagonal_jvp


class Logaddexp(Primitive, node="LogaddexpBackward0"):
    @staticmethod
    def forward(ctx, a, b):
        result = np.logaddexp(a, b)
        ctx.save_for_backward(a, b, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, b, result = ctx.saved_tensors
        needs_a, needs_b = ctx.needs_input_grad
        grad_a = grad / (exp(b - a) + 1) if needs_a else None
        grad_b = grad / (exp(a - b) + 1) if needs_b else None
        return grad_a, grad_b

    jvp = diagonal_jvp


class Logaddexp2(Primitive, node="Logaddexp2Backward0"):
    @staticmethod
    def forward(ctx, a, b):
        result = np.logaddexp2(a, b)
        ctx.save_for_backward(a, b, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, b, result = ctx.saved_tensors
        needs_a, needs_b = ctx.needs_input_grad
        grad_a = grad / (exp2(b - a) + 1) if needs_a else None
        grad_b = grad / (exp2(a - b) + 1) if needs_b else None
        return grad_a, grad_b

    jvp = diagonal_jvp


def _xlogy_array(a, b):
    """a * log(b), defined as 0 where a == 0 (unless b is NaN)."""
    # A Python number must not reach np.log, which would make it a float64 array and promote the result.
    a, b = (a, np.asarray(b, dtype=a.dtype)) if isinstance(a, np.ndarray) else (np.asarray(a, dtype=b.dtype), b)
    product = a * np.log(b)
    return np.where((a == 0) & ~np.isnan(b), 0, product).astype(product.dtype, copy=False)


class Xlogy(Primitive, node="XlogyBackward0"):
    @staticmethod
    def forward(ctx, a, b):
        result = _xlogy_array(a, b)
        ctx.save_for_backward(a, b, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, b, result = ctx.saved_tensors
        needs_a, needs_b = ctx.needs_input_grad
        # log(b), except 0 where a == 0 and b <= 0 (there the limit is taken along a = 0), as PyTorch.
        grad_a = grad * xlogy((a != 0) | (b > 0), b) if needs_a else None
        grad_b = grad * a / b if needs_b else None
        return grad_a, grad_b

    jvp = diagonal_jvp


class XlogyScalarSelf(Xlogy, node="XlogyBackward1"):
    pass


class XlogyScalarOther(Xlogy, node="XlogyBackward2"):
    pass


def _copysign_array(a, b):
    return np.copysign(a, b)


class Copysign(Primitive, node="CopysignBackward0"):
    @staticmethod
    def forward(ctx, a, b):
        result = _copysign_array(a, b)
        ctx.save_for_backward(a, b, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, b, result = ctx.saved_tensors
        needs_a, needs_b = ctx.needs_input_grad
        grad_a = grad * where(a == 0, 0.0, result / where(a == 0, 1.0, a)) if needs_a else None
        # The result does not change with |b|, and its jump at b = 0 has no gradient: zeros, as PyTorch.
        grad_b = zeros_like(b) if needs_b else None
        return grad_a, grad_b

    jvp = diagonal_jvp


class CopysignScalar(Copysign, node="CopysignBackward1"):
    pass


class Maximum(Primitive, node="MaximumBackward0"):
    @staticmethod
    def forward(ctx, a, b):
        result = np.maximum(a, b)
        ctx.save_for_backward(a, b, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, b, result = ctx.saved_tensors
        needs_a, needs_b = ctx.needs_input_grad
        return _split_at_ties(grad, a, b, a < b, a > b, needs_a, needs_b)

    jvp = diagonal_jvp


class Minimum(Primitive, node="MinimumBackward0"):
    @staticmethod
    def forward(ctx, a, b):
        result = np.minimum(a, b)
        ctx.save_for_backward(a, b, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, b, result = ctx.saved_tensors
        needs_a, needs_b = ctx.needs_input_grad
        return _split_at_ties(grad, a, b, a > b, a < b, needs_a, needs_b)

    jvp = diagonal_jvp


def _split_at_ties(grad, a, b, a_lost, b_lost, needs_a, needs_b):
    """The gradient goes to the operand that was chosen, half to each where they are equal (PyTorch)."""
    shared = where(a == b, grad / 2, grad)
    return (where(a_lost, 0.0, shared) if needs_a else None), (where(b_lost, 0.0, shared) if needs_b else None)


class Fmax(Primitive, node="FmaxBackward0"):
    @staticmethod
    def forward(ctx, a, b):
        result = np.fmax(a, b)
        ctx.save_for_backward(a, b, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, b, result = ctx.saved_tensors
        needs_a, needs_b = ctx.needs_input_grad
        return _to_chosen(grad, (a >= b) | b.isnan(), needs_a, needs_b)

    jvp = diagonal_jvp


class Fmin(Primitive, node="FminBackward0"):
    @staticmethod
    def forward(ctx, a, b):
        result = np.fmin(a, b)
        ctx.save_for_backward(a, b, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, b, result = ctx.saved_tensors
        needs_a, needs_b = ctx.needs_input_grad
        return _to_chosen(grad, (a <= b) | b.isnan(), needs_a, needs_b)

    jvp = diagonal_jvp


def _to_chosen(grad, a_chosen, needs_a, needs_b):
    """fmax/fmin: the whole gradient goes to the operand that was picked (the first one at ties)."""
    return (where(a_chosen, grad, 0.0) if needs_a else None), (where(a_chosen, 0.0, grad) if needs_b else None)


def _is_integer(value):
    return value.dtype.kind in "iub" if hasattr(value, "dtype") else isinstance(value, int)


def _check_integer_divisor(a, b):
    """PyTorch raises on integer division by zero, where NumPy would warn and give 0."""
    if _is_integer(b) and _is_integer(a) and not np.all(b):
        raise RuntimeError("ZeroDivisionError: integer division by zero")


def _fmod_array(a, b):
    _check_integer_divisor(a, b)
    return np.fmod(a, b)


def _remainder_array(a, b):
    """Python's modulo (the sign of the divisor). NumPy computes it as PyTorch does (fmod, then a shift
    by b where the signs differ), except that an exact zero gets b's sign there and a's sign in PyTorch."""
    _check_integer_divisor(a, b)
    result = np.asarray(np.remainder(a, b))
    if result.dtype.kind in "fV":
        np.copysign(result, a, out=result, where=result == 0)
    return result


class Fmod(Primitive, node="FmodBackward1"):
    @staticmethod
    def forward(ctx, a, b):
        result = _fmod_array(a, b)
        ctx.save_for_backward(a, b, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, b, result = ctx.saved_tensors
        needs_a, needs_b = ctx.needs_input_grad
        grad_b = -grad * _rounded_division(a, b, "trunc") if needs_b else None
        return (grad if needs_a else None), grad_b

    jvp = diagonal_jvp


class FmodScalar(Fmod, node="FmodBackward0"):
    pass


class Remainder(Primitive, node="RemainderBackward1"):
    @staticmethod
    def forward(ctx, a, b):
        result = _remainder_array(a, b)
        ctx.save_for_backward(a, b, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, b, result = ctx.saved_tensors
        needs_a, needs_b = ctx.needs_input_grad
        grad_b = -grad * _rounded_division(a, b, "floor") if needs_b else None
        return (grad if needs_a else None), grad_b

    jvp = diagonal_jvp


class RemainderScalar(Remainder, node="RemainderBackward0"):
    pass


def _binary_op(tensor_function, number_function, input, other, op_name, floating=False):
    """Promote the operands as PyTorch does (integers to the default float dtype for `floating` ops)
    and apply the tensor-tensor Function, or its variant for a Python-number `other` or `input`."""
    if floating:
        input, other = _floating_operands(input, other, op_name)
    else:
        input, other = prepare_binary(input, other, op_name)
    function = (
        tensor_function if isinstance(input, Tensor) and isinstance(other, Tensor) else number_function(input, other)
    )
    try:
        return function.apply(input, other)
    except ValueError:
        check_broadcastable(input, other, op_name)
        raise


def _floating_operands(input, other, op_name):
    input, other = prepare_binary(input, other, op_name)
    tensor = input if isinstance(input, Tensor) else other
    if tensor._data.dtype.kind not in "fcV":
        default = _dtype.get_default_dtype()
        input = input.to(default) if isinstance(input, Tensor) else float(input)
        other = other.to(default) if isinstance(other, Tensor) else float(other)
    return input, other


def _same_function(function):
    return lambda input, other: function


def _floating_only(input, other, op_name):
    """The kernel runs in the promoted dtype, which must be floating: an integer tensor with a float
    one is fine (it promotes), two integer tensors are not, as in PyTorch."""
    operands = [operand for operand in (input, other) if isinstance(operand, Tensor)]
    if all(operand._data.dtype.kind not in "fcV" for operand in operands):
        raise NotImplementedError(
            f"\"{op_name}\" not implemented for '{operands[0].dtype}' tensors: convert them with .float() first"
        )


@op(Atan2, method=True, inplace=True)
def atan2(input, other):
    """The angle of the point (other, input): atan(input / other) in the right quadrant, in (-pi, pi]."""
    _check_tensor(input, "atan2")
    _check_tensor(other, "atan2", 2, "other")
    return _binary_op(Atan2, _same_function(Atan2), input, other, "atan2", floating=True)


@op(Hypot, method=True, inplace=True)
def hypot(input, other):
    """sqrt(input^2 + other^2) without overflow for large values."""
    _check_tensor(input, "hypot")
    _check_tensor(other, "hypot", 2, "other")
    _floating_only(input, other, "hypot")
    return _binary_op(Hypot, _same_function(Hypot), input, other, "hypot")


@op(Logaddexp, method=True)
def logaddexp(input, other):
    """log(exp(input) + exp(other)) without overflow."""
    _check_tensor(input, "logaddexp")
    _check_tensor(other, "logaddexp", 2, "other")
    _floating_only(input, other, "logaddexp")
    return _binary_op(Logaddexp, _same_function(Logaddexp), input, other, "logaddexp")


@op(Logaddexp2, method=True)
def logaddexp2(input, other):
    """log2(2^input + 2^other) without overflow."""
    _check_tensor(input, "logaddexp2")
    _check_tensor(other, "logaddexp2", 2, "other")
    _floating_only(input, other, "logaddexp2")
    return _binary_op(Logaddexp2, _same_function(Logaddexp2), input, other, "logaddexp2")


def _xlogy_variant(input, other):
    return XlogyScalarOther if isinstance(input, Tensor) else XlogyScalarSelf


@op(Xlogy, method=True, inplace=True)
def xlogy(input, other):
    """input * log(other), and 0 where input == 0 (unless other is NaN). Either may be a number."""
    return _binary_op(Xlogy, _xlogy_variant, input, other, "xlogy", floating=True)


@op(Copysign, CopysignScalar, method=True, inplace=True)
def copysign(input, other):
    """|input| with the sign of other (signed zeros count). Its gradient w.r.t. other is zero."""
    _check_tensor(input, "copysign")
    return _binary_op(Copysign, _same_function(CopysignScalar), input, other, "copysign", floating=True)


@op(Maximum, method=True)
def maximum(input, other):
    """Element-wise maximum of two tensors, propagating NaN. At ties each gets half the gradient."""
    _check_tensor(input, "maximum")
    _check_tensor(other, "maximum", 2, "other")
    return _binary_op(Maximum, None, input, other, "maximum")


@op(Minimum, method=True)
def minimum(input, other):
    """Element-wise minimum of two tensors, propagating NaN. At ties each gets half the gradient."""
    _check_tensor(input, "minimum")
    _check_tensor(other, "minimum", 2, "other")
    return _binary_op(Minimum, None, input, other, "minimum")


@op(Fmax, method=True)
def fmax(input, other):
    """Element-wise maximum that ignores NaN (NaN only where both are NaN)."""
    _check_tensor(input, "fmax")
    _check_tensor(other, "fmax", 2, "other")
    return _binary_op(Fmax, None, input, other, "fmax")


@op(Fmin, method=True)
def fmin(input, other):
    """Element-wise minimum that ignores NaN (NaN only where both are NaN)."""
    _check_tensor(input, "fmin")
    _check_tensor(other, "fmin", 2, "other")
    return _binary_op(Fmin, None, input, other, "fmin")


@op(Fmod, FmodScalar, method=True, inplace=True)
def fmod(input, other):
    """C's fmod: the remainder of truncated division, with the sign of `input`.

    Integer division by zero raises RuntimeError (ZeroDivisionError), as in PyTorch.
    """
    _check_tensor(input, "fmod")
    return _binary_op(Fmod, _same_function(FmodScalar), input, other, "fmod")


@op(Remainder, RemainderScalar, method=True, inplace=True)
def remainder(input, other):
    """Python's modulo: the remainder of floor division, with the sign of `other`. `input` may be a number.

    Example: `ember.remainder(ember.tensor([-3., 3.]), 2)` -> `[1., 1.]`.
    """
    return _binary_op(Remainder, _same_function(RemainderScalar), input, other, "remainder")


@op(method=True)
def float_power(input, exponent):
    """`input ** exponent` computed in double precision: the result is float64 (complex128 for complex)."""

    def widened(value):
        if isinstance(value, Tensor):
            target = _dtype.complex128 if value._data.dtype.kind == "c" else _dtype.float64
            return value.to(target)
        return complex(value) if isinstance(value, complex) else float(value)

    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError("float_power(): expected at least one tensor operand")
    input, exponent = widened(input), widened(exponent)
    if isinstance(input, Tensor) and isinstance(exponent, Tensor) and input.dtype is not exponent.dtype:
        input, exponent = input.to(_dtype.complex128), exponent.to(_dtype.complex128)
    return pow(input, exponent)


@op(method=True, inplace=True)
def heaviside(input, values):
    """The step function: 0 where input < 0, `values` where input == 0, 1 where input > 0 (and 0 at NaN).
    Both tensors must have the same dtype. Not differentiable."""
    _check_tensor(input, "heaviside")
    _check_tensor(values, "heaviside", 2, "values")
    if input._data.dtype != values._data.dtype:
        raise RuntimeError(
            f"heaviside is not yet implemented for tensors with different dtypes ({input.dtype} "
            f"and {values.dtype}): convert one with .to()"
        )
    if input._data.dtype.kind == "c":
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    a = input._data
    try:
        result = np.where(a == 0, values._data, a > 0)
    except ValueError:
        check_broadcastable(input, values, "heaviside")
        raise
    return new_tensor(result.astype(a.dtype, copy=False))


# ---------------------------------------------------------------- fused three-operand ops
class Lerp(Primitive, node="LerpBackward1", holomorphic=True):
    """start + weight * (end - start), computed from whichever end is closer, as PyTorch does."""

    @staticmethod
    def forward(ctx, start, end, weight):
        ctx.save_for_backward(start, end, weight)
        difference = end - start
        if not isinstance(weight, np.ndarray):
            return start + weight * difference if abs(weight) < 0.5 else end - difference * (1 - weight)
        return np.where(np.abs(weight) < 0.5, start + weight * difference, end - difference * (1 - weight))

    @staticmethod
    def backward(ctx, grad):
        start, end, weight = ctx.saved_tensors
        needs_start, needs_end, needs_weight = ctx.needs_input_grad
        grad_start = grad * (1 - weight) if needs_start else None
        grad_end = grad * weight if needs_end else None
        grad_weight = grad * (end - start) if needs_weight else None
        return grad_start, grad_end, grad_weight


class LerpScalar(Lerp, node="LerpBackward0"):
    pass


@op(Lerp, LerpScalar, method=True, inplace=True)
def lerp(input, end, weight):
    """Linear interpolation `input + weight * (end - input)`; `weight` is a number or a tensor.
    All tensors must be floating with one dtype (PyTorch does not promote here)."""
    _check_tensor(input, "lerp")
    _check_tensor(end, "lerp", 2, "end")
    for name, operand in (("end", end), ("weight", weight)):
        if isinstance(operand, Tensor) and operand._data.dtype != input._data.dtype:
            raise RuntimeError(f"lerp: expected dtype {input.dtype} for `{name}` but got dtype {operand.dtype}")
    if input._data.dtype.kind not in "fcV":
        raise NotImplementedError(
            f"\"lerp\" not implemented for '{input.dtype}' tensors: convert them with .float() first"
        )
    if not isinstance(weight, Tensor):
        if not isinstance(weight, (int, float, np.generic)):
            raise TypeError(f"lerp(): argument 'weight' must be a Tensor or a number, not {type(weight).__name__}")
        return _ternary(LerpScalar, "lerp", input, end, float(weight))
    return _ternary(Lerp, "lerp", input, end, weight)


def _ternary(function, op_name, *operands):
    try:
        return function.apply(*operands)
    except ValueError:
        tensors = [operand for operand in operands if isinstance(operand, Tensor)]
        for first in range(len(tensors)):
            for second in range(first + 1, len(tensors)):
                check_broadcastable(tensors[first], tensors[second], op_name)
        raise RuntimeError(
            f"{op_name}: shapes {[list(t.shape) for t in tensors]} cannot be broadcast together"
        ) from None


class Addcmul(Primitive, node="AddcmulBackward0", holomorphic=True):
    @staticmethod
    def forward(ctx, a, t1, t2, value):
        ctx.save_for_backward(t1, t2)
        ctx.value = value
        return a + value * t1 * t2

    @staticmethod
    def backward(ctx, grad):
        t1, t2 = ctx.saved_tensors
        needs_a, needs_t1, needs_t2, _ = ctx.needs_input_grad
        value = ctx.value
        return (
            (grad if needs_a else None),
            (grad * t2 * value if needs_t1 else None),
            (grad * t1 * value if needs_t2 else None),
            None,
        )


class Addcdiv(Primitive, node="AddcdivBackward0", holomorphic=True):
    @staticmethod
    def forward(ctx, a, t1, t2, value):
        ctx.save_for_backward(t1, t2)
        ctx.value = value
        return a + value * t1 / t2

    @staticmethod
    def backward(ctx, grad):
        t1, t2 = ctx.saved_tensors
        needs_a, needs_t1, needs_t2, _ = ctx.needs_input_grad
        value = ctx.value
        grad_t1 = grad * value / t2 if needs_t1 else None
        grad_t2 = -grad * value * t1 / (t2 * t2) if needs_t2 else None
        return (grad if needs_a else None), grad_t1, grad_t2, None


def _fused(function, op_name, input, tensor1, tensor2, value):
    for position, (name, operand) in enumerate((("input", input), ("tensor1", tensor1), ("tensor2", tensor2))):
        _check_tensor(operand, op_name, position + 1, name)
    input, tensor1, tensor2 = _promoted([input, tensor1, tensor2], op_name)
    kind = input._data.dtype.kind
    if isinstance(value, Tensor):
        value = value.item()
    # PyTorch converts `value` to the result dtype: an integer op truncates value=0.5 to 0.
    value = int(value) if kind in "iu" else (bool(value) if kind == "b" else value)
    return _ternary(function, op_name, input, tensor1, tensor2, value)


@op(Addcmul, method=True, inplace=True)
def addcmul(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 * tensor2 (broadcast), in one op."""
    return _fused(Addcmul, "addcmul", input, tensor1, tensor2, value)


@op(Addcdiv, method=True, inplace=True)
def addcdiv(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 / tensor2 (broadcast), in one op. Integer tensors are refused."""
    for operand in (tensor1, tensor2):
        if isinstance(operand, Tensor) and operand._data.dtype.kind in "iub":
            raise RuntimeError(
                "Integer division with addcdiv is no longer supported, and in a future release addcdiv will "
                "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
                "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer "
                "inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv "
                "behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all "
                "dtypes."
            )
    return _fused(Addcdiv, "addcdiv", input, tensor1, tensor2, value)


# ---------------------------------------------------------------- integer division
def _rounded_division(input, other, rounding_mode):
    """`div` with rounding_mode 'floor' or 'trunc': the dtype of the operands, no gradient
    (PyTorch has none either). Integer division by zero raises, as in PyTorch."""
    input, other = prepare_binary(input, other, "div")
    a = input._data if isinstance(input, Tensor) else input
    b = other._data if isinstance(other, Tensor) else other
    if rounding_mode not in ("floor", "trunc"):
        raise RuntimeError(
            f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'"
        )
    if np.asarray(a).dtype.kind in "iu" and np.asarray(b).dtype.kind in "iu":
        _check_integer_divisor(a, b)
        if rounding_mode == "floor":
            result = np.floor_divide(a, b)
        else:
            result = (a - np.fmod(a, b)) // b  # exact truncation, without a trip through float64
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            result = np.floor_divide(a, b) if rounding_mode == "floor" else np.trunc(np.true_divide(a, b))
    return new_tensor(np.asarray(result))


@op(method=True, inplace=True)
def floor_divide(input, other):
    """Division rounded down (towards -inf), in the operands' dtype. Not differentiable."""
    return _rounded_division(input, other, "floor")


# ---------------------------------------------------------------- bitwise and logical
def _bitwise(ufunc, a, b, op_name):
    a, b = prepare_binary(a, b, op_name)
    arrays = [x._data if isinstance(x, Tensor) else x for x in (a, b)]
    for array in arrays:
        if np.asarray(array).dtype.kind in "fV":
            raise NotImplementedError(f"\"{op_name}_cpu\" not implemented for 'Float'")
    return new_tensor(np.asarray(ufunc(*arrays)))


@op(method=True, inplace=True)
def bitwise_not(input):
    """Bitwise NOT of an integer or bool tensor (logical NOT for bool); floating dtypes are refused."""
    if input._data.dtype.kind in "fV":
        raise NotImplementedError("\"bitwise_not_cpu\" not implemented for 'Float'")
    return new_tensor(np.invert(input._data))


@op(method=True, inplace=True)
def bitwise_and(input, other):
    """Bitwise AND of integer or bool tensors, broadcasting (what `a & b` calls)."""
    return _bitwise(np.bitwise_and, input, other, "bitwise_and")


@op(method=True, inplace=True)
def bitwise_or(input, other):
    """Bitwise OR of integer or bool tensors, broadcasting (what `a | b` calls)."""
    return _bitwise(np.bitwise_or, input, other, "bitwise_or")


@op(method=True, inplace=True)
def bitwise_xor(input, other):
    """Bitwise XOR of integer or bool tensors, broadcasting (what `a ^ b` calls)."""
    return _bitwise(np.bitwise_xor, input, other, "bitwise_xor")


@op(method=True, inplace=True)
def bitwise_left_shift(input, other):
    """`input << other` for integer tensors, broadcasting."""
    return _bitwise(np.left_shift, input, other, "bitwise_left_shift")


@op(method=True, inplace=True)
def bitwise_right_shift(input, other):
    """`input >> other` for integer tensors (arithmetic shift for signed types), broadcasting."""
    return _bitwise(np.right_shift, input, other, "bitwise_right_shift")


@op(method=True, inplace=True)
def logical_not(input):
    """A bool tensor: True where `input` is zero (or False)."""
    return new_tensor(np.logical_not(input._data))


def _logical(ufunc, a, b):
    arrays = [x._data if isinstance(x, Tensor) else x for x in (a, b)]
    return new_tensor(np.asarray(ufunc(*arrays)))


@op(method=True, inplace=True)
def logical_and(input, other):
    """A bool tensor: True where both operands are nonzero, broadcasting."""
    return _logical(np.logical_and, input, other)


@op(method=True, inplace=True)
def logical_or(input, other):
    """A bool tensor: True where either operand is nonzero, broadcasting."""
    return _logical(np.logical_or, input, other)


@op(method=True, inplace=True)
def logical_xor(input, other):
    """A bool tensor: True where exactly one operand is nonzero, broadcasting."""
    return _logical(np.logical_xor, input, other)


# PyTorch's other names for the ops above.
fix = alias(trunc, "fix", method=True, inplace=True)
clip = alias(clamp, "clip", method=True, inplace=True)
arcsin = alias(asin, "arcsin", method=True, inplace=True)
arccos = alias(acos, "arccos", method=True, inplace=True)
arctan = alias(atan, "arctan", method=True, inplace=True)
arcsinh = alias(asinh, "arcsinh", method=True, inplace=True)
arccosh = alias(acosh, "arccosh", method=True, inplace=True)
arctanh = alias(atanh, "arctanh", method=True, inplace=True)
arctan2 = alias(atan2, "arctan2", method=True, inplace=True)
