"""fftfreq, rfftfreq, fftshift and ifftshift against numpy.fft and torch.fft."""

import numpy as np
import pytest

import ember

from ..conftest import assert_close
from ..ops.differential import assert_same, raises_like


@pytest.mark.parametrize("n", [1, 2, 5, 8])
@pytest.mark.parametrize("d", [1.0, 0.1, 3])
def test_frequencies_match_numpy_and_torch(torch, n, d):
    assert_close(ember.fft.fftfreq(n, d), np.fft.fftfreq(n, d), rtol=1e-6)
    assert_close(ember.fft.rfftfreq(n, d), np.fft.rfftfreq(n, d), rtol=1e-6)
    assert_same(lambda lib: lib.fft.fftfreq(n, d), torch)
    assert_same(lambda lib: lib.fft.rfftfreq(n, d=d, dtype=lib.float64), torch)


def test_frequency_options(torch):
    assert_same(lambda lib: lib.fft.fftfreq(0), torch)
    assert_same(lambda lib: lib.fft.fftfreq(4, requires_grad=True), torch, grad_fn=False)
    out = ember.empty(2)
    assert ember.fft.rfftfreq(4, out=out) is out
    assert_close(out, [0.0, 0.25, 0.5])
    raises_like(lambda lib: lib.fft.fftfreq(4, dtype=lib.int64), torch, match="floating point")
    raises_like(lambda lib: lib.fft.fftfreq(-1), torch, match="negative dimension")
    raises_like(lambda lib: lib.fft.fftfreq(4, dtype=lib.complex64), torch)


@pytest.mark.parametrize("shape", [(5,), (4,), (3, 4), (2, 3, 5)])
def test_shifts_match_numpy_and_torch(torch, shape):
    array = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    dims = [None, 0, -1, (0, -1)] if len(shape) > 1 else [None, 0]
    for dim in dims:
        assert_close(ember.fft.fftshift(ember.tensor(array), dim), np.fft.fftshift(array, dim))
        assert_close(ember.fft.ifftshift(ember.tensor(array), dim), np.fft.ifftshift(array, dim))
        assert_same(lambda lib: lib.fft.fftshift(lib.tensor(array, requires_grad=True), dim=dim), torch)
        assert_same(lambda lib: lib.fft.ifftshift(lib.tensor(array, requires_grad=True), dim=dim), torch)


def test_shifts_invert_each_other_and_are_differentiable():
    x = ember.randn(3, 5, dtype=ember.float64, requires_grad=True)
    assert_close(ember.fft.ifftshift(ember.fft.fftshift(x)), x)
    assert ember.autograd.gradcheck(lambda x: ember.fft.fftshift(x, dim=1), [x])
    assert ember.autograd.gradgradcheck(lambda x: ember.fft.ifftshift(x), [x])


def test_shift_errors(torch):
    raises_like(lambda lib: lib.fft.fftshift(lib.tensor(1.0)), torch, match="`shifts` required")
    raises_like(lambda lib: lib.fft.ifftshift(lib.ones(2, 3), dim=2), torch, match="Dimension out of range")
