"""unique, unique_consecutive, bincount, histc, histogram against torch (values, dtypes, errors),
and the parts of cummax/cummin/logcumsumexp the op table does not reach: indices at ties, NaN."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def same(ours, theirs):
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    assert len(ours) == len(theirs)
    for mine, reference in zip(ours, theirs):
        assert repr(mine.dtype) == repr(reference.dtype) and tuple(mine.shape) == tuple(reference.shape), (
            mine,
            reference,
        )
        np.testing.assert_array_equal(mine.numpy(), reference.numpy())


CALLS = {
    "unique": lambda L: L.unique(L.tensor([3, 1, 2, 3, 1]), return_inverse=True, return_counts=True),
    "unique_2d_flat": lambda L: L.unique(L.tensor([[3.0, 2], [1, 3]]), return_inverse=True),
    "unique_dim0": lambda L: L.unique(
        L.tensor([[1, 2], [1, 2], [0, 5]]), dim=0, return_inverse=True, return_counts=True
    ),
    "unique_dim1": lambda L: L.unique(L.tensor([[1, 2, 1], [1, 2, 1]]), dim=1, return_inverse=True),
    "unique_method": lambda L: L.tensor([2, 2, 1]).unique(sorted=False),
    "unique_nan": lambda L: L.unique(L.tensor([1.0, float("nan"), float("nan")])),
    "unique_consecutive": lambda L: L.unique_consecutive(
        L.tensor([1, 1, 2, 2, 3, 1, 1, 2]), return_inverse=True, return_counts=True
    ),
    "unique_consecutive_dim": lambda L: L.unique_consecutive(
        L.tensor([[1, 1], [1, 1], [2, 3]]), dim=0, return_inverse=True, return_counts=True
    ),
    "bincount": lambda L: L.bincount(L.tensor([0, 1, 1, 3])),
    "bincount_float32_weights": lambda L: L.bincount(
        L.tensor([0, 1, 1, 3]), weights=L.tensor([0.5, 1, 1, 2]), minlength=6
    ),
    "bincount_int_weights": lambda L: L.bincount(L.tensor([0, 1, 1, 3]), weights=L.tensor([1, 2, 3, 4])),
    "bincount_empty": lambda L: L.bincount(L.tensor([], dtype=L.int64), minlength=3),
    "histc": lambda L: L.histc(L.tensor([1.0, 2, 1, 5, 3]), bins=4, min=0, max=3),
    "histc_data_range": lambda L: L.tensor([1.0, 2, 1]).histc(bins=4),
    "histogram_range": lambda L: tuple(L.histogram(L.tensor([1.0, 2, 1]), bins=4, range=(0.0, 3.0))),
    "histogram_edges_density": lambda L: tuple(
        L.histogram(L.tensor([1.0, 2, 1]), L.tensor([0.0, 1, 2, 3]), density=True)
    ),
    "histogram_weights": lambda L: tuple(L.histogram(L.tensor([1.0, 2, 1]), 3, weight=L.tensor([1.0, 2, 3]))),
    "cummax_ties_and_nan": lambda L: tuple(
        L.cummax(L.tensor([[1.0, 3, 2, 3, 0, 3], [5, -1, 7, 7, float("nan"), 9]]), 1)
    ),
    "cummin_ties": lambda L: tuple(L.cummin(L.tensor([[1, 3, 1, 0, 0, 3]]), 1)),
    "cummax_0d": lambda L: tuple(L.cummax(L.tensor(3.0), 0)),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_matches_torch(name):
    same(CALLS[name](ember), CALLS[name](torch))


ERRORS = {
    "histc_of_integers": lambda L: L.histc(L.tensor([1, 2]), bins=3),
    "bincount_negative": lambda L: L.bincount(L.tensor([-1, 2])),
    "bincount_2d": lambda L: L.bincount(L.tensor([[1, 2]])),
    "unique_dim_out_of_range": lambda L: L.unique(L.tensor([1]), dim=3),
    "logcumsumexp_of_integers": lambda L: L.logcumsumexp(L.tensor([1, 2]), 0),
    "cummax_dim_out_of_range": lambda L: L.cummax(L.tensor([1.0]), 2),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_pytorch_s_class(name):
    with pytest.raises(Exception) as theirs:
        ERRORS[name](torch)
    with pytest.raises(type(theirs.value)):
        ERRORS[name](ember)


@pytest.mark.parametrize(
    "call",
    [
        lambda L, x: L.unique(x, return_inverse=True),
        lambda L, x: x.unique(dim=0, return_counts=True),
        lambda L, x: L.unique_consecutive(x, return_inverse=True, return_counts=True),
        lambda L, x: L.unique_consecutive(x, dim=0),
    ],
    ids=["unique", "unique_dim", "unique_consecutive", "unique_consecutive_dim"],
)
def test_unique_values_require_grad_but_have_no_derivative(call):
    # As torch: the values join the graph (the integer results do not) and backward raises.
    outcomes = []
    for library in (ember, torch):
        x = library.tensor([1.0, 2.0, 2.0], requires_grad=True)
        results = call(library, x)
        results = results if isinstance(results, tuple) else (results,)
        with pytest.raises(NotImplementedError) as caught:
            results[0].sum().backward()
        outcomes.append(([r.requires_grad for r in results], type(results[0].grad_fn).__name__, str(caught.value)))
    ours, theirs = outcomes
    assert ours == theirs


def test_histc_result_does_not_require_grad():
    assert not ember.histc(ember.tensor([1.0, 2.0, 2.0], requires_grad=True), bins=2).requires_grad


def test_logcumsumexp_gradient_where_exp_would_overflow():
    x = ember.tensor([-1000.0, 0.0, 1000.0], dtype=ember.float64, requires_grad=True)
    ember.logcumsumexp(x, 0).sum().backward()
    reference = torch.tensor([-1000.0, 0.0, 1000.0], dtype=torch.float64, requires_grad=True)
    torch.logcumsumexp(reference, 0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), reference.grad.numpy(), rtol=1e-12)
