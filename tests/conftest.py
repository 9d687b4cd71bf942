"""Shared fixtures. `torch` is the oracle of the differential tests: they skip when it is missing."""

import numpy as np
import pytest

import ember


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _seeded():
    ember.manual_seed(0)
    np.random.seed(0)
    yield


def assert_close(actual, expected, rtol=1e-5, atol=1e-6, what="values"):
    """Compare tensors/arrays, showing the elements that differ most when they do not match."""
    actual = np.asarray(actual.detach().numpy() if isinstance(actual, ember.Tensor) else actual)
    expected = np.asarray(expected.detach().numpy() if hasattr(expected, "detach") else expected)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != expected {expected.shape}"
    if not np.allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True):
        difference = np.abs(actual.astype(np.float64) - expected.astype(np.float64))
        worst = np.argsort(difference, axis=None)[::-1][:5]
        rows = [
            f"  at {np.unravel_index(i, difference.shape)}: {actual.flat[i]!r} vs expected {expected.flat[i]!r}"
            for i in worst
        ]
        raise AssertionError(f"{what} differ (rtol={rtol}, atol={atol}):\n" + "\n".join(rows))
