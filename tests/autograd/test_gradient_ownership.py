"""The engine writes into a gradient buffer only when it owns it (see ember/autograd/engine.py).

`.grad` is changed in place by the next backward (and by optimizers and clipping), so a `.grad`
that shared memory with another leaf's `.grad`, the caller's grad_output or a hook's tensor would
silently change them too.
"""

import numpy as np
import pytest

import ember
from ember.autograd import Function


def _leaves(count=2, size=3):
    rng = np.random.default_rng(count)
    return [ember.tensor(rng.standard_normal(size), requires_grad=True) for _ in range(count)]


def _assert_separate(*tensors):
    for index, first in enumerate(tensors):
        for second in tensors[index + 1 :]:
            assert not np.shares_memory(first._data, second._data), f"{first} and {second} share memory"


class PassThrough(Function):
    """A user backward that hands the gradient it received to both inputs."""

    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, grad):
        return grad, grad


GLOBAL_GRADIENT = ember.ones(3)


class ReturnsAGlobal(Function):
    @staticmethod
    def forward(ctx, a):
        return a.clone()

    @staticmethod
    def backward(ctx, grad):
        return GLOBAL_GRADIENT


TWO_LEAF_GRAPHS = {
    "add": lambda a, b: a + b,
    "add then identity ops": lambda a, b: (a + b).view(3).clone(),
    "user pass-through": PassThrough.apply,
    "expand both": lambda a, b: a.expand(2, 3) + b.expand(2, 3),
    "sub": lambda a, b: a - b,
}


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name", TWO_LEAF_GRAPHS)
def test_two_leaves_never_share_a_grad_buffer(name, create_graph):
    a, b = _leaves()
    output = TWO_LEAF_GRAPHS[name](a, b).sum()
    output.backward(create_graph=create_graph)
    _assert_separate(a.grad, b.grad)
    a_before, b_before = a.grad.detach().numpy().copy(), b.grad.detach().numpy().copy()
    TWO_LEAF_GRAPHS[name](a, b).sum().backward()  # accumulates into .grad in place
    expected_a = a_before + a_before if not create_graph else a_before * 2
    np.testing.assert_allclose(a.grad.detach().numpy(), expected_a, rtol=1e-6)
    np.testing.assert_allclose(b.grad.detach().numpy(), b_before + b_before, rtol=1e-6)


def test_a_leaf_used_twice_gets_the_sum_and_its_own_buffer():
    a, b = _leaves()
    (a * 2 + a * 3 + a + b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.full(3, 6.0))
    _assert_separate(a.grad, b.grad)


@pytest.mark.parametrize(
    "graph",
    [
        lambda a: a * 1,
        lambda a: a + 0,
        lambda a: a.view(3),
        lambda a: a.clone(),
        lambda a: PassThrough.apply(a, ember.zeros(3)),
    ],
    ids=["mul", "add", "view", "clone", "user pass-through"],
)
@pytest.mark.parametrize("hook", [None, "post-accumulate", "node prehook"])
def test_the_callers_grad_output_is_never_mutated(graph, hook):
    (a,) = _leaves(1)
    if hook == "post-accumulate":  # these see .grad itself, so .grad may take a gradient it owns
        a.register_post_accumulate_grad_hook(lambda tensor: None)
    elif hook == "node prehook":
        a.view(3).grad_fn.next_functions[0][0].register_prehook(lambda grads: None)
    grad_output = ember.tensor([1.0, 2.0, 3.0])
    for _ in range(3):
        graph(a).backward(grad_output)
    np.testing.assert_array_equal(grad_output.numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_allclose(a.grad.numpy(), [3.0, 6.0, 9.0])
    assert not np.shares_memory(a.grad._data, grad_output._data)


def test_the_grad_outputs_of_autograd_grad_are_never_mutated():
    (a,) = _leaves(1)
    grad_output = ember.tensor([1.0, 2.0, 3.0])
    (first,) = ember.autograd.grad(a.view(3), a, grad_output)
    a.grad = first
    a.view(3).backward(grad_output)
    np.testing.assert_array_equal(grad_output.numpy(), [1.0, 2.0, 3.0])


def test_a_hooks_returned_tensor_is_never_mutated():
    (a,) = _leaves(1)
    replacement = ember.tensor([5.0, 6.0, 7.0], dtype=ember.float64)
    a.register_hook(lambda grad: replacement)
    for _ in range(3):
        (a * 2).sum().backward()
    np.testing.assert_array_equal(replacement.numpy(), [5.0, 6.0, 7.0])
    np.testing.assert_allclose(a.grad.numpy(), [15.0, 18.0, 21.0])


def test_a_hook_on_an_intermediate_returning_a_tensor_that_reaches_a_leaf():
    (a,) = _leaves(1)
    replacement = ember.tensor([5.0, 6.0, 7.0], dtype=ember.float64)
    for _ in range(3):
        middle = a * 2
        middle.register_hook(lambda grad: replacement)
        middle.view(3).sum().backward()  # MulBackward scales it; view passes it on
    np.testing.assert_array_equal(replacement.numpy(), [5.0, 6.0, 7.0])


def test_a_gradient_a_hook_kept_is_never_mutated():
    (a,) = _leaves(1)
    seen = []
    middle_hook = lambda grad: seen.append(grad)  # noqa: E731  (keeps the gradient, returns None)
    for _ in range(2):
        middle = a.view(3)
        middle.register_hook(middle_hook)
        middle.sum().backward()
    np.testing.assert_array_equal(seen[0].numpy(), np.ones(3))
    np.testing.assert_array_equal(a.grad.numpy(), np.full(3, 2.0))


def test_a_user_backward_returning_a_global_never_gets_it_mutated():
    (a,) = _leaves(1)
    for _ in range(3):
        ReturnsAGlobal.apply(a).sum().backward()
    np.testing.assert_array_equal(GLOBAL_GRADIENT.numpy(), np.ones(3))
    np.testing.assert_array_equal(a.grad.numpy(), np.full(3, 3.0))


def test_a_backward_trace_keeps_what_it_saw():
    (a,) = _leaves(1)
    with ember.autograd.trace() as recorded:
        (a * 2).sum().backward()
    (a * 2).sum().backward()
    leaf_step = [step for step in recorded.steps if step.is_leaf][0]
    np.testing.assert_array_equal(leaf_step.grad_outputs[0].numpy(), np.full(3, 2.0))


def test_a_gradient_a_node_prehook_kept_is_never_mutated():
    a, b = _leaves()
    seen = []

    def scale_grad(tensor):
        tensor.grad.mul_(10)  # in place, as DistributedDataParallel averages

    a.view(3).grad_fn.next_functions[0][0].register_prehook(lambda grads: seen.append(grads[0]))
    a.register_post_accumulate_grad_hook(scale_grad)
    (a * b).sum().backward()
    np.testing.assert_allclose(seen[0].numpy(), b.detach().numpy())
    np.testing.assert_allclose(a.grad.numpy(), 10 * b.detach().numpy(), rtol=1e-6)


def test_the_engine_takes_a_fresh_gradient_without_a_copy():
    # A built-in backward's new array becomes .grad as it is (one of two leaves, as in PyTorch).
    a, b = _leaves()
    (a * b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.detach().numpy())
    assert a.grad._data.flags.owndata or a.grad._data.base is None


def test_a_linear_weight_takes_its_gradient_without_a_copy():
    # Linear forms the weight's gradient as a GEMM result transposed twice: a view that is the whole
    # of memory nobody else was handed, which .grad may take (copying it cost a pass per step).
    layer = ember.nn.Linear(4, 3)
    layer(ember.randn(5, 4)).sum().backward()
    grad = layer.weight.grad._data
    assert grad.base is not None and grad.base.nbytes == grad.nbytes and grad.flags.c_contiguous


def test_a_whole_view_of_the_callers_grad_output_is_copied():
    leaf = ember.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    grad_output = ember.tensor(np.ones((2, 3)))
    for _ in range(2):
        leaf.t().backward(grad_output.t())  # TBackward hands the leaf a whole view of grad_output
    np.testing.assert_array_equal(grad_output.numpy(), np.ones((2, 3)))
    np.testing.assert_array_equal(leaf.grad.numpy(), np.full((2, 3), 2.0))
    assert not np.shares_memory(leaf.grad._data, grad_output._data)


def test_two_leaves_never_share_an_array_and_a_whole_view_of_it():
    # MulBackward makes one new array; Add hands it to `a` as it is and to `b` through two
    # transposes, as a whole view of the same memory: only one of them may take it.
    a = ember.tensor(np.ones((2, 3)), requires_grad=True)
    b = ember.tensor(np.ones((2, 3)), requires_grad=True)
    scale = ember.tensor(np.full((2, 3), 2.0))
    for order in ("a first", "b first"):
        a.grad = b.grad = None
        total = a + b.t().t() if order == "a first" else b.t().t() + a
        (total * scale).sum().backward()
        _assert_separate(a.grad, b.grad)
        (a + b.t().t()).mul(scale).sum().backward()  # accumulates into both in place
        np.testing.assert_array_equal(a.grad.numpy(), np.full((2, 3), 4.0))
        np.testing.assert_array_equal(b.grad.numpy(), np.full((2, 3), 4.0))
