"""Short-time Fourier analysis: the window functions and `stft` / `istft`.

The windows are creation ops (no gradient flows into them; `requires_grad=True` makes a leaf).
`stft` and `istft` are composites of differentiable ops — padding, framing (`unfold`), the
window product, `ember.fft`'s transforms and overlap-add (`fold`) — so they differentiate with
respect to the signal, the window and the spectrogram, to any order, as PyTorch's do.
"""

import math

from .._backend import np
from .. import _dtype, _global_settings
from .._validation import int_argument
from ._declare import op
from .creation import _finish, _float_dtype
from .._warn import warn as _warn

__all__ = ["hann_window", "hamming_window", "bartlett_window", "blackman_window", "kaiser_window", "stft", "istft"]


# ================================================================ windows
def _window(op_name, window_length, periodic, dtype, requires_grad, device, shape):
    """A window of `window_length` points from `shape(n, denominator)` evaluated in float64, where
    n = 0 .. length-1 and the denominator is N-1 of the symmetric window (N for a periodic one)."""
    window_length = int_argument(window_length, op_name, "window_length")
    if window_length < 0:
        raise RuntimeError(f"{op_name} requires non-negative window_length, got window_length={window_length}")
    if dtype is not None and not _dtype.to_dtype(dtype).is_floating_point:
        raise RuntimeError(f"{op_name} expects floating point dtypes, got: {_dtype.to_dtype(dtype)}")
    numpy_dtype = _float_dtype(dtype)
    if window_length <= 1:
        return _finish(np.ones(window_length, dtype=numpy_dtype), requires_grad, device)
    denominator = window_length if periodic else window_length - 1
    values = shape(np.arange(window_length, dtype=np.float64), denominator)
    return _finish(values.astype(numpy_dtype), requires_grad, device)


@op()
def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """0.5 - 0.5 cos(2 pi n / N): the raised cosine. `periodic=True` (the default) gives the window
    for spectral analysis (one point of the N+1 symmetric window dropped)."""
    return _window(
        "hann_window",
        window_length,
        periodic,
        dtype,
        requires_grad,
        device,
        lambda n, d: 0.5 - 0.5 * np.cos(2 * math.pi * n / d),
    )


@op()
def hamming_window(
    window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None, requires_grad=False
):
    """alpha - beta cos(2 pi n / N) (the Hamming window for the defaults)."""
    return _window(
        "hamming_window",
        window_length,
        periodic,
        dtype,
        requires_grad,
        device,
        lambda n, d: alpha - beta * np.cos(2 * math.pi * n / d),
    )


@op()
def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N)."""
    return _window(
        "blackman_window",
        window_length,
        periodic,
        dtype,
        requires_grad,
        device,
        lambda n, d: 0.42 - 0.5 * np.cos(2 * math.pi * n / d) + 0.08 * np.cos(4 * math.pi * n / d),
    )


@op()
def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, requires_grad=False):
    """1 - |2n / N - 1|: the triangle."""
    return _window(
        "bartlett_window", window_length, periodic, dtype, requires_grad, device, lambda n, d: 1 - np.abs(2 * n / d - 1)
    )


@op()
def kaiser_window(
    window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None, requires_grad=False
):
    """I0(beta sqrt(1 - (2n / N - 1)^2)) / I0(beta), with I0 the modified Bessel function of order 0."""
    return _window(
        "kaiser_window",
        window_length,
        periodic,
        dtype,
        requires_grad,
        device,
        lambda n, d: np.i0(beta * np.sqrt(np.clip(1 - (2 * n / d - 1) ** 2, 0, None))) / np.i0(beta),
    )


# ================================================================ stft / istft
class _RectangularWindowNotice:
    given = False


def _warn_rectangular_window():
    if _RectangularWindowNotice.given and not _global_settings.settings.warn_always:
        return
    _RectangularWindowNotice.given = True
    _warn(
        "A window was not provided. A rectangular window will be applied,which is known to cause spectral "
        "leakage. Other windows such as torch.hann_window or torch.hamming_window are recommended to reduce "
        "spectral leakage.To suppress this warning and use a rectangular window, explicitly set "
        "`window=torch.ones(n_fft, device=<device>)`.",
        UserWarning,
        stacklevel=3,
    )


def _frame_arguments(op_name, n_fft, hop_length, win_length, window, signal_dtype):
    """Checked (hop_length, win_length) and the window padded to n_fft (or None: rectangular)."""
    n_fft = int_argument(n_fft, op_name, "n_fft")
    hop_length = n_fft // 4 if hop_length is None else int_argument(hop_length, op_name, "hop_length")
    win_length = n_fft if win_length is None else int_argument(win_length, op_name, "win_length")
    if n_fft <= 0:
        raise RuntimeError(f"{op_name}: expected 0 < n_fft, but got n_fft={n_fft}")
    if hop_length <= 0:
        raise RuntimeError(f"{op_name}: expected hop_length > 0, but got hop_length={hop_length}")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"{op_name}: expected 0 < win_length <= n_fft, but got win_length={win_length}")
    if window is not None:
        if window.dim() != 1 or window.shape[0] != win_length:
            raise RuntimeError(
                f"{op_name}: expected a 1D window tensor of size equal to win_length={win_length}, but got window "
                f"with size {list(window.shape)}"
            )
        if win_length < n_fft:
            from ..nn.functional import pad

            left = (n_fft - win_length) // 2
            window = pad(window, (left, n_fft - win_length - left))
    elif win_length < n_fft:
        from . import ones, zeros

        left = (n_fft - win_length) // 2
        window = zeros(n_fft, dtype=signal_dtype)
        window[left : left + win_length] = ones(win_length, dtype=signal_dtype)
    return n_fft, hop_length, win_length, window


@op(method=True)
def stft(
    input,
    n_fft,
    hop_length=None,
    win_length=None,
    window=None,
    center=True,
    pad_mode="reflect",
    normalized=False,
    onesided=None,
    return_complex=None,
    align_to_window=None,
):
    """Short-time Fourier transform of a signal (L,) or a batch (B, L).

    Frames of `n_fft` samples, `hop_length` apart (default n_fft // 4), are multiplied by `window`
    (length `win_length`, default n_fft, centred in n_fft; None: rectangular, with PyTorch's warning)
    and transformed. `center=True` pads the signal by n_fft // 2 on both sides with `pad_mode`
    ("reflect", "constant", "replicate", "circular") so frame t is centred at t * hop_length.
    `normalized` scales by n_fft ** -0.5; `onesided` (default True for real input and window) keeps
    the n_fft // 2 + 1 non-negative frequencies. Returns complex (B?, freqs, frames);
    `return_complex` must be given for real input, as in PyTorch (False is deprecated and returns
    the real and imaginary parts in a last dim of 2).
    """
    from .. import fft
    from ..nn.functional import pad

    complex_input = input.is_complex() or (window is not None and window.is_complex())
    if return_complex is None:
        if not complex_input:
            raise RuntimeError(
                "stft requires the return_complex parameter be given for real inputs, and will further require that "
                "return_complex=True in a future PyTorch release."
            )
        return_complex = True
    if not return_complex:
        _warn(
            "stft with return_complex=False is deprecated. In a future pytorch release, stft will return complex "
            "tensors for all inputs, and return_complex=False will raise an error.\nNote: you can still call "
            "torch.view_as_real on the complex output to recover the old return format.",
            UserWarning,
            stacklevel=2,
        )
    if align_to_window is not None and center:
        raise ValueError("stft align_to_window should only be set when center = false")
    if input.dim() not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, got input of shape {list(input.shape)}")
    if window is None:
        _warn_rectangular_window()
    n_fft, hop_length, _, window = _frame_arguments("stft", n_fft, hop_length, win_length, window, input.dtype)
    batched = input.dim() == 2
    signal = input if batched else input.unsqueeze(0)
    if center:
        half = n_fft // 2
        signal = pad(signal.unsqueeze(1), (half, half), mode=pad_mode).squeeze(1)
    elif align_to_window:
        signal = signal[:, (n_fft - (win_length or n_fft)) // 2 :]
    length = signal.shape[-1]
    if not 0 < n_fft <= length:
        raise RuntimeError(f"stft: expected 0 < n_fft <= {length} (the padded signal's length), but got n_fft={n_fft}")
    frames = signal.unfold(-1, n_fft, hop_length)  # (B, frames, n_fft)
    if window is not None:
        frames = frames * window
    if onesided is None:
        onesided = not complex_input
    elif onesided and complex_input:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    norm = "ortho" if normalized else "backward"
    spectrum = fft.rfft(frames, dim=-1, norm=norm) if onesided else fft.fft(frames, dim=-1, norm=norm)
    spectrum = spectrum.transpose(-1, -2)
    if not batched:
        spectrum = spectrum.squeeze(0)
    if return_complex:
        return spectrum
    from .complex_numbers import view_as_real

    return view_as_real(spectrum)


@op(method=True)
def istft(
    input,
    n_fft,
    hop_length=None,
    win_length=None,
    window=None,
    center=True,
    normalized=False,
    onesided=None,
    length=None,
    return_complex=False,
):
    """Inverse of `stft` (least-squares overlap-add): complex (B?, freqs, frames) back to (B?, L).

    The arguments mean what they mean for `stft`; `onesided` defaults to True when the input has
    n_fft // 2 + 1 frequencies. `length` trims or zero-pads the result. RuntimeError when the
    window's squared overlap-add vanishes somewhere (the NOLA condition), as PyTorch's.
    """
    from .. import fft
    from ..nn.functional import fold, pad

    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor")
    if input.dim() not in (2, 3):
        raise RuntimeError(f"istft: expected a tensor with 2 or 3 dimensions of complex, got {input.dim()}")
    n_fft, hop_length, _, window = _frame_arguments("istft", n_fft, hop_length, win_length, window, input.real.dtype)
    batched = input.dim() == 3
    spectrum = input if batched else input.unsqueeze(0)
    frequencies, count = spectrum.shape[-2], spectrum.shape[-1]
    if onesided is None:
        onesided = frequencies != n_fft
    expected = n_fft // 2 + 1 if onesided else n_fft
    if frequencies != expected:
        raise RuntimeError(
            f"istft: expected the frequency dimension (dim -2) of input to equal {expected} "
            f"(onesided={onesided}, n_fft={n_fft}), got {frequencies}"
        )
    norm = "ortho" if normalized else "backward"
    spectrum = spectrum.transpose(-1, -2)  # (B, frames, freqs)
    if onesided:
        if return_complex:
            raise RuntimeError("cannot have onesided output if window or input is complex")
        frames = fft.irfft(spectrum, n=n_fft, dim=-1, norm=norm)
    else:
        frames = fft.ifft(spectrum, n=n_fft, dim=-1, norm=norm)
        if not return_complex:
            frames = frames.real
    from . import ones

    window = ones(n_fft, dtype=frames.real.dtype if frames.is_complex() else frames.dtype) if window is None else window
    frames = frames * window
    total = n_fft + hop_length * (count - 1)
    signal = fold(frames.transpose(1, 2), output_size=(1, total), kernel_size=(1, n_fft), stride=(1, hop_length))
    signal = signal.reshape(signal.shape[0], total)
    squared = (window * window).reshape(1, n_fft, 1).expand(1, n_fft, count)
    envelope = fold(squared, output_size=(1, total), kernel_size=(1, n_fft), stride=(1, hop_length)).reshape(total)
    start = n_fft // 2 if center else 0
    end = total - n_fft // 2 if center else total
    if length is not None:
        end = start + length
    kept = envelope[start:end]
    if kept.numel() and float(kept.abs().min()) < 1e-11:
        raise RuntimeError(f"istft: window overlap add min: {float(kept.abs().min()):.3g} (the NOLA condition fails)")
    available = min(end, total)
    signal = signal[:, start:available] / envelope[start:available]
    if length is not None and length > signal.shape[-1]:
        _warn(
            "The length of signal is shorter than the length parameter. Result is being padded with zeros in the "
            "tail. Please check your center and hop_length settings.",
            UserWarning,
            stacklevel=2,
        )
        signal = pad(signal, (0, length - signal.shape[-1]))
    return signal if batched else signal.squeeze(0)
