"""Explicit tests of ember/ops/comparison.py against torch: element-wise comparisons and their operators,
equal/allclose (Python bools), isclose, and the isnan family — dtypes, broadcasting, NaN, infinities,
errors."""

import operator

import numpy as np
import pytest

import ember

NAN, INF = float("nan"), float("inf")


def _pair(torch, values, dtype="float32"):
    array = np.array(values, dtype=dtype)
    return ember.tensor(array), torch.tensor(array)


def _assert_same_bools(ours, theirs, what):
    assert ours.dtype is ember.bool, f"{what}: dtype {ours.dtype}"
    assert str(theirs.dtype) == "torch.bool"
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy(), err_msg=what)


COMPARISONS = [
    ("eq", operator.eq),
    ("ne", operator.ne),
    ("lt", operator.lt),
    ("le", operator.le),
    ("gt", operator.gt),
    ("ge", operator.ge),
]
ALIASES = {"greater": "gt", "greater_equal": "ge", "less": "lt", "less_equal": "le", "not_equal": "ne"}


@pytest.mark.parametrize("name,symbol", COMPARISONS)
def test_comparisons_functions_methods_and_operators_match_torch(torch, name, symbol):
    a, ta = _pair(torch, [[1.0, NAN, INF, -0.0], [2.0, 3.0, -INF, 5.0]])
    b, tb = _pair(torch, [1.0, NAN, INF, 0.0])
    expected = getattr(torch, name)(ta, tb)
    _assert_same_bools(getattr(ember, name)(a, b), expected, f"ember.{name}")
    _assert_same_bools(getattr(a, name)(b), expected, f"tensor.{name}")
    _assert_same_bools(symbol(a, b), symbol(ta, tb), f"operator {name}")
    _assert_same_bools(symbol(a, 2), symbol(ta, 2), f"{name} with a number")
    _assert_same_bools(symbol(2.5, a), symbol(2.5, ta), f"{name} with a number on the left")


@pytest.mark.parametrize("alias,name", sorted(ALIASES.items()))
def test_comparison_aliases(torch, alias, name):
    a, ta = _pair(torch, [1.0, 2.0, 3.0])
    _assert_same_bools(getattr(ember, alias)(a, 2.0), getattr(torch, name)(ta, 2.0), alias)


def test_comparisons_across_dtypes_match_torch(torch):
    integers, torch_integers = _pair(torch, [1, 2, 3], dtype="int64")
    floats, torch_floats = _pair(torch, [1.0, 2.5, 3.0])
    bools, torch_bools = _pair(torch, [True, False, True], dtype="bool")
    _assert_same_bools(integers == floats, torch_integers == torch_floats, "int == float")
    _assert_same_bools(integers < 2.5, torch_integers < 2.5, "int < 2.5")
    _assert_same_bools(bools == integers, torch_bools == torch_integers, "bool == int")
    _assert_same_bools(bools > 0, torch_bools > 0, "bool > 0")


def test_comparisons_are_outside_the_graph_and_report_bad_shapes():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    assert not (x > 1).requires_grad and (x > 1).grad_fn is None
    with pytest.raises(RuntimeError, match="size of tensor a"):
        ember.eq(ember.zeros(2), ember.zeros(3))
    assert (x == None) is False  # noqa: E711  (as torch: identity comparison, not element-wise)


def test_zero_dim_and_empty(torch):
    a, ta = _pair(torch, 1.0)
    _assert_same_bools(a >= 1, ta >= 1, "0-d")
    empty, torch_empty = _pair(torch, np.zeros((0, 2)))
    _assert_same_bools(empty < 1, torch_empty < 1, "empty")


# ---------------------------------------------------------------- equal, allclose, isclose
def test_equal_matches_torch(torch):
    cases = [
        ([1.0, 2.0], "float32", [1.0, 2.0], "float32"),
        ([1, 2], "int64", [1.0, 2.0], "float32"),
        ([1.0, NAN], "float32", [1.0, NAN], "float32"),
        ([1.0, 2.0], "float32", [[1.0, 2.0]], "float32"),
        ([1.0, 2.0], "float32", [1.0], "float32"),
        ([], "float32", [], "float32"),
        ([True, False], "bool", [1, 0], "int64"),
    ]
    for first, first_dtype, second, second_dtype in cases:
        a, ta = _pair(torch, first, first_dtype)
        b, tb = _pair(torch, second, second_dtype)
        result = ember.equal(a, b)
        assert type(result) is bool and result == torch.equal(ta, tb), (first, second)
        assert a.equal(b) == result
    with pytest.raises(TypeError, match="must be Tensor"):
        ember.equal(ember.tensor([1.0]), [1.0])


CLOSE_VALUES = [1.0, 1.0 + 1e-6, 1.0 + 1e-4, 0.0, 1e-9, NAN, NAN, INF, INF, -INF, 100.0]
OTHER_VALUES = [1.0, 1.0, 1.0, 1e-9, 0.0, NAN, 1.0, INF, -INF, -INF, 100.001]


@pytest.mark.parametrize(
    "options",
    [{}, {"equal_nan": True}, {"rtol": 0.0, "atol": 0.0}, {"rtol": 1e-3}, {"atol": 1e-3}, {"rtol": 0, "atol": 2e-9}],
)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_isclose_and_allclose_match_torch(torch, options, dtype):
    a, ta = _pair(torch, CLOSE_VALUES, dtype)
    b, tb = _pair(torch, OTHER_VALUES, dtype)
    _assert_same_bools(ember.isclose(a, b, **options), torch.isclose(ta, tb, **options), f"isclose {options}")
    _assert_same_bools(a.isclose(b, **options), torch.isclose(ta, tb, **options), "method")
    for indices in ([0, 1], [0, 2], [5, 6], [5], [7, 8], [9]):
        result = ember.allclose(a[indices], b[indices], **options)
        assert type(result) is bool
        assert result == torch.allclose(ta[indices], tb[indices], **options), (indices, options)


def test_isclose_of_integers_and_bools_matches_torch(torch):
    a, ta = _pair(torch, [1, 5, -9, 2**62], dtype="int64")
    b, tb = _pair(torch, [2, 5, 9, -(2**62)], dtype="int64")
    for options in ({}, {"atol": 1}, {"rtol": 0.5}, {"atol": 18}):
        _assert_same_bools(ember.isclose(a, b, **options), torch.isclose(ta, tb, **options), f"int {options}")
    a, ta = _pair(torch, [True, False, True], dtype="bool")
    b, tb = _pair(torch, [False, False, True], dtype="bool")
    for options in ({}, {"atol": 1}):
        _assert_same_bools(ember.isclose(a, b, **options), torch.isclose(ta, tb, **options), f"bool {options}")


def test_isclose_broadcasts(torch):
    a, ta = _pair(torch, [[1.0, 2.0], [3.0, 1.0]])
    b, tb = _pair(torch, [1.0])
    _assert_same_bools(ember.isclose(a, b), torch.isclose(ta, tb), "broadcast")
    assert ember.allclose(a, a) and not ember.allclose(a, b)
    with pytest.raises(RuntimeError, match="isclose"):
        ember.isclose(ember.zeros(2), ember.zeros(3))


def test_isclose_errors_match_torch(torch):
    a = ember.tensor([1.0])
    with pytest.raises(RuntimeError, match="did not match"):
        ember.isclose(a, a.double())
    with pytest.raises(RuntimeError, match="did not match"):
        torch.isclose(torch.tensor([1.0]), torch.tensor([1.0]).double())
    with pytest.raises(RuntimeError, match="did not match"):
        ember.allclose(a, a.double())
    with pytest.raises(RuntimeError, match="rtol must be greater than or equal to zero"):
        ember.isclose(a, a, rtol=-1)
    with pytest.raises(RuntimeError, match="atol must be greater than or equal to zero"):
        ember.isclose(a, a, atol=-1)
    with pytest.raises(TypeError, match="must be Tensor"):
        ember.isclose(a, 1.0)
    with pytest.raises(TypeError):
        torch.isclose(torch.tensor([1.0]), 1.0)


# ---------------------------------------------------------------- isnan and friends
CLASSIFIERS = ["isnan", "isinf", "isfinite", "isposinf", "isneginf", "isreal"]


@pytest.mark.parametrize("name", CLASSIFIERS)
@pytest.mark.parametrize(
    "values,dtype",
    [
        ([NAN, INF, -INF, 0.0, -1.5], "float32"),
        ([NAN, INF, -INF, 1e308], "float64"),
        ([1, -2, 0], "int64"),
        ([7, 0], "uint8"),
        ([True, False], "bool"),
        (3.0, "float32"),
        (np.zeros((0, 2)), "float32"),
    ],
)
def test_classifiers_match_torch(torch, name, values, dtype):
    a, ta = _pair(torch, values, dtype)
    _assert_same_bools(getattr(ember, name)(a), getattr(torch, name)(ta), f"{name} of {dtype}")
    _assert_same_bools(getattr(a, name)(), getattr(torch, name)(ta), f"tensor.{name} of {dtype}")


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite", "isreal"])
def test_classifiers_of_complex_match_torch(torch, name):
    a, ta = _pair(torch, [complex(NAN, 0), complex(1, INF), complex(2, 0), complex(0, 1)], "complex64")
    _assert_same_bools(getattr(ember, name)(a), getattr(torch, name)(ta), f"{name} of complex")


@pytest.mark.parametrize("name", ["isposinf", "isneginf"])
def test_signed_infinity_checks_refuse_complex(torch, name):
    with pytest.raises(RuntimeError, match="does not support complex inputs"):
        getattr(ember, name)(ember.tensor([1 + 1j]))
    with pytest.raises(RuntimeError, match="does not support complex inputs"):
        getattr(torch, name)(torch.tensor([1 + 1j]))


def test_classifiers_need_a_tensor_and_stay_outside_the_graph():
    with pytest.raises(TypeError, match="must be Tensor"):
        ember.isnan(float("nan"))
    x = ember.tensor([1.0, NAN], requires_grad=True)
    assert not ember.isnan(x).requires_grad
