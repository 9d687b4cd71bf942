"""Softmax, log-softmax and the activations that are primitives or composites of ops."""

import math

from .._backend import np
from .._tensor import Tensor, new_tensor
from .. import _dtype, _precision
from ..autograd.function import Primitive
from ._common import c_contiguous, normalize_dim
from ._nn_common import _check_floating, _check_tensor
from . import _autocast, _special
from ._tangents import add_tangents, diagonal_jvp
from ._declare import op

__all__ = ["rrelu", "softmax", "log_softmax", "selu", "celu", "prelu", "hardshrink", "threshold"]
# selu's constants (Klambauer et al., 2017), also used by alpha_dropout.
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


# ================================================================ softmax
def _sum_along(array, dim):
    """array.sum(dim, keepdims=True); along the last axis as a BLAS product (see _precision.sum_last)."""
    if dim == array.ndim - 1:
        return _precision.sum_last(array)
    return array.sum(axis=dim, keepdims=True)


def _max_along(array, dim):
    """array.max(dim, keepdims=True). Along a last axis shorter than 64 NumPy's reduction pays per row
    (~100 ns): a (32, 4, 32, 32) attention softmax's row max takes 500 us on one thread. The rows
    transposed into a (length, rows) copy reduce as `length` element-wise maxima of contiguous rows
    instead: 180 us with the copy ((1024, 10): 86 -> 11 us; from length 64 on, NumPy's loop is the
    faster). A maximum is exact in any order; only which of -0.0 and +0.0 wins a tie may change."""
    shape = array.shape
    length = shape[-1]
    rows = array.size // length if length else 0
    if dim != array.ndim - 1 or length >= 64 or rows < 32 or not array.flags.c_contiguous or array.dtype.kind != "f":
        return array.max(axis=dim, keepdims=True)
    columns = np.ascontiguousarray(array.reshape(rows, length).swapaxes(0, 1))
    return np.maximum.reduce(columns, axis=0).reshape(shape[:-1] + (1,))


def _softmax_array(x, dim):
    if x.size == 0:
        return x.copy()
    result = x - _max_along(x, dim)
    np.exp(result, out=result)
    result /= _sum_along(result, dim)
    return result


def _log_softmax_array(x, dim):
    if x.size == 0:
        return x.copy()
    result = x - _max_along(x, dim)
    result -= np.log(_sum_along(np.exp(result), dim))
    return result


class Softmax(Primitive, node="SoftmaxBackward0", backward_on_arrays=True):
    """exp(x - max) / sum: a primitive because exp(x) / sum(exp(x)) overflows for large x."""

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        result = _precision.in_float32(_softmax_array, c_contiguous(x), dim)  # (contiguous, as PyTorch's)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        product = grad * result
        if isinstance(grad, np.ndarray):  # a first-order backward on arrays (see autograd.function)
            return product - result * _sum_along(product, ctx.dim), None
        return product - result * product.sum(ctx.dim, keepdim=True), None


class LogSoftmax(Primitive, node="LogSoftmaxBackward0", backward_on_arrays=True):
    """x - max - log(sum(exp(x - max))): exact for large x and for very negative log-probabilities."""

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        result = _precision.in_float32(_log_softmax_array, c_contiguous(x), dim)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        if isinstance(grad, np.ndarray):  # a first-order backward on arrays (see autograd.function)
            return grad - np.exp(result) * _precision.add_reduce(grad, ctx.dim, keepdims=True), None
        return grad - result.exp() * grad.sum(ctx.dim, keepdim=True), None


def _softmax_input(input, dim, dtype, op_name):
    _check_tensor(input, "input", op_name)
    if dtype is not None:
        input = input.to(_dtype.to_dtype(dtype))
    if input._data.dtype.kind not in "fV":
        raise NotImplementedError(
            f"\"{op_name}_lastdim_kernel_impl\" not implemented for '{input.dtype}': pass a floating "
            f"point input or dtype=ember.float32"
        )
    if dim is None:
        raise TypeError(f"{op_name}() missing required argument 'dim'")
    return input, normalize_dim(dim, input._data.ndim, op_name)


@op(Softmax, method=True)
def softmax(input, dim, dtype=None):
    """exp(x) / sum(exp(x)) along `dim`, computed without overflow. `dtype` converts the input first."""
    input, dim = _softmax_input(input, dim, dtype, "softmax")
    return Softmax.apply(input, dim)


@op(LogSoftmax, method=True)
def log_softmax(input, dim, dtype=None):
    """log(softmax(x)) along `dim`, computed directly (exact where softmax underflows to 0)."""
    input, dim = _softmax_input(input, dim, dtype, "log_softmax")
    return LogSoftmax.apply(input, dim)


# ================================================================ activations
class Softplus(Primitive, node="SoftplusBackward0"):
    """log(1 + exp(beta x)) / beta, linear above `threshold`: a primitive because the composite
    overflows for large x and loses everything below about -17 (log(1 + tiny) == 0)."""

    @staticmethod
    def forward(ctx, x, beta, threshold):
        ctx.save_for_backward(x)
        ctx.options = beta, threshold
        scaled = x * beta if beta != 1 else x
        result = np.log1p(np.exp(-np.abs(scaled)))
        result += np.maximum(scaled, 0)
        if beta != 1:
            result /= beta
        return np.where(scaled > threshold, x, result)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        beta, threshold = ctx.options
        scaled = x * beta if beta != 1 else x
        return _where(scaled > threshold, grad, grad * _sigmoid(scaled)), None, None


def _where(condition, a, b):
    from . import where

    return where(condition, a, b)


def _sigmoid(x):
    from . import sigmoid

    return sigmoid(x)


def softplus(input, beta=1.0, threshold=20.0):
    """`log(1 + exp(beta * x)) / beta`, smooth ReLU; linear where `beta * x > threshold` (no overflow)."""
    _check_tensor(input, "input", "softplus")
    _check_floating(input, "softplus")
    return Softplus.apply(input, beta, threshold)


class Gelu(Primitive, node="GeluBackward0", backward_on_arrays=True):
    """x * Phi(x), Phi the standard normal CDF (or its tanh approximation): a primitive for measured
    speed. The composite `x * (erf(x / sqrt(2)) + 1) * 0.5` makes 5 array passes forward and ~12
    backward; this one makes the derivative in the forward, from Phi(x) and phi(x) (float32: one
    exp for both) while they are in cache, so the first-order backward is one product (a Transformer step: 2-3% faster
    than computing it in the backward from x and Phi(x))."""

    @staticmethod
    def forward(ctx, x, approximate):
        ctx.save_for_backward(x)
        ctx.approximate = approximate
        density = None
        if approximate == "none" and x.dtype == np.float32 and x.ndim:
            cdf, density = _special.float32_normal_cdf_and_density(x)  # (one exp for both)
        else:
            cdf = np.tanh(_tanh_argument(x)) if approximate == "tanh" else _special.erf(x * _SQRT_HALF)
            cdf += 1.0
            cdf *= 0.5
        # the derivative, made here while x is still in cache (what backward on arrays reads)
        ctx.slope = _gelu_slope(x, cdf, approximate, density) if ctx.needs_input_grad[0] else None
        return x * cdf

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        if isinstance(grad, np.ndarray):  # a first-order backward on arrays (see autograd.function)
            return grad * ctx.slope, None
        # on tensors (create_graph): the same derivative in ember ops, so it can be differentiated again
        from . import erf, exp, tanh

        if ctx.approximate == "tanh":
            cdf = (tanh(_tanh_argument(x)) + 1.0) * 0.5
            slope = cdf * (1.0 - cdf) * (x * x * (3 * _TANH_CUBIC) + 1.0) * (2 * _SQRT_TWO_OVER_PI)
        else:
            cdf = (erf(x * _SQRT_HALF) + 1.0) * 0.5
            slope = exp(x * x * -0.5) * _INVERSE_SQRT_TWO_PI
        return grad * (cdf + x * slope), None

    jvp = diagonal_jvp


_SQRT_HALF = math.sqrt(0.5)
_SQRT_TWO_OVER_PI = math.sqrt(2 / math.pi)
_INVERSE_SQRT_TWO_PI = 1 / math.sqrt(2 * math.pi)
_TANH_CUBIC = 0.044715


def _gelu_slope(x, cdf, approximate, density=None):
    """d/dx x Phi(x) on arrays, from Phi(x) = cdf: Phi(x) + x phi(x), or with the tanh formula
    cdf + x * 2 cdf (1 - cdf) u' (u the tanh's argument). `density` (phi(x), where the caller has
    it) is used up."""
    if approximate == "tanh":
        slope = x * x
        slope *= 3 * _TANH_CUBIC
        slope += 1.0
        slope *= 2 * _SQRT_TWO_OVER_PI
        slope *= cdf
        slope *= 1.0 - cdf
    elif density is not None:
        slope = density
    else:
        slope = x * x
        slope *= -0.5
        slope = np.exp(slope)
        slope *= _INVERSE_SQRT_TWO_PI
    slope *= x
    slope += cdf
    return slope


def _tanh_argument(x):
    """sqrt(2 / pi) * (x + 0.044715 x^3), on arrays or tensors."""
    return (x * x * _TANH_CUBIC + 1.0) * x * _SQRT_TWO_OVER_PI


def gelu(input, approximate="none"):
    """x * Phi(x), Phi the standard normal CDF; approximate='tanh' uses the tanh formula."""
    _check_tensor(input, "input", "gelu")
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"approximate argument must be either none or tanh, got '{approximate}'")
    _check_floating(input, "GeluKernelImpl")
    return Gelu.apply(input, approximate)


# ---------------------------------------------------------------- element-wise activations as primitives
# Each is one node with PyTorch's name (what a printed tensor shows) and one or two array passes each
# way, where the composites made 3-8 passes and nodes. Their backward is written once for both paths:
# the helpers below take NumPy arrays (a first-order backward on arrays) or tensors (recorded, so it
# can be differentiated again).
def _select(condition, a, b):
    if not isinstance(condition, Tensor):
        return np.where(condition, a, b)
    return _where(condition, a, b)


def _exp(x):
    if not isinstance(x, Tensor):
        return np.exp(x)
    from . import exp

    return exp(x)


def _tanh(x):
    if not isinstance(x, Tensor):
        return np.tanh(x)
    from . import tanh

    return tanh(x)


def _logistic(x):
    """sigmoid(x) = 1 / (1 + exp(-x)): on arrays in four in-place passes; where exp(-x) overflows to
    inf the result is 0, the correctly rounded value (or a denormal away), so the overflow is ignored."""
    if isinstance(x, Tensor):
        return _sigmoid(x)
    with np.errstate(over="ignore"):
        result = np.exp(-x)
    result += 1.0
    return np.divide(1.0, result, out=result) if isinstance(result, np.ndarray) else 1.0 / result


def _check_activation_input(input, op_name):
    _check_tensor(input, "input", op_name)
    _check_floating(input, op_name)


class LeakyRelu(Primitive, node="LeakyReluBackward0", backward_on_arrays=True):
    """x for x > 0, slope * x otherwise."""

    @staticmethod
    def forward(ctx, x, slope):
        ctx.save_for_backward(x)
        ctx.slope = slope
        return np.where(x > 0, x, x * slope)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return _select(x > 0, grad, grad * ctx.slope), None

    jvp = diagonal_jvp


def leaky_relu(input, negative_slope=0.01):
    """x for x > 0, negative_slope * x otherwise."""
    _check_activation_input(input, "leaky_relu")
    return LeakyRelu.apply(input, negative_slope)


class Hardtanh(Primitive, node="HardtanhBackward0", backward_on_arrays=True):
    """x clipped to [low, high]; the gradient passes strictly inside, as PyTorch's."""

    @staticmethod
    def forward(ctx, x, low, high):
        ctx.save_for_backward(x)
        ctx.bounds = low, high
        return np.minimum(np.maximum(x, low), high).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        low, high = ctx.bounds
        return _select((x > low) & (x < high), grad, 0.0), None, None

    jvp = diagonal_jvp


def hardtanh(input, min_val=-1.0, max_val=1.0):
    """x clipped to [min_val, max_val]."""
    _check_tensor(input, "input", "hardtanh")
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return Hardtanh.apply(input, min_val, max_val)


class Elu(Primitive, node="EluBackward0", backward_on_arrays=True):
    """scale * (x for x > 0, alpha * (exp(input_scale * x) - 1) otherwise): elu, and selu with its
    constants. exp is fed min(x, 0), so large x never overflows."""

    @staticmethod
    def forward(ctx, x, alpha, scale, input_scale):
        ctx.save_for_backward(x)
        ctx.options = alpha, scale, input_scale
        negative = np.minimum(x, 0)
        if input_scale != 1.0:
            negative *= input_scale
        negative = np.expm1(negative)
        negative *= alpha
        result = np.where(x > 0, x, negative)
        if scale != 1.0:
            result *= scale
        return result

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        alpha, scale, input_scale = ctx.options
        negative_slope = _exp(_select(x > 0, 0.0, x) * input_scale) * (alpha * scale * input_scale)
        return _select(x > 0, grad * scale, grad * negative_slope), None, None, None

    jvp = diagonal_jvp


class Celu(Elu, node="CeluBackward0"):
    """celu is elu with input_scale = 1 / alpha; PyTorch names its node apart."""


def elu(input, alpha=1.0):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""
    _check_activation_input(input, "elu")
    return Elu.apply(input, alpha, 1.0, 1.0)


@op(Elu)
def selu(input):
    """scale * elu(x, alpha) with the self-normalizing constants of Klambauer et al."""
    _check_activation_input(input, "selu")
    return Elu.apply(input, _SELU_ALPHA, _SELU_SCALE, 1.0)


@op(Celu)
def celu(input, alpha=1.0):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    _check_activation_input(input, "celu")
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: celu's alpha must not be 0")
    return Celu.apply(input, alpha, 1.0, 1.0 / alpha)


class LogSigmoid(Primitive, node="LogSigmoidBackward0", backward_on_arrays=True):
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), exact on both tails."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * _logistic(-x)

    jvp = diagonal_jvp


def logsigmoid(input):
    """log(sigmoid(x)), without overflow."""
    _check_activation_input(input, "log_sigmoid_forward")
    return LogSigmoid.apply(input)


class Silu(Primitive, node="SiluBackward0", backward_on_arrays=True):
    """x * sigmoid(x)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        logistic = _logistic(x)
        ctx.logistic = logistic if ctx.needs_input_grad[0] else None  # (what backward on arrays reads)
        return x * logistic

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        if not isinstance(grad, Tensor):  # a first-order backward on arrays: in place, from the saved sigmoid
            logistic = ctx.logistic
            slope = 1.0 - logistic
            slope *= x
            slope += 1.0
            slope *= logistic
            slope *= grad
            return slope
        logistic = _logistic(x)
        return grad * (logistic * (x * (1.0 - logistic) + 1.0))

    jvp = diagonal_jvp


def silu(input):
    """x * sigmoid(x) (also called swish)."""
    _check_activation_input(input, "silu")
    return Silu.apply(input)


class Mish(Primitive, node="MishBackward0", backward_on_arrays=True):
    """x * tanh(softplus(x))."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * np.tanh(np.logaddexp(x, 0.0))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        if not isinstance(x, Tensor):
            squashed = np.tanh(np.logaddexp(x, 0.0))
        else:
            squashed = _tanh(Softplus.apply(x, 1.0, 20.0))
        return grad * (squashed + x * _logistic(x) * (1.0 - squashed * squashed))

    jvp = diagonal_jvp


def mish(input):
    """x * tanh(softplus(x))."""
    _check_activation_input(input, "mish")
    return Mish.apply(input)


# PyTorch's hardsigmoid backward multiplies by 1/6 rounded to float32, in float64 too; so does ember's.
_ONE_SIXTH = float(np.float32(1 / 6))


class Hardsigmoid(Primitive, node="HardsigmoidBackward0", backward_on_arrays=True):
    """relu6(x + 3) / 6; the gradient, 1/6, passes strictly inside (-3, 3)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        result = np.minimum(np.maximum(x + 3.0, 0.0), 6.0)
        result /= 6.0
        return result.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return _select((x > -3.0) & (x < 3.0), grad * _ONE_SIXTH, 0.0)

    jvp = diagonal_jvp


def hardsigmoid(input):
    """relu6(x + 3) / 6."""
    _check_activation_input(input, "hardsigmoid")
    return Hardsigmoid.apply(input)


class Hardswish(Primitive, node="HardswishBackward0", backward_on_arrays=True):
    """x * relu6(x + 3) / 6; PyTorch's gradient: 0 below -3, x/3 + 1/2 in [-3, 3], 1 above."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        result = np.minimum(np.maximum(x + 3.0, 0.0), 6.0)
        result *= x
        result /= 6.0
        return result.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return _select(x < -3.0, 0.0, _select(x <= 3.0, grad * (x / 3.0 + 0.5), grad))

    jvp = diagonal_jvp


def hardswish(input):
    """x * relu6(x + 3) / 6."""
    _check_activation_input(input, "hardswish")
    return Hardswish.apply(input)


class Prelu(Primitive, node="PreluKernelBackward0", backward_on_arrays=True):
    """x for x > 0, weight * x otherwise; `view` shapes the weight to broadcast over the channels
    (dim 1), `dims` are the input's dims its gradient sums over."""

    @staticmethod
    def forward(ctx, x, weight, view, dims):
        ctx.save_for_backward(x, weight)
        ctx.layout = view, dims
        return np.where(x > 0, x, x * weight.reshape(view))

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        view, dims = ctx.layout
        needs_x, needs_weight = ctx.needs_input_grad[:2]
        positive = x > 0
        grad_x = _select(positive, grad, grad * weight.reshape(view)) if needs_x else None
        grad_weight = None
        if needs_weight:
            grad_weight = _select(positive, 0.0, grad * x)
            if dims:
                grad_weight = grad_weight.sum(dims)
            grad_weight = grad_weight.reshape(weight.shape)
        return grad_x, grad_weight, None, None

    @staticmethod
    def jvp(ctx, tangent_x, tangent_weight, *_):
        x, weight = ctx.inputs[:2]
        view = ctx.layout[0]
        positive = x > 0
        total = None
        if tangent_x is not None:
            total = _where(positive, tangent_x, tangent_x * weight.reshape(view))
        if tangent_weight is not None:
            total = add_tangents(total, _where(positive, 0.0, x * tangent_weight.reshape(view)))
        return total


@op(Prelu, method=True)
def prelu(input, weight):
    """x for x >= 0, weight * x otherwise; weight has 1 or C (the channels, dim 1) elements."""
    if _autocast.ever_enabled and _autocast.state.lower is not None:
        input, weight = _autocast.lower_precision(input, weight)
    _check_tensor(input, "input", "prelu")
    _check_tensor(weight, "weight", "prelu")
    count = weight._data.size
    ndim = input._data.ndim
    if count != 1:
        if ndim < 2 or input._data.shape[1] != count:
            raise RuntimeError(
                f"prelu: mismatch of parameter numbers and input channel size: weight has {count} "
                f"elements but input {list(input.shape)} has "
                f"{input._data.shape[1] if ndim > 1 else 1} channels"
            )
        view = (-1,) + (1,) * (ndim - 2)
        dims = (0,) + tuple(range(2, ndim))
    else:
        view = ()
        dims = tuple(range(ndim))
    return Prelu.apply(input, weight, view, dims)


class Glu(Primitive, node="GluBackward0", backward_on_arrays=True):
    """a * sigmoid(b), a and b the two halves of the input along `dim`."""

    @staticmethod
    def forward(ctx, x, dim):
        ctx.save_for_backward(x)
        ctx.dim = dim
        first, second = np.split(x, 2, axis=dim)
        return first * _logistic(second)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        dim = ctx.dim
        half = x.shape[dim] // 2
        if not isinstance(x, Tensor):
            first, second = np.split(x, 2, axis=dim)
            gate = _logistic(second)
            grad_first = grad * gate
            return np.concatenate([grad_first, grad_first * first * (1.0 - gate)], axis=dim), None
        from . import cat

        first, second = x.narrow(dim, 0, half), x.narrow(dim, half, half)
        gate = _logistic(second)
        grad_first = grad * gate
        return cat([grad_first, grad_first * first * (1.0 - gate)], dim), None

    @staticmethod
    def jvp(ctx, tangent, _):
        (x,), dim = ctx.inputs[:1], ctx.dim
        half = x.shape[dim] // 2
        first, gate = x.narrow(dim, 0, half), _logistic(x.narrow(dim, half, half))
        tangent_first, tangent_second = tangent.narrow(dim, 0, half), tangent.narrow(dim, half, half)
        return (tangent_first + first * (1.0 - gate) * tangent_second) * gate


def glu(input, dim=-1):
    """a * sigmoid(b), where a and b are the two halves of `input` along `dim`."""
    _check_tensor(input, "input", "glu")
    ndim = input._data.ndim
    size = input._data.shape[dim] if ndim else 0
    if ndim == 0 or size % 2:
        raise RuntimeError(
            f"Halving dimension must be even, but dimension {dim} is size {size} (input of size {list(input.shape)})"
        )
    return Glu.apply(input, normalize_dim(dim, ndim, "glu"))


@op(method=True)
def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, else 0."""
    _check_tensor(input, "input", "hardshrink")
    return _where((input > lambd) | (input < -lambd), input, 0.0)


@op()
def threshold(input, threshold, value):
    """x where x > threshold, else `value`."""
    _check_tensor(input, "input", "threshold")
    return _where(input > threshold, input, value)


@op()
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """Leaky ReLU with a random slope drawn from U(lower, upper) per element when training, and the
    mean slope (lower + upper) / 2 otherwise. As PyTorch, only the elements <= 0 draw a slope (one
    double each, in order), so a seeded run gives PyTorch's slopes."""
    from .creation import default_generator
    from .indexing import where
    from ._distribution_kernels import uniform

    _check_tensor(input, "input", "rrelu")
    if not training:
        return where(input >= 0, input, input * ((lower + upper) / 2))
    negative = np.ascontiguousarray(input._data) <= 0
    slopes = np.ones(negative.shape, dtype=input._data.dtype)
    low, high = (float(slopes.dtype.type(bound)) for bound in (lower, upper))  # PyTorch rounds them first
    slopes[negative] = uniform(default_generator.engine, int(negative.sum()), np.float64, low, high)
    return where(new_tensor(negative), input * new_tensor(slopes), input)
