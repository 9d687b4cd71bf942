"""Complex numbers: conj, real and imag parts, angle, sgn, view_as_real / view_as_complex, complex, polar.

Gradients follow PyTorch's convention: what flows backward is the conjugate Wirtinger derivative,
so for a real loss L of z = x + iy, `z.grad` is dL/dx + i dL/dy. Holomorphic ops get it from their
declaration (`Primitive`'s `holomorphic=True`); the ops here are not holomorphic and state their
complex backward themselves.
"""

from .._backend import np
from .._tensor import Tensor
from .. import _dtype
from ..autograd.function import Primitive
from ._tangents import linear_jvp
from ._declare import op

_PYTHON_COMPLEX = complex  # the built-in, before `complex` below names PyTorch's function

__all__ = ["conj", "conj_physical", "real", "imag", "angle", "view_as_real", "view_as_complex", "complex", "polar"]


def conj_if_complex(value):
    """The complex conjugate of a tensor, array or number; a real one is returned as it is.

    The conjugating twin of a holomorphic primitive (`ember.autograd.function`) applies it to the
    gradients going in and out of the op's backward. It works on the arrays of a first-order
    backward (`backward_on_arrays`) and, differentiably, on tensors.
    """
    if isinstance(value, Tensor):
        return Conj.apply(value) if value._data.dtype.kind == "c" else value
    if isinstance(value, (np.ndarray, np.generic)):  # NumPy scalars too: 0-d products are scalars
        return value.conj() if value.dtype.kind == "c" else value
    if isinstance(value, _PYTHON_COMPLEX):
        return value.conjugate()
    return value


def _check_tensor(input, op_name):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op_name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")


# ---------------------------------------------------------------- conj
class Conj(Primitive, node="ConjBackward0", backward_on_arrays=True):
    @staticmethod
    def forward(ctx, a):
        return np.conj(a)

    @staticmethod
    def backward(ctx, grad):
        return Conj.call(grad)

    jvp = linear_jvp


@op(Conj, method=True)
def conj(input):
    """The complex conjugate; a real tensor is returned as it is (as PyTorch).

    Difference from PyTorch: the conjugate is computed at once rather than kept as a lazy flag, so
    `is_conj()` is always False.
    """
    _check_tensor(input, "conj")
    if input._data.dtype.kind != "c":
        return input
    return Conj.apply(input)


class ConjPhysical(Conj, node="ConjPhysicalBackward0", backward_on_arrays=True):
    pass


@op(ConjPhysical, method=True, inplace=True)
def conj_physical(input):
    """The complex conjugate, computed (as ember's `conj` always is); a real tensor is returned as it is."""
    _check_tensor(input, "conj_physical")
    if input._data.dtype.kind != "c":
        return input
    return ConjPhysical.apply(input)


# ---------------------------------------------------------------- real and imaginary parts as views
def _real_view_array(a):
    """The (..., 2) float view of a complex array's memory."""
    return a[..., None].view(a.real.dtype)


def _complex_view_array(a):
    """The complex view of a (..., 2) float array; a copy when its layout allows no view."""
    if a.strides[-1] != a.itemsize or any(stride % (2 * a.itemsize) for stride in a.strides[:-1]):
        a = np.ascontiguousarray(a)
    return a.view(_dtype.from_numpy_dtype(a.dtype).to_complex().numpy_dtype)[..., 0]


class ViewAsReal(Primitive, node="ViewAsRealBackward0", backward_on_arrays=True):
    @staticmethod
    def forward(ctx, a):
        return _real_view_array(a)

    @staticmethod
    def backward(ctx, grad):
        return ViewAsComplex.call(grad)

    jvp = linear_jvp


class ViewAsComplex(Primitive, node="ViewAsComplexBackward0", backward_on_arrays=True):
    @staticmethod
    def forward(ctx, a):
        return _complex_view_array(a)

    @staticmethod
    def backward(ctx, grad):
        return ViewAsReal.call(grad)

    jvp = linear_jvp


@op(ViewAsReal)
def view_as_real(input):
    """A complex tensor's memory as a real tensor with a last dimension of size 2 (real, imaginary)."""
    from .shape import make_view, _Replay

    _check_tensor(input, "view_as_real")
    if input._data.dtype.kind != "c":
        raise RuntimeError(f"view_as_real is only supported for complex tensors, got {input.dtype}")
    return make_view(ViewAsReal.apply(input), input, _Replay(view_as_real))


@op(ViewAsComplex)
def view_as_complex(input):
    """A float tensor whose last dimension has size 2 (real, imaginary) viewed as a complex tensor."""
    from .shape import make_view, _Replay

    _check_tensor(input, "view_as_complex")
    array = input._data
    if array.dtype not in (np.float32, np.float64, np.float16):
        raise RuntimeError(
            f"view_as_complex is only supported for float32, float64 and float16 tensors, but got a {input.dtype} "
            "tensor"
        )
    if array.ndim == 0 or array.shape[-1] != 2:
        raise RuntimeError(f"Tensor must have a last dimension of size 2, got shape {list(array.shape)}")
    if array.strides[-1] != array.itemsize:
        raise RuntimeError("Tensor must have a last dimension with stride 1: call .contiguous() first")
    if any(stride % (2 * array.itemsize) for stride in array.strides[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    return make_view(ViewAsComplex.apply(input), input, _Replay(view_as_complex))


@op()
def real(input):
    """The real part: a view of a complex tensor's real parts (`input` itself for real dtypes)."""
    _check_tensor(input, "real")
    if input._data.dtype.kind != "c":
        return input
    return view_as_real(input).select(-1, 0)


@op()
def imag(input):
    """The imaginary part: a view of a complex tensor's imaginary parts."""
    _check_tensor(input, "imag")
    if input._data.dtype.kind != "c":
        raise RuntimeError(
            f"imag is not implemented for tensors with non-complex dtypes ({input.dtype}); only complex "
            "tensors have an imaginary part"
        )
    return view_as_real(input).select(-1, 1)


# ---------------------------------------------------------------- building complex tensors
class Complex(Primitive, node="ComplexBackward0", backward_on_arrays=True):
    @staticmethod
    def forward(ctx, real_part, imaginary_part):
        # (real, imaginary) pairs side by side are the complex numbers' memory (no assignment to
        # .real/.imag, which ember.compile's recording could not follow)
        pairs = np.stack(np.broadcast_arrays(real_part, imaginary_part), axis=-1)
        return pairs.view(_dtype.from_numpy_dtype(real_part.dtype).to_complex().numpy_dtype)[..., 0]

    @staticmethod
    def backward(ctx, grad):
        needs_real, needs_imaginary = ctx.needs_input_grad
        return (grad.real if needs_real else None), (grad.imag if needs_imaginary else None)

    jvp = linear_jvp


@op(Complex)
def complex(real, imag, *, out=None):
    """The complex tensor `real + i * imag` (both float tensors of one dtype, broadcast together)."""
    for name, value in (("real", real), ("imag", imag)):
        if not isinstance(value, Tensor):
            raise TypeError(f"complex(): argument '{name}' must be Tensor, not {type(value).__name__}")
    if real._data.dtype != imag._data.dtype:
        raise RuntimeError(
            f"complex(): expected both inputs to have the same dtype, but got real: {real.dtype} and imag: {imag.dtype}"
        )
    if real._data.dtype not in (np.float32, np.float64, np.float16):
        raise RuntimeError(f"complex(): expected float16, float32 or float64 inputs, got {real.dtype}")
    result = Complex.apply(real, imag)
    if out is None:
        return result
    from .inplace import copy_into_out

    return copy_into_out(out, result)


@op()
def polar(abs, angle, *, out=None):
    """The complex tensor `abs * (cos(angle) + i * sin(angle))`.

    Difference from PyTorch: made of `complex`, `cos` and `sin`, so its node is ComplexBackward0
    (PyTorch's PolarBackward0); the gradients are the same.
    """
    result = complex(abs * angle.cos(), abs * angle.sin())
    if out is None:
        return result
    from .inplace import copy_into_out

    return copy_into_out(out, result)


# ---------------------------------------------------------------- angle and sgn (not holomorphic)
class Angle(Primitive, node="AngleBackward0"):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        result = np.angle(a)
        return result.astype(a.real.dtype if a.dtype.kind == "c" else a.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        if a._data.dtype.kind != "c":
            return grad * 0.0
        # d angle = Im(conj(z) dz) / |z|^2, so the gradient is grad * i z / |z|^2 (0 at z = 0, as PyTorch).
        squared_magnitude = _squared_magnitude(a)
        return _where_nonzero(squared_magnitude, grad * 1j * a / squared_magnitude)

    @staticmethod
    def jvp(ctx, tangent):
        (a,) = ctx.inputs
        if a._data.dtype.kind != "c":
            return tangent * 0.0
        squared_magnitude = _squared_magnitude(a)
        return _where_nonzero(squared_magnitude, imag(tangent * conj(a)) / squared_magnitude)


@op(Angle, method=True)
def angle(input):
    """The argument of each element in radians (for real tensors: 0, or pi for negative numbers)."""
    _check_tensor(input, "angle")
    if input._data.dtype.kind not in "fcV":
        input = input.to(_dtype.get_default_dtype())
    return Angle.apply(input)


def _squared_magnitude(z):
    parts = view_as_real(z)
    return (parts * parts).sum(-1)


def _where_nonzero(magnitude, value):
    from .indexing import where

    return where(magnitude == 0, 0.0, value)


class ComplexSgn(Primitive, node="SgnBackward0"):
    """`z / |z|` (0 at 0) for complex tensors; real tensors use pointwise.Sgn (zero gradient)."""

    @staticmethod
    def forward(ctx, a):
        magnitude = np.abs(a)
        result = np.where(magnitude == 0, 0, a / np.where(magnitude == 0, 1, magnitude)).astype(a.dtype, copy=False)
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        return _sgn_derivative(a, result, grad)

    @staticmethod
    def jvp(ctx, tangent):
        return _sgn_derivative(ctx.inputs[0], ctx.outputs, tangent)


def _sgn_derivative(a, result, value):
    """(v - Re(v conj(s)) s) / |z|: both the vector-Jacobian and the Jacobian-vector product of
    s = z / |z| (its real Jacobian is symmetric), 0 at z = 0."""
    from .elementwise import abs as magnitude_of

    magnitude = magnitude_of(a)
    return _where_nonzero(magnitude, (value - real(value * conj(result)) * result) / magnitude)
