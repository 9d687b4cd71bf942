"""The three discrete Fourier transform primitives, named as PyTorch names their graph nodes:

    FftC2C   complex -> complex   fft, ifft, fftn, ... of complex input
    FftR2C   real -> complex      rfft, ihfft (one-sided: the halved spectrum) and fft of real input
    FftC2R   complex -> real      irfft, hfft (from a halved, Hermitian spectrum)

Each takes `dims` (transformed in that order; the last one is the halved dim of the one-sided
transforms), `forward` (the sign of the exponent: True for exp(-2 pi i jk / n), as `fft`, False for
exp(+2 pi i jk / n), as `ifft`) and `norm`, PyTorch's mode for that direction: a forward-signed
transform scales by 1, 1/sqrt(n), 1/n for "backward", "ortho", "forward", an inverse-signed one by
1/n, 1/sqrt(n), 1 (NumPy's meaning too, so NumPy computes the kernels).

The transforms are linear, so the tangent rule is the transform of the tangent, and the gradient is
the adjoint transform: the opposite sign with the same scale (`_ADJOINT_NORM`). Gradients follow
PyTorch's convention for complex numbers: for a real loss L and complex z the gradient is
dL/d(re z) + i dL/d(im z), so the adjoint of a complex-linear map A is its conjugate transpose A^H,
and a real input receives the real part of A^H g. The one-sided transforms need a weight on the
halved spectrum, explained at `_interior_weights`.
"""

from .._backend import np
from .._tensor import new_tensor
from .. import _dtype
from ..autograd.function import Primitive
from ..ops._tangents import linear_jvp
from ..ops.conversion import ToCopy

__all__ = ["FftC2C", "FftR2C", "FftC2R"]

# The scale of the adjoint's mode: the opposite sign with the same factor.
_ADJOINT_NORM = {"backward": "forward", "ortho": "ortho", "forward": "backward"}


def _forward_signed(x, dims, forward, norm, full_transform):
    """`full_transform(x)` (NumPy's fftn / rfftn) for either sign: for real x, the inverse-signed
    transform is the conjugate of the forward-signed one, scaled as the adjoint mode scales."""
    if forward:
        return full_transform(x, axes=dims, norm=norm)
    return np.conj(full_transform(x, axes=dims, norm=_ADJOINT_NORM[norm]))


def _interior_weights(grad, dims, signal_size, value):
    """A real tensor that multiplies the interior bins of the halved dim `dims[-1]` by `value`.

    The one-sided spectrum of a signal of length n holds bins 0 .. n//2; every bin but 0 and (for even n)
    n/2 stands for itself and its mirror image n - k. So irfft counts the interior bins twice, and
    the adjoint of irfft is 2 * rfft on them (value 2); the adjoint of rfft is irfft with the
    interior bins halved (value 0.5), because irfft would otherwise count them twice.
    """
    size = signal_size // 2 + 1
    weights = np.full(size, value, dtype=grad._data.real.dtype)
    weights[0] = 1
    if signal_size % 2 == 0:
        weights[-1] = 1
    dim = dims[-1]
    return new_tensor(weights.reshape((size,) + (1,) * (grad._data.ndim - dim - 1)))


class FftC2C(Primitive, node="FftC2CBackward0"):
    """The complex transform over `dims`; its adjoint is the opposite-signed transform."""

    @staticmethod
    def forward(ctx, x, dims, forward, norm):
        ctx.dims, ctx.forward, ctx.norm = dims, forward, norm
        if not dims:
            return x.copy()
        transform = np.fft.fftn if forward else np.fft.ifftn
        return transform(x, axes=dims, norm=norm)

    @staticmethod
    def backward(ctx, grad):
        return FftC2C.apply(grad, ctx.dims, not ctx.forward, _ADJOINT_NORM[ctx.norm]), None, None, None

    jvp = linear_jvp


class FftR2C(Primitive, node="FftR2CBackward0"):
    """The transform of a real tensor: the halved spectrum along `dims[-1]` when `onesided` (rfft,
    ihfft), else the whole spectrum (fft and ifft of a real tensor)."""

    @staticmethod
    def forward(ctx, x, dims, forward, norm, onesided):
        ctx.dims, ctx.forward, ctx.norm, ctx.onesided = dims, forward, norm, onesided
        ctx.signal_size = x.shape[dims[-1]] if dims else 1
        ctx.real_dtype = _dtype.from_numpy_dtype(x.dtype)
        if not dims:
            return x.astype(np.result_type(x.dtype, np.complex64))
        return _forward_signed(x, dims, forward, norm, np.fft.rfftn if onesided else np.fft.fftn)

    @staticmethod
    def backward(ctx, grad):
        dims, forward, adjoint = ctx.dims, ctx.forward, _ADJOINT_NORM[ctx.norm]
        if ctx.onesided:
            weighted = grad * _interior_weights(grad, dims, ctx.signal_size, 0.5)
            return FftC2R.apply(weighted, dims, not forward, adjoint, ctx.signal_size), None, None, None, None
        # The real part of the adjoint: a real input's gradient (PyTorch's convention).
        return (
            ToCopy.apply(FftC2C.apply(grad, dims, not forward, adjoint), ctx.real_dtype.numpy_dtype),
            None,
            None,
            None,
            None,
        )

    jvp = linear_jvp


class FftC2R(Primitive, node="FftC2RBackward0"):
    """The real signal of length `signal_size` along `dims[-1]` whose halved spectrum is x (complex
    transforms over the other dims first). As NumPy and PyTorch, the imaginary parts of bin 0 and of
    bin n/2 (n even) along the halved dim are ignored: they have no Hermitian counterpart."""

    @staticmethod
    def forward(ctx, x, dims, forward, norm, signal_size):
        ctx.dims, ctx.forward, ctx.norm, ctx.signal_size = dims, forward, norm, signal_size
        sizes = tuple(x.shape[dim] for dim in dims[:-1]) + (signal_size,)
        if forward:  # hfft: irfft of the conjugate, scaled as a forward transform
            return np.fft.irfftn(np.conj(x), s=sizes, axes=dims, norm=_ADJOINT_NORM[norm])
        return np.fft.irfftn(x, s=sizes, axes=dims, norm=norm)

    @staticmethod
    def backward(ctx, grad):
        spectrum = FftR2C.apply(grad, ctx.dims, not ctx.forward, _ADJOINT_NORM[ctx.norm], True)
        return spectrum * _interior_weights(spectrum, ctx.dims, ctx.signal_size, 2.0), None, None, None, None

    jvp = linear_jvp
