"""ember.fft: PyTorch's `torch.fft` — discrete Fourier transforms and their helpers.

    import ember.fft
    spectrum = ember.fft.rfft(signal)                   # float32 -> complex64
    signal = ember.fft.irfft(spectrum, n=signal.shape[-1])
    ember.fft.fftn(x, s=(64, 64), dim=(-2, -1), norm="ortho")

Every transform is differentiable (backward and forward mode, to any order), with gradients for
complex tensors in PyTorch's convention (dL/d(re z) + i dL/d(im z) for a real loss L). The
transforms are declared ops (rows "fft.<name>" in docs/ops.md) built on three primitives,
FftC2C, FftR2C and FftC2R (`_primitives.py`). Differences from PyTorch: none known in values,
dtypes or signatures; the graph of `ifft` and `ihfft` of real input has one FftR2CBackward0 node
where PyTorch adds a ConjBackward0.
"""

from ._transforms import (
    fft,
    ifft,
    fft2,
    ifft2,
    fftn,
    ifftn,
    rfft,
    irfft,
    rfft2,
    irfft2,
    rfftn,
    irfftn,
    hfft,
    ihfft,
    hfft2,
    ihfft2,
    hfftn,
    ihfftn,
)
from ._spectrum_layout import fftfreq, rfftfreq, fftshift, ifftshift

__all__ = [
    "fft",
    "ifft",
    "fft2",
    "ifft2",
    "fftn",
    "ifftn",
    "rfft",
    "irfft",
    "rfft2",
    "irfft2",
    "rfftn",
    "irfftn",
    "hfft",
    "ihfft",
    "hfft2",
    "ihfft2",
    "hfftn",
    "ihfftn",
    "fftfreq",
    "rfftfreq",
    "fftshift",
    "ifftshift",
]


# Public names offer their calls to the arguments' __torch_function__ (see ember._torch_function).
from .. import _torch_function  # noqa: E402

_torch_function.publish(globals(), __all__, "ember.fft")
