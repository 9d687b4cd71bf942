"""The pieces under PyTorch-identical random numbers, checked without PyTorch: exact FMAs, the engine's
state, the shuffle."""

from fractions import Fraction

import numpy as np
import pytest

import ember
from ember.ops import _distribution_kernels as kernels
from ember.ops._mersenne import STATE_BYTES, MersenneTwister


def _nearest(value, candidates):
    return min(candidates, key=lambda candidate: abs(Fraction(float(candidate)) - value))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fma_rounds_once(dtype):
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal(3000).astype(dtype), rng.standard_normal(3000).astype(dtype)
    c = (rng.standard_normal(3000) * 2.0 ** rng.integers(-40, 40, 3000)).astype(dtype)
    fused = (kernels.fma_float32 if dtype == np.float32 else kernels.fma_float64)(a, b, c)
    for x, y, z, result in zip(a, b, c, fused):
        exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        neighbours = [np.nextafter(result, dtype(-np.inf)), result, np.nextafter(result, dtype(np.inf))]
        assert _nearest(exact, neighbours) == result, (x, y, z, result)


def test_float32_fma_when_the_double_sum_lands_halfway():
    # (1 + 2**-23) * -(1 - 2**-23) * 2**-24 + (1 + 2**-23) = 1 + 2**-24 + 2**-70 exactly: in float64
    # that rounds to the float32 midpoint 1 + 2**-24, which a second rounding would take down to 1.
    a = np.array([1 + 2.0**-23, -(1 + 2.0**-23)], dtype=np.float32)
    b = np.float32(-(1 - 2.0**-23) * 2.0**-24)
    c = np.array([1 + 2.0**-23, -(1 + 2.0**-23)], dtype=np.float32)
    assert kernels.fma_float32(a, b, c).tolist() == [1 + 2.0**-23, -(1 + 2.0**-23)]


def test_engine_state_round_trip_keeps_the_stream():
    engine = MersenneTwister(123)
    engine.random32(1000)
    kernels.scalar_normal(engine, 3)  # leaves a cached second sample
    saved = engine.state_bytes()
    assert saved.shape == (STATE_BYTES,)
    expected = (kernels.scalar_normal(engine, 1), engine.random32(700))
    restored = MersenneTwister(0)
    restored.load_bytes(saved)
    assert restored.seed == 123
    assert kernels.scalar_normal(restored, 1) == expected[0]
    assert np.array_equal(restored.random32(700), expected[1])


def test_seeding_is_the_low_32_bits():
    assert np.array_equal(MersenneTwister(5).random32(10), MersenneTwister(5 + 2**32).random32(10))
    assert not np.array_equal(MersenneTwister(5).random32(10), MersenneTwister(6).random32(10))


def test_corrupt_state_is_refused():
    state = ember.get_rng_state()
    state[8] = 0  # left = 0
    with pytest.raises(RuntimeError, match="corrupt"):
        ember.set_rng_state(state)


@pytest.mark.parametrize("n", [0, 1, 2, 5, 1000])
def test_randperm_is_a_permutation(n):
    assert sorted(kernels.randperm(MersenneTwister(1), n).tolist()) == list(range(n))


@pytest.mark.parametrize("count", [1, 15, 16, 17, 100])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_normal_is_finite_and_spread(count, dtype):
    values = kernels.normal(MersenneTwister(3), count, dtype)
    assert values.dtype == dtype and values.shape == (count,)
    assert np.isfinite(values).all() and (count < 16 or 0.3 < values.std() < 2)


def test_uniform_stays_in_range():
    values = kernels.uniform(MersenneTwister(2), 10000, np.float32, -3.0, 5.0)
    assert values.min() >= -3 and values.max() < 5
