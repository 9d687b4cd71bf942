"""Op table: `stft` and `istft` (names start with `spectral_`). They are composites of padding,
framing, the window product, the FFT and overlap-add, differentiable in the signal, the window and
the spectrogram; complex values cross gradcheck as (real, imag) pairs (tests/fft/complex_parts.py).
The NumPy references frame and transform with numpy.fft independently of ember."""

import numpy as np

import ember

from .op_table import OpCase

N_FFT, HOP = 8, 3


def _positive_window(shapes, rng):
    """A signal in [-2, 2] and a window in [0.5, 1.5], so the istft envelope stays away from zero."""
    signal_shape, window_shape = shapes
    return [rng.uniform(-2, 2, size=signal_shape), rng.uniform(0.5, 1.5, size=window_shape)]


def _spectrogram_and_window(shapes, rng):
    real_shape, imag_shape, window_shape = shapes
    parts = [rng.uniform(-1, 1, size=real_shape), rng.uniform(-1, 1, size=imag_shape)]
    return parts + [rng.uniform(0.5, 1.5, size=window_shape)]


def _numpy_stft(x, window, center, normalized):
    if center:
        x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(N_FFT // 2, N_FFT // 2)], mode="reflect")
    count = 1 + (x.shape[-1] - N_FFT) // HOP
    frames = np.stack([x[..., t * HOP : t * HOP + N_FFT] * window for t in range(count)], axis=-2)
    spectrum = np.fft.rfft(frames, axis=-1, norm="ortho" if normalized else "backward")
    spectrum = np.swapaxes(spectrum, -1, -2)
    return np.stack([spectrum.real, spectrum.imag], axis=-1)


def _stft_case(name, center, normalized, shapes):
    def call(library, x, window):
        return library.stft(x, N_FFT, HOP, window=window, center=center, normalized=normalized, return_complex=True)

    return OpCase(
        name,
        lambda x, w: ember.view_as_real(call(ember, x, w)),
        lambda x, w: _numpy_stft(x, w, center, normalized),
        shapes,
        make_inputs=_positive_window,
        torch_fn=lambda torch, x, w: torch.view_as_real(call(torch, x, w)),
    )


def _istft_case(name, length, shapes):
    def call(library, spectrogram, window):
        return library.istft(spectrogram, N_FFT, HOP, window=window, length=length)

    return OpCase(
        name,
        lambda re, im, w: call(ember, ember.complex(re, im), w),
        None,
        shapes,
        make_inputs=_spectrogram_and_window,
        torch_fn=lambda torch, re, im, w: call(torch, torch.complex(re, im), w),
    )


CASES = [
    _stft_case("spectral_stft", True, False, [((20,), (N_FFT,)), ((2, 17), (N_FFT,))]),
    _stft_case("spectral_stft_uncentred_normalized", False, True, [((19,), (N_FFT,))]),
    _istft_case("spectral_istft", None, [((5, 6), (5, 6), (N_FFT,)), ((2, 5, 4), (2, 5, 4), (N_FFT,))]),
    _istft_case("spectral_istft_length", 11, [((5, 6), (5, 6), (N_FFT,))]),
]
