"""In-place random fills (`x.normal_()`, `x.uniform_(a, b)`, ...): dtype and identity kept, the draws
follow their distribution, seeding repeats them, and bad arguments raise as PyTorch does."""

import numpy as np
import pytest

import ember

N = 20000


def _filled(method, *args, dtype=ember.float64, **kwargs):
    ember.manual_seed(0)
    tensor = ember.zeros(N, dtype=dtype)
    result = getattr(tensor, method)(*args, **kwargs)
    assert result is tensor
    assert tensor.dtype == dtype
    return tensor.numpy()


@pytest.mark.parametrize(
    "method, args, mean, std",
    [
        ("normal_", (2.0, 3.0), 2.0, 3.0),
        ("uniform_", (-1.0, 3.0), 1.0, 4.0 / np.sqrt(12.0)),
        ("exponential_", (4.0,), 0.25, 0.25),
        ("geometric_", (0.5,), 2.0, np.sqrt(2.0)),
        ("log_normal_", (0.0, 0.5), np.exp(0.125), np.sqrt((np.exp(0.25) - 1) * np.exp(0.25))),
    ],
)
def test_fills_follow_their_distribution(method, args, mean, std):
    values = _filled(method, *args)
    assert abs(values.mean() - mean) < 5 * std / np.sqrt(N)
    assert abs(values.std() - std) < 0.05 * std


def test_cauchy_median_and_quartiles():
    values = _filled("cauchy_", 1.0, 2.0)
    quartiles = np.percentile(values, [25, 50, 75])
    np.testing.assert_allclose(quartiles, [-1.0, 1.0, 3.0], atol=0.15)


def test_uniform_bounds_and_torch_keyword_spelling():
    values = _filled("uniform_", **{"from": 2.0, "to": 3.0})
    assert values.min() >= 2.0 and values.max() < 3.0


@pytest.mark.parametrize("args, low, high", [((), 0, 2**24), ((10,), 0, 9), ((3, 5), 3, 4)])
def test_random_ranges(args, low, high):
    values = _filled("random_", *args, dtype=ember.float32)
    assert values.min() >= low and values.max() <= high
    assert values.min() == low and values.max() == high or high - low > 100
    assert np.all(values == np.round(values))


def test_random_on_integer_and_bool_tensors():
    ember.manual_seed(0)
    assert set(ember.zeros(500, dtype=ember.bool).random_().tolist()) == {False, True}
    small = ember.zeros(1000, dtype=ember.int8).random_().numpy()
    assert small.min() >= 0 and small.max() > 100


def test_seeding_repeats_and_generator_is_used():
    assert np.array_equal(_filled("normal_"), _filled("normal_"))
    first = ember.empty(5).uniform_(generator=ember.Generator().manual_seed(3))
    second = ember.empty(5).uniform_(generator=ember.Generator().manual_seed(3))
    assert ember.equal(first, second)


def test_fill_writes_through_views():
    base = ember.zeros(4, 3)
    base[1].normal_()
    assert base[0].abs().sum().item() == 0 and base[1].abs().sum().item() > 0


def test_integer_tensor_cannot_take_a_floating_fill():
    with pytest.raises(NotImplementedError, match="normal_kernel_cpu.*'Long'"):
        ember.zeros(3, dtype=ember.int64).normal_()


def test_leaf_requiring_grad_needs_no_grad():
    weight = ember.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        weight.uniform_()
    with ember.no_grad():
        weight.uniform_()
    assert weight.requires_grad and weight.abs().sum().item() > 0


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda t: t.normal_(0, -1), "std >= 0"),
        (lambda t: t.uniform_(2, 1), "from=2 > to=1"),
        (lambda t: t.exponential_(0), "lambda > 0"),
        (lambda t: t.geometric_(1.5), r"p to be in \(0, 1\)"),
        (lambda t: t.random_(5, 5), "from=5 >= to=5"),
    ],
)
def test_bad_parameters_raise_runtime_error(call, error):
    with pytest.raises(RuntimeError, match=error):
        call(ember.zeros(3))


def test_same_error_classes_as_torch():
    torch = pytest.importorskip("torch")
    for library in (torch, ember):
        with pytest.raises(RuntimeError):
            library.zeros(3).uniform_(2, 1)
        with pytest.raises(NotImplementedError):
            library.zeros(3, dtype=library.long).normal_()


def test_an_unseeded_process_draws_new_numbers_each_run_as_pytorch():
    """PyTorch seeds its default generator from the operating system at start-up; a Generator()
    made by the user starts from the fixed seed."""
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    script = "import ember; print(ember.initial_seed(), ember.rand(3).tolist())"
    runs = [
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONPATH": root},
        ).stdout
        for _ in range(2)
    ]
    assert runs[0] != runs[1]
    assert ember.Generator().initial_seed() == 67280421310721
