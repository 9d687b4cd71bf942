"""float16 reductions and scans accumulate in float32 and return float16, as PyTorch's do.

Accumulating in float16 is silently wrong: 2048 + 1 == 2048 in float16, so the cumsum of 3,000 ones
stopped at 2048. Each op is checked against a float64 NumPy reference rounded to float16 and, where
torch is installed, against torch.
"""

import numpy as np
import pytest

import ember

ROWS = 3000


def _data():
    values = np.ones((ROWS, 3), dtype=np.float16)
    values[:, 1] = np.arange(ROWS) % 7  # sums reach ~9,000: beyond float16's exact integers
    values[:, 2] = 100 + (np.arange(ROWS) % 5)  # squares of deviations overflow a float16 sum
    return values


# name: (ember call, float64 NumPy reference); every call reduces along dim 0 (the strided case).
OPS = {
    "sum": (lambda m, x: m.sum(x, 0), lambda a: a.sum(0)),
    "sum_all": (lambda m, x: m.sum(x[:, :2]), lambda a: a[:, :2].sum()),
    "nansum": (lambda m, x: m.nansum(x, 0), lambda a: a.sum(0)),
    "mean": (lambda m, x: m.mean(x, 0), lambda a: a.mean(0)),
    "cumsum": (lambda m, x: m.cumsum(x, 0)[-1], lambda a: a.cumsum(0)[-1]),
    "cumsum_inner": (lambda m, x: m.cumsum(x.t(), 1)[:, -1], lambda a: a.T.cumsum(1)[:, -1]),
    "cumprod": (
        lambda m, x: m.cumprod(x[:, 0] * 0 + 1.001, 0)[-1],
        lambda a: np.cumprod(np.full(ROWS, np.float16(1.001), dtype=np.float64))[-1],
    ),
    "prod": (
        lambda m, x: m.prod(x[:, 0] * 0 + 1.001, 0),
        lambda a: np.prod(np.full(ROWS, np.float16(1.001), dtype=np.float64)),
    ),
    "var": (lambda m, x: m.var(x, 0), lambda a: a.var(0, ddof=1)),
    "std": (lambda m, x: m.std(x, 0), lambda a: a.std(0, ddof=1)),
    "norm": (lambda m, x: m.norm(x[:, :2], dim=0), lambda a: np.sqrt((a[:, :2] ** 2).sum(0))),
    "vector_norm": (lambda m, x: m.linalg.vector_norm(x[:, :2], dim=0), lambda a: np.sqrt((a[:, :2] ** 2).sum(0))),
    "norm_1": (lambda m, x: m.linalg.vector_norm(x[:, :2], 1, dim=0), lambda a: np.abs(a[:, :2]).sum(0)),
    "logsumexp": (lambda m, x: m.logsumexp(x[:, :2], 0), lambda a: np.log(np.exp(a[:, :2]).sum(0))),
}
# PyTorch's CPU prod of float16 is itself less exact than a float32 accumulation (its result is a few
# percent off the float64 value); ember's matches the reference instead.
NOT_AGAINST_TORCH = {"prod"}


@pytest.mark.parametrize("name", sorted(OPS))
def test_float16_matches_float64_reference(name):
    call, reference = OPS[name]
    result = call(ember, ember.tensor(_data()))
    assert result.dtype is ember.float16, f"{name} returned {result.dtype}"
    with np.errstate(over="ignore"):  # sums past float16's 65504 are inf in float16, as ember's results are
        expected = np.asarray(reference(_data().astype(np.float64)), dtype=np.float16).astype(np.float64)
    np.testing.assert_allclose(result.numpy().astype(np.float64), expected, rtol=2e-3, err_msg=name)


@pytest.mark.parametrize("name", sorted(set(OPS) - NOT_AGAINST_TORCH))
def test_float16_matches_torch(name):
    torch = pytest.importorskip("torch")
    call, _ = OPS[name]
    ours = call(ember, ember.tensor(_data()))
    theirs = call(torch, torch.tensor(_data()))
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_allclose(
        ours.numpy().astype(np.float64), theirs.numpy().astype(np.float64), rtol=2e-3, err_msg=name
    )


def test_cumsum_of_3000_ones_reaches_3000():
    assert ember.ones(ROWS, dtype=ember.float16).cumsum(0)[-1].item() == 3000.0


def test_float16_gradients_accumulate_in_float32():
    x = ember.ones(ROWS, dtype=ember.float16, requires_grad=True)
    x.cumsum(0).sum().backward()  # d/dx_i = ROWS - i: a reversed cumsum of ones
    np.testing.assert_array_equal(
        x.grad.numpy().astype(np.float64), np.arange(ROWS, 0, -1).astype(np.float16).astype(np.float64)
    )
    assert x.grad.dtype is ember.float16


def test_explicit_dtype_is_still_honoured():
    x = ember.ones(ROWS, dtype=ember.float16)
    assert x.sum(dtype=ember.float32).dtype is ember.float32
    assert x.cumsum(0, dtype=ember.float64)[-1].item() == 3000.0


@pytest.mark.parametrize("number", [0.1, 0.999, 1 / 3, 3.7, 2, 0.5, 12345.678, 7])
@pytest.mark.parametrize(
    "operation",
    [
        lambda x, s: x * s,
        lambda x, s: s * x,
        lambda x, s: x / s,
        lambda x, s: x.clone().mul_(s),
        lambda x, s: x.clone().div_(s),
        lambda x, s: x + s,
        lambda x, s: x - s,
    ],
    ids=["mul", "rmul", "div", "mul_", "div_", "add", "sub"],
)
def test_float16_with_python_number_matches_torch(torch, operation, number):
    """PyTorch multiplies and divides float16 by the number unrounded (3 * 0.1 prints 0.3000, not
    NumPy's 0.2998) and adds the number rounded to float16."""
    values = (np.random.default_rng(0).standard_normal(4096) * 10).astype(np.float16)
    ours = operation(ember.tensor(values), number)
    theirs = operation(torch.tensor(values), number)
    assert ours.dtype is ember.float16
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
