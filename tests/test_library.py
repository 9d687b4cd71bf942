"""ember.library (torch.library): Python functions declared as ops, with a registered backward."""

import pytest

import ember
from ember import library


def test_custom_op_without_autograd_calls_the_function():
    @library.custom_op("ember_tests::add_one", mutates_args=())
    def add_one(x):
        return x + 1

    assert add_one(ember.tensor([1.0, 2.0])).tolist() == [2.0, 3.0]
    assert library.get_custom_op("ember_tests::add_one") is add_one


def test_registered_backward_replaces_the_traced_gradient():
    """The backward deliberately differs from the true derivative, so the test sees which one ran."""

    def cube(x):
        return x**3

    op = library.custom_op("ember_tests::cube", cube, mutates_args=())

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x * 100

    library.register_autograd("ember_tests::cube", backward, setup_context=setup_context)
    library.register_fake(op, lambda x: ember.empty_like(x))
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = op(x)
    assert y.tolist() == [1.0, 8.0]
    y.sum().backward()
    assert x.grad.tolist() == [100.0, 200.0]


def test_names_are_checked():
    with pytest.raises(ValueError, match="namespace::op_name"):
        library.custom_op("no_namespace", lambda x: x, mutates_args=())
    with pytest.raises(ValueError, match="no custom op named"):
        library.register_autograd("ember_tests::missing", lambda ctx, grad: grad)
    library.custom_op("ember_tests::twice", lambda x: x, mutates_args=())
    with pytest.raises(RuntimeError, match="already registered"):
        library.custom_op("ember_tests::twice", lambda x: x, mutates_args=())
