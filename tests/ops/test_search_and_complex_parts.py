"""searchsorted, isin, signbit and the real/imag/conj accessors, against torch."""

import numpy as np
import pytest

import ember

from ..conftest import assert_close


@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_matches_torch(torch, right):
    boundaries = [[1.0, 3.0, 5.0, 7.0], [0.0, 2.0, 2.0, 9.0]]
    values = [[3.0, 6.0, 0.0], [2.0, 10.0, -1.0]]
    for sequence, queries in ((boundaries[0], values), (boundaries, values)):
        ours = ember.searchsorted(ember.tensor(sequence), ember.tensor(queries), right=right)
        theirs = torch.searchsorted(torch.tensor(sequence), torch.tensor(queries), right=right)
        assert ours.tolist() == theirs.tolist() and ours.dtype is ember.int64


def test_searchsorted_shape_mismatch_raises():
    with pytest.raises(RuntimeError, match="first N-1 dimensions"):
        ember.searchsorted(ember.ones(2, 3), ember.ones(3, 1))


def test_isin_and_signbit_match_torch(torch):
    values = [1, 2, 3, 2]
    assert (
        ember.isin(ember.tensor(values), ember.tensor([2, 5])).tolist()
        == torch.isin(torch.tensor(values), torch.tensor([2, 5])).tolist()
    )
    assert ember.tensor(values).isin(ember.tensor([3]), invert=True).tolist() == [True, True, False, True]
    floats = [-0.0, 0.0, -2.5, 3.0]
    assert ember.signbit(ember.tensor(floats)).tolist() == torch.signbit(torch.tensor(floats)).tolist()


def test_real_imag_conj():
    real = ember.tensor([1.0, -2.0])
    assert real.real is real and real.conj() is real
    with pytest.raises(RuntimeError, match="imag is not implemented"):
        real.imag
    complex_values = ember.tensor(np.array([1 + 2j, 3 - 1j], dtype=np.complex64))
    assert_close(complex_values.real, [1.0, 3.0])
    assert_close(complex_values.imag, [2.0, -1.0])
    assert complex_values.conj().tolist() == [1 - 2j, 3 + 1j]
