"""Which index sort, argsort, topk and mode return among equal values: PyTorch's CPU kernels use
C++'s (unstable but deterministic) std::sort / nth_element / partial_sort, and ember replays them.
Differential: the indices must equal torch's exactly, for short and long slices, every dim and option."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

SIZES = [5, 16, 17, 40, 257, 3000]


def _tied(shape, seed, dtype="float64", nan=False):
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 1 + seed % 7, size=shape).astype(dtype)
    if nan:
        data.reshape(-1)[rng.integers(0, data.size, 3)] = np.nan
    return data


def _same_indices(ours, theirs, what):
    np.testing.assert_array_equal(ours.indices.numpy(), theirs.indices.numpy(), err_msg=what)
    np.testing.assert_array_equal(ours.values.numpy(), theirs.values.numpy(), err_msg=what)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("stable", [None, False, True])
def test_sort_and_argsort_order_ties_as_torch(size, stable):
    options = {} if stable is None else {"stable": stable}
    for seed, (shape, dim) in enumerate([((size,), 0), ((3, size), 1), ((size, 2), 0)]):
        for dtype, nan in (("float64", False), ("float32", True), ("int64", False)):
            data = _tied(shape, seed + size, dtype, nan)
            for descending in (False, True):
                what = f"sort {shape} dim={dim} {dtype} descending={descending} {options}"
                ours = ember.sort(ember.tensor(data), dim=dim, descending=descending, **options)
                theirs = torch.sort(torch.tensor(data), dim=dim, descending=descending, **options)
                _same_indices(ours, theirs, what)
                argsort = ember.argsort(ember.tensor(data), dim=dim, descending=descending)
                np.testing.assert_array_equal(
                    argsort.numpy(), torch.argsort(torch.tensor(data), dim=dim, descending=descending).numpy()
                )


def test_long_1d_integer_sorts_are_stable_as_torchs_radix_sort():
    for size in (32767, 32768, 40000):
        data = _tied((size,), 3, "int64")
        for descending in (False, True):
            ours = ember.sort(ember.tensor(data), descending=descending)
            _same_indices(ours, torch.sort(torch.tensor(data), descending=descending), f"sort {size}")


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("sorted", [True, False])
def test_topk_orders_ties_as_torch(size, largest, sorted):
    for seed, (shape, dim) in enumerate([((size,), 0), ((2, size), 1), ((size, 3), 0)]):
        for dtype, nan in (("float64", False), ("float32", True)):
            data = _tied(shape, seed + size, dtype, nan)
            for k in sorted_ks(size):
                what = f"topk {shape} dim={dim} k={k} largest={largest} sorted={sorted} {dtype}"
                ours = ember.topk(ember.tensor(data), k, dim=dim, largest=largest, sorted=sorted)
                theirs = torch.topk(torch.tensor(data), k, dim=dim, largest=largest, sorted=sorted)
                _same_indices(ours, theirs, what)


def sorted_ks(size):
    return {1, 2, size // 64, size // 64 + 1, size // 2, size} - {0}


def test_topk_gradient_goes_to_torchs_indices():
    data = _tied((4, 40), 11)
    ours, theirs = ember.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    weights = np.arange(5.0)
    (ember.topk(ours, 5).values * ember.tensor(weights)).sum().backward()
    (torch.topk(theirs, 5).values * torch.tensor(weights)).sum().backward()
    np.testing.assert_array_equal(ours.grad.numpy(), theirs.grad.numpy())


@pytest.mark.parametrize("size", SIZES)
def test_mode_index_is_torchs(size):
    for seed, (shape, dim) in enumerate([((size,), 0), ((3, size), 1), ((size, 2), 0)]):
        for dtype in ("float32", "int64"):
            data = _tied(shape, seed + 2 * size, dtype)
            _same_indices(ember.mode(ember.tensor(data), dim), torch.mode(torch.tensor(data), dim), f"mode {shape}")


@pytest.mark.parametrize("size", [5, 17, 300])
def test_kthvalue_and_median_indices_are_torchs(size):
    data = _tied((3, size), size)
    for k in (1, size // 2 + 1, size):
        ours, theirs = ember.kthvalue(ember.tensor(data), k, 1), torch.kthvalue(torch.tensor(data), k, 1)
        _same_indices(ours, theirs, f"kthvalue k={k}")
    _same_indices(ember.median(ember.tensor(data), 1), torch.median(torch.tensor(data), 1), "median")
