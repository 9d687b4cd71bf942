"""index_reduce against PyTorch: values for every reduction, dtype and dim, gradients where the
reduction is not smooth (ties of amax/amin, zeros of prod), double backward, the in-place and out=
forms, and the errors. The op-table cases (tests/ops/table_indexing.py) add gradcheck and
gradgradcheck in float64."""

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck

from ..conftest import assert_close
from .differential import raises_like

# torch warns once per process that index_reduce is in beta; which test comes first varies.
pytestmark = pytest.mark.filterwarnings(r"ignore:index_reduce\(\) is in beta:UserWarning")

REDUCTIONS = ["prod", "mean", "amax", "amin"]
INDEX = [2, 0, 2, 2, 3]  # position 2 receives three slices, position 1 none


def _pair(lib, arrays, requires_grad=False):
    return [lib.tensor(array, requires_grad=requires_grad and array.dtype.kind == "f") for array in arrays]


def _assert_identical(ours, theirs, what):
    """Same dtype, shape and values, bit for bit (NaN where torch has NaN)."""
    expected = theirs.detach().numpy()
    assert str(ours.dtype) == str(theirs.dtype), f"{what}: dtype {ours.dtype} vs torch's {theirs.dtype}"
    assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: shape {tuple(ours.shape)} vs {tuple(theirs.shape)}"
    assert np.array_equal(ours.detach().numpy(), expected, equal_nan=True), (
        f"{what}:\n{ours.detach().numpy()}\nvs torch's\n{expected}"
    )


def _inputs(dtype, dim, rng):
    """An input of shape (4, 3, 2) and a source with len(INDEX) slices along `dim`."""
    shape = [4, 3, 2]
    shape[dim] = 4
    source_shape = list(shape)
    source_shape[dim] = len(INDEX)
    if dtype == "int64":  # small values of both signs: means round down, products do not overflow
        return rng.integers(-9, 10, size=shape), rng.integers(-9, 10, size=source_shape)
    return rng.standard_normal(shape).astype(dtype), rng.standard_normal(source_shape).astype(dtype)


# ----------------------------------------------------------------------------- values
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCTIONS)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_values_match_torch(torch, reduce, include_self, dtype, dim):
    arrays = _inputs(dtype, dim, np.random.default_rng(3))
    results = []
    for lib in (ember, torch):
        a, s = _pair(lib, arrays)
        results.append(a.index_reduce(dim, lib.tensor(INDEX), s, reduce, include_self=include_self))
    _assert_identical(*results, f"{reduce} include_self={include_self} {dtype} dim={dim}")


def test_integer_mean_rounds_down_like_torch(torch):
    """-7 / 2 is -4 (floor), not -3 (truncation); the count includes the input's value or not."""
    for include_self in (True, False):
        results = [
            lib.tensor([[-7], [3]]).index_reduce(
                0, lib.tensor([0, 0]), lib.tensor([[0], [-1]]), "mean", include_self=include_self
            )
            for lib in (ember, torch)
        ]
        _assert_identical(*results, f"int64 mean include_self={include_self}")
    assert ember.tensor([[-7], [3]]).index_reduce(0, ember.tensor([0]), ember.tensor([[0]]), "mean").tolist() == [
        [-4],
        [3],
    ]


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_nan_propagates_like_torch(torch, reduce, include_self):
    nan = float("nan")
    arrays = np.array([[1.0, nan, 2.0], [2.0, 3.0, 4.0]]), np.array([[nan, 1.0, 5.0], [5.0, 6.0, -1.0]])
    results = []
    for lib in (ember, torch):
        a, s = _pair(lib, arrays)
        results.append(a.index_reduce(0, lib.tensor([0, 0]), s, reduce, include_self=include_self))
    _assert_identical(*results, f"{reduce} with NaN")


@pytest.mark.parametrize("reduce", REDUCTIONS)
@pytest.mark.parametrize("index", [0, [0]], ids=["0d_index", "1d_index"])
@pytest.mark.parametrize("dim", [0, -1])
def test_zero_dim_input_like_torch(torch, reduce, index, dim):
    results = []
    for lib in (ember, torch):
        a = lib.tensor(2.0, dtype=lib.float64, requires_grad=True)
        s = lib.tensor(-3.0, dtype=lib.float64, requires_grad=True)
        result = a.index_reduce(dim, lib.tensor(index), s, reduce)
        result.backward()
        results.append((result, a.grad, s.grad))
    for ours, theirs, what in zip(results[0], results[1], ("value", "input grad", "source grad")):
        _assert_identical(ours, theirs, f"0-d {reduce} {what}")


def test_int32_index_and_function_form(torch):
    arrays = _inputs("float64", 0, np.random.default_rng(4))
    results = []
    for lib in (ember, torch):
        a, s = _pair(lib, arrays)
        index = lib.tensor(INDEX, dtype=lib.int32)
        results.append(lib.index_reduce(a, 0, index, s, reduce="amin", include_self=False))
    _assert_identical(*results, "int32 index")


def test_grad_fn_and_edges_like_torch(torch):
    for lib in (ember, torch):
        a = lib.ones(3, 2, requires_grad=True)
        result = a.index_reduce(0, lib.tensor([1]), lib.ones(1, 2), "amax")
        (input_node, _), (source_node, _) = result.grad_fn.next_functions
        assert result.grad_fn.name() == "IndexReduceBackward0", lib.__name__
        assert type(input_node).__name__ == "AccumulateGrad" and source_node is None, lib.__name__


# ----------------------------------------------------------------------------- gradients
def _planted(reduce, include_self, rng):
    """float64 (4, 3) input and (5, 3) source for INDEX, with the cases the backward must get right:
    prod: zeros of the input, a lone zero and a pair of zeros among the source values of one position;
    amax/amin: a three-way tie among source values, and a tie between the input and a source value."""
    a, s = rng.uniform(0.5, 2.0, size=(4, 3)) * rng.choice([-1, 1], size=(4, 3)), rng.uniform(0.5, 2.0, size=(5, 3))
    if reduce == "prod":
        a[2, 0] = 0.0  # the input's zero at a position that receives three slices
        s[0, 1] = 0.0  # a lone zero at position 2, column 1
        s[2, 2] = s[3, 2] = 0.0  # two zeros at position 2, column 2: their gradients are zero
        a[0, 1] = s[1, 1] = 0.0  # the input's zero and the lone source zero at position 0
    elif reduce in ("amax", "amin"):
        extreme = 5.0 if reduce == "amax" else -5.0
        s[0, 0] = s[2, 0] = s[3, 0] = extreme  # three-way tie among the slices at position 2
        a[0, 1] = s[1, 1] = extreme  # the input ties with the one slice at position 0
    return a, s


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_gradients_match_torch_with_ties_and_zeros(torch, reduce, include_self):
    arrays = _planted(reduce, include_self, np.random.default_rng(8))
    weights = np.random.default_rng(9).standard_normal((4, 3))
    grads = []
    for lib in (ember, torch):
        a, s = _pair(lib, arrays, requires_grad=True)
        result = a.index_reduce(0, lib.tensor(INDEX), s, reduce, include_self=include_self)
        (result * lib.tensor(weights)).sum().backward()
        grads.append((a.grad, s.grad))
    for ours, theirs, what in zip(grads[0], grads[1], ("input", "source")):
        assert_close(ours, theirs.numpy(), rtol=1e-12, atol=1e-12, what=f"{reduce} gradient of {what}")


def test_ties_share_the_gradient_evenly():
    """Three source values tied at the maximum get a third each; the input's own tied value counts as a
    share even when include_self=False leaves it out, and that share is dropped (PyTorch's formula)."""
    a = ember.tensor([[1.0, 7.0]], dtype=ember.float64, requires_grad=True)
    s = ember.tensor([[4.0, 7.0], [4.0, 2.0], [4.0, 7.0]], dtype=ember.float64, requires_grad=True)
    a.index_reduce(0, ember.tensor([0, 0, 0]), s, "amax").sum().backward()
    assert a.grad.tolist() == [[0.0, 1 / 3]]
    assert s.grad.tolist() == [[1 / 3, 1 / 3], [1 / 3, 0.0], [1 / 3, 1 / 3]]
    a.grad = s.grad = None
    a.index_reduce(0, ember.tensor([0, 0, 0]), s, "amax", include_self=False).sum().backward()
    assert a.grad.tolist() == [[0.0, 0.0]]
    assert s.grad.tolist() == [[1 / 3, 1 / 3], [1 / 3, 0.0], [1 / 3, 1 / 3]]


def test_prod_gradient_of_a_zero_is_the_product_of_the_others():
    a = ember.tensor([[0.0, 2.0]], dtype=ember.float64, requires_grad=True)
    s = ember.tensor([[3.0, 0.0], [5.0, 7.0]], dtype=ember.float64, requires_grad=True)
    a.index_reduce(0, ember.tensor([0, 0]), s, "prod").sum().backward()
    assert a.grad.tolist() == [[15.0, 0.0]]
    assert s.grad.tolist() == [[0.0, 14.0], [0.0, 0.0]]
    assert gradcheck(lambda a, s: a.index_reduce(0, ember.tensor([0, 0]), s, "prod"), (a, s))


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_double_backward_matches_torch(torch, reduce, include_self):
    """Second derivatives through the recorded backward, for inputs without ties and with lone zeros
    (prod); PyTorch's formula is linear in the gradient for mean and amax/amin."""
    rng = np.random.default_rng(11)
    arrays = rng.uniform(0.5, 2.0, size=(4, 3)), rng.uniform(0.5, 2.0, size=(5, 3))
    if reduce == "prod":
        arrays[0][2, 0] = arrays[1][0, 1] = 0.0
    weights, grad_weights = rng.standard_normal((4, 3)), rng.standard_normal((5, 3))
    results = []
    for lib in (ember, torch):
        a, s = _pair(lib, arrays, requires_grad=True)
        result = a.index_reduce(0, lib.tensor(INDEX), s, reduce, include_self=include_self)
        (grad_s,) = lib.autograd.grad((result * lib.tensor(weights)).sum(), s, create_graph=True)
        if not grad_s.requires_grad:  # linear in the gradient, constant in the inputs
            results.append((grad_s, None, None))
            continue
        results.append(
            (grad_s, *lib.autograd.grad((grad_s * lib.tensor(grad_weights)).sum(), (a, s), allow_unused=True))
        )
    for ours, theirs, what in zip(results[0], results[1], ("gradient", "d/d input", "d/d source")):
        assert (ours is None) == (theirs is None), what
        if ours is not None:
            assert_close(ours, theirs.detach().numpy(), rtol=1e-12, atol=1e-12, what=f"{reduce} {what}")


def test_double_backward_refused_for_two_zeros_at_one_position():
    """As PyTorch: the first derivative is right, its derivative is not, so differentiating it raises."""
    a = ember.tensor([1.0], dtype=ember.float64, requires_grad=True)
    s = ember.tensor([0.0, 0.0], dtype=ember.float64, requires_grad=True)
    result = a.index_reduce(0, ember.tensor([0, 0]), s, "prod")
    (grad_s,) = ember.autograd.grad(result.sum(), s, create_graph=True)
    assert grad_s.tolist() == [0.0, 0.0]
    assert grad_s.grad_fn.name() == "DelayedError"
    with pytest.raises(RuntimeError, match="index_reduce\\(\\): Double backward is unsupported for source"):
        grad_s.sum().backward()


def test_first_order_gradient_with_two_zeros_needs_no_refusal():
    a = ember.tensor([1.0], dtype=ember.float64, requires_grad=True)
    s = ember.tensor([0.0, 0.0], dtype=ember.float64, requires_grad=True)
    a.index_reduce(0, ember.tensor([0, 0]), s, "prod").sum().backward()
    assert s.grad.tolist() == [0.0, 0.0] and a.grad.tolist() == [0.0]


# ----------------------------------------------------------------------------- in-place and out=
@pytest.mark.parametrize("reduce", REDUCTIONS)
def test_inplace_matches_torch_and_bumps_the_version(torch, reduce):
    arrays = _inputs("float64", 1, np.random.default_rng(12))
    outcomes = []
    for lib in (ember, torch):
        a, s = _pair(lib, arrays)
        version = a._version
        returned = a.index_reduce_(1, lib.tensor(INDEX), s, reduce, include_self=False)
        assert returned is a
        outcomes.append((a, a._version - version))
    _assert_identical(outcomes[0][0], outcomes[1][0], f"{reduce}_")
    assert outcomes[0][1] == outcomes[1][1] == 1


def test_inplace_on_a_non_leaf_records_the_gradient_like_torch(torch):
    arrays = _planted("amax", True, np.random.default_rng(13))
    grads = []
    for lib in (ember, torch):
        a, s = _pair(lib, arrays, requires_grad=True)
        b = a * 2
        b.index_reduce_(0, lib.tensor(INDEX), s * 2, "amax")
        assert b.grad_fn.name() == "IndexReduceBackward0"
        b.sum().backward()
        grads.append((a.grad, s.grad))
    for ours, theirs in zip(*grads):
        assert_close(ours, theirs.numpy(), rtol=1e-12, atol=1e-12, what="gradient through index_reduce_")


def test_inplace_on_a_leaf_that_requires_grad_is_refused(torch):
    raises_like(
        lambda lib: lib.ones(3, 2, requires_grad=True).index_reduce_(0, lib.tensor([0]), lib.ones(1, 2), "amin"),
        torch,
        match="leaf Variable",
    )


def test_changing_the_saved_input_in_place_is_detected():
    a = ember.tensor([[1.0, 2.0]], requires_grad=True)
    b = a * 1
    result = b.index_reduce(0, ember.tensor([0]), ember.tensor([[3.0, 4.0]]), "prod")
    b.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        result.sum().backward()


def test_out_matches_torch(torch):
    arrays = _inputs("float32", 0, np.random.default_rng(14))
    outs = []
    for lib in (ember, torch):
        a, s = _pair(lib, arrays)
        out = lib.empty(4, 3, 2)
        returned = lib.index_reduce(a, 0, lib.tensor(INDEX), s, "mean", include_self=False, out=out)
        assert returned is out
        outs.append(out)
    _assert_identical(*outs, "out=")


def test_out_of_another_dtype_is_refused(torch):
    def run(lib):
        a = lib.ones(3, 2)
        return lib.index_reduce(a, 0, lib.tensor([0]), lib.ones(1, 2), "prod", out=lib.empty(3, 2, dtype=lib.float64))

    raises_like(run, torch, match="Expected out tensor to have dtype")


def test_out_with_inputs_that_require_grad_is_refused(torch):
    def run(lib):
        a = lib.ones(3, 2, requires_grad=True)
        return lib.index_reduce(a, 0, lib.tensor([0]), lib.ones(1, 2), "prod", out=lib.empty(3, 2))

    raises_like(run, torch, match="index_reduce(): functions with out=")


# ----------------------------------------------------------------------------- errors
def _call(lib, input_shape=(3, 2), dim=0, index=(0,), source_shape=(1, 2), reduce="prod", **options):
    index = lib.tensor(index) if isinstance(index, tuple) else index(lib)
    return lib.ones(input_shape).index_reduce(dim, index, lib.ones(source_shape), reduce, **options)


ERRORS = {
    "reduce_sum": (lambda lib: _call(lib, reduce="sum"), "Expected reduce to be one of prod, mean, amax or amin"),
    "reduce_max": (lambda lib: _call(lib, reduce="max"), "but got max"),
    "reduce_not_str": (lambda lib: _call(lib, reduce=None), "'reduce' must be str"),
    "float_index": (lambda lib: _call(lib, index=lambda lib: lib.tensor([0.0])), "int32 or int64"),
    "int16_index": (lambda lib: _call(lib, index=lambda lib: lib.tensor([0], dtype=lib.int16)), "int32 or int64"),
    "matrix_index": (lambda lib: _call(lib, index=lambda lib: lib.tensor([[0]])), "supposed to be a vector"),
    "list_index": (lambda lib: lib.ones(3, 2).index_reduce(0, [0], lib.ones(1, 2), "prod"), "'index' must be Tensor"),
    "number_source": (lambda lib: lib.ones(3, 2).index_reduce(0, lib.tensor([0]), 3.0, "prod"), "must be Tensor"),
    "too_many_indices": (lambda lib: _call(lib, index=(0, 1)), "Number of indices (2) should be equal"),
    "source_other_dim": (lambda lib: _call(lib, source_shape=(1, 3)), "source.shape = [1, 3]"),
    "source_rank": (lambda lib: _call(lib, source_shape=(1, 2, 1)), "self.shape = [3, 2]"),
    "source_0d_for_vector": (lambda lib: _call(lib, input_shape=(3,), source_shape=()), "source.shape = []"),
    "source_0d_two_indices": (lambda lib: _call(lib, index=(0, 1), source_shape=()), "0-d source"),
    "source_1d_for_dim_1": (lambda lib: _call(lib, dim=1, source_shape=(2,)), "out of bounds of the 1-d source"),
    "dim_out_of_range": (lambda lib: _call(lib, dim=2), "Dimension out of range"),
    "dim_float": (lambda lib: _call(lib, dim=0.0), "'dim' must be int"),
    "index_too_large": (lambda lib: _call(lib, index=(3,)), "index out of range in self"),
    "index_negative": (lambda lib: _call(lib, index=(-1,)), "negative positions"),
    "include_self_int": (lambda lib: _call(lib, include_self=0), "'include_self' must be bool"),
    "dtype_mismatch": (
        lambda lib: lib.ones(3, 2).index_reduce(0, lib.tensor([0]), lib.ones(1, 2, dtype=lib.float64), "amax"),
        "must have the same scalar type",
    ),
    "bool_mean": (
        lambda lib: lib.ones(3, 2, dtype=lib.bool).index_reduce(
            0, lib.tensor([0]), lib.ones(1, 2, dtype=lib.bool), "mean"
        ),
        "not implemented",
    ),
    "complex_amax": (
        lambda lib: lib.ones(3, 2, dtype=lib.complex64).index_reduce(
            0, lib.tensor([0]), lib.ones(1, 2, dtype=lib.complex64), "amax"
        ),
        "not implemented",
    ),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_have_torch_classes_and_name_the_op(torch, name):
    function, fragment = ERRORS[name]
    error = raises_like(function, torch, match=fragment)
    assert "index_reduce" in str(error) or name in ("dim_out_of_range",), str(error)


# ----------------------------------------------------------------------------- the shared backward
@pytest.mark.parametrize("reduce", ["sum", *REDUCTIONS])
def test_scatter_reduce_shares_the_backward_on_0d_tensors(torch, reduce):
    """scatter_reduce runs the same backward: on 0-d tensors too."""
    grads = []
    for lib in (ember, torch):
        a = lib.tensor(2.0, dtype=lib.float64, requires_grad=True)
        s = lib.tensor(-3.0, dtype=lib.float64, requires_grad=True)
        a.scatter_reduce(0, lib.tensor(0), s, reduce).backward()
        grads.append((a.grad, s.grad))
    for ours, theirs in zip(*grads):
        _assert_identical(ours, theirs, f"scatter_reduce {reduce} on 0-d")
