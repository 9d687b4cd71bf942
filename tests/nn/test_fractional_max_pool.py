"""Fractional max pooling against PyTorch: values, indices, gradients (first, second, forward mode),
the samples PyTorch would draw under the same seed, the layers, and the errors of bad arguments."""

import inspect

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember.autograd import forward_ad

from ..conftest import assert_close


def _functions(torch, n):
    return getattr(F, f"fractional_max_pool{n}d"), getattr(torch.nn.functional, f"fractional_max_pool{n}d")


def _samples(rng, shape, n, dtype, rows=None):
    batch = shape[0] if len(shape) == n + 2 else 1
    return rng.random((rows or batch, shape[-n - 1], n)).astype(dtype)


POOLS = [
    # (n, input shape, kernel_size, output_size, output_ratio)
    (2, (2, 3, 11, 9), 2, (5, 4), None),
    (2, (2, 3, 11, 9), (3, 2), (9, 8), None),  # output + kernel - 1 == input: the largest allowed
    (2, (1, 2, 10, 13), (2, 4), None, (0.5, 0.7)),
    (2, (3, 8, 7), 3, 3, None),  # unbatched
    (2, (2, 1, 6, 6), 2, 1, None),  # one window: the last start, input - kernel
    (2, (2, 2, 9, 9), (2, 2), (9 - 1, 3), (0.3, 0.9)),  # output_size wins over output_ratio
    (3, (2, 2, 7, 8, 9), 2, (3, 4, 5), None),
    (3, (2, 6, 7, 8), (2, 3, 2), (4, 3, 5), None),  # unbatched
    (3, (1, 3, 8, 6, 7), (3, 2, 2), None, (0.5, 0.5, 0.75)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n,shape,kernel,output_size,output_ratio", POOLS)
def test_values_indices_and_gradients_match_torch(torch, n, shape, kernel, output_size, output_ratio, dtype):
    rng = np.random.default_rng(len(shape) * 10 + n)
    x = rng.standard_normal(shape).astype(dtype)
    samples = _samples(rng, shape, n, dtype)
    ours, theirs = _functions(torch, n)
    x_ours, x_theirs = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, indices = ours(x_ours, kernel, output_size, output_ratio, True, ember.tensor(samples))
    expected, expected_indices = theirs(x_theirs, kernel, output_size, output_ratio, True, torch.tensor(samples))
    assert out.dtype.name == dtype and indices.dtype == ember.int64
    np.testing.assert_array_equal(out.detach().numpy(), expected.detach().numpy())
    np.testing.assert_array_equal(indices.numpy(), expected_indices.numpy())
    assert out.grad_fn.name() == expected.grad_fn.name()
    weights = rng.standard_normal(tuple(expected.shape)).astype(dtype)
    (out * ember.tensor(weights)).sum().backward()
    (expected * torch.tensor(weights)).sum().backward()
    assert_close(x_ours.grad, x_theirs.grad.numpy(), rtol=1e-6, atol=0, what="input gradient")


@pytest.mark.parametrize("n,shape", [(2, (2, 3, 8, 8)), (3, (1, 2, 6, 6, 6))])
def test_ties_nan_and_infinity_choose_torchs_element(torch, n, shape):
    """Ties keep the first maximum in scan order; a NaN wins over numbers (the last NaN of a window);
    a window of -inf points at its first element."""
    rng = np.random.default_rng(3)
    x = rng.integers(0, 3, size=shape).astype("float32")  # many ties
    x.reshape(-1)[rng.choice(x.size, 12, replace=False)] = np.nan
    x.reshape(-1)[:10] = -np.inf
    samples = _samples(rng, shape, n, "float32")
    ours, theirs = _functions(torch, n)
    out, indices = ours(ember.tensor(x), 2, 3, return_indices=True, _random_samples=ember.tensor(samples))
    expected, expected_indices = theirs(
        torch.tensor(x), 2, 3, return_indices=True, _random_samples=torch.tensor(samples)
    )
    np.testing.assert_array_equal(out.numpy(), expected.numpy())
    np.testing.assert_array_equal(indices.numpy(), expected_indices.numpy())


def test_window_maximum_rules_match_torch_in_disjoint_windows(torch):
    """Kernel 2, output 2 of 4: the windows are the four 2x2 blocks, whatever the samples."""
    nan, inf = float("nan"), float("inf")
    rows = [[nan, 1.0, 3.0, 3.0], [2.0, nan, 3.0, 3.0], [-inf, -inf, 5.0, nan], [-inf, -inf, nan, 5.0]]
    x = np.array(rows).reshape(1, 1, 4, 4)
    samples = np.array([[[0.4, 0.8]]])
    _, indices = F.fractional_max_pool2d(
        ember.tensor(x), 2, 2, return_indices=True, _random_samples=ember.tensor(samples)
    )
    _, expected = torch.nn.functional.fractional_max_pool2d(
        torch.tensor(x), 2, 2, return_indices=True, _random_samples=torch.tensor(samples)
    )
    # the last NaN, the first of tied maxima, the first of an all -inf window, the last NaN
    assert indices.flatten().tolist() == expected.flatten().tolist() == [5, 2, 8, 14]


def test_window_starts_are_computed_in_the_inputs_dtype(torch):
    """alpha = 26/22 in float32 puts the twelfth window one element earlier than in float64, as in ATen."""
    found = {}
    for dtype in ("float32", "float64"):
        x = np.arange(27.0, dtype=dtype).reshape(1, 1, 1, 27)
        samples = np.zeros((1, 1, 2), dtype=dtype)
        _, ours = F.fractional_max_pool2d(ember.tensor(x), 1, (1, 23), None, True, ember.tensor(samples))
        _, theirs = torch.nn.functional.fractional_max_pool2d(
            torch.tensor(x), 1, (1, 23), None, True, torch.tensor(samples)
        )
        assert ours.flatten().tolist() == theirs.flatten().tolist()
        found[dtype] = ours.flatten().tolist()[11]
    assert found == {"float32": 12, "float64": 13}


def test_overlapping_windows_add_their_gradients(torch):
    """Windows overlap (kernel 3, output 6 of 8): an element that is the maximum of two windows gets both gradients."""
    x = np.random.default_rng(2).standard_normal((1, 1, 8, 8))
    x[0, 0, 3, 3] = 100.0  # the maximum of every window that holds it
    samples = np.array([[[0.3, 0.6]]])
    x_ours, x_theirs = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    F.fractional_max_pool2d(x_ours, 3, 6, _random_samples=ember.tensor(samples)).sum().backward()
    torch.nn.functional.fractional_max_pool2d(x_theirs, 3, 6, _random_samples=torch.tensor(samples)).sum().backward()
    assert x_ours.grad.max().item() > 1
    np.testing.assert_array_equal(x_ours.grad.numpy(), x_theirs.grad.numpy())


def test_samples_beyond_the_batch_are_ignored_as_in_torch(torch):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 9, 9))
    samples = _samples(rng, x.shape, 2, "float64", rows=5)
    out = F.fractional_max_pool2d(ember.tensor(x), 2, 4, _random_samples=ember.tensor(samples))
    expected = torch.nn.functional.fractional_max_pool2d(torch.tensor(x), 2, 4, _random_samples=torch.tensor(samples))
    np.testing.assert_array_equal(out.numpy(), expected.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n,shape", [(2, (2, 3, 10, 9)), (2, (3, 10, 9)), (3, (2, 2, 7, 8, 6)), (3, (2, 7, 8, 6))])
def test_same_seed_draws_torchs_samples(torch, n, shape, dtype):
    """Without `_random_samples` both draw rand(N, C, n) from the global generator."""
    x = np.random.default_rng(5).standard_normal(shape).astype(dtype)
    ours, theirs = _functions(torch, n)
    ember.manual_seed(1234)
    torch.manual_seed(1234)
    for _ in range(2):  # the second call draws on from where the first left the stream
        out, indices = ours(ember.tensor(x), 2, output_ratio=0.5, return_indices=True)
        expected, expected_indices = theirs(torch.tensor(x), 2, output_ratio=(0.5,) * n, return_indices=True)
        np.testing.assert_array_equal(out.numpy(), expected.numpy())
        np.testing.assert_array_equal(indices.numpy(), expected_indices.numpy())
    assert ember.rand(3).tolist() == pytest.approx(torch.rand(3).tolist())


def test_double_backward_and_its_node_match_torch(torch):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 2, 9, 8))
    samples = _samples(rng, x.shape, 2, "float64")
    grad_output = rng.standard_normal((2, 2, 4, 5))
    weights = rng.standard_normal(x.shape)
    results = []
    for library, function in ((ember, F.fractional_max_pool2d), (torch, torch.nn.functional.fractional_max_pool2d)):
        x_tensor = library.tensor(x, requires_grad=True)
        upstream = library.tensor(grad_output, requires_grad=True)
        out = function(x_tensor, 2, (4, 5), _random_samples=library.tensor(samples))
        (grad_x,) = library.autograd.grad(out, x_tensor, upstream, create_graph=True)
        (grad_upstream,) = library.autograd.grad((grad_x * library.tensor(weights)).sum(), upstream)
        results.append((grad_x.grad_fn.name(), grad_x.detach().numpy(), grad_upstream.numpy()))
    (name, grad_x, grad_upstream), (torch_name, torch_grad_x, torch_grad_upstream) = results
    assert name == torch_name == "FractionalMaxPool2DBackwardBackward0"
    np.testing.assert_array_equal(grad_x, torch_grad_x)
    np.testing.assert_array_equal(grad_upstream, torch_grad_upstream)


@pytest.mark.parametrize("n,shape", [(2, (2, 3, 9, 8)), (3, (1, 2, 6, 7, 6))])
def test_forward_mode_tangent_matches_torch(torch, n, shape):
    rng = np.random.default_rng(7)
    x, tangent = rng.standard_normal(shape), rng.standard_normal(shape)
    samples = _samples(rng, shape, n, "float64")
    ours, theirs = _functions(torch, n)
    with forward_ad.dual_level():
        dual = forward_ad.make_dual(ember.tensor(x), ember.tensor(tangent))
        ours_tangent = forward_ad.unpack_dual(ours(dual, 2, 3, _random_samples=ember.tensor(samples))).tangent
    with torch.autograd.forward_ad.dual_level():
        dual = torch.autograd.forward_ad.make_dual(torch.tensor(x), torch.tensor(tangent))
        out = theirs(dual, 2, 3, _random_samples=torch.tensor(samples))
        torch_tangent = torch.autograd.forward_ad.unpack_dual(out).tangent
    np.testing.assert_array_equal(ours_tangent.numpy(), torch_tangent.numpy())


def test_empty_batch_and_empty_output_have_torchs_shapes(torch):
    for shape, output_size in (((0, 3, 8, 8), 3), ((2, 3, 8, 8), 0), ((2, 3, 8, 8), (0, 4))):
        ours = F.fractional_max_pool2d(ember.randn(*shape), 2, output_size)
        theirs = torch.nn.functional.fractional_max_pool2d(torch.randn(*shape), 2, output_size)
        assert tuple(ours.shape) == tuple(theirs.shape)


def test_signatures_and_return_indices_dispatch_match_torch(torch):
    expected = inspect.signature(torch.nn.functional.fractional_max_pool2d_with_indices).parameters
    for name in ("fractional_max_pool2d", "fractional_max_pool2d_with_indices"):
        parameters = inspect.signature(getattr(F, name)).parameters
        assert [(p.name, p.default) for p in parameters.values()] == [(p.name, p.default) for p in expected.values()]
    x = ember.randn(1, 2, 8, 8)
    assert isinstance(F.fractional_max_pool2d(x, 2, 3, None, True), tuple)  # return_indices in 5th place
    assert isinstance(F.fractional_max_pool3d_with_indices(ember.randn(1, 2, 6, 6, 6), 2, 3), tuple)
    assert isinstance(F.fractional_max_pool2d(x, 2, 3), ember.Tensor)


# ---------------------------------------------------------------- layers
@pytest.mark.parametrize(
    "name,args,kwargs",
    [
        ("FractionalMaxPool2d", (3,), {"output_ratio": 0.5}),
        ("FractionalMaxPool2d", ((2, 3),), {"output_size": 4, "return_indices": True}),
        ("FractionalMaxPool3d", (2,), {"output_size": (3, 4, 4)}),
        ("FractionalMaxPool3d", ((2, 1, 2),), {"output_ratio": (0.5, 0.6, 0.7)}),
    ],
)
def test_layers_repr_attributes_and_forward_match_torch(torch, name, args, kwargs):
    n = 2 if name.endswith("2d") else 3
    shape = (2, 3, 9, 10) if n == 2 else (2, 3, 8, 9, 10)
    rng = np.random.default_rng(8)
    samples = _samples(rng, shape, n, "float32")
    ours = getattr(ember.nn, name)(*args, **kwargs, _random_samples=ember.tensor(samples))
    theirs = getattr(torch.nn, name)(*args, **kwargs, _random_samples=torch.tensor(samples))
    assert repr(ours) == repr(theirs)
    for attribute in ("kernel_size", "output_size", "output_ratio", "return_indices"):
        assert getattr(ours, attribute) == getattr(theirs, attribute), attribute
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["_random_samples"]
    x = rng.standard_normal(shape).astype("float32")
    out, expected = ours(ember.tensor(x)), theirs(torch.tensor(x))
    if kwargs.get("return_indices"):
        np.testing.assert_array_equal(out[1].numpy(), expected[1].numpy())
        out, expected = out[0], expected[0]
    np.testing.assert_array_equal(out.numpy(), expected.numpy())


def test_layer_without_samples_draws_as_torch(torch):
    x = np.random.default_rng(9).standard_normal((2, 3, 12, 12)).astype("float32")
    ours, theirs = ember.nn.FractionalMaxPool2d(2, output_size=5), torch.nn.FractionalMaxPool2d(2, output_size=5)
    assert repr(ours) == repr(theirs) == "FractionalMaxPool2d()"
    assert list(ours.state_dict()) == list(theirs.state_dict()) == []
    ember.manual_seed(77)
    torch.manual_seed(77)
    np.testing.assert_array_equal(ours(ember.tensor(x)).numpy(), theirs(torch.tensor(x)).numpy())


@pytest.mark.parametrize(
    "name,args,kwargs",
    [
        ("FractionalMaxPool2d", (2,), {}),
        ("FractionalMaxPool2d", (2,), {"output_size": 3, "output_ratio": 0.5}),
        ("FractionalMaxPool2d", (2,), {"output_ratio": (0.5, 1.0)}),
        ("FractionalMaxPool3d", (2,), {"output_ratio": 0.0}),
        ("FractionalMaxPool3d", (0,), {"output_size": 2}),
    ],
)
def test_layer_argument_errors_match_torch(torch, name, args, kwargs):
    with pytest.raises(Exception) as expected:
        getattr(torch.nn, name)(*args, **kwargs)
    with pytest.raises(expected.type, match=name):
        getattr(ember.nn, name)(*args, **kwargs)


# ---------------------------------------------------------------- errors of the functions
def _x(library, *shape, dtype="float32"):
    return library.zeros(*shape, dtype=getattr(library, dtype))


def _rand(library, *shape, dtype="float64"):
    return library.rand(*shape, dtype=getattr(library, dtype))


BAD_CALLS = {
    "neither output_size nor output_ratio": lambda lib, F: F.fractional_max_pool2d(_x(lib, 1, 2, 8, 8), 2),
    "output too tall": lambda lib, F: F.fractional_max_pool2d(_x(lib, 1, 2, 8, 8), 2, (8, 3)),
    "output too wide": lambda lib, F: F.fractional_max_pool2d(_x(lib, 1, 2, 8, 8), 3, (3, 7)),
    "3-d refuses output + kernel - 1 == input": lambda lib, F: F.fractional_max_pool3d(
        _x(lib, 1, 1, 5, 6, 7), 2, (4, 3, 3)
    ),
    "3-d output too wide": lambda lib, F: F.fractional_max_pool3d(_x(lib, 1, 1, 5, 6, 7), 2, (3, 3, 7)),
    "ratio of 1": lambda lib, F: F.fractional_max_pool2d(_x(lib, 1, 2, 8, 8), 2, output_ratio=(1, 1)),
    "three ratios for 2-d": lambda lib, F: F.fractional_max_pool2d(_x(lib, 1, 2, 8, 8), 2, output_ratio=(0.5,) * 3),
    "negative output size": lambda lib, F: F.fractional_max_pool2d(_x(lib, 1, 2, 8, 8), 2, -1),
    "three kernel sizes for 2-d": lambda lib, F: F.fractional_max_pool2d(_x(lib, 1, 2, 8, 8), (2, 2, 2), 3),
    "one-element kernel list": lambda lib, F: F.fractional_max_pool2d(_x(lib, 1, 2, 8, 8), (2,), 3),
    "three output sizes for 2-d": lambda lib, F: F.fractional_max_pool2d(_x(lib, 1, 2, 8, 8), 2, (3, 3, 3)),
    "float kernel": lambda lib, F: F.fractional_max_pool2d(_x(lib, 1, 2, 8, 8), 2.0, 3),
    "float output size": lambda lib, F: F.fractional_max_pool2d(_x(lib, 1, 2, 8, 8), 2, (3.0, 3)),
    "2-d input, no samples": lambda lib, F: F.fractional_max_pool2d(_x(lib, 8, 8), 2, 3),
    "2-d input with samples": lambda lib, F: F.fractional_max_pool2d(
        _x(lib, 8, 8), 2, 3, _random_samples=_rand(lib, 1, 8, 2, dtype="float32")
    ),
    "5-d input to the 2-d op": lambda lib, F: F.fractional_max_pool2d(_x(lib, 1, 1, 1, 8, 8), 2, 3),
    "6-d input to the 3-d op": lambda lib, F: F.fractional_max_pool3d(_x(lib, 1, 1, 1, 6, 6, 6), 2, 3),
    "empty channels": lambda lib, F: F.fractional_max_pool2d(_x(lib, 2, 0, 8, 8), 2, 3),
    "empty height": lambda lib, F: F.fractional_max_pool3d(_x(lib, 2, 1, 6, 0, 6), 2, 3),
    "samples of another dtype": lambda lib, F: F.fractional_max_pool2d(
        _x(lib, 2, 3, 8, 8), 2, 3, _random_samples=_rand(lib, 2, 3, 2)
    ),
    "samples of 2 dims": lambda lib, F: F.fractional_max_pool2d(
        _x(lib, 3, 8, 8), 2, 3, _random_samples=_rand(lib, 3, 2, dtype="float32")
    ),
    "samples for a smaller batch": lambda lib, F: F.fractional_max_pool2d(
        _x(lib, 2, 3, 8, 8), 2, 3, _random_samples=_rand(lib, 1, 3, 2, dtype="float32")
    ),
    "samples for other channels": lambda lib, F: F.fractional_max_pool2d(
        _x(lib, 2, 3, 8, 8), 2, 3, _random_samples=_rand(lib, 2, 4, 2, dtype="float32")
    ),
    "3 samples per plane for 2-d": lambda lib, F: F.fractional_max_pool2d(
        _x(lib, 2, 3, 8, 8), 2, 3, _random_samples=_rand(lib, 2, 3, 3, dtype="float32")
    ),
    "2 samples per plane for 3-d": lambda lib, F: F.fractional_max_pool3d(
        _x(lib, 1, 2, 6, 6, 6), 2, 3, _random_samples=_rand(lib, 1, 2, 2, dtype="float32")
    ),
    "samples that require grad": lambda lib, F: F.fractional_max_pool2d(
        _x(lib, 1, 1, 8, 8, dtype="float64"), 2, 3, _random_samples=_rand(lib, 1, 1, 2).requires_grad_()
    ),
    "integer input": lambda lib, F: F.fractional_max_pool2d(_x(lib, 1, 1, 8, 8, dtype="int64"), 2, 3),
    "integer input, float samples": lambda lib, F: F.fractional_max_pool2d(
        _x(lib, 1, 1, 8, 8, dtype="int64"), 2, 3, _random_samples=_rand(lib, 1, 1, 2)
    ),
}


@pytest.mark.parametrize("case", list(BAD_CALLS))
def test_bad_arguments_raise_torchs_exception_class(torch, case):
    call = BAD_CALLS[case]
    with pytest.raises(Exception) as expected:
        call(torch, torch.nn.functional)
    with pytest.raises(expected.type) as raised:
        call(ember, F)
    assert "fractional_max_pool" in str(raised.value), str(raised.value)


def test_zero_kernel_is_refused_where_torch_pools_empty_windows(torch):
    """A deliberate difference: torch returns -inf from windows of no element; ember refuses them."""
    x = torch.randn(1, 1, 4, 4)
    assert torch.isinf(torch.nn.functional.fractional_max_pool2d(x, 0, 2)).all()
    with pytest.raises(RuntimeError, match="kernel_size must be greater than zero"):
        F.fractional_max_pool2d(ember.randn(1, 1, 4, 4), 0, 2)


def test_a_single_ratio_is_accepted_by_the_2d_function(torch):
    """Torch's docs allow a number, its 2-d function raises TypeError on one; ember reads it as a pair."""
    x = np.random.default_rng(10).standard_normal((1, 2, 9, 8))
    samples = np.random.default_rng(11).random((1, 2, 2))
    ours = F.fractional_max_pool2d(ember.tensor(x), 2, output_ratio=0.5, _random_samples=ember.tensor(samples))
    theirs = torch.nn.functional.fractional_max_pool2d(
        torch.tensor(x), 2, output_ratio=(0.5, 0.5), _random_samples=torch.tensor(samples)
    )
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
