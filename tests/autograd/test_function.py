"""Function semantics: ctx, saved tensors, non-tensor arguments, dirty/non-differentiable outputs,
materialized gradients, setup_context, once_differentiable, and the backward contract's errors."""

import warnings

import numpy as np
import pytest

import ember as t
from ember.autograd import Function, once_differentiable

from ..conftest import assert_close


class Scale(Function):
    """forward(x, factor) with a non-tensor argument; checks what forward sees."""

    seen = {}

    @staticmethod
    def forward(ctx, x, factor, label=None):
        Scale.seen = dict(
            is_tensor=isinstance(x, t.Tensor), grad_enabled=t.is_grad_enabled(), needs=ctx.needs_input_grad, label=label
        )
        ctx.factor = factor
        return x * factor

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.factor, None, None


def test_forward_gets_tensors_in_no_grad_mode_and_needs_input_grad():
    x = t.ones(3, requires_grad=True)
    y = Scale.apply(x, 2.5, "a label")
    assert Scale.seen == dict(is_tensor=True, grad_enabled=False, needs=(True, False, False), label="a label")
    y.sum().backward()
    assert_close(x.grad, np.full(3, 2.5, np.float32))


def test_apply_accepts_keyword_arguments():
    x = t.ones(2, requires_grad=True)
    y = Scale.apply(x, factor=3.0)
    y.sum().backward()
    assert_close(x.grad, [3.0, 3.0])


def test_needs_input_grad_false_for_constants():
    y = Scale.apply(t.ones(2), 2.0)
    assert Scale.seen["needs"] == (False, False)
    assert not y.requires_grad and y.grad_fn is None


def test_no_graph_under_no_grad():
    x = t.ones(2, requires_grad=True)
    with t.no_grad():
        y = Scale.apply(x, 2.0)
    assert not y.requires_grad and y.grad_fn is None


class TwoOutputs(Function):
    received = None

    @staticmethod
    def forward(ctx, x):
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, grad_a, grad_b):
        TwoOutputs.received = (grad_a, grad_b)
        return grad_a * 2 + grad_b * 3


def test_unused_output_gets_materialized_zeros():
    x = t.ones(2, requires_grad=True)
    a, b = TwoOutputs.apply(x)
    a.sum().backward()
    assert_close(TwoOutputs.received[1], np.zeros(2, np.float32))
    assert_close(x.grad, [2.0, 2.0])


def test_set_materialize_grads_false_gives_none():
    class Lazy(Function):
        received = None

        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, grad_a, grad_b):
            Lazy.received = (grad_a, grad_b)
            return grad_a * 2

    x = t.ones(2, requires_grad=True)
    a, _ = Lazy.apply(x)
    a.sum().backward()
    assert Lazy.received[1] is None


def test_mark_non_differentiable_output():
    class SortValues(Function):
        @staticmethod
        def forward(ctx, x):
            order = t.from_numpy(np.argsort(x.detach().numpy(), kind="stable"))
            values = x[order]
            ctx.mark_non_differentiable(order)
            ctx.save_for_backward(order)
            ctx.size = x.shape[0]
            return values, order

        @staticmethod
        def backward(ctx, grad_values, grad_order):
            (order,) = ctx.saved_tensors
            grad = t.zeros(ctx.size, dtype=grad_values.dtype)
            grad[order] = grad_values
            return grad

    x = t.tensor([3.0, 1.0, 2.0], requires_grad=True)
    values, order = SortValues.apply(x)
    assert values.requires_grad and not order.requires_grad
    (values * t.tensor([1.0, 10.0, 100.0])).sum().backward()
    assert_close(x.grad, [100.0, 1.0, 10.0])


def test_mark_non_differentiable_float_output():
    class Halves(Function):
        @staticmethod
        def forward(ctx, x):
            mask = (x > 0).float()
            ctx.mark_non_differentiable(mask)
            return x * 0.5, mask

        @staticmethod
        def backward(ctx, grad, grad_mask):
            return grad * 0.5

    x = t.tensor([1.0, -1.0], requires_grad=True)
    half, mask = Halves.apply(x)
    assert half.requires_grad and not mask.requires_grad and mask.dtype is t.float32


class AddOneInPlace(Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad


def test_mark_dirty_rebases_the_input():
    a = t.ones(2, requires_grad=True)
    b = a.clone()
    c = AddOneInPlace.apply(b)
    assert c is b and b.grad_fn.name() == "AddOneInPlaceBackward"
    assert b._version == 2  # the add_ and the dirty mark, as PyTorch counts
    (c * c).sum().backward()
    assert_close(a.grad, [4.0, 4.0])


def test_mark_dirty_on_leaf_that_requires_grad_raises():
    a = t.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        AddOneInPlace.apply(a)


def test_returning_an_input_gives_a_new_tensor_in_the_graph():
    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    x = t.ones(2, requires_grad=True)
    y = Identity.apply(x)
    assert y is not x and y.grad_fn.name() == "IdentityBackward" and y._base is x
    y.sum().backward()
    assert_close(x.grad, [2.0, 2.0])


def test_non_tensor_outputs_pass_through():
    class WithCount(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, 5

        @staticmethod
        def backward(ctx, grad, grad_count):
            return grad * 2

    x = t.ones(2, requires_grad=True)
    y, count = WithCount.apply(x)
    assert count == 5 and y.requires_grad


def test_setup_context_style():
    class Cube(Function):
        @staticmethod
        def forward(x):
            return x**3

        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            ctx.save_for_backward(x)

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x**2

    x = t.tensor([2.0], requires_grad=True)
    y = Cube.apply(x)
    (grad,) = t.autograd.grad(y, x, create_graph=True)
    (second,) = t.autograd.grad(grad, x)
    assert float(grad) == 12.0 and float(second) == 12.0


def test_double_backward_through_a_user_function():
    class Square(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    x = t.randn(4, dtype=t.float64, requires_grad=True)
    assert t.autograd.gradgradcheck(Square.apply, (x,))


class NumpyExp(Function):
    @staticmethod
    def forward(ctx, x):
        result = t.from_numpy(np.exp(x.detach().numpy()))
        ctx.save_for_backward(result)
        return result

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        assert not grad.requires_grad and not t.is_grad_enabled()
        return t.from_numpy(grad.numpy() * result.detach().numpy())


def test_once_differentiable_first_order_works():
    x = t.randn(3, dtype=t.float64, requires_grad=True)
    assert t.autograd.gradcheck(NumpyExp.apply, (x,))


def test_once_differentiable_refuses_second_order():
    x = t.randn(3, requires_grad=True)
    y = NumpyExp.apply(x).sum()
    (grad,) = t.autograd.grad(y, x, create_graph=True)
    assert grad.requires_grad
    with pytest.raises(RuntimeError, match="once_differentiable"):
        grad.sum().backward()


def test_wrong_number_of_gradients():
    class Wrong(Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, grad):
            return grad

    x = t.ones(2, requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match="Wrong.backward returned 1 gradient, but forward took 2 inputs; "
        "return None for inputs that need no gradient",
    ):
        Wrong.apply(x, x).sum().backward()


def test_extra_trailing_none_gradients_are_allowed():
    class Extra(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2, None

    x = t.ones(2, requires_grad=True)
    Extra.apply(x).sum().backward()
    assert_close(x.grad, [2.0, 2.0])


def test_gradient_for_non_tensor_argument_raises():
    class Grad3(Function):
        @staticmethod
        def forward(ctx, x, n):
            return x * n

        @staticmethod
        def backward(ctx, grad):
            return grad, grad

    x = t.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="different than None at position 1"):
        Grad3.apply(x, 2).sum().backward()


def test_gradient_of_wrong_shape_raises_naming_the_function():
    class WrongShape(Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum()

        @staticmethod
        def backward(ctx, grad):
            return t.ones(3)

    with pytest.raises(
        RuntimeError,
        match=r"WrongShapeBackward returned an invalid gradient at index 0 - "
        r"got \[3\] but expected shape compatible with \[2\]",
    ):
        WrongShape.apply(t.ones(2, requires_grad=True)).backward()


def test_broadcast_gradient_is_summed_to_the_input_shape():
    class Broadcasting(Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum()

        @staticmethod
        def backward(ctx, grad):
            return t.ones(4, 3)

    x = t.ones(3, requires_grad=True)
    Broadcasting.apply(x).backward()
    assert_close(x.grad, [4.0, 4.0, 4.0])


def test_gradient_that_is_not_a_tensor_raises():
    class NotTensor(Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum()

        @staticmethod
        def backward(ctx, grad):
            return 3

    with pytest.raises(RuntimeError, match="expected Variable or None"):
        NotTensor.apply(t.ones(2, requires_grad=True)).backward()


def test_save_for_backward_rejects_non_tensors():
    class SavesNumber(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(3)
            return x * 2

    with pytest.raises(TypeError, match="SavesNumber.forward: save_for_backward can only save tensors"):
        SavesNumber.apply(t.ones(1, requires_grad=True))


def test_save_for_backward_accepts_none():
    class SavesNone(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, None)
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            x, nothing = ctx.saved_tensors
            assert nothing is None
            return grad * 2

    x = t.ones(1, requires_grad=True)
    SavesNone.apply(x).backward()
    assert float(x.grad) == 2.0


def test_legacy_non_static_forward_raises_with_the_static_pattern():
    class Legacy(Function):
        def forward(self, x):
            return x

    with pytest.raises(RuntimeError, match="non-static forward") as caught:
        Legacy.apply(t.ones(1))
    assert "@staticmethod" in str(caught.value) and "Legacy.apply(x)" in str(caught.value)
    with (
        pytest.raises(RuntimeError, match="non-static forward"),
        pytest.warns(DeprecationWarning, match="should not be instantiated"),
    ):
        Legacy()(t.ones(1))


def test_ctx_tensor_attribute_warns_under_create_graph():
    class KeepsTensor(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.x = x
            return x * x

        @staticmethod
        def backward(ctx, grad):
            return 2 * ctx.x * grad

    x = t.tensor([3.0], requires_grad=True)
    y = KeepsTensor.apply(x)
    with pytest.warns(UserWarning, match=r"KeepsTensor.backward .* ctx\.x"):
        t.autograd.grad(y, x, create_graph=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        KeepsTensor.apply(x).backward()  # first-order use is fine: no warning


def test_saved_tensor_modified_in_place_raises_with_details():
    x = t.ones(3, requires_grad=True)
    y = x.exp()
    y.add_(1)
    with pytest.raises(
        RuntimeError,
        match=r"modified by an inplace operation: \[torch.FloatTensor \[3\]\], "
        r"which is output 0 of ExpBackward0, is at version 1; expected "
        r"version 0 instead. Hint: enable anomaly detection",
    ):
        y.sum().backward()


def test_saved_input_modified_in_place_names_the_node():
    x = t.ones(3, requires_grad=True)
    a = x * 1
    y = a * a
    a.mul_(2)
    with pytest.raises(RuntimeError, match="saved by MulBackward0, is at version 1; expected version 0"):
        y.sum().backward()


def test_backward_twice_raises_and_retain_graph_allows_it():
    x = t.ones(2, requires_grad=True)
    y = (x.exp() * 2).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert_close(x.grad, 4 * np.exp(np.ones(2, np.float32)))
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_function_matches_torch_metadata(torch):
    from ember._examples import MultiplyAdd, define_multiply_add

    TorchMultiplyAdd = define_multiply_add(torch.autograd.Function)

    values = np.array([0.3, 0.7], np.float32)
    theirs = TorchMultiplyAdd.apply(
        torch.tensor(values, requires_grad=True), torch.ones(2), torch.tensor(values, requires_grad=True)
    )
    ours = MultiplyAdd.apply(t.tensor(values, requires_grad=True), t.ones(2), t.tensor(values, requires_grad=True))
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    assert [node is None for node, _ in ours.grad_fn.next_functions] == [
        node is None for node, _ in theirs.grad_fn.next_functions
    ]
    assert ours.requires_grad == theirs.requires_grad and ours.is_leaf == theirs.is_leaf


def test_a_function_without_backward_says_to_implement_it():
    class Doubled(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    with pytest.raises(NotImplementedError, match="You must implement either the backward or vjp method"):
        Doubled.apply(t.ones(1, requires_grad=True)).backward()
