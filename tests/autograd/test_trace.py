"""The backward trace: one step per node, in engine order, with the gradients a reader checks by hand."""

import pytest

import ember
from ember.autograd import trace, engine


def _book_graph():
    w = ember.tensor([2.0], requires_grad=True)
    x = ember.tensor([3.0])
    b = ember.tensor([1.0], requires_grad=True)
    return w, x, b, w * x + b


def test_steps_follow_the_chain_rule_of_the_books_example():
    w, x, b, z = _book_graph()
    with trace(params={"w": w, "b": b}) as tr:
        z.backward()
    names = [step.name for step in tr.steps]
    assert names[0] == "AddBackward0"
    assert sorted(names[1:]) == ["MulBackward0", "b", "w"]
    (add,) = [s for s in tr.steps if s.name == "AddBackward0"]
    assert add.grad_outputs[0].tolist() == [1.0]
    assert add.destinations == ("MulBackward0", "b")
    assert [g.tolist() for g in add.grad_inputs] == [[1.0], [1.0]]
    (mul,) = [s for s in tr.steps if s.name == "MulBackward0"]
    assert mul.destinations == ("w", None)  # x needs no gradient
    assert mul.grad_inputs[0].tolist() == [3.0]  # dz/dw = x
    assert tr.leaf_grads["w"].tolist() == w.grad.tolist() == [3.0]
    assert tr.leaf_grads["b"].tolist() == b.grad.tolist() == [1.0]
    assert [s.is_leaf for s in tr.steps].count(True) == 2


def test_printed_table():
    w, x, b, z = _book_graph()
    with trace(params={"w": w, "b": b}) as tr:
        z.backward()
    text = str(tr)
    lines = text.splitlines()
    assert lines[0].startswith("Backward trace: 4 steps")
    header = lines[1].split()
    assert header[:2] == ["step", "node"]
    assert any(line.split()[:2] == ["1", "AddBackward0"] for line in lines)
    assert "-> MulBackward0  [1] [1.]" in text and "-> b  [1] [1.]" in text
    assert "w.grad += [1] [3.]" in text
    assert "Leaf gradients received:" in text
    assert repr(tr) == "<trace of 4 backward steps>"


def test_leaves_without_names_are_numbered_and_shared_leaves_sum():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    with trace(max_values=1) as tr:
        (x * x).sum().backward()
    assert list(tr.leaf_grads) == ["leaf 1"]
    assert tr.leaf_grads["leaf 1"].tolist() == [2.0, 4.0]
    assert "[2] [2., ...]" in str(tr)


def test_grad_is_traced_and_the_observer_is_removed():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    before = list(engine.observers)
    with trace(params={"x": x}) as tr:
        (g,) = ember.autograd.grad((x.exp()).sum(), x)
    assert engine.observers == before
    assert [s.name for s in tr.steps] == ["SumBackward0", "ExpBackward0", "x"]
    assert x.grad is None and tr.leaf_grads["x"].tolist() == g.tolist()
    (x * 2).sum().backward()
    assert len(tr.steps) == 3  # nothing recorded after the block


def test_observer_removed_even_when_backward_fails():
    x = ember.ones(2, requires_grad=True)
    y = (x * 2).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="second time"):
        with trace():
            y.backward()
    assert engine.observers == []


def test_recorded_gradients_are_detached():
    x = ember.tensor([1.0], requires_grad=True)
    with trace() as tr:
        (x**3).sum().backward(create_graph=True)
    assert all(not g.requires_grad for step in tr.steps for g in step.grad_inputs + step.grad_outputs if g is not None)
