"""ember.func's differentiating transforms against explicit autograd and against torch.func."""

import numpy as np
import pytest

import ember
from ember import autograd
from ember.func import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp, vmap

from ..conftest import assert_close

RNG = np.random.default_rng(0)


def _array(*shape):
    return RNG.standard_normal(shape)


def _compare_tree(actual, expected, what="result"):
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and set(actual) == set(expected), f"{what}: keys differ"
        for key in expected:
            _compare_tree(actual[key], expected[key], f"{what}[{key!r}]")
    elif isinstance(expected, (tuple, list)):
        assert isinstance(actual, (tuple, list)) and len(actual) == len(expected), (
            f"{what}: structure {type(actual).__name__} of {len(actual)} vs {len(expected)}"
        )
        for index, (a, e) in enumerate(zip(actual, expected)):
            _compare_tree(a, e, f"{what}[{index}]")
    else:
        assert isinstance(actual, ember.Tensor), f"{what}: expected a tensor, got {type(actual).__name__}"
        assert_close(actual, expected, rtol=1e-6, atol=1e-9, what=what)


def _explicit_grad(function, *arrays):
    inputs = [ember.tensor(a, requires_grad=True) for a in arrays]
    return autograd.grad(function(*inputs), inputs)


# ------------------------------------------------------------------ against explicit autograd
def test_grad_matches_autograd_grad():
    x, y = _array(4), _array(4)
    f = lambda a, b: (a.sin() * b).sum()
    expected = _explicit_grad(f, x, y)
    _compare_tree(grad(f)(ember.tensor(x), ember.tensor(y)), expected[0])
    _compare_tree(grad(f, argnums=1)(ember.tensor(x), ember.tensor(y)), expected[1])
    _compare_tree(grad(f, argnums=(0, 1))(ember.tensor(x), ember.tensor(y)), expected)
    _compare_tree(grad(f, argnums=-1)(ember.tensor(x), ember.tensor(y)), expected[1])


def test_grad_of_pytree_argument_keeps_structure():
    x, y = _array(3), _array(2, 3)
    params = {"w": ember.tensor(x), "pair": (ember.tensor(y), [ember.tensor(x)])}
    result = grad(lambda p: (p["w"] * p["pair"][0]).sum() + p["pair"][1][0].exp().sum())(params)
    assert set(result) == {"w", "pair"} and isinstance(result["pair"], tuple) and isinstance(result["pair"][1], list)
    assert_close(result["w"], y.sum(0))
    assert_close(result["pair"][0], np.broadcast_to(x, (2, 3)))
    assert_close(result["pair"][1][0], np.exp(x))


def test_grad_and_value_and_has_aux():
    x = _array(5)
    f = lambda a: ((a**2).sum(), {"mean": a.mean()})
    (gradient, (value, aux)) = grad_and_value(f, has_aux=True)(ember.tensor(x))
    assert_close(gradient, 2 * x)
    assert_close(value, (x**2).sum())
    assert_close(aux["mean"], x.mean())
    assert not value.requires_grad and not aux["mean"].requires_grad
    gradient, aux = grad(f, has_aux=True)(ember.tensor(x))
    assert_close(gradient, 2 * x)


def test_grad_of_unused_input_is_zero_and_results_need_no_grad():
    x = ember.tensor(_array(3))
    result = grad(lambda a, b: (b * 2).sum(), argnums=(0, 1))(x, x)
    assert_close(result[0], np.zeros(3))
    assert_close(result[1], np.full(3, 2.0))
    assert not result[1].requires_grad


def test_nested_grad_gives_higher_derivatives():
    x = ember.tensor(0.7, dtype=ember.float64)
    assert_close(grad(ember.sin)(x), np.cos(0.7))
    assert_close(grad(grad(ember.sin))(x), -np.sin(0.7))
    assert_close(grad(grad(grad(ember.sin)))(x), -np.cos(0.7))


def test_grad_closing_over_the_outer_input():
    # d/dx [ d/dy (x * y) at y = x ] = d/dx x = 1 (no perturbation confusion)
    x = ember.tensor(1.5, dtype=ember.float64)
    assert_close(grad(lambda x: grad(lambda y: x * y)(x))(x), 1.0)
    # d/dx [x * d/dy (x * y)] = d/dx x^2 = 2x
    assert_close(grad(lambda x: x * grad(lambda y: x * y)(x))(x), 3.0)


def test_grad_stays_differentiable_for_plain_autograd():
    w = ember.tensor(_array(3), requires_grad=True)
    x = ember.tensor(_array(3))
    gradient = grad(lambda x: (w * x**2).sum())(x)  # 2 w x, depends on w
    assert gradient.requires_grad
    penalty = (gradient**2).sum()
    (dw,) = autograd.grad(penalty, w)
    assert_close(dw, 8 * w.detach().numpy() * x.numpy() ** 2)


def test_vjp_matches_autograd():
    x, v = _array(2, 3), _array(2, 3)
    f = lambda a: a.exp() * a
    output, vjp_fn = vjp(f, ember.tensor(x))
    assert_close(output, np.exp(x) * x)
    (result,) = vjp_fn(ember.tensor(v))
    assert_close(result, v * np.exp(x) * (x + 1))
    (again,) = vjp_fn(ember.tensor(v))  # may be called repeatedly
    assert_close(again, result)
    _, fn, aux = vjp(lambda a: (a.sum(), a.max()), ember.tensor(x), has_aux=True)
    assert_close(aux, x.max())
    assert_close(fn(ember.tensor(1.0))[0], np.ones((2, 3)))


def test_jvp_matches_autograd_functional():
    x, t = _array(3), _array(3)
    f = lambda a: (a.sin() * a, a.sum() * 2)
    output, tangent_out = jvp(f, (ember.tensor(x),), (ember.tensor(t),))
    expected_out, expected_tangent = autograd.functional.jvp(f, ember.tensor(x), ember.tensor(t))
    _compare_tree(output, expected_out)
    _compare_tree(tangent_out, expected_tangent)
    _, tangent, aux = jvp(lambda a: (a * 3, a.sum()), (ember.tensor(x),), (ember.tensor(t),), has_aux=True)
    assert_close(tangent, 3 * t)
    assert_close(aux, x.sum())


def test_jacrev_and_jacfwd_match_autograd_jacobian():
    x, y = _array(3), _array(2)
    f = lambda a, b: ember.outer(a.sin(), b.exp()).reshape(-1)
    expected = autograd.functional.jacobian(f, (ember.tensor(x), ember.tensor(y)))
    for transform in (jacrev, jacfwd):
        _compare_tree(transform(f)(ember.tensor(x), ember.tensor(y)), expected[0])
        _compare_tree(transform(f, argnums=(0, 1))(ember.tensor(x), ember.tensor(y)), expected)


def test_jacrev_of_nested_outputs_and_aux():
    x = _array(3)
    result, aux = jacrev(lambda a: ({"double": a * 2, "sum": (a.sum(),)}, a.mean()), has_aux=True)(ember.tensor(x))
    assert_close(result["double"], 2 * np.eye(3))
    assert_close(result["sum"][0], np.ones(3))
    assert_close(aux, x.mean())


def test_hessian_matches_autograd_functional():
    x = _array(4)
    f = lambda a: (a**3).sum() + (a[0] * a[1]).sin()
    expected = autograd.functional.hessian(f, ember.tensor(x))
    _compare_tree(hessian(f)(ember.tensor(x)), expected)
    _compare_tree(jacrev(jacrev(f))(ember.tensor(x)), expected)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda x: grad(lambda a: a * 2)(x),
            RuntimeError,
            "Expected f(*args) to return a scalar Tensor, got tensor with 1 dims",
        ),
        (lambda x: grad(lambda a: a.sum(), has_aux=True)(x), RuntimeError, "should be a tuple: (output, aux)"),
        (lambda x: grad(lambda a: a.sum(), argnums=1)(x), RuntimeError, "Got argnum=1, but only 1 positional inputs"),
        (lambda x: grad(lambda a: a.sum(), argnums=(0, 0))(x), RuntimeError, "argnums elements must be unique"),
        (lambda x: grad(lambda a: a.sum(), argnums=1.0)(x), RuntimeError, "argnums must be int or Tuple[int, ...]"),
        (lambda x: grad(lambda a: 3.0)(x), RuntimeError, "Expected f(*args) to return a Tensor"),
        (lambda x: grad(lambda a: a)(3.0), ValueError, "Thing passed to transform API must be Tensor"),
        (lambda x: jvp(lambda a: a, x, x), RuntimeError, "Expected primals to be a tuple"),
        (lambda x: jvp(lambda a: a, (x,), (ember.ones(2),)), RuntimeError, "different size"),
        (lambda x: vjp(lambda a: a * 2, x)[1](ember.ones(2)), RuntimeError, "Mismatch in shape"),
    ],
)
def test_errors_as_pytorch(call, error, message):
    with pytest.raises(error) as info:
        call(ember.randn(3))
    assert message in str(info.value)


# ------------------------------------------------------------------ against torch.func
def _torch_tree(torch, tree):
    if isinstance(tree, dict):
        return {key: _torch_tree(torch, value) for key, value in tree.items()}
    if isinstance(tree, (tuple, list)):
        return type(tree)(_torch_tree(torch, value) for value in tree)
    return torch.tensor(tree)


def _ember_tree(tree):
    if isinstance(tree, dict):
        return {key: _ember_tree(value) for key, value in tree.items()}
    if isinstance(tree, (tuple, list)):
        return type(tree)(_ember_tree(value) for value in tree)
    return ember.tensor(tree)


def _mixed(lib, a, b):
    return (a.tanh() * b.sin()).sum() + (a @ a.T).sum() * 0.1


def _vector(lib, a, b):
    return (a * b.sum()).exp()[:, 0]


CASES = [
    ("grad", lambda f, lib: f.grad(lambda a, b: _mixed(lib, a, b)), (2, 3)),
    ("grad argnums", lambda f, lib: f.grad(lambda a, b: _mixed(lib, a, b), argnums=(0, 1)), (2, 3)),
    ("grad of grad", lambda f, lib: f.grad(lambda a, b: f.grad(lambda u, v: _mixed(lib, u, v))(a, b).sum()), (2, 3)),
    ("jacrev", lambda f, lib: f.jacrev(lambda a, b: _vector(lib, a, b), argnums=(0, 1)), (2, 3)),
    ("jacfwd", lambda f, lib: f.jacfwd(lambda a, b: _vector(lib, a, b)), (2, 3)),
    ("hessian", lambda f, lib: f.hessian(lambda a, b: _mixed(lib, a, b)), (2, 3)),
    ("hessian argnums", lambda f, lib: f.hessian(lambda a, b: _mixed(lib, a, b), argnums=1), (2, 3)),
    ("jacrev of jacrev", lambda f, lib: f.jacrev(f.jacrev(lambda a, b: _vector(lib, a, b))), (2, 3)),
    ("vmap of grad", lambda f, lib: f.vmap(f.grad(lambda a, b: _mixed(lib, a, b)), in_dims=(0, None)), (2, 3)),
    ("vmap of jacrev", lambda f, lib: f.vmap(f.jacrev(lambda a, b: (a * b).sin()), in_dims=(0, None)), (3,)),
]


@pytest.mark.parametrize("name, make, shape", CASES, ids=[case[0] for case in CASES])
def test_against_torch_func(name, make, shape):
    torch = pytest.importorskip("torch")
    a, b = _array(*shape), _array(*shape)
    if name.startswith("vmap"):
        a = _array(4, *shape)
    expected = make(torch.func, torch)(torch.tensor(a), torch.tensor(b))
    actual = make(ember.func, ember)(ember.tensor(a), ember.tensor(b))
    _compare_tree(actual, expected, name)


def test_vjp_and_jvp_against_torch_func():
    torch = pytest.importorskip("torch")
    x, t = _array(3, 2), _array(3, 2)
    f = lambda a: {"y": a.sin() * a, "z": (a.sum(0), a.exp())}
    out_t, fn_t = torch.func.vjp(f, torch.tensor(x))
    out_e, fn_e = ember.func.vjp(f, ember.tensor(x))
    cotangents = {"y": _array(3, 2), "z": (_array(2), _array(3, 2))}
    _compare_tree(out_e, out_t)
    _compare_tree(fn_e(_ember_tree(cotangents)), fn_t(_torch_tree(torch, cotangents)))
    _compare_tree(
        ember.func.jvp(f, (ember.tensor(x),), (ember.tensor(t),)),
        torch.func.jvp(f, (torch.tensor(x),), (torch.tensor(t),)),
    )


def test_functional_call_per_sample_gradients_against_torch():
    torch = pytest.importorskip("torch")
    layers = {"w1": _array(5, 4), "b1": _array(5), "w2": _array(3, 5), "b2": _array(3)}
    x, y = _array(6, 4), RNG.integers(0, 3, 6)

    def per_sample(lib):
        model = lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.Tanh(), lib.nn.Linear(5, 3)).double()
        with lib.no_grad():
            for (name, _), value in zip(model.named_parameters(), layers.values()):
                model.get_parameter(name).copy_(lib.tensor(value))
        params = {name: p.detach() for name, p in model.named_parameters()}

        def loss(p, sample, target):
            output = lib.func.functional_call(model, p, (sample.unsqueeze(0),))
            return lib.nn.functional.cross_entropy(output, target.unsqueeze(0))

        return lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(params, lib.tensor(x), lib.tensor(y))

    expected, actual = per_sample(torch), per_sample(ember)
    _compare_tree(actual, expected, "per-sample gradients")


def test_transform_outputs_pass_gradcheck_under_plain_autograd():
    f = lambda a: (a.sin() * a.exp()).sum()
    x = ember.tensor(_array(3), requires_grad=True)
    assert autograd.gradcheck(lambda a: grad(f)(a), (x,))
    assert autograd.gradcheck(lambda a: jacrev(lambda b: b.tanh() * b.sum())(a), (x,))
    assert autograd.gradcheck(lambda a: jvp(lambda b: b.exp() * b, (a,), (ember.ones_like(a),))[1], (x,))
    assert autograd.gradcheck(lambda a: vmap(grad(lambda row: (row**3).sum()))(a.reshape(1, 3)), (x,))


def test_linearize_functionalize_and_top_level_vmap():
    x, t = _array(3), _array(3)
    output, jvp_fn = ember.func.linearize(ember.sin, ember.tensor(x))
    assert_close(output, np.sin(x))
    assert_close(jvp_fn(ember.tensor(t)), np.cos(x) * t)
    f = lambda a: a * 2
    assert ember.func.functionalize(f) is f
    assert ember.vmap is vmap
