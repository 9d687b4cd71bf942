"""Temporary elision: `w * x + b` writes the sum into the product's memory only when nobody can see it."""

import tracemalloc

import numpy as np
import pytest

import ember
from ember.ops import elision

from ember._examples import MultiplyAdd  # the book's w * x + b

SHAPE = (512, 512)  # 1 MB of float32: above elision's threshold
ARRAY_BYTES = 512 * 512 * 4


@pytest.fixture
def operands():
    small = ember.ones(1)
    small + small, small - small, small * small, small / small  # operators bind to their op on first use
    rng = np.random.default_rng(0)
    return [ember.from_numpy(rng.standard_normal(SHAPE).astype(np.float32)) for _ in range(3)]


def _peak_bytes(compute):
    tracemalloc.start()
    try:
        result = compute()
        return tracemalloc.get_traced_memory()[1], result
    finally:
        tracemalloc.stop()


EXPRESSIONS = {  # (ember expression, NumPy expression): each starts with a temporary product
    "add": (lambda w, x, b: w * x + b, lambda w, x, b: w * x + b),
    "sub": (lambda w, x, b: w * x - b, lambda w, x, b: w * x - b),
    "mul": (lambda w, x, b: (w + x) * b, lambda w, x, b: (w + x) * b),
    "div": (lambda w, x, b: w * x / b, lambda w, x, b: w * x / b),
    "numbers": (lambda w, x, b: w * x * 2.0 + 1, lambda w, x, b: w * x * 2.0 + 1),
}


@pytest.mark.parametrize("name", EXPRESSIONS)
def test_temporary_receives_the_result(operands, name):
    compute, reference = EXPRESSIONS[name]
    peak, result = _peak_bytes(lambda: compute(*operands))
    assert peak < 1.5 * ARRAY_BYTES  # one array, not two
    np.testing.assert_allclose(result.numpy(), reference(*(t.numpy() for t in operands)), rtol=1e-6)


def test_named_tensor_is_left_alone(operands):
    w, x, b = operands
    product = w * x
    before = product.numpy().copy()
    total = product + b
    np.testing.assert_array_equal(product.numpy(), before)
    np.testing.assert_allclose(total.numpy(), before + b.numpy(), rtol=1e-6)


def test_parameter_of_a_function_is_left_alone(operands):
    w, x, b = operands

    def add_then_reuse(t):
        total = t + b  # t has the counts of a temporary here, but the caller's frame still uses it
        return t, total

    t, total = add_then_reuse(w * x)
    np.testing.assert_allclose(t.numpy(), w.numpy() * x.numpy(), rtol=1e-6)
    np.testing.assert_allclose(total.numpy(), t.numpy() + b.numpy(), rtol=1e-6)


def test_explicit_dunder_call_on_a_name_is_left_alone(operands):
    w, x, b = operands
    product = w * x
    before = product.numpy().copy()
    product.__add__(b)  # the same reference counts as a temporary: only the caller's opcode differs
    np.testing.assert_array_equal(product.numpy(), before)


def test_recorded_operands_are_not_reused(operands):
    w, x, b = operands
    w.requires_grad_()
    z = w * x * b  # Mul saves the product for the gradient of b
    z.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), x.numpy() * b.numpy(), rtol=1e-6)


def test_other_dtype_or_shape_is_not_reused(operands):
    w, x, _ = operands
    row = ember.ones(SHAPE[1:], dtype=ember.float64)
    result = w * x + row
    assert result.dtype == ember.float64
    wide = ember.ones((2,) + SHAPE)
    assert (w * x + wide).shape == (2,) + SHAPE


def test_small_tensors_are_not_checked():
    small = ember.ones(3)
    assert small._data.nbytes < elision.MIN_BYTES
    np.testing.assert_array_equal((small * 2 + small).numpy(), [3.0, 3.0, 3.0])


def test_custom_function_forward_reuses_its_temporary(operands):
    w, x, b = (t.requires_grad_() for t in operands)
    peak, z = _peak_bytes(lambda: MultiplyAdd.apply(w, x, b))
    assert peak < 1.5 * ARRAY_BYTES
    z.backward(ember.ones(SHAPE))
    np.testing.assert_allclose(w.grad.numpy(), x.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), np.ones(SHAPE), rtol=1e-6)


# ---------------------------------------------------------------- named values are never overwritten
def _named_tensor(w, x, b):
    product = w * x
    product + b
    return [product]


def _function_parameter(w, x, b):
    def add(t):
        return t + b

    product = w * x
    add(product)
    return [product]


def _parameter_used_after(w, x, b):
    def add_then_keep(t):
        t + b
        return t

    return [add_then_keep(w * x)]


def _closure_cell(w, x, b):
    product = w * x

    def add():
        return product + b

    add()
    return [product]


def _list_element(w, x, b):
    items = [w * x]
    items[0] + b
    return items


def _attribute(w, x, b):
    class Holder:
        pass

    holder = Holder()
    holder.product = w * x
    holder.product + b
    return [holder.product]


def _explicit_dunder(w, x, b):
    product = w * x
    product.__add__(b)
    ember.Tensor.__mul__(product, 2.0)
    return [product]


def _in_a_loop(w, x, b):
    product = w * x
    total = None
    for _ in range(3):
        total = product + b if total is None else total + b
    return [product]


def _in_a_generator(w, x, b):
    def sums():
        product = w * x
        yield product + b
        yield product - b
        yield product

    return [list(sums())[-1]]


def _builtin_sum(w, x, b):
    product = w * x
    sum([b, b], product)
    return [product]


NAMED = [
    _named_tensor,
    _function_parameter,
    _parameter_used_after,
    _closure_cell,
    _list_element,
    _attribute,
    _explicit_dunder,
    _in_a_loop,
    _in_a_generator,
    _builtin_sum,
]


def _overwritten(scenario, w, x, b):
    """The names of what `scenario` left changed: each kept value must still be w * x."""
    expected = w.numpy() * x.numpy()
    kept = scenario(w, x, b)
    return [index for index, tensor in enumerate(kept) if not np.array_equal(tensor.numpy(), expected)]


@pytest.mark.parametrize("scenario", NAMED, ids=lambda scenario: scenario.__name__.strip("_"))
def test_named_values_are_never_overwritten(operands, scenario):
    w, x, b = operands
    assert _overwritten(scenario, w, x, b) == [], f"elision overwrote a named value in {scenario.__name__}"


@pytest.mark.skipif(not elision.ENABLED, reason="elision is off on this Python")
def test_the_check_above_can_fail(operands, monkeypatch):
    # With the counts Python 3.14 shows (a named local looks like a temporary), the check catches it.
    monkeypatch.setattr(elision, "_TEMPORARY_REFERENCES", elision._TEMPORARY_REFERENCES + 1)
    w, x, b = operands
    assert _overwritten(_named_tensor, w, x, b) != []


def test_elision_is_on_only_where_proven():
    assert elision.is_proven((3, 10, 0), "cpython") and elision.is_proven((3, 13, 1), "cpython")
    assert not elision.is_proven((3, 14, 0), "cpython")
    assert not elision.is_proven((3, 11, 0), "pypy")
    assert not elision.is_proven((3, 9, 18), "cpython")
    assert elision.ENABLED == elision.is_proven()
    if not elision.ENABLED:
        assert ember.Tensor.__add__ is ember.ops.elementwise.add
