"""torch.signal.windows: SciPy's window functions, `w = windows.hann(M, sym=False)`.

Unlike `ember.hann_window(N, periodic)`, these follow SciPy's conventions: keyword-only options and
`sym=True` by default (the symmetric window of filter design; `sym=False` gives the periodic window
of spectral analysis, the symmetric window of M + 1 points with its last point dropped).

Each window is evaluated in float64 and then rounded to the requested dtype, so float32 windows
are the correctly rounded values. Difference from PyTorch: with `requires_grad=True` the window
is a leaf (PyTorch returns the result of the ops that built it, so `.grad` stays empty).
"""

import math
from collections.abc import Iterable

from .._backend import np
from .. import _dtype, _layout
from ..ops.creation import _finish

__all__ = [
    "bartlett",
    "blackman",
    "cosine",
    "exponential",
    "gaussian",
    "general_cosine",
    "general_hamming",
    "hamming",
    "hann",
    "kaiser",
    "nuttall",
]


def _window(name, M, sym, dtype, layout, device, requires_grad, values, centred=True):
    """The checks every window shares, then `values(n, M_eff)` on n = 0 .. M-1 in float64, where
    M_eff is the length of the symmetric window this one is cut from (M, or M + 1 when periodic).
    A one-point window centred on its point is 1."""
    dtype = _dtype.get_default_dtype() if dtype is None else _dtype.to_dtype(dtype)
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not None and layout is not _layout.strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (_dtype.float32, _dtype.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    if M == 0 or (M == 1 and centred):
        return _finish(np.ones(M, dtype=dtype.numpy_dtype), requires_grad, device)
    full_length = M if sym else M + 1
    window = values(np.arange(M, dtype=np.float64), full_length)
    return _finish(window.astype(dtype.numpy_dtype), requires_grad, device)


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """exp(-|n - center| / tau), the Poisson window; `center` defaults to the middle, (M - 1) / 2
    (M / 2 when periodic), and may only be given for a periodic window (`sym=False`)."""
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")

    def values(n, full_length):
        middle = (full_length - 1) / 2.0 if center is None else center
        return np.exp(-np.abs(n - middle) / tau)

    return _window("exponential", M, sym, dtype, layout, device, requires_grad, values, centred=center is None)


def cosine(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """sin(pi (n + 1/2) / M), the sine window."""
    return _window(
        "cosine", M, sym, dtype, layout, device, requires_grad, lambda n, full: np.sin(math.pi * (n + 0.5) / full)
    )


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """exp(-(n - (M - 1)/2)^2 / (2 std^2)); `std` in samples."""
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    return _window(
        "gaussian",
        M,
        sym,
        dtype,
        layout,
        device,
        requires_grad,
        lambda n, full: np.exp(-((n - (full - 1) / 2.0) ** 2) / (2.0 * std * std)),
    )


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """I0(beta sqrt(1 - (2n / (M - 1) - 1)^2)) / I0(beta); larger `beta` narrows the main lobe's
    neighbours (beta = 0 is the rectangle)."""
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")

    def values(n, full_length):
        ratio = np.clip(2.0 * n / (full_length - 1) - 1.0, -1.0, 1.0)
        return np.i0(beta * np.sqrt(1.0 - ratio * ratio)) / np.i0(beta)

    return _window("kaiser", M, sym, dtype, layout, device, requires_grad, values)


def bartlett(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """1 - |2n / (M - 1) - 1|: the triangle that reaches zero at both ends."""
    return _window(
        "bartlett",
        M,
        sym,
        dtype,
        layout,
        device,
        requires_grad,
        lambda n, full: 1.0 - np.abs(2.0 * n / (full - 1) - 1.0),
    )


def general_cosine(M, *, a, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """sum_i (-1)^i a[i] cos(2 pi i n / (M - 1)): the family of Hann, Hamming, Blackman, Nuttall."""
    return _cosine_sum("general_cosine", M, a, sym, dtype, layout, device, requires_grad)


def _cosine_sum(name, M, a, sym, dtype, layout, device, requires_grad):
    if not isinstance(a, Iterable):
        raise TypeError(f"{name}: coefficients `a` must be a list/tuple, got {type(a).__name__}")
    coefficients = [float(weight) for weight in a]
    if not coefficients and M > 1:
        raise ValueError(f"{name}: coefficients `a` cannot be empty")

    def values(n, full_length):
        phase = 2.0 * math.pi * n / (full_length - 1)
        return sum((-1) ** i * weight * np.cos(i * phase) for i, weight in enumerate(coefficients))

    return _window(name, M, sym, dtype, layout, device, requires_grad, values)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """alpha - (1 - alpha) cos(2 pi n / (M - 1)); alpha = 0.5 is Hann, 0.54 Hamming."""
    return general_cosine(
        M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad
    )


def hamming(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The Hamming window, `general_hamming` with alpha = 0.54."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The Hann window, `general_hamming` with alpha = 0.5 (zero at both ends when symmetric)."""
    return general_hamming(
        M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad
    )


def blackman(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The Blackman window, `general_cosine` with a = [0.42, 0.5, 0.08]."""
    return _cosine_sum("blackman", M, [0.42, 0.5, 0.08], sym, dtype, layout, device, requires_grad)


def nuttall(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The minimum 4-term Blackman-Harris window of Nuttall, `general_cosine` with its four coefficients."""
    return general_cosine(
        M,
        a=[0.3635819, 0.4891775, 0.1365995, 0.0106411],
        sym=sym,
        dtype=dtype,
        layout=layout,
        device=device,
        requires_grad=requires_grad,
    )
