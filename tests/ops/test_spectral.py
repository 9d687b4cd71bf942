"""Window functions and stft/istft against torch: values, dtypes, flags, errors and warnings
(gradients are in the op table, table_spectral.py)."""

import warnings

import numpy as np
import pytest

import ember
from ember.ops import spectral

from ..conftest import assert_close

WINDOWS = [
    ("hann_window", {}),
    ("hamming_window", {}),
    ("hamming_window", {"alpha": 0.5, "beta": 0.4}),
    ("bartlett_window", {}),
    ("blackman_window", {}),
    ("kaiser_window", {}),
    ("kaiser_window", {"beta": 5.0}),
]


@pytest.mark.parametrize("name,extra", WINDOWS)
@pytest.mark.parametrize("length", [0, 1, 2, 5, 8])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows_match_torch(torch, name, extra, length, periodic):
    ours = getattr(ember, name)(length, periodic, **extra)
    theirs = getattr(torch, name)(length, periodic, **extra)
    assert ours.dtype is ember.float32 and list(ours.shape) == list(theirs.shape)
    assert_close(ours, theirs.numpy(), rtol=1e-5, atol=1e-6, what=name)


def test_window_dtype_flags_and_errors(torch):
    window = ember.hann_window(6, dtype=ember.float64, requires_grad=True)
    assert window.dtype is ember.float64 and window.requires_grad and window.is_leaf
    assert_close(window, torch.hann_window(6, dtype=torch.float64).numpy(), rtol=1e-12, atol=1e-12)
    for call in (lambda m: m.hann_window(-1), lambda m: m.blackman_window(4, dtype=m.int64)):
        with pytest.raises(RuntimeError):
            call(torch)
        with pytest.raises(RuntimeError, match="window"):
            call(ember)


@pytest.fixture
def signal():
    return np.random.default_rng(3).standard_normal((2, 64)).astype(np.float32)


STFT_VARIANTS = [
    dict(n_fft=16, window="hann"),
    dict(n_fft=16, hop_length=5, win_length=10, window="hann"),
    dict(n_fft=16, win_length=12),
    dict(n_fft=16, window="hann", center=False),
    dict(n_fft=15, window="hann", normalized=True),
    dict(n_fft=16, window="hann", onesided=False),
    dict(n_fft=16, window="hann", pad_mode="constant"),
    dict(n_fft=16, window="hann", pad_mode="replicate"),
]


def _call_stft(m, x, variant, **extra):
    arguments = dict(variant)
    if arguments.get("window") == "hann":
        arguments["window"] = m.hann_window(arguments.get("win_length", arguments["n_fft"]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the rectangular-window notice; checked below
        return m.stft(x, **arguments, **extra)


@pytest.mark.parametrize("variant", STFT_VARIANTS)
@pytest.mark.parametrize("batched", [True, False])
def test_stft_and_istft_match_torch(torch, signal, variant, batched):
    x = signal if batched else signal[0]
    ours = _call_stft(ember, ember.tensor(x), variant, return_complex=True)
    theirs = _call_stft(torch, torch.tensor(x), variant, return_complex=True)
    assert str(ours.dtype) == str(theirs.dtype) == "torch.complex64"
    assert_close(ours, theirs.numpy(), rtol=1e-4, atol=1e-4, what="stft")
    if variant.get("center", True) and "pad_mode" not in variant:
        inverse = {k: v for k, v in variant.items()}
        ours_back = _call_istft(ember, ember.tensor(theirs.numpy()), inverse)
        theirs_back = _call_istft(torch, theirs, inverse)
        assert_close(ours_back, theirs_back.numpy(), rtol=1e-4, atol=1e-4, what="istft")
        kept = ours_back.shape[-1]
        assert_close(ours_back, x[..., :kept], rtol=1e-4, atol=1e-4, what="istft(stft(x))")


def _call_istft(m, spectrogram, variant, **extra):
    arguments = dict(variant)
    arguments["window"] = (
        m.hann_window(arguments.get("win_length", arguments["n_fft"]))
        if arguments.get("window") == "hann"
        else m.ones(arguments.get("win_length", arguments["n_fft"]))
    )
    return m.istft(spectrogram, **arguments, **extra)


def test_tensor_methods_and_the_legacy_real_output(torch, signal):
    x = ember.tensor(signal[0])
    window = ember.hann_window(16)
    spectrogram = x.stft(16, window=window, return_complex=True)
    assert_close(spectrogram.istft(16, window=window), signal[0], rtol=1e-4, atol=1e-4)
    with pytest.warns(UserWarning, match="return_complex=False is deprecated"):
        legacy = x.stft(16, window=window, return_complex=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = torch.stft(torch.tensor(signal[0]), 16, window=torch.hann_window(16), return_complex=False)
    assert_close(legacy, expected.numpy(), rtol=1e-4, atol=1e-4)


def test_missing_window_warns_once(monkeypatch, signal):
    monkeypatch.setattr(spectral._RectangularWindowNotice, "given", False)
    with pytest.warns(UserWarning, match="A window was not provided"):
        ember.stft(ember.tensor(signal[0]), 16, return_complex=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ember.stft(ember.tensor(signal[0]), 16, return_complex=True)


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x: m.stft(x, 16, window=m.hann_window(16)),
        lambda m, x: m.stft(x, 16, window=m.hann_window(15), return_complex=True),
        lambda m, x: m.stft(x, 16, win_length=20, window=m.hann_window(20), return_complex=True),
        lambda m, x: m.stft(x, 16, hop_length=0, window=m.hann_window(16), return_complex=True),
        lambda m, x: m.stft(x.reshape(2, 2, 32), 16, window=m.hann_window(16), return_complex=True),
        lambda m, x: m.stft(x[0, :10], 32, window=m.hann_window(32), return_complex=True),
        lambda m, x: m.stft(x.to(m.complex64), 16, window=m.hann_window(16), onesided=True, return_complex=True),
        lambda m, x: m.istft(
            m.stft(x, 16, window=m.hann_window(16), return_complex=True, center=False),
            16,
            window=m.hann_window(16),
            center=False,
        ),  # fmt: skip
        lambda m, x: m.istft(x, 16),
    ],
)
def test_errors_match_torch(torch, signal, call):
    with pytest.raises(RuntimeError):
        call(torch, torch.tensor(signal))
    with pytest.raises(RuntimeError):
        call(ember, ember.tensor(signal))


def test_istft_length_pads_with_torch_warning(torch, signal):
    window = ember.hann_window(16)
    spectrogram = ember.stft(ember.tensor(signal[0]), 16, window=window, return_complex=True)
    with pytest.warns(UserWarning, match="shorter than the length parameter"):
        longer = ember.istft(spectrogram, 16, window=window, length=80)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = torch.istft(torch.tensor(spectrogram.numpy()), 16, window=torch.hann_window(16), length=80)
    assert_close(longer, reference.numpy(), rtol=1e-4, atol=1e-4, what="padded istft")
    assert float(longer[72:].abs().sum()) == 0.0
    assert_close(ember.istft(spectrogram, 16, window=window, length=50), signal[0][:50], rtol=1e-4, atol=1e-4)
