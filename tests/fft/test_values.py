"""Values and dtypes of every transform: against numpy.fft (an independent implementation) and
against torch.fft for each norm, padding and trimming by n / s, and dims."""

import itertools

import numpy as np
import pytest

import ember

from ..conftest import assert_close

ONE_DIM = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_DIM = ["fft2", "ifft2", "fftn", "ifftn", "rfft2", "irfft2", "rfftn", "irfftn", "hfft2", "ihfft2", "hfftn", "ihfftn"]
REAL_INPUT_ONLY = {"rfft", "ihfft", "rfft2", "rfftn", "ihfft2", "ihfftn"}
NORMS = [None, "backward", "ortho", "forward"]


def _signal(dtype, shape=(3, 4, 5), seed=0):
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * rng.standard_normal(shape)
    if np.dtype(dtype).kind == "i":
        values = np.round(values * 3)
    return values.astype(dtype)


def _inputs(name):
    dtypes = [np.float32, np.float64, np.int64]
    return dtypes if name in REAL_INPUT_ONLY else dtypes + [np.complex64, np.complex128]


def _assert_matches_torch(torch, call, array):
    expected = call(torch, torch.tensor(array))
    got = call(ember, ember.tensor(array))
    assert str(got.dtype) == str(expected.dtype), f"dtype {got.dtype} vs torch's {expected.dtype}"
    tolerance = 1e-4 if expected.dtype in (torch.float32, torch.complex64) else 1e-10
    assert_close(got, expected.resolve_conj().numpy(), rtol=tolerance, atol=tolerance)


# ---------------------------------------------------------------- against torch
@pytest.mark.parametrize("name", ONE_DIM)
def test_one_dimensional_transforms_match_torch(torch, name):
    """n: as is, trimmed (3), padded (8) and the shortest signal (1); dims 0 and -1; every norm."""
    for dtype in _inputs(name):
        array = _signal(dtype)
        for n, dim, norm in itertools.product([None, 3, 8, 1], [-1, 0], NORMS):
            _assert_matches_torch(torch, lambda lib, x: getattr(lib.fft, name)(x, n=n, dim=dim, norm=norm), array)


@pytest.mark.parametrize("name", N_DIM)
def test_n_dimensional_transforms_match_torch(torch, name):
    """s: trimmed and padded, -1 (keep the size), fewer lengths than dims; dims in any order."""
    for dtype in _inputs(name):
        array = _signal(dtype)
        for s, dim, norm in itertools.product([None, (2, 7), (-1, 3)], [(0, 2), (2, 0), (-2, -1)], NORMS):
            _assert_matches_torch(torch, lambda lib, x: getattr(lib.fft, name)(x, s=s, dim=dim, norm=norm), array)
        _assert_matches_torch(torch, lambda lib, x: getattr(lib.fft, name)(x), array)
        if not name.endswith("2"):  # the 2-d forms transform two dims, so s needs two lengths
            _assert_matches_torch(torch, lambda lib, x: getattr(lib.fft, name)(x, s=(6,)), array)


def test_fftn_over_no_dims_is_a_complex_copy(torch):
    for dtype in (np.float32, np.complex128):
        _assert_matches_torch(torch, lambda lib, x: lib.fft.fftn(x, dim=()), _signal(dtype))
    _assert_matches_torch(torch, lambda lib, x: lib.fft.fftn(x), np.array(2.5, dtype=np.float32))


# ---------------------------------------------------------------- against numpy.fft
@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_values_match_numpy(norm):
    real, spectrum = _signal(np.float64, (4, 6)), _signal(np.complex128, (4, 6), seed=1)
    F = ember.fft
    checks = [
        (F.fft(ember.tensor(spectrum), n=9, dim=0, norm=norm), np.fft.fft(spectrum, n=9, axis=0, norm=norm)),
        (F.ifft(ember.tensor(real), n=4, norm=norm), np.fft.ifft(real, n=4, norm=norm)),
        (F.fft2(ember.tensor(spectrum), s=(3, 8), norm=norm), np.fft.fft2(spectrum, s=(3, 8), norm=norm)),
        (F.ifftn(ember.tensor(spectrum), norm=norm), np.fft.ifftn(spectrum, norm=norm)),
        (F.rfft(ember.tensor(real), n=7, norm=norm), np.fft.rfft(real, n=7, norm=norm)),
        (F.irfft(ember.tensor(spectrum), n=11, norm=norm), np.fft.irfft(spectrum, n=11, norm=norm)),
        (F.irfft(ember.tensor(spectrum), n=4, dim=0, norm=norm), np.fft.irfft(spectrum, n=4, axis=0, norm=norm)),
        (
            F.rfftn(ember.tensor(real), s=(5, 3), dim=(1, 0), norm=norm),
            np.fft.rfftn(real, s=(5, 3), axes=(1, 0), norm=norm),
        ),
        (
            F.irfftn(ember.tensor(spectrum), s=(4, 9), norm=norm),
            np.fft.irfftn(spectrum, s=(4, 9), axes=(0, 1), norm=norm),
        ),
        (F.hfft(ember.tensor(spectrum), n=9, norm=norm), np.fft.hfft(spectrum, n=9, norm=norm)),
        (F.ihfft(ember.tensor(real), n=5, dim=0, norm=norm), np.fft.ihfft(real, n=5, axis=0, norm=norm)),
    ]
    for index, (got, expected) in enumerate(checks):
        assert got.dtype is (ember.complex128 if np.iscomplexobj(expected) else ember.float64)
        assert_close(got, expected, rtol=1e-10, atol=1e-10, what=f"check {index}")


def test_hermitian_pairs_invert_each_other():
    signal = ember.tensor(_signal(np.float64, (3, 8)))
    F = ember.fft
    for norm in ("backward", "ortho", "forward"):
        assert_close(F.irfft(F.rfft(signal, norm=norm), n=8, norm=norm), signal, rtol=1e-12, atol=1e-12)
        assert_close(F.hfft(F.ihfft(signal, norm=norm), n=8, norm=norm), signal, rtol=1e-12, atol=1e-12)
        assert_close(F.irfftn(F.rfftn(signal, norm=norm), s=(3, 8), norm=norm), signal, rtol=1e-12, atol=1e-12)
        assert_close(F.hfftn(F.ihfftn(signal, norm=norm), s=(3, 8), norm=norm), signal, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- dtypes
def test_dtypes_follow_torch():
    F = ember.fft
    assert F.fft(ember.ones(4)).dtype is ember.complex64
    assert F.fft(ember.ones(4, dtype=ember.float64)).dtype is ember.complex128
    assert F.fft(ember.arange(4)).dtype is ember.complex64  # integers: the default float's complex
    assert F.rfft(ember.tensor([True, False, True])).dtype is ember.complex64
    assert F.irfft(ember.ones(4, dtype=ember.complex64)).dtype is ember.float32
    assert F.irfft(ember.ones(4, dtype=ember.float64)).dtype is ember.float64  # real input read as a spectrum
    assert F.hfft(ember.ones(3, dtype=ember.complex128)).dtype is ember.float64
    assert F.ihfft(ember.ones(4)).dtype is ember.complex64


def test_integer_input_uses_the_default_dtype():
    previous = ember.get_default_dtype()
    ember.set_default_dtype(ember.float64)
    try:
        assert ember.fft.fft(ember.arange(4)).dtype is ember.complex128
        assert ember.fft.irfft(ember.arange(4)).dtype is ember.float64
    finally:
        ember.set_default_dtype(previous)
