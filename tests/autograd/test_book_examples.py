"""The autograd chapter's examples, as a reader types them (with `import ember as t`)."""

import warnings

import numpy as np
import pytest

import ember as t
from ember.autograd import Function

from ember._examples import MultiplyAdd

from ..conftest import assert_close


class MultiplyAddSavesNothing(Function):
    """The book's second version: forgets save_for_backward, then unpacks two tensors."""

    @staticmethod
    def forward(ctx, w, x, b):
        return w * x + b

    @staticmethod
    def backward(ctx, grad_output):
        w, x = ctx.saved_tensors
        return grad_output * x, grad_output * w, grad_output


class Mul(Function):
    @staticmethod
    def forward(ctx, w, x, b, x_requires_grad=True):
        ctx.x_requires_grad = x_requires_grad
        ctx.save_for_backward(w, x)
        return w * x + b

    @staticmethod
    def backward(ctx, grad_output):
        w, x = ctx.saved_tensors
        grad_w = grad_output * x
        grad_x = grad_output * w if ctx.x_requires_grad else None
        grad_b = grad_output * 1
        return grad_w, grad_x, grad_b, None


class Sigmoid(Function):
    @staticmethod
    def forward(ctx, x):
        output = 1 / (1 + t.exp(-x))
        ctx.save_for_backward(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        (output,) = ctx.saved_tensors
        return output * (1 - output) * grad_output


def test_multiply_add_gradients():
    x = t.ones(1)
    w = t.rand(1, requires_grad=True)
    b = t.rand(1, requires_grad=True)
    z = MultiplyAdd.apply(w, x, b)
    z.backward()
    assert x.grad is None
    assert float(w.grad) == 1.0 and float(b.grad) == 1.0
    assert z.grad_fn.name() == "MultiplyAddBackward"
    assert type(z.grad_fn).__name__ == "MultiplyAddBackward"


def test_grad_fn_apply_calls_backward_directly():
    x = t.ones(1)
    w = t.rand(1, requires_grad=True)
    b = t.rand(1, requires_grad=True)
    z = MultiplyAdd.apply(w, x, b)
    grads = z.grad_fn.apply(t.ones(1))
    assert_close(grads[0], x)
    assert_close(grads[1], w.detach())
    assert_close(grads[2], t.ones(1))


def test_next_functions_show_leaves_and_constants():
    x = t.ones(1)
    w = t.rand(1, requires_grad=True)
    b = t.rand(1, requires_grad=True)
    z = MultiplyAdd.apply(w, x, b)
    (w_node, w_nr), (x_node, x_nr), (b_node, _) = z.grad_fn.next_functions
    assert type(w_node).__name__ == "AccumulateGrad" and w_node.variable is w and w_nr == 0
    assert x_node is None and x_nr == 0
    assert b_node.variable is b


def test_save_nothing_version_fails_on_unpack():
    w = t.rand(1, requires_grad=True)
    z = MultiplyAddSavesNothing.apply(w, t.ones(1), t.rand(1, requires_grad=True))
    with pytest.raises(ValueError, match="not enough values to unpack") as caught:
        z.backward()
    assert "MultiplyAddSavesNothing.forward saved nothing" in str(caught.value)


def test_mul_with_ctx_attribute_and_non_tensor_argument():
    x = t.ones(1)
    w = t.rand(1, requires_grad=True)
    b = t.rand(1, requires_grad=True)
    z = Mul.apply(w, x, b, False)
    z.backward()
    assert float(w.grad) == 1.0 and float(b.grad) == 1.0 and x.grad is None
    assert z.grad_fn.x_requires_grad is False


def test_sigmoid_function_passes_gradcheck():
    x = t.randn(3, 4, dtype=t.float64, requires_grad=True)
    assert t.autograd.gradcheck(Sigmoid.apply, (x,), eps=1e-6, atol=1e-4)
    assert_close(Sigmoid.apply(x), t.sigmoid(x))


def test_x_squared_second_derivative():
    x = t.tensor([5.0], requires_grad=True)
    y = x**2
    (grad_x,) = t.autograd.grad(y, x, create_graph=True)
    (grad_grad_x,) = t.autograd.grad(grad_x, x)
    assert float(grad_x) == 10.0 and float(grad_grad_x) == 2.0


def test_linear_regression_with_data_updates():
    rng = np.random.default_rng(0)
    true_w, true_b = 2.0, 3.0
    x_data = rng.random((64, 1)).astype(np.float32) * 5
    y_data = true_w * x_data + true_b + rng.normal(0, 0.1, (64, 1)).astype(np.float32)
    w = t.rand(1, 1, requires_grad=True)
    b = t.zeros(1, 1, requires_grad=True)
    lr = 0.02
    for _ in range(2000):
        x, y = t.from_numpy(x_data), t.from_numpy(y_data)
        y_pred = x.mm(w) + b.expand_as(y)
        loss = 0.5 * (y_pred - y) ** 2
        loss = loss.mean()
        loss.backward()
        w.data.sub_(lr * w.grad.data)
        b.data.sub_(lr * b.grad.data)
        w.grad.data.zero_()
        b.grad.data.zero_()
    assert abs(float(w) - true_w) < 0.1 and abs(float(b) - true_b) < 0.3
    assert w.dtype is t.float32


def test_variable_spelling_warns_and_returns_a_tensor():
    with pytest.warns(DeprecationWarning, match="Variable is deprecated"):
        v = t.autograd.Variable(t.ones(2), requires_grad=True)
    assert isinstance(v, t.Tensor) and v.requires_grad and v.is_leaf
    assert isinstance(v, t.autograd.Variable)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.warns(UserWarning, match="volatile"):
            volatile = t.autograd.Variable(t.ones(2), volatile=True)
    assert not volatile.requires_grad


def test_saved_variables_spelling_warns():
    class Square(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            with pytest.warns(DeprecationWarning, match="saved_tensors"):
                (x,) = ctx.saved_variables
            return 2 * x * grad

    x = t.tensor([3.0], requires_grad=True)
    Square.apply(x).backward()
    assert float(x.grad) == 6.0
