"""vmap against a Python loop (and torch.func.vmap), functional_call and stack_module_state."""

import collections

import numpy as np
import pytest

import ember
from ember.func import functional_call, grad, stack_module_state, vmap

from ..conftest import assert_close

RNG = np.random.default_rng(1)


def _loop(function, batched, unbatched=()):
    return np.stack([function(*[a[i] for a in batched], *unbatched) for i in range(len(batched[0]))])


def test_vmap_equals_python_loop():
    x, y = RNG.standard_normal((5, 3, 2)), RNG.standard_normal((5, 2))
    f = lambda a, b: (a @ b).tanh()
    actual = vmap(f)(ember.tensor(x), ember.tensor(y))
    assert_close(actual, _loop(lambda a, b: np.tanh(a @ b), (x, y)))


def test_in_dims_none_negative_and_out_dims():
    x, w = RNG.standard_normal((3, 4)), RNG.standard_normal(3)
    actual = vmap(lambda column, weights: column * weights, in_dims=(1, None), out_dims=1)(
        ember.tensor(x), ember.tensor(w)
    )
    assert actual.shape == (3, 4)
    assert_close(actual, x * w[:, None])
    assert_close(vmap(ember.sum, in_dims=-1)(ember.tensor(x)), x.sum(0))


def test_nested_pytree_in_dims_and_outputs():
    Pair = collections.namedtuple("Pair", "first second")
    data = {"a": ember.tensor(RNG.standard_normal((4, 2))), "b": ember.tensor(RNG.standard_normal(2))}
    out = vmap(lambda d: Pair(d["a"] + d["b"], [d["a"].sum()]), in_dims=({"a": 0, "b": None},))(data)
    assert isinstance(out, Pair) and isinstance(out.second, list)
    assert_close(out.first, data["a"].numpy() + data["b"].numpy())
    assert_close(out.second[0], data["a"].numpy().sum(1))


def test_out_dims_none_returns_unbatched_value():
    x = ember.tensor(RNG.standard_normal((3, 2)))
    batched, constant = vmap(lambda a: (a * 2, ember.ones(2)), out_dims=(0, None))(x)
    assert batched.shape == (3, 2) and constant.shape == (2,)
    with pytest.raises(ValueError, match="can not return a BatchedTensor when out_dim is None"):
        vmap(lambda a: a.sum(), out_dims=None)(x)


def test_nested_vmap_is_an_outer_product_of_loops():
    x, y = RNG.standard_normal((3, 4)), RNG.standard_normal((5, 4))
    actual = vmap(vmap(ember.dot, in_dims=(None, 0)), in_dims=(0, None))(ember.tensor(x), ember.tensor(y))
    assert_close(actual, x @ y.T)


def test_vmap_is_differentiable():
    x = ember.tensor(RNG.standard_normal((4, 3)), requires_grad=True)
    vmap(lambda row: (row**2).sum())(x).sum().backward()
    assert_close(x.grad, 2 * x.detach().numpy())


def test_keyword_arguments_are_not_mapped():
    x = ember.tensor(RNG.standard_normal((3, 2)))
    assert_close(vmap(lambda a, scale: a * scale)(x, scale=ember.tensor(2.0)), 2 * x.numpy())


def test_randomness_modes():
    x = ember.zeros(4, 3)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        vmap(lambda a: a + ember.rand(3))(x)
    same = vmap(lambda a: a + ember.rand(3), randomness="same")(x)
    assert all(np.array_equal(same[0].numpy(), row.numpy()) for row in same)
    different = vmap(lambda a: a + ember.rand(3), randomness="different")(x)
    assert not np.array_equal(different[0].numpy(), different[1].numpy())
    with pytest.raises(RuntimeError, match="Only allowed values for randomness"):
        vmap(lambda a: a, randomness="foo")
    with pytest.raises(ValueError, match="chunk_size should be None or greater than 0"):
        vmap(lambda a: a, chunk_size=0)
    assert vmap(lambda a: a * 2, chunk_size=2)(x).shape == (4, 3)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: vmap(lambda a, b: a + b)(ember.ones(2, 3), ember.ones(3, 3)),
            "same size in the mapped dimension, got sizes [2, 3]",
        ),
        (lambda: vmap(lambda a: a, in_dims=None)(ember.ones(2)), "expected `in_dims` to be int or a"),
        (lambda: vmap(lambda a: a, in_dims=(None,))(ember.ones(2)), "Expected at least one Tensor to vmap over"),
        (lambda: vmap(lambda a: 3)(ember.ones(2)), "must only return Tensors, got type <class 'int'>"),
        (lambda: vmap(lambda a: a, in_dims=2)(ember.ones(2, 3)), "expected in_dim to satisfy -2 <= in_dim < 2"),
        (lambda: vmap(lambda a: a, in_dims=(0, 0))(ember.ones(2)), "in_dims is not compatible with the structure"),
        (lambda: vmap(lambda a: a)(3.0), "We cannot vmap over non-Tensor arguments"),
    ],
)
def test_vmap_errors_as_pytorch(call, message):
    with pytest.raises(ValueError) as info:
        call()
    assert message in str(info.value)


def test_vmap_against_torch():
    torch = pytest.importorskip("torch")
    x, y = RNG.standard_normal((3, 4, 2)), RNG.standard_normal((4, 5))

    def f(lib, a, b):
        return {"mm": a @ b, "norm": (a**2).sum(-1).sqrt()}

    expected = torch.func.vmap(lambda a, b: f(torch, a, b), in_dims=(2, None), out_dims={"mm": 1, "norm": 0})(
        torch.tensor(x), torch.tensor(y)
    )
    actual = vmap(lambda a, b: f(ember, a, b), in_dims=(2, None), out_dims={"mm": 1, "norm": 0})(
        ember.tensor(x), ember.tensor(y)
    )
    for key in expected:
        assert_close(actual[key], expected[key].numpy(), what=key)


# ------------------------------------------------------------------ functional_call
def _model():
    ember.manual_seed(0)
    return ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.BatchNorm1d(4), ember.nn.Linear(4, 2))


def test_functional_call_swaps_and_restores():
    model = _model()
    before = {name: tensor for name, tensor in model.state_dict(keep_vars=True).items()}
    params = {name: ember.zeros_like(p) for name, p in model.named_parameters()}
    x = ember.randn(5, 3)
    assert_close(functional_call(model, params, (x,)), np.zeros((5, 2)))
    assert all(model.state_dict(keep_vars=True)[name] is tensor for name, tensor in before.items())


class _Raising(ember.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = ember.nn.Parameter(ember.ones(1))

    def forward(self):
        assert float(self.weight) == 0.0
        return 1 / 0


def test_functional_call_restores_after_error():
    module = _Raising()
    original = module.weight
    with pytest.raises(ZeroDivisionError):
        functional_call(module, {"weight": ember.zeros(1)}, ())
    assert module.weight is original


def test_functional_call_dict_tuple_strict_and_ties():
    model = _model()
    x = ember.randn(5, 3)
    params = dict(model.named_parameters())
    buffers = dict(model.named_buffers())
    assert_close(functional_call(model, (params, buffers), x), model(x).detach())
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        functional_call(model, (params, params), x)
    with pytest.raises(RuntimeError, match=r"Error\(s\) in reparametrizing for Sequential:\n\tMissing key\(s\)"):
        functional_call(model, {"0.weight": ember.zeros(4, 3)}, x, strict=True)

    class Tied(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = ember.nn.Linear(2, 2, bias=False), ember.nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x))

    tied = Tied()
    ones = ember.ones(2)
    assert_close(functional_call(tied, {"a.weight": ember.eye(2) * 2}, ones), [4.0, 4.0])
    untied = functional_call(tied, {"a.weight": ember.eye(2) * 2}, ones, tie_weights=False)
    assert_close(untied, tied.a.weight.detach().numpy() @ np.full(2, 2.0))  # b keeps the original weight
    with pytest.raises(ValueError, match="which are tied. Consider using tie_weights=False"):
        functional_call(tied, {"a.weight": ember.eye(2), "b.weight": ember.eye(2)}, ones)


def test_stack_module_state_ensemble_against_loop():
    models = [ember.nn.Linear(3, 2) for _ in range(4)]
    params, buffers = stack_module_state(models)
    assert params["weight"].shape == (4, 2, 3) and params["weight"].is_leaf and params["weight"].requires_grad
    x = ember.randn(5, 3)
    base = models[0]
    outputs = vmap(lambda p, b: functional_call(base, (p, b), (x,)))(params, buffers)
    assert_close(outputs, np.stack([m(x).detach().numpy() for m in models]))


def test_per_sample_gradients_equal_loop_of_grads():
    model = ember.nn.Linear(3, 2)
    params = {name: p.detach() for name, p in model.named_parameters()}
    x, y = ember.randn(6, 3), ember.randn(6, 2)

    def loss(p, sample, target):
        return ((functional_call(model, p, (sample,)) - target) ** 2).sum()

    batched = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)
    for i in range(6):
        single = grad(loss)(params, x[i], y[i])
        for name in params:
            assert_close(batched[name][i], single[name], what=f"{name}[{i}]")
