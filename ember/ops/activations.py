"""Softmax, log-softmax and the activations that are primitives or composites of ops."""

import math

from .._backend import np
from .._tensor import new_tensor
from .. import _dtype
from ..autograd.function import Primitive
from ._common import normalize_dim
from ._nn_common import _check_floating, _check_tensor
from . import _autocast, _special
from ._tangents import diagonal_jvp
from ._declare import op

__all__ = ["rrelu", "softmax", "log_softmax", "selu", "celu", "prelu", "hardshrink", "threshold"]
# selu's constants (Klambauer et al., 2017), also used by alpha_dropout.
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


# ================================================================ softmax
class Softmax(Primitive, node="SoftmaxBackward0"):
    """exp(x - max) / sum: a primitive because exp(x) / sum(exp(x)) overflows for large x."""

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        if x.size == 0:
            result = x.copy()
        else:
            result = x - x.max(axis=dim, keepdims=True)
            np.exp(result, out=result)
            result /= result.sum(axis=dim, keepdims=True)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        product = grad * result
        return product - result * product.sum(ctx.dim, keepdim=True), None


class LogSoftmax(Primitive, node="LogSoftmaxBackward0", backward_on_arrays=True):
    """x - max - log(sum(exp(x - max))): exact for large x and for very negative log-probabilities."""

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        if x.size == 0:
            result = x.copy()
        else:
            result = x - x.max(axis=dim, keepdims=True)
            result -= np.log(np.exp(result).sum(axis=dim, keepdims=True))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        if isinstance(grad, np.ndarray):  # a first-order backward on arrays (see autograd.function)
            return grad - np.exp(result) * np.add.reduce(grad, axis=ctx.dim, keepdims=True), None
        return grad - result.exp() * grad.sum(ctx.dim, keepdim=True), None


def _softmax_input(input, dim, dtype, op_name):
    _check_tensor(input, "input", op_name)
    if dtype is not None:
        input = input.to(_dtype.to_dtype(dtype))
    if input._data.dtype.kind != "f":
        raise RuntimeError(
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
    backward; this one keeps Phi(x) from the forward for the first-order backward, which then needs
    only the density (a Transformer's GELU: 6.7 ms forward and backward, 2.6 ms as a primitive)."""

    @staticmethod
    def forward(ctx, x, approximate):
        ctx.save_for_backward(x)
        ctx.approximate = approximate
        if approximate == "tanh":
            cdf = np.tanh(_tanh_argument(x))
        else:
            cdf = _special.erf(x * _SQRT_HALF)
        cdf += 1.0
        cdf *= 0.5
        ctx.cdf = cdf if ctx.needs_input_grad[0] else None  # (what backward on arrays reads)
        return x * cdf

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        if isinstance(grad, np.ndarray):  # a first-order backward on arrays (see autograd.function)
            cdf = ctx.cdf
            if ctx.approximate == "tanh":  # d/dx 0.5 x (1 + tanh(u)) = cdf + x * 2 cdf (1 - cdf) u'
                slope = x * x
                slope *= 3 * _TANH_CUBIC
                slope += 1.0
                slope *= 2 * _SQRT_TWO_OVER_PI
                slope *= cdf
                slope *= 1.0 - cdf
            else:  # d/dx x Phi(x) = Phi(x) + x phi(x)
                slope = x * x
                slope *= -0.5
                slope = np.exp(slope)
                slope *= _INVERSE_SQRT_TWO_PI
            slope *= x
            slope += cdf
            slope *= grad
            return slope, None
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


def _negative_part_exp(input, alpha, scale_inside=1.0):
    """alpha * (exp(x * scale_inside) - 1) for x <= 0; exp is fed min(x, 0) so large x never overflows
    (an inf there would turn the masked-out gradient into NaN)."""
    from . import clamp_max, expm1

    inner = clamp_max(input, 0.0)
    if scale_inside != 1.0:
        inner = inner * scale_inside
    return expm1(inner) * alpha


def elu(input, alpha=1.0, scale=1.0, input_scale=1.0):
    """x for x > 0, alpha * (exp(x) - 1) otherwise (times `scale`: selu's form)."""
    _check_tensor(input, "input", "elu")
    result = _where(input > 0, input, _negative_part_exp(input, alpha, input_scale))
    return result * scale if scale != 1.0 else result


@op()
def selu(input):
    """scale * elu(x, alpha) with the self-normalizing constants of Klambauer et al."""
    return elu(input, _SELU_ALPHA, _SELU_SCALE)


@op()
def celu(input, alpha=1.0):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: celu's alpha must not be 0")
    return elu(input, alpha, 1.0, 1.0 / alpha)


@op(method=True)
def prelu(input, weight):
    """x for x >= 0, weight * x otherwise; weight has 1 or C (the channels, dim 1) elements."""
    if _autocast.ever_enabled and _autocast.state.lower is not None:
        input, weight = _autocast.lower_precision(input, weight)
    _check_tensor(input, "input", "prelu")
    _check_tensor(weight, "weight", "prelu")
    count = weight._data.size
    if count != 1:
        if input._data.ndim < 2 or input._data.shape[1] != count:
            raise RuntimeError(
                f"prelu: mismatch of parameter numbers and input channel size: weight has {count} "
                f"elements but input {list(input.shape)} has "
                f"{input._data.shape[1] if input._data.ndim > 1 else 1} channels"
            )
        weight = weight.reshape((-1,) + (1,) * (input._data.ndim - 2))
    elif weight._data.ndim:
        weight = weight.reshape(())
    return _where(input > 0, input, input * weight)


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
