"""`torch.special`'s Bessel and Airy functions and its classical orthogonal polynomials:

    bessel_j0, bessel_j1, bessel_y0, bessel_y1, spherical_bessel_j0, airy_ai,
    modified_bessel_i0, modified_bessel_i1, modified_bessel_k0, modified_bessel_k1,
    scaled_modified_bessel_k0, scaled_modified_bessel_k1,
    chebyshev_polynomial_{t,u,v,w}, shifted_chebyshev_polynomial_{t,u,v,w},
    hermite_polynomial_h, hermite_polynomial_he, laguerre_polynomial_l, legendre_polynomial_p

PyTorch declares all of them non-differentiable: their results never require grad, so a backward
through one fails with "element 0 of tensors does not require grad", and forward AD carries no
tangent through them. ember does the same by computing them outside the graph, like comparisons.
They are reached through `ember.special` only (PyTorch has no top-level names or Tensor methods
for them). Integer and bool inputs give the default float dtype; float16 and complex inputs are
refused with PyTorch's NotImplementedError.

The kernels are in `_bessel_functions.py` (evaluated in float64, then rounded to the input's dtype)
and `_orthogonal_polynomials.py` (evaluated in the input's dtype, so float32 overflows as PyTorch's).
"""

from .._backend import np
from .. import _dtype
from .._tensor import Tensor, new_tensor
from . import _bessel_functions, _orthogonal_polynomials
from ._common import check_broadcastable
from .pointwise import _floating_operands

__all__ = []  # reached through ember.special, as in PyTorch

# PyTorch's names for the dtypes its CPU kernels of these functions refuse.
_UNSUPPORTED_DTYPE_NAMES = {"float16": "Half", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def _floating_array(tensor, op_name):
    """The tensor's array, integers and bools promoted to the default float dtype; float32 or float64."""
    data = tensor._data
    if data.dtype.kind not in "fc":
        data = data.astype(_dtype.get_default_dtype().numpy_dtype)
    if data.dtype not in (np.float32, np.float64):
        name = _UNSUPPORTED_DTYPE_NAMES.get(data.dtype.name, data.dtype.name)
        raise NotImplementedError(f'"{op_name}_cpu" not implemented for \'{name}\'')
    return data


def _finish(result, out):
    if out is None:
        return result
    from .inplace import copy_into_out

    return copy_into_out(out, result)


def _unary(kernel, input, op_name, out):
    if not isinstance(input, Tensor):
        raise TypeError(
            f"special_{op_name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    data = _floating_array(input, op_name)
    with np.errstate(all="ignore"):  # overflow to inf is the answer beyond float32's range, as in PyTorch
        values = kernel(np.atleast_1d(data.astype(np.float64))).reshape(data.shape).astype(data.dtype, copy=False)
    return _finish(new_tensor(values), out)


def bessel_j0(input, *, out=None):
    """The Bessel function of the first kind of order 0."""
    return _unary(_bessel_functions.bessel_j0, input, "bessel_j0", out)


def bessel_j1(input, *, out=None):
    """The Bessel function of the first kind of order 1."""
    return _unary(_bessel_functions.bessel_j1, input, "bessel_j1", out)


def bessel_y0(input, *, out=None):
    """The Bessel function of the second kind of order 0 (-inf at 0, NaN for negative input)."""
    return _unary(_bessel_functions.bessel_y0, input, "bessel_y0", out)


def bessel_y1(input, *, out=None):
    """The Bessel function of the second kind of order 1 (-inf at 0, NaN for negative input)."""
    return _unary(_bessel_functions.bessel_y1, input, "bessel_y1", out)


def modified_bessel_i0(input, *, out=None):
    """The modified Bessel function of the first kind of order 0 (the same function as `ember.i0`)."""
    return _unary(_bessel_functions.modified_bessel_i0, input, "modified_bessel_i0", out)


def modified_bessel_i1(input, *, out=None):
    """The modified Bessel function of the first kind of order 1 (the same function as `special.i1`)."""
    return _unary(_bessel_functions.modified_bessel_i1, input, "modified_bessel_i1", out)


def modified_bessel_k0(input, *, out=None):
    """The modified Bessel function of the second kind of order 0 (inf at 0, NaN for negative input)."""
    return _unary(_bessel_functions.modified_bessel_k0, input, "modified_bessel_k0", out)


def modified_bessel_k1(input, *, out=None):
    """The modified Bessel function of the second kind of order 1 (inf at 0, NaN for negative input)."""
    return _unary(_bessel_functions.modified_bessel_k1, input, "modified_bessel_k1", out)


def scaled_modified_bessel_k0(input, *, out=None):
    """exp(x) K0(x): K0 without its underflow for large x."""
    return _unary(_bessel_functions.scaled_modified_bessel_k0, input, "scaled_modified_bessel_k0", out)


def scaled_modified_bessel_k1(input, *, out=None):
    """exp(x) K1(x): K1 without its underflow for large x."""
    return _unary(_bessel_functions.scaled_modified_bessel_k1, input, "scaled_modified_bessel_k1", out)


def spherical_bessel_j0(input, *, out=None):
    """The spherical Bessel function of the first kind of order 0, sin(x)/x (1 at 0, 0 at +-inf)."""
    return _unary(_bessel_functions.spherical_bessel_j0, input, "spherical_bessel_j0", out)


def airy_ai(input, *, out=None):
    """The Airy function Ai, the solution of y'' = x y that decays for x -> +inf (NaN at +-inf, as
    PyTorch)."""
    return _unary(_bessel_functions.airy_ai, input, "airy_ai", out)


# ---------------------------------------------------------------- orthogonal polynomials
def _polynomial(op_name, x, n, out):
    """Either operand may be a number (not both); they broadcast and promote as a binary op."""
    if not isinstance(x, Tensor) and not isinstance(n, Tensor):
        raise TypeError(
            f"special_{op_name}() received an invalid combination of arguments - got "
            f"({type(x).__name__}, {type(n).__name__}), but expected one of: (Tensor x, Tensor n), "
            "(Number x, Tensor n), (Tensor x, Number n)"
        )
    x, n = _floating_operands(x, n, op_name)
    dtype = (x if isinstance(x, Tensor) else n)._data.dtype
    check_broadcastable(x, n, op_name)
    x_data = _floating_array(x, op_name) if isinstance(x, Tensor) else np.asarray(x, dtype)
    n_data = _floating_array(n, op_name) if isinstance(n, Tensor) else np.asarray(n, dtype)
    values = _orthogonal_polynomials.evaluate(op_name, x_data, n_data.astype(x_data.dtype, copy=False))
    return _finish(new_tensor(values), out)


def chebyshev_polynomial_t(x, n, *, out=None):
    """The Chebyshev polynomial of the first kind T_n(x) (T_n(cos t) = cos(n t)).

    n is truncated to an integer; a negative, NaN or infinite n gives 0, as in PyTorch. `x` is
    PyTorch's keyword name (its documentation says `input`)."""
    return _polynomial("chebyshev_polynomial_t", x, n, out)


def chebyshev_polynomial_u(x, n, *, out=None):
    """The Chebyshev polynomial of the second kind U_n(x) (U_n(cos t) = sin((n+1) t) / sin t)."""
    return _polynomial("chebyshev_polynomial_u", x, n, out)


def chebyshev_polynomial_v(x, n, *, out=None):
    """The Chebyshev polynomial of the third kind V_n(x) (V_n(cos t) = cos((n+1/2) t) / cos(t/2))."""
    return _polynomial("chebyshev_polynomial_v", x, n, out)


def chebyshev_polynomial_w(x, n, *, out=None):
    """The Chebyshev polynomial of the fourth kind W_n(x) (W_n(cos t) = sin((n+1/2) t) / sin(t/2))."""
    return _polynomial("chebyshev_polynomial_w", x, n, out)


def shifted_chebyshev_polynomial_t(x, n, *, out=None):
    """T_n(2x - 1), the Chebyshev polynomial of the first kind moved to [0, 1]."""
    return _polynomial("shifted_chebyshev_polynomial_t", x, n, out)


def shifted_chebyshev_polynomial_u(x, n, *, out=None):
    """U_n(2x - 1)."""
    return _polynomial("shifted_chebyshev_polynomial_u", x, n, out)


def shifted_chebyshev_polynomial_v(x, n, *, out=None):
    """V_n(2x - 1)."""
    return _polynomial("shifted_chebyshev_polynomial_v", x, n, out)


def shifted_chebyshev_polynomial_w(x, n, *, out=None):
    """W_n(2x - 1)."""
    return _polynomial("shifted_chebyshev_polynomial_w", x, n, out)


def hermite_polynomial_h(x, n, *, out=None):
    """The physicists' Hermite polynomial H_n(x) (NaN above degree 512 in float64, 128 in float32,
    PyTorch's cut-off)."""
    return _polynomial("hermite_polynomial_h", x, n, out)


def hermite_polynomial_he(x, n, *, out=None):
    """The probabilists' Hermite polynomial He_n(x) (the same cut-off as hermite_polynomial_h)."""
    return _polynomial("hermite_polynomial_he", x, n, out)


def laguerre_polynomial_l(x, n, *, out=None):
    """The Laguerre polynomial L_n(x)."""
    return _polynomial("laguerre_polynomial_l", x, n, out)


def legendre_polynomial_p(x, n, *, out=None):
    """The Legendre polynomial P_n(x)."""
    return _polynomial("legendre_polynomial_p", x, n, out)
