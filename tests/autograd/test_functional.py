"""ember.autograd.functional against torch.autograd.functional: values, shapes, tuple structure, errors."""

import numpy as np
import pytest

import ember
from ember.autograd import functional as F

from ..conftest import assert_close


def _pair(torch, *arrays):
    return tuple(ember.tensor(a) for a in arrays), tuple(torch.tensor(a) for a in arrays)


def _compare(actual, expected, what):
    """Same nesting (tensor / tuple / tuple of tuples) and the same values."""
    if isinstance(expected, (tuple, list)):
        assert type(actual) is type(expected) and len(actual) == len(expected), f"{what}: structure differs"
        for index, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, f"{what}[{index}]")
    else:
        assert isinstance(actual, ember.Tensor), f"{what}: expected a tensor, got {type(actual).__name__}"
        assert_close(actual, expected, rtol=1e-6, atol=1e-8, what=what)


def exp_reducer(lib, x):
    return x.exp().sum(dim=1)


def adder(lib, x, y):
    return 2 * x + 3 * y


def two_outputs(lib, x, y):
    return (x * y).tanh(), (x @ y.t()).sum(1) * 0.5


def scalar(lib, x):
    return (x**3).sum() * x.sin().sum()


def scalar_two(lib, x, y):
    return (x.exp() * y).sum() + (y**2).sum()


def _call(module, name, fn, inputs, *args, **kwargs):
    lib = ember if module is F else __import__("torch")
    return getattr(module, name)(lambda *xs: fn(lib, *xs), inputs, *args, **kwargs)


@pytest.mark.parametrize("create_graph", [False, True])
def test_vjp(torch, create_graph):
    import torch.autograd.functional as TF

    rng = np.random.default_rng(0)
    (x,), (tx,) = _pair(torch, rng.random((4, 4)))
    (v,), (tv,) = _pair(torch, rng.random(4))
    _compare(
        _call(F, "vjp", exp_reducer, x, v, create_graph=create_graph),
        _call(TF, "vjp", exp_reducer, tx, tv, create_graph=create_graph),
        "vjp",
    )
    inputs, tinputs = _pair(torch, rng.random(2), rng.random(2))
    (v,), (tv,) = _pair(torch, np.ones(2))
    _compare(_call(F, "vjp", adder, inputs, v), _call(TF, "vjp", adder, tinputs, tv), "vjp tuple")


def test_jvp_two_outputs_and_tuple_inputs(torch):
    import torch.autograd.functional as TF

    rng = np.random.default_rng(1)
    inputs, tinputs = _pair(torch, rng.random((2, 3)), rng.random((2, 3)))
    v, tv = _pair(torch, rng.random((2, 3)), rng.random((2, 3)))
    _compare(_call(F, "jvp", two_outputs, inputs, v), _call(TF, "jvp", two_outputs, tinputs, tv), "jvp")
    v, tv = _pair(torch, rng.random((2, 3)), rng.random(2))
    _compare(_call(F, "vjp", two_outputs, inputs, v), _call(TF, "vjp", two_outputs, tinputs, tv), "vjp two outputs")
    (x,), (tx,) = _pair(torch, np.array([0.7]))
    _compare(
        _call(F, "jvp", lambda lib, x: x.sin() * 3, x),
        _call(TF, "jvp", lambda lib, x: x.sin() * 3, tx),
        "jvp with v omitted",
    )


@pytest.mark.parametrize("vectorize", [False, True])
def test_jacobian_matches_torch(torch, vectorize):
    import torch.autograd.functional as TF

    rng = np.random.default_rng(2)
    inputs, tinputs = _pair(torch, rng.random((2, 3)), rng.random((2, 3)))
    _compare(
        _call(F, "jacobian", two_outputs, inputs, vectorize=vectorize),
        _call(TF, "jacobian", two_outputs, tinputs, vectorize=vectorize),
        "jacobian",
    )
    (x,), (tx,) = _pair(torch, rng.random((3, 2)))
    _compare(
        _call(F, "jacobian", exp_reducer, x, vectorize=vectorize),
        _call(TF, "jacobian", exp_reducer, tx, vectorize=vectorize),
        "jacobian single",
    )


def test_jacobian_forward_mode_matches_reverse_mode(torch):
    import torch.autograd.functional as TF

    rng = np.random.default_rng(3)
    inputs, tinputs = _pair(torch, rng.random((2, 3)), rng.random((2, 3)))
    _compare(
        _call(F, "jacobian", two_outputs, inputs, vectorize=True, strategy="forward-mode"),
        _call(TF, "jacobian", two_outputs, tinputs, vectorize=True, strategy="forward-mode"),
        "jacfwd",
    )
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        _call(F, "jacobian", two_outputs, inputs, strategy="forward-mode")
    with pytest.raises(NotImplementedError, match="create_graph=True"):
        _call(F, "jacobian", two_outputs, inputs, create_graph=True, strategy="forward-mode")


def test_jacobian_create_graph_is_differentiable(torch):
    rng = np.random.default_rng(4)
    x = ember.tensor(rng.random(3), requires_grad=True)
    jac = F.jacobian(lambda x: (x**3).sum(), x, create_graph=True)
    assert jac.requires_grad
    jac.sum().backward()
    assert_close(x.grad, 6 * x.detach(), what="d/dx sum(3x^2)")
    assert not F.jacobian(lambda x: (x**3).sum(), x).requires_grad


@pytest.mark.parametrize("fn,shapes", [(scalar, [(2, 3)]), (scalar_two, [(3,), (3,)])])
def test_hessian_hvp_vhp(torch, fn, shapes):
    import torch.autograd.functional as TF

    rng = np.random.default_rng(5)
    arrays = [rng.random(shape) for shape in shapes]
    inputs, tinputs = _pair(torch, *arrays)
    v, tv = _pair(torch, *[rng.random(shape) for shape in shapes])
    if len(shapes) == 1:
        inputs, tinputs, v, tv = inputs[0], tinputs[0], v[0], tv[0]
    _compare(_call(F, "hessian", fn, inputs), _call(TF, "hessian", fn, tinputs), "hessian")
    for name in ("hvp", "vhp"):
        _compare(_call(F, name, fn, inputs, v), _call(TF, name, fn, tinputs, tv), name)


def test_hessian_create_graph(torch):
    import torch.autograd.functional as TF

    if not hasattr(ember, "stack"):
        pytest.skip("hessian(create_graph=True) of a vector input stacks rows with ember.stack")
    x = ember.tensor([0.5, 1.5], dtype=ember.float64, requires_grad=True)
    tx = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
    hess = F.hessian(lambda x: (x**4).sum(), x, create_graph=True)
    thess = TF.hessian(lambda x: (x**4).sum(), tx, create_graph=True)
    assert_close(hess, thess, what="hessian")
    hess.sum().backward()
    thess.sum().backward()
    assert_close(x.grad, tx.grad, what="third derivative")


def test_strict_mode_errors_match_torch(torch):
    import torch.autograd.functional as TF

    cases = [
        ("vjp", lambda lib, x, y: x * 2, (np.ones(2), np.ones(2)), (np.ones(2),)),
        ("jacobian", lambda lib, x, y: x * 2, (np.ones(2), np.ones(2)), None),
        ("jvp", lambda lib, x: x.detach(), (np.ones(2),), (np.ones(2),)),
        ("hessian", lambda lib, x: (2 * x).sum(), (np.ones(2),), None),
    ]
    for name, fn, arrays, v in cases:
        inputs, tinputs = _pair(torch, *arrays)
        args, targs = ((), ()) if v is None else (_pair(torch, *v))
        args = args[0] if len(args) == 1 else args
        targs = targs[0] if len(targs) == 1 else targs
        with pytest.raises(RuntimeError) as expected:
            _call(TF, name, fn, tinputs, *([targs] if v is not None else []), strict=True)
        with pytest.raises(RuntimeError) as actual:
            _call(F, name, fn, inputs, *([args] if v is not None else []), strict=True)
        assert str(actual.value) == str(expected.value), name


def test_non_strict_gives_zeros_for_unused_inputs():
    out, (gx, gy) = F.vjp(lambda x, y: x * 2, (ember.ones(2), ember.ones(2)), ember.ones(2))
    assert gx.tolist() == [2.0, 2.0] and gy.tolist() == [0.0, 0.0]


def test_argument_errors_match_torch(torch):
    import torch.autograd.functional as TF

    calls = [
        lambda m, lib: m.vjp(lambda x: x * 2, lib.ones(2)),  # v needed for 2 outputs
        lambda m, lib: m.jvp(lambda x: x * 2, lib.ones(2)),  # v needed for 2 inputs
        lambda m, lib: m.vjp(lambda x: x * 2, lib.ones(2), lib.ones(3)),  # wrong v size
        lambda m, lib: m.jvp(lambda x, y: x * y, (lib.ones(2), lib.ones(2)), (lib.ones(2),)),  # wrong v length
        lambda m, lib: m.hvp(lambda x: x * 2, lib.ones(2), lib.ones(2)),  # not a scalar function
        lambda m, lib: m.hessian(lambda x: (x, x), lib.ones(2)),
    ]
    for index, call in enumerate(calls):
        with pytest.raises(RuntimeError) as expected:
            call(TF, torch)
        with pytest.raises(RuntimeError) as actual:
            call(F, ember)
        assert str(actual.value) == str(expected.value), index
    for module, lib in ((TF, torch), (F, ember)):
        with pytest.raises(TypeError, match="must be either a Tensor or a tuple of Tensors"):
            module.vjp(lambda x: x, [lib.ones(1)])
    with pytest.raises(AssertionError, match="forward-mode"):
        F.jacobian(lambda x: x, ember.ones(1), strategy="sideways")


def test_inputs_are_not_modified_and_results_are_detached():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    out, grad = F.vjp(lambda x: (x * x).sum(), x)
    assert not out.requires_grad and not grad.requires_grad and x.grad is None
    out, grad = F.vjp(lambda x: (x * x).sum(), x, create_graph=True)
    assert grad.requires_grad


# ---------------------------------------------------------------- hvp: forward-over-reverse and its fallback
def _hvp_path(monkeypatch):
    """Counts hvp's reverse passes: 1 is forward-over-reverse, 3 the double-backward trick."""
    passes = []
    original = F._autograd_grad

    def counting(*args, **kwargs):
        passes.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(F, "_autograd_grad", counting)
    return passes


def tanh_mlp(lib, w, b):
    x = lib.tensor(np.linspace(-1.0, 1.0, 12).reshape(4, 3))
    return ((lib.tanh(x @ w.t() + b) * lib.sigmoid(x @ w.t())).sum(1) ** 2).mean() + lib.relu(w - 0.4).sum() * w.sum()


def no_jvp_rule(lib, w, b):
    return lib.logsumexp(w * b[:, None], 1).sum() * (w**2).sum()  # logsumexp has no forward-mode rule


def under_no_grad(lib, w, b):
    with lib.no_grad():
        constant = w * 3
    return (w * constant).sum() + (b.exp()[:, None] * w.detach()).sum() + (w**3).sum()


def user_function(lib, w, b):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x**2

    return Cube.apply(w).sum() * b.sum() + (b**2).sum()


def opens_a_dual_level(lib, w, b):
    with lib.autograd.forward_ad.dual_level():
        pass
    return (w.sin() * b.sum()).sum()


@pytest.mark.parametrize(
    "fn,passes",
    [(tanh_mlp, 1), (scalar_two, 1), (under_no_grad, 1), (no_jvp_rule, 3), (user_function, 3), (opens_a_dual_level, 3)],
)
@pytest.mark.parametrize("create_graph", [False, True])
def test_hvp_matches_torch_on_both_paths(torch, monkeypatch, fn, passes, create_graph):
    import torch.autograd.functional as TF

    rng = np.random.default_rng(7)
    shapes = [(2, 3), (2,)] if fn is not scalar_two else [(3,), (3,)]
    inputs, tinputs = _pair(torch, *[rng.random(shape) for shape in shapes])
    v, tv = _pair(torch, *[rng.standard_normal(shape) for shape in shapes])
    if create_graph:
        inputs = tuple(inp.requires_grad_() for inp in inputs)
        tinputs = tuple(inp.requires_grad_() for inp in tinputs)
    counted = _hvp_path(monkeypatch)
    result = _call(F, "hvp", fn, inputs, v, create_graph=create_graph)
    expected = _call(TF, "hvp", fn, tinputs, tv, create_graph=create_graph)
    assert len(counted) == passes
    _compare(result, expected, "hvp")
    for actual, wanted in zip(result[1], expected[1]):
        assert actual.requires_grad == wanted.requires_grad
    assert result[0].requires_grad == expected[0].requires_grad


def test_hvp_single_tensor_and_v_omitted_match_torch(torch, monkeypatch):
    import torch.autograd.functional as TF

    counted = _hvp_path(monkeypatch)
    (x,), (tx,) = _pair(torch, np.array([0.3]))
    _compare(_call(F, "hvp", scalar, x), _call(TF, "hvp", scalar, tx), "hvp, v omitted")
    (x,), (tx,) = _pair(torch, np.array([[0.3, -1.2], [0.5, 2.0]]))
    (v,), (tv,) = _pair(torch, np.array([[1.0, 0.5], [-2.0, 0.25]]))
    _compare(_call(F, "hvp", scalar, x, v), _call(TF, "hvp", scalar, tx, tv), "hvp, single tensor")
    assert len(counted) == 1 + 1


def _finite_difference_hvp(fn, arrays, directions, step=1e-5):
    """(grad f(x + h v) - grad f(x - h v)) / 2h, the gradients by ember's first-order backward."""

    def gradient(shift):
        points = tuple(ember.tensor(a + shift * d, requires_grad=True) for a, d in zip(arrays, directions))
        return [g.numpy() for g in ember.autograd.grad(fn(ember, *points), points)]

    return [(p - m) / (2 * step) for p, m in zip(gradient(step), gradient(-step))]


@pytest.mark.parametrize("fn", [tanh_mlp, no_jvp_rule])
def test_hvp_matches_finite_differences(fn):
    rng = np.random.default_rng(8)
    arrays = (rng.random((2, 3)), rng.random(2))
    directions = (rng.standard_normal((2, 3)), rng.standard_normal(2))
    _, result = F.hvp(
        lambda *xs: fn(ember, *xs), tuple(map(ember.tensor, arrays)), tuple(map(ember.tensor, directions))
    )
    for actual, expected in zip(result, _finite_difference_hvp(fn, arrays, directions)):
        assert_close(actual, expected, rtol=1e-6, atol=1e-7, what="H v against finite differences")


@pytest.mark.parametrize("fn", [tanh_mlp, no_jvp_rule])
def test_hvp_create_graph_gives_third_derivatives(fn):
    """d/dx <u, H(x) v> by backward through hvp's result, against central differences of H v."""
    rng = np.random.default_rng(9)
    arrays = (rng.random((2, 3)), rng.random(2))
    directions = (rng.standard_normal((2, 3)), rng.standard_normal(2))
    weights = (rng.standard_normal((2, 3)), rng.standard_normal(2))

    def weighted_hvp(points, create_graph):
        _, result = F.hvp(
            lambda *xs: fn(ember, *xs), points, tuple(map(ember.tensor, directions)), create_graph=create_graph
        )
        return sum((r * ember.tensor(u)).sum() for r, u in zip(result, weights))

    points = tuple(ember.tensor(a, requires_grad=True) for a in arrays)
    third = ember.autograd.grad(weighted_hvp(points, True), points)
    step = 1e-5
    for index, (array, actual) in enumerate(zip(arrays, third)):
        expected = np.zeros_like(array)
        for position in np.ndindex(array.shape):
            shifted = [list(arrays), list(arrays)]
            for sign, copy in zip((1, -1), shifted):
                copy[index] = array.copy()
                copy[index][position] += sign * step
            plus, minus = (weighted_hvp(tuple(map(ember.tensor, copy)), False).item() for copy in shifted)
            expected[position] = (plus - minus) / (2 * step)
        assert_close(actual, expected, rtol=1e-5, atol=1e-6, what=f"third derivative, input {index}")


def test_hvp_inside_a_dual_level_and_strict_take_double_backward(torch, monkeypatch):
    import torch.autograd.functional as TF

    counted = _hvp_path(monkeypatch)
    inputs, tinputs = _pair(torch, np.array([0.5, 1.5]), np.array([2.0]))
    v, tv = _pair(torch, np.array([1.0, -1.0]), np.array([0.5]))
    with ember.autograd.forward_ad.dual_level():
        _compare(_call(F, "hvp", scalar_two, inputs, v), _call(TF, "hvp", scalar_two, tinputs, tv), "in a dual level")
    _compare(
        _call(F, "hvp", scalar_two, inputs, v, strict=True),
        _call(TF, "hvp", scalar_two, tinputs, tv, strict=True),
        "strict",
    )
    assert len(counted) == 3 + 3


def test_hvp_strict_errors_match_torch(torch):
    import torch.autograd.functional as TF

    cases = [
        (lambda lib, x: (2 * x).sum(), np.ones(2)),  # linear: the jacobian is independent of x
        (lambda lib, x: x.detach().sum(), np.ones(2)),  # the output does not require grad
    ]
    for index, (fn, array) in enumerate(cases):
        (x,), (tx,) = _pair(torch, array)
        with pytest.raises(RuntimeError) as expected:
            _call(TF, "hvp", fn, tx, torch.ones(2), strict=True)
        with pytest.raises(RuntimeError) as actual:
            _call(F, "hvp", fn, x, ember.ones(2, dtype=ember.float64), strict=True)
        assert str(actual.value) == str(expected.value), index


def test_hvp_leaves_no_level_open_and_func_sees_leaves():
    seen = []

    def fn(x):
        seen.append((x.is_leaf, ember.autograd.forward_ad._current_level))
        return (x**3).sum()

    F.hvp(fn, ember.ones(2), ember.ones(2))
    assert seen == [(True, -1)]
    assert ember.autograd.forward_ad._current_level == -1
    with pytest.raises(RuntimeError, match="no level exists"):
        F.hvp(lambda x: ember.autograd.forward_ad.make_dual(x, x).sum(), ember.ones(2), ember.ones(2))
    assert ember.autograd.forward_ad._current_level == -1


def test_forward_over_reverse_by_hand_keeps_saved_outputs_tangents():
    """Saved outputs (tanh's, exp's result) carry their tangent into a backward run under a level."""
    fwAD = ember.autograd.forward_ad
    x = ember.tensor([0.3, -0.7], dtype=ember.float64, requires_grad=True)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, ember.tensor([1.0, 0.0], dtype=ember.float64))
        (gradient,) = ember.autograd.grad((dual.tanh() + dual.exp()).sum(), dual, create_graph=True)
        tangent = fwAD.unpack_dual(gradient).tangent
    t = np.tanh(0.3)
    assert_close(tangent, [-2 * t * (1 - t * t) + np.exp(0.3), 0.0], what="d/dx0 of the gradient")
