"""Special functions: the gamma family (lgamma, digamma, polygamma, mvlgamma, zeta, the incomplete
gamma functions), modified Bessel functions (i0, i0e, i1, i1e) and the normal distribution's
functions (ndtr, ndtri, log_ndtr, erfcx), plus entr and xlog1py.

The array kernels are in `_gamma.py`, `_bessel.py` and `_special.py`; here each op states its
derivative beside it, written with ember ops (so second derivatives work: digamma's derivative is
polygamma(1), whose derivative is polygamma(2), ...). As in PyTorch, zeta has no derivative and
the incomplete gamma functions none with respect to `a`.
"""

import math

from .._backend import np
from .._tensor import Tensor
from ..autograd.function import Primitive, not_implemented
from . import _bessel, _gamma, _special
from ._tangents import diagonal_jvp
from .creation import tensor as _tensor
from .elementwise import _unary, exp, log
from .pointwise import log1p, sign
from .indexing import where
from .pointwise import _floating_operands
from ._declare import op

# Top-level ops (also tensor methods); the others are reached through `ember.special`, as in PyTorch.
__all__ = ["lgamma", "digamma", "polygamma", "mvlgamma", "i0", "igamma", "igammac"]

_SQRT_TWO_PI = math.sqrt(2.0 * math.pi)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_HALF = math.sqrt(0.5)


# ---------------------------------------------------------------- the gamma family
class Lgamma(Primitive, node="LgammaBackward0"):
    @staticmethod
    def forward(ctx, a):
        result = _gamma.lgamma(a)
        ctx.save_for_backward(a)
        return result

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * digamma(a)

    jvp = diagonal_jvp


class Digamma(Primitive, node="DigammaBackward0"):
    @staticmethod
    def forward(ctx, a):
        result = _gamma.digamma(a)
        ctx.save_for_backward(a)
        return result

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * polygamma(1, a)

    jvp = diagonal_jvp


class Polygamma(Primitive, node="PolygammaBackward0"):
    """The n-th derivative of digamma; its derivative is polygamma(n + 1)."""

    @staticmethod
    def forward(ctx, n, a):
        ctx.n = n
        ctx.save_for_backward(a)
        return _gamma.polygamma(n, a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return None, grad * polygamma(ctx.n + 1, a)

    @staticmethod
    def jvp(ctx, tangent_n, tangent_a):
        return None if tangent_a is None else tangent_a * polygamma(ctx.n + 1, ctx.inputs[1])


class Mvlgamma(Primitive, node="MvlgammaBackward0"):
    """The multivariate log-gamma: p(p-1)/4 log(pi) + sum over j < p of lgamma(a - j/2)."""

    @staticmethod
    def forward(ctx, a, p):
        ctx.p = p
        ctx.save_for_backward(a)
        total = np.full_like(a, p * (p - 1) / 4 * math.log(math.pi))
        for j in range(p):
            total += _gamma.lgamma(a - j / 2)
        return total

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        total = digamma(a)
        for j in range(1, ctx.p):
            total = total + digamma(a - j / 2)
        return grad * total, None

    @staticmethod
    def jvp(ctx, tangent_a, tangent_p):
        if tangent_a is None:
            return None
        return Mvlgamma.backward(ctx, tangent_a)[0]


# ---------------------------------------------------------------- modified Bessel functions
class I0(Primitive, node="I0Backward0"):
    @staticmethod
    def forward(ctx, a):
        result = _bessel.i0(a)
        ctx.save_for_backward(a)
        return result

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * i1(a)

    jvp = diagonal_jvp


class I0e(Primitive, node="SpecialI0EBackward0"):
    @staticmethod
    def forward(ctx, a):
        result = _bessel.i0e(a)
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        return grad * (i1e(a) - sign(a) * result)

    jvp = diagonal_jvp


class I1(Primitive, node="SpecialI1Backward0"):
    @staticmethod
    def forward(ctx, a):
        result = _bessel.i1(a)
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        # i1'(x) = i0(x) - i1(x) / x, which is 1/2 at x = 0.
        at_zero = a == 0
        return grad * where(at_zero, 0.5, i0(a) - result / where(at_zero, 1.0, a))

    jvp = diagonal_jvp


class I1e(Primitive, node="SpecialI1EBackward0"):
    @staticmethod
    def forward(ctx, a):
        result = _bessel.i1e(a)
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        at_zero = a == 0
        return grad * where(at_zero, 0.5, i0e(a) - result * (sign(a) + 1.0 / where(at_zero, 1.0, a)))

    jvp = diagonal_jvp


# ---------------------------------------------------------------- the normal distribution
class Ndtri(Primitive, node="SpecialNdtriBackward0"):
    @staticmethod
    def forward(ctx, a):
        result = _special.ndtri(a)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return grad * _SQRT_TWO_PI * exp(result * result / 2)

    jvp = diagonal_jvp


class LogNdtr(Primitive, node="SpecialLogNdtrBackward0"):
    @staticmethod
    def forward(ctx, a):
        result = _special.log_ndtr(a)
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        return grad * exp(-(a * a) / 2 - result) / _SQRT_TWO_PI

    jvp = diagonal_jvp


class Erfcx(Primitive, node="SpecialErfcxBackward0"):
    @staticmethod
    def forward(ctx, a):
        result = _special.erfcx(a)
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        return grad * (2 * a * result - _TWO_OVER_SQRT_PI)

    jvp = diagonal_jvp


def _entr_array(a):
    with np.errstate(divide="ignore", invalid="ignore"):
        result = -a * np.log(a)
    result = np.where(a == 0, 0.0, result)
    return np.where(a < 0, -np.inf, result).astype(a.dtype, copy=False)


class Entr(Primitive, node="SpecialEntrBackward0"):
    @staticmethod
    def forward(ctx, a):
        result = _entr_array(a)
        ctx.save_for_backward(a)
        return result

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * -(log(a) + 1)

    jvp = diagonal_jvp


# ---------------------------------------------------------------- functions of two tensors
class _BinarySpecial(Primitive):
    """z = function(a, b) on two tensors of one floating dtype; a subclass states `function` and
    `gradients(grad, a, b, needs_a, needs_b)`."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return ctx._forward_cls.function(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        needs_a, needs_b = ctx.needs_input_grad
        return ctx._forward_cls.gradients(grad, a, b, needs_a, needs_b)

    jvp = diagonal_jvp


def _xlog1py_array(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        product = a * np.log1p(b)
    return np.where((a == 0) & ~np.isnan(b), 0, product).astype(product.dtype, copy=False)


class Xlog1py(_BinarySpecial, node="SpecialXlog1PyBackward0"):
    function = staticmethod(_xlog1py_array)

    @staticmethod
    def gradients(grad, a, b, needs_a, needs_b):
        grad_a = grad * where((a == 0) & ~b.isnan(), 0.0, log1p(b)) if needs_a else None
        grad_b = grad * a / (b + 1) if needs_b else None
        return grad_a, grad_b


def _no_tangent_for_first_input(op_name):
    """A jvp for ops whose derivative in their first input is not implemented: a tangent there
    raises PyTorch's forward-AD NotImplementedError (its message, not the backward's)."""

    def jvp(ctx, tangent_a, tangent_b):
        if tangent_a is not None:
            raise NotImplementedError(
                f"Trying to use forward AD with {op_name} that does not support it because it has not been "
                f"implemented yet: the derivative of {op_name} in its first input is not implemented."
            )
        return diagonal_jvp(ctx, tangent_a, tangent_b)

    return staticmethod(jvp)


class Zeta(_BinarySpecial, node="SpecialZetaBackward0"):
    function = staticmethod(_gamma.zeta)

    @staticmethod
    def gradients(grad, a, b, needs_a, needs_b):
        raise not_implemented("zeta")

    @staticmethod
    def jvp(ctx, tangent_a, tangent_b):
        raise NotImplementedError(
            "Trying to use forward AD with special_zeta that does not support it because it has not been "
            "implemented yet."
        )


def _incomplete_gamma_derivative(a, x):
    """d/dx P(a, x) = x^(a-1) exp(-x) / Gamma(a)."""
    return exp((a - 1) * log(x) - x - lgamma(a))


class Igamma(_BinarySpecial, node="IgammaBackward0"):
    function = staticmethod(_gamma.gammainc)

    @staticmethod
    def gradients(grad, a, x, needs_a, needs_x):
        if needs_a:
            raise not_implemented("igamma: input")
        return None, grad * _incomplete_gamma_derivative(a, x)

    jvp = _no_tangent_for_first_input("igamma")


class Igammac(_BinarySpecial, node="IgammacBackward0"):
    function = staticmethod(_gamma.gammaincc)

    @staticmethod
    def gradients(grad, a, x, needs_a, needs_x):
        if needs_a:
            raise not_implemented("igammac: input")
        return None, -grad * _incomplete_gamma_derivative(a, x)

    jvp = _no_tangent_for_first_input("igammac")


def _binary(function, input, other, op_name):
    """Promote as PyTorch does (integers to the default float dtype); a number becomes a tensor of
    the other operand's dtype, so the kernels compute in one dtype."""
    input, other = _floating_operands(input, other, op_name)
    if not isinstance(input, Tensor):
        input = _tensor(input, dtype=other.dtype)
    if not isinstance(other, Tensor):
        other = _tensor(other, dtype=input.dtype)
    return function.apply(input, other)


# ---------------------------------------------------------------- the public functions
@op(Lgamma, method=True, inplace=True)
def lgamma(input):
    """The log of the absolute value of the gamma function (+inf at 0, -1, -2, ...)."""
    return _unary(Lgamma, input, "lgamma")


@op(Digamma, method=True, inplace=True)
def digamma(input):
    """The derivative of lgamma (-inf at +0, nan at negative integers, as PyTorch)."""
    return _unary(Digamma, input, "digamma")


@op(Polygamma, method=True, inplace=True)
def polygamma(n, input):
    """The n-th derivative of digamma (n >= 0). As a method, `x.polygamma(n)`: the tensor comes first."""
    if isinstance(n, Tensor) and not isinstance(input, Tensor):
        n, input = input, n
    if isinstance(n, Tensor) or not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if not isinstance(input, Tensor):
        raise TypeError(f"polygamma(): argument 'input' (position 2) must be Tensor, not {type(input).__name__}")
    if input._data.dtype.kind not in "fcV":
        input = input.float()
    return Polygamma.apply(int(n), input)


@op(Mvlgamma, method=True, inplace=True)
def mvlgamma(input, p):
    """The multivariate log-gamma function of dimension p (every element must exceed (p - 1) / 2)."""
    if not isinstance(p, (int, np.integer)) or isinstance(p, bool) or p < 1:
        raise RuntimeError(f"mvlgamma(): p has to be greater than or equal to 1, got {p!r}")
    if not isinstance(input, Tensor):
        raise TypeError(f"mvlgamma(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if input._data.dtype.kind not in "fcV":
        input = input.float()
    if not bool(np.all(input._data > (p - 1) / 2)):
        raise RuntimeError(f"All elements must be greater than (p-1)/2 = {(p - 1) / 2} for mvlgamma(input, p={p})")
    return Mvlgamma.apply(input, int(p))


@op(I0, method=True, inplace=True)
def i0(input):
    """The modified Bessel function of the first kind of order 0."""
    return _unary(I0, input, "i0")


def i0e(input):
    """exp(-|x|) i0(x), which does not overflow for large |x|."""
    return _unary(I0e, input, "i0e")


def i1(input):
    """The modified Bessel function of the first kind of order 1."""
    return _unary(I1, input, "i1")


def i1e(input):
    """exp(-|x|) i1(x)."""
    return _unary(I1e, input, "i1e")


def ndtr(input):
    """The standard normal cumulative distribution function, 0.5 * erfc(-x / sqrt(2))."""
    from .pointwise import erfc

    if not isinstance(input, Tensor):
        raise TypeError(f"ndtr(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if input._data.dtype.kind not in "fcV":
        input = input.float()
    return erfc(input * -_SQRT_HALF) * 0.5


def ndtri(input):
    """The inverse of ndtr: the standard normal quantile of a probability."""
    return _unary(Ndtri, input, "ndtri")


def log_ndtr(input):
    """log(ndtr(x)), accurate far into the left tail."""
    return _unary(LogNdtr, input, "log_ndtr")


def erfcx(input):
    """The scaled complementary error function exp(x^2) erfc(x)."""
    return _unary(Erfcx, input, "erfcx")


def entr(input):
    """-x log(x) for x > 0, 0 at 0 and -inf for x < 0."""
    return _unary(Entr, input, "entr")


def xlog1py(input, other):
    """input * log1p(other), 0 where input == 0 (unless other is nan). Either may be a number."""
    return _binary(Xlog1py, input, other, "xlog1py")


def zeta(input, other):
    """The Hurwitz zeta function sum over k >= 0 of (other + k) ** -input (Riemann's at other = 1)."""
    return _binary(Zeta, input, other, "zeta")


@op(Igamma, method=True, inplace=True)
def igamma(input, other):
    """The regularized lower incomplete gamma function P(input, other) (torch.special.gammainc)."""
    return _binary(Igamma, input, other, "igamma")


@op(Igammac, method=True, inplace=True)
def igammac(input, other):
    """The regularized upper incomplete gamma function Q(input, other) (torch.special.gammaincc)."""
    return _binary(Igammac, input, other, "igammac")
