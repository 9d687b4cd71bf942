"""ember.fft as a namespace: lazy import, torch.fft under ember.compat, graph nodes, out=."""

import subprocess
import sys

import numpy as np
import pytest

import ember

from ..conftest import assert_close
from ..ops.differential import assert_same


def test_torch_fft_is_ember_fft_under_compat():
    code = (
        "import ember.compat; ember.compat.install(); import torch, torch.fft; import ember.fft; "
        "from torch.fft import rfft; assert rfft is ember.fft.rfft; assert torch.fft.fft is ember.fft.fft; "
        "x = torch.arange(4.0); print(torch.fft.irfft(torch.fft.rfft(x), n=4).tolist())"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[0.0, 1.0, 2.0, 3.0]"


def test_ember_fft_is_imported_on_first_use():
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, ember; assert 'ember.fft' not in sys.modules; "
            "ember.fft.fft; assert 'ember.fft' in sys.modules",
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, x, z: lib.fft.fft(z),
        lambda lib, x, z: lib.fft.fft(x),
        lambda lib, x, z: lib.fft.fft(x, n=12),
        lambda lib, x, z: lib.fft.rfft(x, n=5),
        lambda lib, x, z: lib.fft.irfft(z),
        lambda lib, x, z: lib.fft.irfft(z, n=20),
        lambda lib, x, z: lib.fft.ifftn(z, norm="ortho"),
        lambda lib, x, z: lib.fft.rfft2(x.reshape(2, 4)),
        lambda lib, x, z: lib.fft.hfftn(z.reshape(2, 4)),
        lambda lib, x, z: lib.fft.fftshift(z),
    ],
    ids=[
        "fft-complex",
        "fft-real",
        "fft-pad",
        "rfft-trim",
        "irfft",
        "irfft-pad",
        "ifftn",
        "rfft2",
        "hfftn",
        "fftshift",
    ],
)
def test_nodes_values_and_dtypes_match_torch(torch, call):
    """grad_fn names as torch's (ifft and ihfft of real input differ: torch adds a ConjBackward0)."""
    rng = np.random.default_rng(0)
    real, spectrum = rng.standard_normal(8), rng.standard_normal(8) + 1j * rng.standard_normal(8)
    assert_same(
        lambda lib: call(lib, lib.tensor(real, requires_grad=True), lib.tensor(spectrum, requires_grad=True)),
        torch,
        atol=1e-10,
    )


def test_out_writes_the_result(torch):
    x = np.random.default_rng(1).standard_normal((3, 4))
    for name in ("fft", "rfft", "irfft", "fftn", "ihfft2"):
        expected = getattr(torch.fft, name)(torch.tensor(x))
        out = ember.empty(0, dtype=ember.complex128 if expected.is_complex() else ember.float64)
        result = getattr(ember.fft, name)(ember.tensor(x), out=out)
        assert result is out and out.shape == tuple(expected.shape)
        assert_close(out, expected.numpy(), rtol=1e-10, atol=1e-10)
