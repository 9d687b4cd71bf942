"""ember.autograd.graph: saved-tensor hooks on built-in ops and user Functions, save_on_cpu, disabling."""

import numpy as np
import pytest

import ember
from ember.autograd.graph import Node, disable_saved_tensors_hooks, increment_version, save_on_cpu, saved_tensors_hooks

from ..conftest import assert_close


def _input():
    return ember.tensor(np.random.default_rng(0).standard_normal(3), requires_grad=True)


def test_pack_sees_every_saved_tensor_including_outputs():
    x = _input()
    packed = []
    with saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        y = x.exp()  # saves its output
        z = (y * x).sum()  # saves both inputs
    assert len(packed) == 3 and all(isinstance(t, ember.Tensor) for t in packed)
    z.backward()
    assert_close(x.grad, np.exp(x.detach().numpy()) * (x.detach().numpy() + 1))


def test_unpack_receives_what_pack_returned_and_runs_per_access():
    class Double(ember.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * 2

        @staticmethod
        def backward(ctx, grad):
            first = ctx.saved_tensors  # each read unpacks again
            (a,) = ctx.saved_tensors
            assert first[0].shape == a.shape
            return grad * 2

    x = _input()
    seen = []

    def unpack(packed):
        seen.append(packed)
        return ember.from_numpy(packed)

    with saved_tensors_hooks(lambda t: t.detach().numpy().copy(), unpack):
        y = Double.apply(x)
    y.sum().backward()
    assert len(seen) == 2 and all(isinstance(item, np.ndarray) for item in seen)
    assert_close(x.grad, np.full(3, 2.0))


def test_double_backward_through_packed_tensors():
    x = _input()
    with saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
        y = (x.exp() * x).sum()
    (first,) = ember.autograd.grad(y, x, create_graph=True)
    (second,) = ember.autograd.grad(first.sum(), x)
    value = x.detach().numpy()
    assert_close(second, np.exp(value) * (value + 2))


def test_innermost_hooks_win_and_no_grad_packs_nothing():
    x = _input()
    order = []
    with saved_tensors_hooks(lambda t: order.append("outer") or t, lambda t: t):
        with saved_tensors_hooks(lambda t: order.append("inner") or t, lambda t: t):
            x * x
        with ember.no_grad():
            x * x
    assert order == ["inner", "inner"]


def test_unpack_must_return_a_tensor():
    x = _input()
    with saved_tensors_hooks(lambda t: t, lambda t: 5):
        y = x.exp().sum()
    with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor but got result of type int"):
        y.backward()


def test_save_on_cpu_gives_the_same_gradients():
    x = _input()
    with save_on_cpu(pin_memory=True):
        y = (x.sin() * x.tanh()).sum()
    y.backward()
    value = x.detach().numpy()
    assert_close(x.grad, np.cos(value) * np.tanh(value) + np.sin(value) * (1 - np.tanh(value) ** 2))


def test_disable_saved_tensors_hooks():
    with disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="no hooks here"):
            with saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        pass  # allowed again


def test_node_and_increment_version():
    x = _input()
    y = x * x
    assert isinstance(y.grad_fn, Node)
    increment_version(x)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_hooks_match_torch_call_counts():
    torch = pytest.importorskip("torch")

    def counts(lib, x):
        packs, unpacks = [], []
        with lib.autograd.graph.saved_tensors_hooks(lambda t: packs.append(1) or t, lambda t: unpacks.append(1) or t):
            y = (x.exp() * x).tanh().sum()
        y.backward()
        return len(packs), len(unpacks)

    value = np.arange(3.0)
    assert counts(ember, ember.tensor(value, requires_grad=True)) == counts(
        torch, torch.tensor(value, requires_grad=True)
    )


@pytest.mark.parametrize(
    "pack", [lambda t: t, lambda t: t.detach(), lambda t: t.detach().clone()], ids=["identity", "detach", "clone"]
)
def test_in_place_ops_keep_the_packed_old_values(pack):
    torch = pytest.importorskip("torch")
    grads = []
    for lib in (torch, ember):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = lib.tensor([2.0, 3.0, 4.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            a = x * 1
            a.mul_(b)  # saves the old `a` for b's gradient, then overwrites it
            a.exp_()
        a.sum().backward()
        grads.append((x.grad.detach().numpy(), b.grad.detach().numpy()))
    assert_close(grads[1][0], grads[0][0], what="x.grad")
    assert_close(grads[1][1], grads[0][1], what="b.grad")
