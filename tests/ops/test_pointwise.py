"""Explicit tests of ember/ops/pointwise.py: PyTorch's node names, dtype rules, errors, edge values
(NaN, infinities, signed zeros, ties, 0-d, empty), in-place variants, and gradients at the special
points the op table's random inputs avoid — each checked against torch."""

import math

import numpy as np
import pytest

import ember
from ember.ops import _special
from ember.ops._declare import DECLARATIONS

from ..conftest import assert_close

NAN, INF = float("nan"), float("inf")


def _pair(torch, values, dtype="float32", requires_grad=False):
    """The same values as an ember and a torch tensor."""
    array = np.array(values, dtype=dtype)
    ours = ember.tensor(array)
    theirs = torch.tensor(array)
    if requires_grad:
        ours.requires_grad_()
        theirs.requires_grad_()
    return ours, theirs


def _assert_same(ours, theirs, what, zero_signs=True):
    """Same dtype, shape and values (NaN where torch has NaN, signed zeros included unless told)."""
    assert ours.dtype.name == str(theirs.dtype).replace("torch.", ""), f"{what}: {ours.dtype} vs {theirs.dtype}"
    expected = theirs.detach().numpy()
    assert_close(ours, expected, rtol=1e-6, atol=1e-7, what=what)
    if zero_signs and expected.dtype.kind == "f":
        actual = ours.detach().numpy()
        zero = expected == 0
        assert np.array_equal(np.signbit(actual[zero]), np.signbit(expected[zero])), f"{what}: signs of zeros"


# ---------------------------------------------------------------- node names
UNARY_NAMES = [
    "ceil",
    "floor",
    "round",
    "trunc",
    "fix",
    "frac",
    "sign",
    "sgn",
    "exp2",
    "expm1",
    "log2",
    "log10",
    "log1p",
    "rsqrt",
    "reciprocal",
    "tan",
    "asin",
    "arcsin",
    "acos",
    "arccos",
    "atan",
    "arctan",
    "sinh",
    "cosh",
    "asinh",
    "arcsinh",
    "atanh",
    "arctanh",
    "erf",
    "erfc",
    "erfinv",
    "deg2rad",
    "rad2deg",
    "logit",
    "sinc",
    "nan_to_num",
]


@pytest.mark.parametrize("name", UNARY_NAMES)
def test_unary_node_name_value_and_dtype_match_torch(torch, name):
    ours, theirs = _pair(torch, [0.3, -0.6, 0.9], requires_grad=True)
    result, expected = getattr(ember, name)(ours), getattr(torch, name)(theirs)
    assert result.grad_fn.name() == expected.grad_fn.name()
    _assert_same(result, expected, name)


def test_acosh_node_name(torch):
    ours, theirs = _pair(torch, [1.5, 3.0], requires_grad=True)
    assert ember.acosh(ours).grad_fn.name() == torch.acosh(theirs).grad_fn.name() == "AcoshBackward0"
    assert ember.arccosh(ours).grad_fn.name() == "AcoshBackward0"


BINARY_NAMES = [
    "atan2",
    "arctan2",
    "hypot",
    "logaddexp",
    "logaddexp2",
    "xlogy",
    "copysign",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "fmod",
    "remainder",
]


@pytest.mark.parametrize("name", BINARY_NAMES)
def test_binary_node_name_value_and_dtype_match_torch(torch, name):
    a, ta = _pair(torch, [[0.3, -0.6, 0.9], [1.5, -2.0, 0.1]], requires_grad=True)
    b, tb = _pair(torch, [0.7, 1.2, -0.4], requires_grad=True)
    result, expected = getattr(ember, name)(a, b), getattr(torch, name)(ta, tb)
    assert result.grad_fn.name() == expected.grad_fn.name()
    _assert_same(result, expected, name)


@pytest.mark.parametrize(
    "call",
    [
        lambda t, x: t.round(x, decimals=1),
        lambda t, x: t.round(x, decimals=0),
        lambda t, x: t.clamp(x, 0.1, 0.5),
        lambda t, x: t.clamp(x, min=0.1),
        lambda t, x: t.clamp(x, max=0.1),
        lambda t, x: t.clamp_min(x, 0.1),
        lambda t, x: t.clamp_max(x, 0.1),
        lambda t, x: t.clamp(x, x * 0.5, None),
        lambda t, x: t.clamp(x, None, x * 0.5),
        lambda t, x: t.clamp(x, x * 0.5, x * 2),
        lambda t, x: t.clamp_min(x, x * 0.5),
        lambda t, x: t.clamp_max(x, x * 0.5),
        lambda t, x: t.clip(x, 0.1, 0.5),
        lambda t, x: t.fmod(x, 0.3),
        lambda t, x: t.remainder(x, 0.3),
        lambda t, x: t.xlogy(x, 2.0),
        lambda t, x: t.xlogy(2.0, x),
        lambda t, x: t.copysign(x, -1.0),
        lambda t, x: t.lerp(x, x * 2, 0.3),
        lambda t, x: t.lerp(x, x * 2, x),
        lambda t, x: t.addcmul(x, x, x, value=2),
        lambda t, x: t.addcdiv(x, x, x + 1, value=2),
        lambda t, x: t.logit(x, eps=0.1),
        lambda t, x: t.nan_to_num(x, nan=1.0),
        lambda t, x: t.float_power(x, 2.0),
        lambda t, x: t.float_power(x, x),
    ],
    ids=lambda call: "",
)
def test_node_names_of_other_overloads_match_torch(torch, call):
    ours, theirs = _pair(torch, [0.3, 0.6, 0.9], requires_grad=True)
    result, expected = call(ember, ours), call(torch, theirs)
    assert result.grad_fn.name() == expected.grad_fn.name()
    _assert_same(result, expected, expected.grad_fn.name())


# ---------------------------------------------------------------- rounding and sign
@pytest.mark.parametrize("name", ["ceil", "floor", "round", "trunc", "fix"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_rounding_an_integer_tensor_returns_a_copy_of_it(torch, name, dtype):
    ours, theirs = _pair(torch, [1, 2, 250], dtype=dtype)
    result = getattr(ember, name)(ours)
    _assert_same(result, getattr(torch, name)(theirs), name)
    assert result is not ours
    result[0] = 7
    assert ours[0].item() == 1


@pytest.mark.parametrize("name", ["ceil", "floor", "round", "trunc", "frac"])
def test_rounding_a_bool_tensor_raises_not_implemented(torch, name):
    with pytest.raises(NotImplementedError, match=name):
        getattr(ember, name)(ember.tensor([True, False]))
    with pytest.raises(NotImplementedError):
        getattr(torch, name)(torch.tensor([True, False]))


def test_frac_of_integers_raises_as_torch(torch):
    with pytest.raises(NotImplementedError, match="frac"):
        ember.frac(ember.tensor([1, 2]))
    with pytest.raises(NotImplementedError):
        torch.frac(torch.tensor([1, 2]))


def test_round_half_to_even_and_decimals_match_torch(torch):
    ours, theirs = _pair(torch, [0.5, 1.5, 2.5, -0.5, -2.5, 1.2345, 1234.5, -0.0, NAN, INF])
    _assert_same(ember.round(ours), torch.round(theirs), "round")
    for decimals in (-2, -1, 0, 1, 3):
        _assert_same(
            ember.round(ours, decimals=decimals), torch.round(theirs, decimals=decimals), f"round decimals={decimals}"
        )
        _assert_same(ours.round(decimals=decimals), theirs.round(decimals=decimals), "method")


def test_round_decimals_of_integers_raises(torch):
    with pytest.raises(NotImplementedError, match="decimals"):
        ember.round(ember.tensor([1, 2]), decimals=1)
    with pytest.raises(NotImplementedError):
        torch.round(torch.tensor([1, 2]), decimals=1)


@pytest.mark.parametrize("name", ["ceil", "floor", "trunc", "frac", "sign", "sgn"])
def test_special_float_values_match_torch(torch, name):
    ours, theirs = _pair(torch, [NAN, INF, -INF, -0.0, 0.0, -0.5, 0.5, 2.0, -3.7])
    _assert_same(getattr(ember, name)(ours), getattr(torch, name)(theirs), name)


def test_sign_of_nan_is_zero_and_of_bool_is_itself(torch):
    assert ember.sign(ember.tensor([NAN])).tolist() == [0.0]
    for values, dtype in (([True, False], "bool"), ([-3, 0, 5], "int64"), ([-3, 0, 5], "int8")):
        ours, theirs = _pair(torch, values, dtype=dtype)
        _assert_same(ember.sign(ours), torch.sign(theirs), f"sign {dtype}")
        _assert_same(ember.sgn(ours), torch.sgn(theirs), f"sgn {dtype}")


def test_sgn_of_complex_is_the_unit_phase(torch):
    ours, theirs = _pair(torch, [3 + 4j, 0j, -2j], dtype="complex64")
    result = ember.sgn(ours)
    assert result.dtype is ember.complex64
    np.testing.assert_allclose(result.numpy(), torch.sgn(theirs).numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", ["ceil", "floor", "round", "trunc", "sign", "sgn"])
def test_piecewise_constant_ops_have_a_zero_gradient_of_the_input_dtype(torch, name):
    ours, theirs = _pair(torch, [[0.4, -1.6], [2.5, 7.0]], requires_grad=True)
    getattr(ember, name)(ours).sum().backward()
    getattr(torch, name)(theirs).sum().backward()
    assert ours.grad.dtype is ember.float32 and ours.grad.shape == ours.shape
    assert_close(ours.grad, torch.zeros(2, 2).numpy(), what=f"{name} gradient")


# ---------------------------------------------------------------- unary maths: dtypes and special values
FLOAT_FUNCTIONS = [
    "exp2",
    "expm1",
    "log2",
    "log10",
    "log1p",
    "rsqrt",
    "reciprocal",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "asinh",
    "acosh",
    "atanh",
    "erf",
    "erfc",
    "erfinv",
    "deg2rad",
    "rad2deg",
    "logit",
    "sinc",
]


@pytest.mark.parametrize("name", FLOAT_FUNCTIONS)
@pytest.mark.parametrize("dtype", ["int64", "int16", "uint8", "bool"])
def test_integer_and_bool_inputs_give_float32_like_torch(torch, name, dtype):
    values = [1, 0, 1] if dtype == "bool" else [1, 0, 3]
    ours, theirs = _pair(torch, values, dtype=dtype)
    _assert_same(getattr(ember, name)(ours), getattr(torch, name)(theirs), f"{name}({dtype})")


@pytest.mark.parametrize("name", FLOAT_FUNCTIONS)
def test_float64_stays_float64_and_special_values_match_torch(torch, name):
    values = [NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0, 0.5, -0.999, 2.0, 1e-8, -30.0, 30.0]
    ours, theirs = _pair(torch, values, dtype="float64")
    with np.errstate(all="ignore"):
        result = getattr(ember, name)(ours)
    _assert_same(result, getattr(torch, name)(theirs), name)


@pytest.mark.parametrize("name", FLOAT_FUNCTIONS + ["frac", "sign", "ceil", "nan_to_num"])
def test_zero_dim_and_empty_inputs(torch, name):
    for values in (0.5, np.zeros((0, 3))):
        ours, theirs = _pair(torch, values, dtype="float32", requires_grad=True)
        result, expected = getattr(ember, name)(ours), getattr(torch, name)(theirs)
        _assert_same(result, expected, f"{name} of shape {list(ours.shape)}")
        result.sum().backward()
        expected.sum().backward()
        assert_close(ours.grad, theirs.grad.numpy(), rtol=1e-6, what=f"{name} gradient")


@pytest.mark.parametrize("name", FLOAT_FUNCTIONS + ["frac"])
def test_float32_gradients_match_torch_and_keep_float32(torch, name):
    ours, theirs = _pair(torch, [[0.31, 0.62], [0.93, 0.44]], requires_grad=True)
    if name == "acosh":
        ours, theirs = _pair(torch, [[1.31, 1.62], [2.93, 1.44]], requires_grad=True)
    getattr(ember, name)(ours).sum().backward()
    getattr(torch, name)(theirs).sum().backward()
    assert ours.grad.dtype is ember.float32
    assert_close(ours.grad, theirs.grad.numpy(), rtol=1e-5, what=f"{name} gradient")


def test_unary_ops_are_methods_and_reject_non_tensors():
    x = ember.tensor([0.25, 0.5])
    for name in ("exp2", "log1p", "erf", "arctanh", "frac", "ceil", "nan_to_num", "sinc", "reciprocal"):
        assert_close(getattr(x, name)(), getattr(ember, name)(x), what=f"{name} method")
    with pytest.raises(TypeError, match="must be Tensor"):
        ember.erf(0.5)
    with pytest.raises(TypeError, match="must be Tensor"):
        ember.floor([1.5])


def test_second_derivatives_match_torch(torch):
    for name in ("tan", "asin", "atanh", "erf", "erfc", "erfinv", "rsqrt", "reciprocal", "log2", "sinc", "exp2"):
        ours, theirs = _pair(torch, [0.3, -0.4, 0.7], dtype="float64", requires_grad=True)
        (grad,) = ember.autograd.grad(getattr(ember, name)(ours).sum(), ours, create_graph=True)
        (expected,) = torch.autograd.grad(getattr(torch, name)(theirs).sum(), theirs, create_graph=True)
        (second,) = ember.autograd.grad(grad.sum(), ours)
        (expected_second,) = torch.autograd.grad(expected.sum(), theirs)
        assert_close(second, expected_second.numpy(), rtol=1e-10, what=f"{name} second derivative")


# ---------------------------------------------------------------- erf, erfc, erfinv
def test_numpy_erf_fallback_is_accurate_to_1e_12():
    x = np.concatenate([np.linspace(-6, 6, 24001), [0.0, -0.0, 1e-300, 1.999999, 2.0, 2.000001, 25.0]])
    expected_erf = np.array([math.erf(v) for v in x])
    expected_erfc = np.array([math.erfc(v) for v in x])
    np.testing.assert_allclose(_special.numpy_erf(x), expected_erf, rtol=1e-12, atol=0)
    np.testing.assert_allclose(_special.numpy_erfc(x), expected_erfc, rtol=1e-12, atol=0)
    edges = np.array([INF, -INF, NAN])
    np.testing.assert_array_equal(_special.numpy_erf(edges), [1.0, -1.0, NAN])
    np.testing.assert_array_equal(_special.numpy_erfc(edges), [0.0, 2.0, NAN])


def test_numpy_erfinv_fallback_inverts_erf_to_1e_12():
    y = np.concatenate([np.linspace(-0.999, 0.999, 4001), 1 - np.logspace(-15, -2, 60), [1e-300, -1e-20]])
    x = _special.numpy_erfinv(y)
    # Check the inverse through erfc near 1, where erf(x) itself has no digits left to compare.
    tail = np.abs(y) > 0.5
    np.testing.assert_allclose(np.array([math.erf(v) for v in x[~tail]]), y[~tail], rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(np.array([math.erfc(v) for v in np.abs(x[tail])]), 1 - np.abs(y[tail]), rtol=1e-12)
    np.testing.assert_array_equal(
        _special.numpy_erfinv(np.array([1.0, -1.0, 1.5, -2.0, NAN, 0.0])), [INF, -INF, NAN, NAN, NAN, 0.0]
    )


def test_erf_functions_keep_float32_with_the_fallback(monkeypatch, torch):
    monkeypatch.setattr(_special, "_scipy_special", lambda: None)
    ours, theirs = _pair(torch, [-2.0, -0.3, 0.0, 0.4, 3.0])
    for name in ("erf", "erfc"):
        _assert_same(getattr(ember, name)(ours), getattr(torch, name)(theirs), f"{name} fallback")
    ours, theirs = _pair(torch, [-0.99, -0.3, 0.0, 0.4, 0.9999])
    _assert_same(ember.erfinv(ours), torch.erfinv(theirs), "erfinv fallback")


# ---------------------------------------------------------------- logit, nan_to_num, sinc, positive
def test_logit_values_and_gradients_match_torch_inside_and_outside_eps(torch):
    values = [-0.5, 0.0, 0.05, 0.3, 0.5, 0.95, 1.0, 1.5]
    for eps in (None, 0.1, 0.0):
        ours, theirs = _pair(torch, values, dtype="float64", requires_grad=True)
        result, expected = ember.logit(ours, eps), torch.logit(theirs, eps)
        _assert_same(result, expected, f"logit eps={eps}")
        result.sum().backward()
        expected.sum().backward()
        assert_close(ours.grad, theirs.grad.numpy(), rtol=1e-10, what=f"logit gradient eps={eps}")


def test_nan_to_num_values_and_gradients_match_torch(torch):
    values = [NAN, INF, -INF, 1.5, -0.0]
    for options in ({}, {"nan": 1.0, "posinf": 2.0, "neginf": -3.0}, {"posinf": 7.0}):
        for dtype in ("float32", "float64"):
            ours, theirs = _pair(torch, values, dtype=dtype, requires_grad=True)
            result, expected = ember.nan_to_num(ours, **options), torch.nan_to_num(theirs, **options)
            _assert_same(result, expected, f"nan_to_num {options}")
            result.sum().backward()
            expected.sum().backward()
            assert_close(ours.grad, theirs.grad.numpy(), what="nan_to_num gradient")
    ours, theirs = _pair(torch, [3, -4], dtype="int64")
    _assert_same(ember.nan_to_num(ours), torch.nan_to_num(theirs), "nan_to_num of integers")


def test_sinc_at_zero_is_one_with_zero_gradient(torch):
    ours, theirs = _pair(torch, [0.0, 0.5, -1.0], dtype="float64", requires_grad=True)
    _assert_same(ember.sinc(ours), torch.sinc(theirs), "sinc")
    ember.sinc(ours).sum().backward()
    torch.sinc(theirs).sum().backward()
    assert_close(ours.grad, theirs.grad.numpy(), rtol=1e-12, what="sinc gradient")
    assert ours.grad[0].item() == 0.0


def test_positive_is_the_tensor_itself_and_refuses_bool():
    x = ember.tensor([1.0, -2.0])
    assert ember.positive(x) is x and x.positive() is x
    with pytest.raises(RuntimeError, match="bool"):
        ember.positive(ember.tensor([True]))


# ---------------------------------------------------------------- clamp
def test_clamp_needs_a_bound_and_consistent_bound_types(torch):
    x = ember.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max'"):
        ember.clamp(x)
    with pytest.raises(TypeError, match="both be tensors or both be numbers"):
        ember.clamp(x, min=ember.tensor([1.5, 1.5]), max=2.0)
    with pytest.raises(TypeError):
        torch.clamp(torch.tensor([1.0, 2.0]), min=torch.tensor([1.5, 1.5]), max=2.0)
    with pytest.raises(TypeError, match="numbers or tensors"):
        ember.clamp(x, min="0")


def test_clamp_dtype_promotion_matches_torch(torch):
    integers, torch_integers = _pair(torch, [1, -2, 3], dtype="int64")
    floats, torch_floats = _pair(torch, [1.5, -2.5, 0.5])
    _assert_same(ember.clamp(integers, 0.5), torch.clamp(torch_integers, 0.5), "int clamped by float")
    _assert_same(ember.clamp(integers, 0), torch.clamp(torch_integers, 0), "int clamped by int")
    _assert_same(
        ember.clamp(floats, integers, None),
        torch.clamp(torch_floats, torch_integers, None),
        "float clamped by int tensor",
    )
    _assert_same(
        ember.clamp_max(integers, floats), torch.clamp_max(torch_integers, torch_floats), "int clamped by float tensor"
    )
    doubles, torch_doubles = _pair(torch, [0.0, 1.0, 2.0], dtype="float64")
    _assert_same(
        ember.clamp(floats, doubles, doubles + 1),
        torch.clamp(torch_floats, torch_doubles, torch_doubles + 1),
        "float32 clamped by float64 tensors",
    )


def test_clamp_edge_cases_match_torch_in_values_and_gradients(torch):
    values = [[NAN, -1.0, 0.0, 0.5, 1.0, 2.0], [5.0, 0.5, -0.0, 0.3, 1.0, 0.7]]
    lows = [0.0, 0.0, 0.0, 0.6, 1.0, NAN]
    highs = [1.0, 1.0, -1.0, 0.4, 1.0, 3.0]  # includes low > high, low == high == input, NaN bound
    x, tx = _pair(torch, values, requires_grad=True)
    low, tlow = _pair(torch, lows, requires_grad=True)
    high, thigh = _pair(torch, highs, requires_grad=True)
    result, expected = ember.clamp(x, low, high), torch.clamp(tx, tlow, thigh)
    _assert_same(result, expected, "clamp with tensor bounds")
    weights = np.arange(12, dtype=np.float32).reshape(2, 6)
    (result * ember.tensor(weights)).sum().backward()
    (expected * torch.tensor(weights)).sum().backward()
    for ours, theirs, name in ((x, tx, "input"), (low, tlow, "min"), (high, thigh, "max")):
        assert ours.grad.dtype is ember.float32 and ours.grad.shape == ours.shape
        assert_close(ours.grad, theirs.grad.numpy(), what=f"clamp gradient of {name}")


def test_clamp_with_number_bounds_at_the_bounds_matches_torch(torch):
    for call in (
        lambda t, v: t.clamp(v, 0.0, 1.0),
        lambda t, v: t.clamp(v, 1.0, 0.0),
        lambda t, v: t.clamp_min(v, 0.0),
        lambda t, v: t.clamp_max(v, 1.0),
        lambda t, v: v.clip(min=0.5),
        lambda t, v: t.clamp(v, max=NAN),
    ):
        x, tx = _pair(torch, [-1.0, 0.0, 0.5, 1.0, 2.0, NAN], requires_grad=True)
        result, expected = call(ember, x), call(torch, tx)
        _assert_same(result, expected, "clamp with numbers")
        result.sum().backward()
        expected.sum().backward()
        assert_close(x.grad, tx.grad.numpy(), what="clamp gradient")


def test_clamp_bounds_broadcast_and_errors_name_the_shapes():
    x = ember.zeros(2, 3)
    assert ember.clamp(x, ember.zeros(3), ember.ones(2, 1)).shape == (2, 3)
    with pytest.raises(RuntimeError, match="clamp"):
        ember.clamp(x, ember.zeros(4), None)


def test_clamp_of_bool_is_refused(torch):
    with pytest.raises(RuntimeError, match="bool"):
        ember.clamp(ember.tensor([True, False]), 0, 1)


# ---------------------------------------------------------------- fmod, remainder, floor_divide
DIVIDENDS = [-3.0, 3.0, -2.0, 2.0, -0.0, 0.0, 5.5, -5.5, 1.0, INF, NAN]


@pytest.mark.parametrize("divisor", [2.0, -2.0, 0.7, -0.7, 0.0, INF])
@pytest.mark.parametrize("name", ["fmod", "remainder"])
def test_float_modulo_signs_and_zeros_match_torch(torch, name, divisor):
    ours, theirs = _pair(torch, DIVIDENDS)
    _assert_same(getattr(ember, name)(ours, divisor), getattr(torch, name)(theirs, divisor), f"{name} by {divisor}")
    divisors, torch_divisors = _pair(torch, [divisor] * len(DIVIDENDS))
    _assert_same(
        getattr(ember, name)(ours, divisors),
        getattr(torch, name)(theirs, torch_divisors),
        f"{name} by a tensor of {divisor}",
    )


@pytest.mark.parametrize("name", ["fmod", "remainder", "floor_divide"])
def test_integer_modulo_and_division_match_torch(torch, name):
    dividends, torch_dividends = _pair(torch, [-7, 7, -6, 6, 0, 1], dtype="int64")
    for divisor in (3, -3):
        _assert_same(
            getattr(ember, name)(dividends, divisor),
            getattr(torch, name)(torch_dividends, divisor),
            f"{name} by {divisor}",
        )
    divisors, torch_divisors = _pair(torch, [3, -3, -4, 4, 5, -1], dtype="int32")
    _assert_same(
        getattr(ember, name)(dividends, divisors),
        getattr(torch, name)(torch_dividends, torch_divisors),
        f"{name} int64 by int32",
    )
    _assert_same(
        getattr(ember, name)(dividends, 2.5), getattr(torch, name)(torch_dividends, 2.5), f"{name} int by float"
    )


@pytest.mark.parametrize("name", ["fmod", "remainder", "floor_divide"])
def test_integer_division_by_zero_raises_like_torch(torch, name):
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        getattr(ember, name)(ember.tensor([5, 1]), ember.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        getattr(torch, name)(torch.tensor([5, 1]), torch.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        getattr(ember, name)(ember.tensor([5, 1]), 0)


def test_div_rounding_modes_match_torch(torch):
    ours, theirs = _pair(torch, [-7.5, 7.5, -0.5, 0.0, 1.0, -1.0])
    for divisor in (2.0, -2.0, 0.0):
        for mode in ("floor", "trunc"):
            _assert_same(
                ember.div(ours, divisor, rounding_mode=mode),
                torch.div(theirs, divisor, rounding_mode=mode),
                f"div {mode} by {divisor}",
            )
    big, torch_big = _pair(torch, [2**62 + 1, -(2**62) - 1, -7], dtype="int64")
    _assert_same(
        ember.div(big, 3, rounding_mode="trunc"),
        torch.div(torch_big, 3, rounding_mode="trunc"),
        "exact integer truncation",
    )
    with pytest.raises(RuntimeError, match="rounding_mode"):
        ember.div(ours, 2.0, rounding_mode="round")


def test_number_modulo_tensor_and_operators(torch):
    ours, theirs = _pair(torch, [3.0, -3.0, 0.7, 2.0])
    _assert_same(5.0 % ours, 5.0 % theirs, "number % tensor")
    _assert_same(ember.remainder(5, ours), torch.remainder(5, theirs), "remainder(number, tensor)")
    _assert_same(ours % 2, theirs % 2, "tensor % number")
    _assert_same(ours // -2, theirs // -2, "tensor // number")


def test_modulo_gradients_match_torch(torch):
    for name in ("fmod", "remainder"):
        a, ta = _pair(torch, [[-3.3, 3.3, 5.5], [-0.4, 0.4, 9.1]], dtype="float64", requires_grad=True)
        b, tb = _pair(torch, [2.0, -0.7, 1.3], dtype="float64", requires_grad=True)
        getattr(ember, name)(a, b).sum().backward()
        getattr(torch, name)(ta, tb).sum().backward()
        assert_close(a.grad, ta.grad.numpy(), what=f"{name} gradient of input")
        assert_close(b.grad, tb.grad.numpy(), what=f"{name} gradient of other")


def test_floor_divide_is_not_differentiable():
    x = ember.tensor([1.5, -2.5], requires_grad=True)
    assert not ember.floor_divide(x, 2.0).requires_grad


# ---------------------------------------------------------------- maximum, minimum, fmax, fmin
@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin"])
def test_ties_nans_and_their_gradients_match_torch(torch, name):
    a, ta = _pair(torch, [1.0, 2.0, NAN, 3.0, NAN, -0.0, INF], requires_grad=True)
    b, tb = _pair(torch, [1.0, 1.0, 4.0, NAN, NAN, 0.0, INF], requires_grad=True)
    result, expected = getattr(ember, name)(a, b), getattr(torch, name)(ta, tb)
    # Which zero of max(-0.0, 0.0) torch returns depends on its SIMD path: signs of zeros are not compared.
    _assert_same(result, expected, name, zero_signs=False)
    weights = np.arange(1, 8, dtype=np.float32)
    (result * ember.tensor(weights)).sum().backward()
    (expected * torch.tensor(weights)).sum().backward()
    assert_close(a.grad, ta.grad.numpy(), what=f"{name} gradient of input")
    assert_close(b.grad, tb.grad.numpy(), what=f"{name} gradient of other")


def test_maximum_splits_the_gradient_at_ties_and_broadcasts():
    a = ember.tensor([[1.0, 2.0], [3.0, 0.0]], requires_grad=True)
    b = ember.tensor([1.0, 2.0], requires_grad=True)
    ember.maximum(a, b).sum().backward()
    assert a.grad.tolist() == [[0.5, 0.5], [1.0, 0.0]]
    assert b.grad.tolist() == [0.5, 1.5]


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin"])
def test_extrema_need_two_tensors_and_promote(torch, name):
    x = ember.tensor([1.0])
    with pytest.raises(TypeError, match="must be Tensor"):
        getattr(ember, name)(x, 2)
    integers, torch_integers = _pair(torch, [1, 5], dtype="int32")
    floats, torch_floats = _pair(torch, [2.5, 0.5])
    _assert_same(getattr(ember, name)(integers, floats), getattr(torch, name)(torch_integers, torch_floats), name)
    bools, torch_bools = _pair(torch, [True, False], dtype="bool")
    _assert_same(getattr(ember, name)(bools, bools), getattr(torch, name)(torch_bools, torch_bools), f"{name} bool")
    with pytest.raises(RuntimeError, match=name):
        getattr(ember, name)(ember.zeros(3), ember.zeros(4))


# ---------------------------------------------------------------- other two-operand ops
def test_float_functions_of_two_integers_give_float32(torch):
    a, ta = _pair(torch, [1, -2, 0], dtype="int64")
    for name in ("atan2", "xlogy", "copysign"):
        _assert_same(getattr(ember, name)(a, a), getattr(torch, name)(ta, ta), name)
    _assert_same(ember.xlogy(a, 2), torch.xlogy(ta, 2), "xlogy(int tensor, int)")
    _assert_same(ember.xlogy(2, a.abs() + 1), torch.xlogy(2, ta.abs() + 1), "xlogy(int, int tensor)")
    _assert_same(ember.copysign(a, -1), torch.copysign(ta, -1), "copysign(int tensor, int)")
    _assert_same(ember.atan2(a.float(), a.double()), torch.atan2(ta.float(), ta.double()), "atan2 float32, float64")
    for name in ("hypot", "logaddexp", "logaddexp2"):
        with pytest.raises(NotImplementedError, match=name):
            getattr(ember, name)(a, a)
        with pytest.raises(NotImplementedError):
            getattr(torch, name)(ta, ta)


def test_xlogy_at_zero_and_nan_matches_torch(torch):
    x, tx = _pair(torch, [0.0, 0.0, 0.0, 1.0, 2.0, 0.0], dtype="float64", requires_grad=True)
    y, ty = _pair(torch, [0.0, NAN, 2.0, 0.0, 3.0, INF], dtype="float64", requires_grad=True)
    result, expected = ember.xlogy(x, y), torch.xlogy(tx, ty)
    _assert_same(result, expected, "xlogy")
    result.sum().backward()
    expected.sum().backward()
    assert_close(x.grad, tx.grad.numpy(), what="xlogy gradient of self")
    assert_close(y.grad, ty.grad.numpy(), what="xlogy gradient of other")


def test_copysign_signed_zeros_and_gradients_match_torch(torch):
    a, ta = _pair(torch, [1.5, -2.5, 0.0, -0.0, 3.0, NAN], requires_grad=True)
    b, tb = _pair(torch, [-0.0, 0.0, -1.0, 1.0, NAN, -1.0], requires_grad=True)
    result, expected = ember.copysign(a, b), torch.copysign(ta, tb)
    _assert_same(result, expected, "copysign")
    result.sum().backward()
    expected.sum().backward()
    assert_close(a.grad, ta.grad.numpy(), what="copysign gradient of input")
    assert b.grad is not None and b.grad.tolist() == [0.0] * 6


def test_atan2_hypot_logaddexp_at_special_values_match_torch(torch):
    a, ta = _pair(torch, [0.0, -0.0, 1.0, -1.0, INF, -INF, NAN, 1e30, -1e30], dtype="float64")
    b, tb = _pair(torch, [0.0, -1.0, 0.0, -0.0, INF, 1.0, 1.0, 1e30, -1e30], dtype="float64")
    for name in ("atan2", "hypot", "logaddexp", "logaddexp2", "maximum", "fmin"):
        _assert_same(
            getattr(ember, name)(a, b), getattr(torch, name)(ta, tb), name, zero_signs=name not in ("maximum", "fmin")
        )


def test_float_power_is_computed_in_float64_with_float32_gradients(torch):
    x, tx = _pair(torch, [0.5, 2.0, 3.0], requires_grad=True)
    result, expected = ember.float_power(x, 2.5), torch.float_power(tx, 2.5)
    _assert_same(result, expected, "float_power")
    result.sum().backward()
    expected.sum().backward()
    assert x.grad.dtype is ember.float32
    assert_close(x.grad, tx.grad.numpy(), what="float_power gradient")
    integers, torch_integers = _pair(torch, [1, 2, 3], dtype="int64")
    _assert_same(ember.float_power(integers, 2), torch.float_power(torch_integers, 2), "float_power(int, int)")
    _assert_same(ember.float_power(2, x), torch.float_power(2, tx), "float_power(number, tensor)")
    _assert_same(ember.float_power(x, integers), torch.float_power(tx, torch_integers), "float_power tensors")


def test_heaviside_matches_torch_and_requires_one_dtype(torch):
    x, tx = _pair(torch, [-1.0, 0.0, 2.0, NAN, -0.0])
    values, torch_values = _pair(torch, [0.5])
    _assert_same(ember.heaviside(x, values), torch.heaviside(tx, torch_values), "heaviside")
    integers, torch_integers = _pair(torch, [-3, 0, 4], dtype="int64")
    _assert_same(ember.heaviside(integers, integers), torch.heaviside(torch_integers, torch_integers), "int heaviside")
    with pytest.raises(RuntimeError, match="different dtypes"):
        ember.heaviside(x, ember.tensor([1]))


# ---------------------------------------------------------------- lerp, addcmul, addcdiv
def test_lerp_is_exact_at_both_ends_and_matches_torch_between(torch):
    """lerp computes from the nearer end, so weight 0 gives start and weight 1 gives end exactly (torch
    fuses the multiply-add, so values between may differ in the last bit)."""
    start, tstart = _pair(torch, [0.1, -3.3, 1e4, 7.0])
    end, tend = _pair(torch, [0.7, 5.1, -1e-3, 7.0])
    for weight in (0.0, 0.3, 0.5, 0.8, 1.0, -2.0, 3.0):
        result, expected = ember.lerp(start, end, weight), torch.lerp(tstart, tend, weight)
        assert_close(result, expected.numpy(), rtol=2e-7, atol=0, what=f"lerp weight {weight}")
    assert ember.lerp(start, end, 1.0).tolist() == end.tolist()
    assert ember.lerp(start, end, 0.0).tolist() == start.tolist()
    weights, torch_weights = _pair(torch, [0.0, 0.3, 0.8, 1.0])
    result = ember.lerp(start, end, weights)
    assert_close(result, torch.lerp(tstart, tend, torch_weights).numpy(), rtol=2e-7, atol=0, what="tensor weight")
    assert result[3].item() == end[3].item() and result[0].item() == start[0].item()


def test_lerp_dtype_rules_match_torch(torch):
    x = ember.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="expected dtype torch.float32 for `end`"):
        ember.lerp(x, x.double(), 0.5)
    with pytest.raises(RuntimeError, match="`weight`"):
        ember.lerp(x, x, x.double())
    with pytest.raises(NotImplementedError, match="lerp"):
        ember.lerp(ember.tensor([1, 2]), ember.tensor([3, 4]), 0.5)
    with pytest.raises(TypeError, match="weight"):
        ember.lerp(x, x, "half")


def test_addcmul_and_addcdiv_dtypes_and_values_match_torch(torch):
    integers, torch_integers = _pair(torch, [1, -2, 3], dtype="int64")
    floats, torch_floats = _pair(torch, [1.5, -2.5, 0.5])
    _assert_same(
        ember.addcmul(integers, integers, integers, value=2),
        torch.addcmul(torch_integers, torch_integers, torch_integers, value=2),
        "int addcmul",
    )
    # torch converts value to the integer result dtype: 0.5 becomes 0.
    _assert_same(
        ember.addcmul(integers, integers, integers, value=0.5),
        torch.addcmul(torch_integers, torch_integers, torch_integers, value=0.5),
        "int addcmul value 0.5",
    )
    _assert_same(
        ember.addcmul(floats, integers, integers),
        torch.addcmul(torch_floats, torch_integers, torch_integers),
        "mixed addcmul",
    )
    _assert_same(
        ember.addcdiv(floats, floats, floats + 4, value=-3),
        torch.addcdiv(torch_floats, torch_floats, torch_floats + 4, value=-3),
        "addcdiv",
    )
    with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
        ember.addcdiv(floats, integers, integers)


def test_fused_ops_are_methods_and_broadcast_with_gradients_of_input_shape():
    x = ember.zeros(2, 3, requires_grad=True)
    t1 = ember.ones(3, requires_grad=True)
    t2 = ember.full((2, 1), 2.0, requires_grad=True)
    x.addcmul(t1, t2, value=3).sum().backward()
    assert x.grad.shape == (2, 3) and t1.grad.shape == (3,) and t2.grad.shape == (2, 1)
    assert t1.grad.tolist() == [12.0] * 3 and t2.grad.tolist() == [[9.0], [9.0]]
    with pytest.raises(RuntimeError, match="addcdiv"):
        ember.addcdiv(ember.zeros(2), ember.zeros(3), ember.ones(4))
    with pytest.raises(TypeError, match="tensor1"):
        ember.addcmul(ember.zeros(2), 1.0, ember.ones(2))


# ---------------------------------------------------------------- in-place variants
def test_every_inplace_variant_exists_in_torch_and_in_ember(torch):
    for name in [name for name, declaration in DECLARATIONS.items() if declaration.inplace]:
        assert hasattr(torch.Tensor, name + "_"), f"torch has no {name}_"
        assert callable(getattr(ember.ones(1), name + "_"))
        assert hasattr(ember, name + "_")


def _constant(like, value):
    """A second operand for an in-place test: a fresh tensor of the same library as `like`."""
    return like.detach().clone() * 0 + value


@pytest.mark.parametrize(
    "call",
    [
        lambda x: x.clamp_(-0.5, 0.5),
        lambda x: x.clamp_(min=0.0),
        lambda x: x.clamp_min_(0.1),
        lambda x: x.clip_(max=0.2),
        lambda x: x.floor_(),
        lambda x: x.ceil_(),
        lambda x: x.round_(),
        lambda x: x.round_(decimals=1),
        lambda x: x.trunc_(),
        lambda x: x.frac_(),
        lambda x: x.exp2_(),
        lambda x: x.expm1_(),
        lambda x: x.log1p_(),
        lambda x: x.tan_(),
        lambda x: x.atan_(),
        lambda x: x.arcsin_(),
        lambda x: x.erf_(),
        lambda x: x.erfc_(),
        lambda x: x.sign_(),
        lambda x: x.fmod_(0.3),
        lambda x: x.remainder_(0.3),
        lambda x: x.atan2_(_constant(x, 1.0)),
        lambda x: x.hypot_(_constant(x, 0.5)),
        lambda x: x.lerp_(_constant(x, 2.0), 0.25),
        lambda x: x.addcmul_(_constant(x, 3.0), _constant(x, -1.0), value=2),
        lambda x: x.addcdiv_(_constant(x, 3.0), _constant(x, 2.0)),
        lambda x: x.copysign_(-1.0),
        lambda x: x.xlogy_(2.0),
        lambda x: x.nan_to_num_(),
        lambda x: x.deg2rad_(),
        lambda x: x.sinc_(),
        lambda x: x.reciprocal_(),
        lambda x: x.sgn_(),
    ],
    ids=lambda call: "",
)
def test_inplace_variants_match_torch_in_values_and_gradients(torch, call):
    values = np.array([0.3, -0.45, 0.61, 0.2], dtype=np.float32)
    leaf, torch_leaf = ember.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)
    ours, theirs = leaf * 1, torch_leaf * 1
    version = ours._version
    assert call(ours) is ours
    call(theirs)
    assert ours._version > version
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    _assert_same(ours, theirs, "in-place result")
    ours.sum().backward()
    theirs.sum().backward()
    # force=True reads torch's ZeroTensor gradients (sgn_) as arrays.
    assert_close(leaf.grad, torch_leaf.grad.numpy(force=True), what="gradient through the in-place op")


@pytest.mark.parametrize("name", ["asinh", "acosh", "atanh"])
def test_inplace_inverse_hyperbolics_are_differentiable(torch, name):
    """torch has no derivative for asinh_/acosh_/atanh_ (their nodes are AsinhBackward1, ...); ember's
    in-place ops reuse the out-of-place node, so they get torch's out-of-place gradient."""
    values = np.array([1.3, 1.7], dtype=np.float32) if name == "acosh" else np.array([0.3, -0.6], dtype=np.float32)
    leaf, torch_leaf = ember.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)
    ours = leaf * 1
    getattr(ours, name + "_")()
    expected = getattr(torch, name)(torch_leaf)
    _assert_same(ours, expected, f"{name}_")
    ours.sum().backward()
    expected.sum().backward()
    assert_close(leaf.grad, torch_leaf.grad.numpy(), what=f"{name}_ gradient")


def test_inplace_float_result_into_integer_tensor_is_refused(torch):
    with pytest.raises(RuntimeError, match="can't be cast"):
        ember.tensor([1, 2]).exp2_()
    with pytest.raises(RuntimeError):
        torch.tensor([1, 2]).exp2_()
    x = ember.tensor([1, 7])
    x.clamp_(2, 5)
    assert x.tolist() == [2, 5] and x.dtype is ember.int64


def test_inplace_on_a_leaf_that_requires_grad_is_refused():
    with pytest.raises(RuntimeError, match="leaf Variable"):
        ember.tensor([0.5], requires_grad=True).floor_()
    with pytest.raises(RuntimeError, match="leaf Variable"):
        ember.tensor([0.5], requires_grad=True).clamp_(0, 1)


@pytest.mark.parametrize("name", ["expm1", "exp2", "reciprocal", "log2", "asin", "erf"])
def test_in_place_change_of_an_unsaved_value_is_allowed_as_in_torch(name, torch):
    """A unary op saves only what its gradient reads, so changing the other in place is fine."""
    outcomes = []
    for lib in (ember, torch):
        x = lib.tensor([0.2, 0.4, 0.6], requires_grad=True) * 1
        y = getattr(x, name)()
        x.add_(0.1)
        try:
            y.sum().backward()
            outcomes.append("ok")
        except RuntimeError as error:
            outcomes.append("modified by an inplace operation" in str(error))
    assert outcomes[0] == outcomes[1], (name, outcomes)


def test_broadcast_error_starts_with_pytorchs_message(torch):
    # Scripts print str(error) or match it; PyTorch's sentence comes first, ember's detail after it.
    for shapes in [((2, 3), (3, 2)), ((4, 3, 2), (4, 3)), ((4, 3, 2), (0,))]:
        messages = []
        for library in (ember, torch):
            with pytest.raises(RuntimeError) as caught:
                library.ones(shapes[0]) * library.ones(shapes[1])
            messages.append(str(caught.value))
        ours, theirs = messages
        assert ours.startswith(theirs), (ours, theirs)
        assert "mul" in ours and str(list(shapes[1])) in ours
