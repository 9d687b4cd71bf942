"""Explicit tests of the reductions: dims, keepdim, dtypes, empty and 0-d inputs, errors, ties, NaN,
zeros in prod, norms, stability, sorting options, named-tuple results; most against torch."""

import warnings

import numpy as np
import pytest

import ember
from ember import return_types

from ..conftest import assert_close

NAN, INF = float("nan"), float("inf")
TIES = [[1.0, 3.0, 3.0, 2.0], [5.0, 5.0, 1.0, 5.0], [2.0, 2.0, 2.0, 2.0]]


def _run_both(torch, expression, data, dtype="float64", requires_grad=None):
    """Evaluate `expression(lib, x)` in ember and torch on the same data; returns both inputs and results."""
    ours = ember.tensor(np.array(data), dtype=getattr(ember, dtype))
    theirs = torch.tensor(np.array(data), dtype=getattr(torch, dtype))
    if requires_grad is None:
        requires_grad = ours.is_floating_point()
    ours.requires_grad_(requires_grad)
    theirs.requires_grad_(requires_grad)
    return ours, theirs, expression(ember, ours), expression(torch, theirs)


def _check_same(got, want, what):
    """Values, dtype, shape, named-tuple type and grad_fn name must match torch's."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), what
        assert type(got).__name__ == type(want).__name__, f"{what}: {type(got).__name__} vs {type(want).__name__}"
        for index, (g, w) in enumerate(zip(got, want)):
            _check_same(g, w, f"{what}[{index}]")
        return
    assert got.dtype.name == str(want.dtype).replace("torch.", ""), f"{what}: dtype {got.dtype} vs {want.dtype}"
    assert tuple(got.shape) == tuple(want.shape), f"{what}: shape {tuple(got.shape)} vs {tuple(want.shape)}"
    assert_close(got, want.detach().numpy(), rtol=1e-6, atol=1e-9, what=what)
    want_name = want.grad_fn.name() if want.grad_fn is not None else None
    got_name = got.grad_fn.name() if got.grad_fn is not None else None
    assert got_name == want_name, f"{what}: grad_fn {got_name} vs {want_name}"


def _check_gradients(torch, ours, theirs, got, want, what):
    got_first = got[0] if isinstance(got, tuple) else got
    want_first = want[0] if isinstance(want, tuple) else want
    if not want_first.requires_grad:
        return
    weights = np.random.default_rng(7).standard_normal(tuple(want_first.shape))
    (got_first * ember.tensor(weights, dtype=got_first.dtype)).sum().backward()
    (want_first * torch.tensor(weights, dtype=want_first.dtype)).sum().backward()
    if theirs.grad is None:  # e.g. the 0-norm: no gradient at all
        assert ours.grad is None, f"{what}: torch gives no gradient"
        return
    assert ours.grad.dtype == ours.dtype and ours.grad.shape == ours.shape
    assert_close(ours.grad, theirs.grad.numpy(), rtol=1e-6, atol=1e-9, what=f"{what} gradient")


def _differential(torch, expression, data, dtype="float64", what="", requires_grad=None):
    ours, theirs, got, want = _run_both(torch, expression, data, dtype, requires_grad)
    _check_same(got, want, what)
    _check_gradients(torch, ours, theirs, got, want, what)


# ---------------------------------------------------------------- dims, keepdim, dtype
DIM_FORMS = [None, 0, 1, -1, -3, (0, 2), (-1, 0), [1], (0, 1, 2)]


@pytest.mark.parametrize(
    "name", ["sum", "mean", "nansum", "amax", "amin", "std", "var", "logsumexp", "norm", "count_nonzero", "all", "any"]
)
@pytest.mark.parametrize("dim", DIM_FORMS)
@pytest.mark.parametrize("keepdim", [False, True])
def test_dims_and_keepdim_match_torch(torch, name, dim, keepdim):
    data = np.random.default_rng(0).standard_normal((2, 3, 4))
    if name == "count_nonzero":
        if keepdim:
            pytest.skip("count_nonzero has no keepdim")
        expression = lambda lib, x: lib.count_nonzero(x, dim)  # noqa: E731
    elif name == "logsumexp" and dim is None:
        pytest.skip("logsumexp needs a dim")
    elif name in ("all", "any") and isinstance(dim, list):
        pytest.skip("torch.all takes an int or a tuple")
    elif name == "norm":
        expression = lambda lib, x: lib.norm(x, 2, dim, keepdim)  # noqa: E731
    elif dim is None and name in ("sum", "mean"):
        if keepdim:
            pytest.skip("torch.sum(x, keepdim=True) needs a dim")
        expression = lambda lib, x: getattr(lib, name)(x)  # noqa: E731
    elif dim is None:
        expression = lambda lib, x: getattr(lib, name)(x, keepdim=keepdim)  # noqa: E731
    else:
        expression = lambda lib, x: getattr(lib, name)(x, dim, keepdim=keepdim)  # noqa: E731
    _differential(torch, expression, data, what=f"{name}(dim={dim}, keepdim={keepdim})")


@pytest.mark.parametrize(
    "name",
    [
        "max",
        "min",
        "median",
        "nanmedian",
        "mode",
        "sort",
        "argsort",
        "argmax",
        "argmin",
        "cumsum",
        "cumprod",
        "prod",
        "msort",
    ],
)
@pytest.mark.parametrize("dim", [0, 1, -1, -2])
def test_single_dim_ops_match_torch(torch, name, dim):
    data = np.random.default_rng(1).standard_normal((3, 4))
    if name == "msort":
        expression = lambda lib, x: lib.msort(x)  # noqa: E731
    else:
        expression = lambda lib, x: getattr(lib, name)(x, dim)  # noqa: E731
    _differential(torch, expression, data, what=f"{name}(dim={dim})")


@pytest.mark.parametrize(
    "expression",
    [
        lambda lib, x: x.max(dim=1, keepdim=True),
        lambda lib, x: lib.max(x, 1, True),
        lambda lib, x: x.min(1, keepdim=True),
        lambda lib, x: x.median(dim=0, keepdim=True),
        lambda lib, x: x.kthvalue(3, dim=0, keepdim=True),
        lambda lib, x: x.mode(0, True),
        lambda lib, x: x.argmax(dim=1, keepdim=True),
        lambda lib, x: x.argmax(keepdim=True),
        lambda lib, x: x.prod(1, keepdim=True),
        lambda lib, x: x.topk(k=2, dim=0),
        lambda lib, x: x.sort(dim=0, descending=True),
        lambda lib, x: lib.sort(x, 1, True),
    ],
)
def test_keyword_and_positional_forms(torch, expression):
    _differential(torch, expression, np.random.default_rng(2).standard_normal((3, 4)), what="form")


@pytest.mark.parametrize(
    "expression,dtype",
    [
        (lambda lib, x: x.sum(), "int64"),
        (lambda lib, x: x.sum(0), "int32"),
        (lambda lib, x: x.sum(), "uint8"),
        (lambda lib, x: x.sum(), "bool"),
        (lambda lib, x: x.sum(dtype=lib.float32), "int64"),
        (lambda lib, x: x.sum(dtype=lib.float64), "float32"),
        (lambda lib, x: x.mean(dtype=lib.float64), "float32"),
        (lambda lib, x: x.mean(dtype=lib.float32), "int64"),
        (lambda lib, x: x.prod(), "int32"),
        (lambda lib, x: x.prod(0), "uint8"),
        (lambda lib, x: x.prod(), "bool"),
        (lambda lib, x: x.prod(dtype=lib.float64), "float32"),
        (lambda lib, x: x.cumsum(0), "int32"),
        (lambda lib, x: x.cumsum(1, dtype=lib.float64), "float32"),
        (lambda lib, x: x.cumprod(0), "int16"),
        (lambda lib, x: x.nansum(), "int64"),
        (lambda lib, x: x.nansum(dtype=lib.float64), "float32"),
        (lambda lib, x: x.logsumexp(0), "int64"),
        (lambda lib, x: x.max(), "int64"),
        (lambda lib, x: x.max(0), "int32"),
        (lambda lib, x: x.amax(), "uint8"),
        (lambda lib, x: x.median(), "int64"),
        (lambda lib, x: x.sort(1), "int64"),
        (lambda lib, x: x.max(), "bool"),
        (lambda lib, x: x.all(), "uint8"),
        (lambda lib, x: x.any(1), "uint8"),
        (lambda lib, x: x.all(0), "float32"),
        (lambda lib, x: x.count_nonzero(1), "int32"),
        (lambda lib, x: x.norm(dtype=lib.float64), "float32"),
        (lambda lib, x: x.std(), "float16"),
        (lambda lib, x: x.argmax(), "int16"),
        (lambda lib, x: x.mode(1), "int64"),
        (lambda lib, x: x.topk(1, 0).values, "int32"),
    ],
)
def test_dtypes_match_torch(torch, expression, dtype):
    data = [[1, 0, 3, 2], [2, 2, 1, 0], [0, 1, 1, 3]]
    _differential(torch, expression, data, dtype=dtype, what=f"dtype {dtype}")


def test_sum_to_another_dtype_without_gradient():
    result = ember.tensor([1.5, 2.5]).sum(dtype=ember.int32)
    assert result.dtype == ember.int32 and result.item() == 3


def test_float32_stays_float32():
    x = ember.randn(5, 4, requires_grad=True)
    for result in (x.std(), x.var(0), x.prod(), x.norm(3), x.logsumexp(1), x.cumprod(0), x.nanmean(), x.median()):
        assert result.dtype == ember.float32, result.grad_fn
        result.sum().backward()
        assert x.grad.dtype == ember.float32
        x.grad = None


def test_mean_of_integers_raises():
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype.*Long"):
        ember.tensor([1, 2, 3]).mean()
    with pytest.raises(RuntimeError, match="nanmean"):
        ember.tensor([1, 2, 3]).nanmean()
    with pytest.raises(RuntimeError, match="std and var only support floating point"):
        ember.tensor([1, 2, 3]).std()
    with pytest.raises(RuntimeError, match="Expected a floating point"):
        ember.tensor([1, 2, 3]).norm()


# ---------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "call,error,message",
    [
        (lambda x: x.sum(2), IndexError, "Dimension out of range"),
        (lambda x: x.sum((0, 0)), RuntimeError, "appears multiple times"),
        (lambda x: x.max(-3), IndexError, "Dimension out of range"),
        (lambda x: x.max(dim=(0, 1)), TypeError, "must be int, not tuple"),
        (lambda x: x.prod((0, 1)), TypeError, "must be int, not tuple"),
        (lambda x: x.argmax((0, 1)), TypeError, "must be int, not tuple"),
        (lambda x: x.kthvalue(5, 1), RuntimeError, "kthvalue\\(\\): selected number k out of range"),
        (lambda x: x.kthvalue(0), RuntimeError, "out of range"),
        (lambda x: x.topk(5), RuntimeError, "selected index k out of range"),
        (lambda x: x.norm(p="abc"), RuntimeError, "abc"),
        (lambda x: x.std(0, True, correction=1), TypeError, "either unbiased= or correction="),
        (lambda x: ember.sum([1, 2]), TypeError, "must be Tensor, not list"),
    ],
)
def test_errors(call, error, message):
    with pytest.raises(error, match=message):
        call(ember.ones(3, 4))


@pytest.mark.parametrize(
    "call,error,message",
    [
        (
            lambda x: x.max(),
            RuntimeError,
            "max\\(\\): Expected reduction dim to be specified for input.numel\\(\\) == 0",
        ),
        (lambda x: x.min(), RuntimeError, "min\\(\\): Expected reduction dim to be specified"),
        (lambda x: x.max(0), IndexError, "max\\(\\): Expected reduction dim 0 to have non-zero size"),
        (lambda x: x.amax(0), IndexError, "amax\\(\\): Expected reduction dim 0 to have non-zero size"),
        (lambda x: x.amax(), RuntimeError, "amax\\(\\): Expected reduction dim to be specified"),
        (lambda x: x.argmax(), IndexError, "argmax\\(\\): Expected reduction dim to be specified"),
        (lambda x: x.argmin(0), IndexError, "argmin\\(\\): Expected reduction dim 0 to have non-zero size"),
        (lambda x: x.median(0), IndexError, "median\\(\\): Expected reduction dim 0"),
        (lambda x: x.mode(0), IndexError, "mode\\(\\): Expected reduction dim 0"),
        (lambda x: x.aminmax(), RuntimeError, "aminmax\\(\\): cannot compute aminmax over an empty dimension"),
        (lambda x: x.norm(float("inf")), RuntimeError, "cannot compute the inf norm on an empty tensor"),
    ],
)
def test_empty_input_errors(call, error, message, torch):
    with pytest.raises(error, match=message):
        call(ember.zeros(0, 3))
    with pytest.raises(error):
        call(torch.zeros(0, 3))


@pytest.mark.parametrize(
    "expression",
    [
        lambda lib, x: x.sum(),
        lambda lib, x: x.sum(0),
        lambda lib, x: x.prod(),
        lambda lib, x: x.prod(1),
        lambda lib, x: x.mean(),
        lambda lib, x: x.mean(0),
        lambda lib, x: x.nansum(1),
        lambda lib, x: x.max(1),
        lambda lib, x: x.min(1),
        lambda lib, x: x.amax(1),
        lambda lib, x: x.argmax(1),
        lambda lib, x: x.median(),
        lambda lib, x: x.median(1),
        lambda lib, x: x.mode(1),
        lambda lib, x: x.kthvalue(1, 1),
        lambda lib, x: x.sort(0),
        lambda lib, x: x.topk(0, 0),
        lambda lib, x: x.cumsum(0),
        lambda lib, x: x.cumprod(1),
        lambda lib, x: x.logsumexp(0),
        lambda lib, x: x.logsumexp(1),
        lambda lib, x: x.norm(),
        lambda lib, x: x.norm(1, 0),
        lambda lib, x: x.all(),
        lambda lib, x: x.any(),
        lambda lib, x: x.all(1),
        lambda lib, x: x.count_nonzero(),
        lambda lib, x: lib.aminmax(x, dim=1),
        lambda lib, x: x.std(1),
    ],
)
def test_empty_inputs_match_torch(torch, expression):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _differential(torch, expression, np.zeros((0, 3)), what="empty")


@pytest.mark.parametrize(
    "expression",
    [
        lambda lib, x: x.sum(),
        lambda lib, x: x.sum(0),
        lambda lib, x: x.sum(-1, keepdim=True),
        lambda lib, x: x.mean(0),
        lambda lib, x: x.prod(),
        lambda lib, x: x.prod(0),
        lambda lib, x: x.max(),
        lambda lib, x: x.max(0),
        lambda lib, x: x.max(-1, keepdim=True),
        lambda lib, x: x.min(0),
        lambda lib, x: x.amax(0),
        lambda lib, x: x.argmax(0),
        lambda lib, x: x.argmax(),
        lambda lib, x: x.median(),
        lambda lib, x: x.median(0),
        lambda lib, x: x.mode(),
        lambda lib, x: x.kthvalue(1),
        lambda lib, x: x.topk(1),
        lambda lib, x: x.sort(),
        lambda lib, x: x.argsort(),
        lambda lib, x: x.cumsum(0),
        lambda lib, x: x.cumprod(0),
        lambda lib, x: x.logsumexp(0),
        lambda lib, x: x.norm(dim=0),
        lambda lib, x: x.norm(3),
        lambda lib, x: lib.aminmax(x),
        lambda lib, x: x.all(0),
        lambda lib, x: x.nansum(0),
    ],
)
def test_zero_dim_inputs_match_torch(torch, expression):
    _differential(torch, expression, 2.5, what="0-d")


def test_zero_dim_std_is_nan_with_warning(torch):
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        result = ember.tensor(3.0).std()
    assert np.isnan(result.item())
    with pytest.warns(UserWarning):
        assert ember.tensor([1.0, 2.0, 3.0]).std(correction=5).item() == INF


# ---------------------------------------------------------------- std / var
@pytest.mark.parametrize(
    "expression",
    [
        lambda lib, x: x.std(),
        lambda lib, x: x.std(unbiased=False),
        lambda lib, x: x.std(True),
        lambda lib, x: x.std(0, True),
        lambda lib, x: x.std(1, False, True),
        lambda lib, x: x.var(1, correction=0),
        lambda lib, x: x.var(correction=2),
        lambda lib, x: x.var(0, correction=0.5),
        lambda lib, x: x.var((0, 1)),
        lambda lib, x: lib.std_mean(x),
        lambda lib, x: lib.std_mean(x, 1, keepdim=True),
        lambda lib, x: lib.var_mean(x, 0, unbiased=False),
        lambda lib, x: lib.var_mean(x, correction=3),
        lambda lib, x: lib.std(x, dim=0, correction=0, keepdim=True),
    ],
)
def test_std_var_corrections_match_torch(torch, expression):
    _differential(torch, expression, np.random.default_rng(3).standard_normal((3, 4)), what="std/var")


def test_std_mean_gradient_through_both_outputs(torch):
    data = np.random.default_rng(4).standard_normal((3, 4))
    ours, theirs = ember.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    std, mean = ember.std_mean(ours, 1)
    (std * 2 + mean * 3).sum().backward()
    std_t, mean_t = torch.std_mean(theirs, 1)
    (std_t * 2 + mean_t * 3).sum().backward()
    assert std.grad_fn is mean.grad_fn and std.grad_fn.name() == "StdMeanBackward0"
    assert_close(ours.grad, theirs.grad.numpy(), what="std_mean gradient")


def test_std_of_constant_has_zero_gradient(torch):
    _differential(torch, lambda lib, x: x.std(1), [[2.0, 2.0, 2.0], [1.0, 2.0, 3.0]], what="constant std")


# ---------------------------------------------------------------- ties
def test_max_over_dim_sends_gradient_to_returned_index(torch):
    for name in ("max", "min", "median", "nanmedian", "mode", "kthvalue"):
        args = (2, 1) if name == "kthvalue" else (1,)
        _differential(torch, lambda lib, x: getattr(x, name)(*args), TIES, what=f"{name} ties")


def test_full_max_min_median_share_gradient_evenly_among_ties(torch):
    for name in ("max", "min", "median", "nanmedian", "amax", "amin"):
        _differential(torch, lambda lib, x: getattr(x, name)(), TIES, what=f"{name}() ties")
    x = ember.tensor([3.0, 1.0, 3.0, 3.0], requires_grad=True)
    x.max().backward()
    assert_close(x.grad, [1 / 3, 0, 1 / 3, 1 / 3], what="max() shared evenly")


def test_ties_along_dims_share_gradient_for_amax_and_aminmax(torch):
    _differential(torch, lambda lib, x: x.amax(1), TIES, what="amax ties")
    _differential(torch, lambda lib, x: lib.aminmax(x, dim=1), TIES, what="aminmax ties")
    _differential(torch, lambda lib, x: x.norm(float("inf"), 1), [[1.0, -3.0, 3.0], [2.0, 2.0, -2.0]], what="inf norm")


def test_median_index_among_ties_is_pytorchs(torch):
    for row in ([1.0, 3.0, 3.0, 3.0, 2.0, 3.0], [2.0, 2.0, 2.0, 2.0], [5.0, 5.0, 1.0, 5.0], [4.0, 4.0, 4.0]):
        _differential(torch, lambda lib, x: x.median(0), row, what=f"median {row}")


def test_kthvalue_index_among_ties_is_pytorchs(torch):
    rng = np.random.default_rng(5)
    for _ in range(40):
        data = rng.integers(0, 3, size=(3, int(rng.integers(1, 12)))).astype(float)
        k = int(rng.integers(1, data.shape[1] + 1))
        _differential(torch, lambda lib, x: x.kthvalue(k, 1), data, what=f"kthvalue {k} of {data}")


def test_mode_picks_smallest_most_frequent_value_at_last_occurrence(torch):
    for row in ([4.0, 3.0, 3.0, 1.0, 1.0, 3.0, 1.0], [1.0, 2.0, 2.0, 1.0], [7.0, 7.0, 7.0], [2.0, 9.0, 5.0]):
        _differential(torch, lambda lib, x: x.mode(), row, what=f"mode {row}")


def test_topk_with_ties_has_the_right_values_and_gradient_total():
    x = ember.tensor(TIES, requires_grad=True)
    values, indices = x.topk(2)
    assert_close(values, [[3.0, 3.0], [5.0, 5.0], [2.0, 2.0]], what="topk values")
    assert np.all(np.take_along_axis(np.array(TIES), indices.numpy(), 1) == values.detach().numpy())
    values.sum().backward()
    assert_close(x.grad.sum(1), [2.0, 2.0, 2.0], what="topk gradient per row")


# ---------------------------------------------------------------- NaN
@pytest.mark.parametrize(
    "expression",
    [
        lambda lib, x: x.max(),
        lambda lib, x: x.min(1),
        lambda lib, x: x.max(1),
        lambda lib, x: x.argmax(1),
        lambda lib, x: x.argmin(),
        lambda lib, x: x.amax(1),
        lambda lib, x: x.median(),
        lambda lib, x: x.median(1),
        lambda lib, x: x.nanmedian(),
        lambda lib, x: x.nanmedian(1),
        lambda lib, x: x.sort(1),
        lambda lib, x: x.sort(1, descending=True),
        lambda lib, x: x.topk(2, 0),
        lambda lib, x: x.kthvalue(3, 1),
        lambda lib, x: x.nansum(1),
        lambda lib, x: x.nanmean(1),
        lambda lib, x: x.nanmean(),
        lambda lib, x: x.sum(1),
        lambda lib, x: x.cumsum(1),
        lambda lib, x: x.logsumexp(1),
        lambda lib, x: x.norm(),
        lambda lib, x: x.mode(1),
    ],
)
def test_nan_handling_matches_torch(torch, expression):
    data = [[1.0, NAN, 3.0, 0.5], [NAN, NAN, 2.0, 1.0], [4.0, 2.0, 2.0, 1.0]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _differential(torch, expression, data, what="nan")


def test_nanmean_of_all_nan_is_nan():
    assert np.isnan(ember.tensor([NAN]).nanmean().item())


# ---------------------------------------------------------------- prod with zeros
@pytest.mark.parametrize(
    "data",
    [
        [2.0, 0.0, 3.0, 4.0],
        [0.0, 0.0, 3.0, 4.0],
        [0.0, 0.0, 0.0, 4.0],
        [[1.0, 0.0, 2.0], [0.0, 0.0, 5.0]],
        [[0.0, 2.0], [3.0, 4.0]],
    ],
)
@pytest.mark.parametrize("dim", [None, 0, -1])
def test_prod_gradient_with_zeros(torch, data, dim):
    expression = (lambda lib, x: x.prod()) if dim is None else (lambda lib, x: x.prod(dim))
    _differential(torch, expression, data, what=f"prod zeros dim={dim}")


def test_prod_second_derivative_with_zeros(torch):
    for data in ([2.0, 0.0, 3.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0], [[1.0, 0.0, 2.0], [0.0, 0.0, 5.0]]):
        ours = ember.tensor(data, dtype=ember.float64, requires_grad=True)
        theirs = torch.tensor(data, dtype=torch.float64, requires_grad=True)
        (ours_grad,) = ember.autograd.grad(ours.prod(), ours, create_graph=True)
        (theirs_grad,) = torch.autograd.grad(theirs.prod(), theirs, create_graph=True)
        weights = np.arange(1, ours_grad.numel() + 1, dtype=np.float64).reshape(tuple(ours.shape))
        (ours_grad * ember.tensor(weights)).sum().backward()
        (theirs_grad * torch.tensor(weights)).sum().backward()
        assert_close(ours.grad, theirs.grad.numpy(), what=f"prod second derivative {data}")


def test_cumprod_gradient_with_zeros(torch):
    for data in ([2.0, 0.0, 3.0, 4.0], [0.0, 2.0, 0.0, 3.0], [[1.0, 2.0, 0.0], [3.0, 0.0, 0.0]]):
        _differential(torch, lambda lib, x: x.cumprod(-1), data, what=f"cumprod {data}")


# ---------------------------------------------------------------- norms, logsumexp, scans
@pytest.mark.parametrize("p", [1, 2, INF, -INF, "fro", 3, 0.5, 1.5, 0, -1, None])
def test_norm_orders_match_torch(torch, p):
    data = [[1.0, -2.0, 0.5], [-0.25, 3.0, 1.0]]
    _differential(torch, lambda lib, x: x.norm(p), data, what=f"norm p={p}")
    _differential(torch, lambda lib, x: lib.norm(x, p, dim=1, keepdim=True), data, what=f"norm p={p} dim")


@pytest.mark.parametrize("p", [1, 2, INF, 3, 0.5, 1.5])
def test_norm_gradient_at_zero_vector_matches_torch(torch, p):
    _differential(torch, lambda lib, x: x.norm(p, 1), [[0.0, 0.0, 0.0], [0.0, 2.0, -1.0]], what=f"norm p={p} zeros")


def test_logsumexp_is_stable_for_large_inputs(torch):
    for data in (
        [1000.0, 1000.0, 999.0],
        [-1000.0, -1e4, -999.0],
        [[3e38, 3e38], [1.0, 2.0]],
        [INF, 1.0],
        [-INF, -INF],
    ):
        for dtype in ("float32", "float64"):
            _differential(torch, lambda lib, x: x.logsumexp(-1), data, dtype=dtype, what=f"logsumexp {data}")
    assert ember.tensor([1000.0, 1000.0]).logsumexp(0).item() == pytest.approx(1000 + np.log(2))


def test_cumsum_cumprod_second_derivatives(torch):
    data = np.random.default_rng(6).uniform(0.5, 2, size=(3, 4))
    for name in ("cumsum", "cumprod"):
        ours = ember.tensor(data, requires_grad=True)
        theirs = torch.tensor(data, requires_grad=True)
        (g_ours,) = ember.autograd.grad((getattr(ours, name)(1) ** 2).sum(), ours, create_graph=True)
        (g_theirs,) = torch.autograd.grad((getattr(theirs, name)(1) ** 2).sum(), theirs, create_graph=True)
        g_ours.sum().backward()
        g_theirs.sum().backward()
        assert_close(ours.grad, theirs.grad.numpy(), what=f"{name} second derivative")


# ---------------------------------------------------------------- sorting options
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("stable", [None, False, True])
def test_sort_options_match_torch(torch, descending, stable):
    data = [[3.0, 1.0, 3.0, 2.0, 1.0], [0.0, 0.0, 0.0, 1.0, 0.0]]
    if stable is None:
        expression = lambda lib, x: x.sort(dim=1, descending=descending)  # noqa: E731
    else:
        expression = lambda lib, x: x.sort(dim=1, descending=descending, stable=stable)  # noqa: E731
    _differential(torch, expression, data, what=f"sort descending={descending} stable={stable}")
    _differential(torch, lambda lib, x: x.argsort(1, descending=descending), data, what="argsort")


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_topk_largest_and_dims_match_torch(torch, largest, dim):
    data = np.random.default_rng(8).standard_normal((4, 5))
    _differential(torch, lambda lib, x: x.topk(3, dim, largest=largest), data, what="topk")
    _differential(torch, lambda lib, x: lib.topk(x, 2, dim=dim, largest=largest, sorted=True), data, what="topk")


# ---------------------------------------------------------------- grad_fn names
@pytest.mark.parametrize(
    "expression",
    [
        lambda lib, x: x.sum(),
        lambda lib, x: x.sum(1),
        lambda lib, x: x.mean(),
        lambda lib, x: x.mean(1),
        lambda lib, x: x.prod(),
        lambda lib, x: x.prod(1),
        lambda lib, x: x.std(),
        lambda lib, x: x.var(1),
        lambda lib, x: lib.std_mean(x),
        lambda lib, x: lib.var_mean(x, 1),
        lambda lib, x: x.max(),
        lambda lib, x: x.max(1),
        lambda lib, x: x.min(),
        lambda lib, x: x.min(1),
        lambda lib, x: x.amax(1),
        lambda lib, x: x.amin(),
        lambda lib, x: lib.aminmax(x),
        lambda lib, x: x.norm(),
        lambda lib, x: x.norm(1, 1),
        lambda lib, x: x.logsumexp(1),
        lambda lib, x: x.cumsum(1),
        lambda lib, x: x.cumprod(0),
        lambda lib, x: x.median(),
        lambda lib, x: x.median(1),
        lambda lib, x: x.nanmedian(),
        lambda lib, x: x.nanmedian(0),
        lambda lib, x: x.mode(1),
        lambda lib, x: x.kthvalue(1),
        lambda lib, x: x.topk(2),
        lambda lib, x: x.sort(),
        lambda lib, x: x.sort(stable=True),
        lambda lib, x: x.msort(),
        lambda lib, x: x.nansum(),
        lambda lib, x: x.nanmean(1),
    ],
)
def test_grad_fn_names_match_torch(torch, expression):
    _differential(torch, expression, np.random.default_rng(9).standard_normal((3, 4)), what="grad_fn")


# ---------------------------------------------------------------- results and method forms
def test_named_tuple_results_unpack_and_print_like_torch(torch):
    data = [[1.0, 5.0], [4.0, 2.0]]
    ours, theirs = ember.tensor(data).max(dim=1), torch.tensor(data).max(dim=1)
    values, indices = ours
    assert values is ours.values and indices is ours[1] and len(ours) == 2
    assert isinstance(ours, tuple) and isinstance(ours, return_types.max)
    assert ours._fields == ("values", "indices") and ours.n_fields == 2
    assert repr(ours) == repr(theirs) == ("torch.return_types.max(\nvalues=tensor([5., 4.]),\nindices=tensor([1, 0]))")
    low_high = ember.aminmax(ember.tensor(data))
    assert repr(low_high) == repr(torch.aminmax(torch.tensor(data)))
    assert low_high.min.item() == 1.0 and low_high.max.item() == 5.0


def test_method_and_function_forms_agree():
    x = ember.randn(3, 4)
    assert ember.equal(x.max(dim=1).values, ember.max(x, 1)[0])
    assert ember.equal(x.std(0), ember.std(x, 0))
    assert ember.equal(x.cumsum(dim=1), ember.cumsum(x, dim=1))
    assert ember.equal(x.argsort(), ember.argsort(x))
    assert x.count_nonzero().item() == ember.count_nonzero(x).item()


def test_max_with_a_tensor_is_maximum():
    x, y = ember.tensor([1.0, 5.0]), ember.tensor([3.0, 2.0])
    maximum = getattr(ember, "maximum", None)
    if maximum is None:
        with pytest.raises(NotImplementedError, match="maximum"):
            x.max(y)
    else:
        assert ember.equal(x.max(y), maximum(x, y))
        assert ember.equal(ember.min(x, y), ember.minimum(x, y))


def test_all_any_count_nonzero_with_dims(torch):
    data = [[[1, 0], [2, 3]], [[0, 0], [1, 1]]]
    for expression in (
        lambda lib, x: x.all(),
        lambda lib, x: x.all(1),
        lambda lib, x: x.any((0, 2)),
        lambda lib, x: x.all(dim=-1, keepdim=True),
        lambda lib, x: lib.any(x, 0),
        lambda lib, x: x.count_nonzero((0, 1)),
        lambda lib, x: x.count_nonzero(-1),
        lambda lib, x: x.bool().all(0),
    ):
        for dtype in ("int64", "uint8", "float32", "bool"):
            _differential(torch, expression, data, dtype=dtype, what=f"all/any {dtype}")


def test_inplace_scans_match_torch(torch):
    for name in ("cumsum_", "cumprod_"):
        _differential(torch, lambda lib, x: getattr(x * 1, name)(1), [[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], what=name)
    x = ember.tensor([1.0, 2.0, 3.0])
    assert x.cumsum_(0) is x and x.tolist() == [1.0, 3.0, 6.0] and x._version == 1
