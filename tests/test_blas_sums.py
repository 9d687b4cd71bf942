"""_precision.sum_last / sum_first: the sums inside layer norm, softmax and Linear's bias gradient,
taken as a BLAS product by ones where NumPy's add.reduce pays per row."""

import numpy as np
import pytest

from ember import _precision


@pytest.mark.parametrize(
    "shape, count",
    [((32, 32, 64), 1), ((32, 4, 32, 32), 1), ((64, 3, 5), 2), ((300, 7), 1), ((5, 0, 3), 1), ((8, 4), 1)],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sum_last_matches_add_reduce(shape, count, dtype):
    array = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    expected = np.add.reduce(array.astype(np.float64), axis=tuple(range(-count, 0)), keepdims=True)
    result = _precision.sum_last(array, count)
    assert result.shape == expected.shape and result.dtype == dtype
    np.testing.assert_allclose(result, expected, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5)


@pytest.mark.parametrize("shape, count", [((1024, 64), 1), ((32, 32, 65), 2), ((300, 0), 1), ((128, 512), 1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sum_first_matches_add_reduce(shape, count, dtype):
    array = np.random.default_rng(1).standard_normal(shape).astype(dtype)
    expected = np.add.reduce(array.astype(np.float64), axis=tuple(range(count)))
    result = _precision.sum_first(array, count)
    assert result.shape == expected.shape and result.dtype == dtype
    np.testing.assert_allclose(result, expected, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-4)


def test_blas_sums_keep_numpy_for_what_blas_cannot_take():
    """Non-contiguous, float16 and integer arrays give NumPy's own add.reduce, bit for bit."""
    rng = np.random.default_rng(2)
    strided = rng.standard_normal((512, 64)).astype(np.float32)[:, ::2]
    half = rng.standard_normal((512, 64)).astype(np.float16)
    integers = rng.integers(0, 9, (512, 64))
    for array in (strided, half, integers):
        last = _precision.sum_last(array)
        assert last.tobytes() == np.add.reduce(array, axis=(-1,), keepdims=True).tobytes()
        first = _precision.sum_first(array, 1)
        assert first.tobytes() == np.add.reduce(array, axis=(0,)).tobytes()
