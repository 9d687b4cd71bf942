"""Forward-mode AD: tangents against finite differences and against torch.autograd.forward_ad."""

import numpy as np
import pytest

import ember
import ember.autograd.forward_ad as fwAD
from ember.autograd import Function
from ember.autograd.function import Primitive

from ..conftest import assert_close

# (name, function of (lib, *tensors), input shapes, domain): each built-in primitive family.
CASES = [
    ("add", lambda lib, a, b: a + b, [(2, 3), (3,)], (-2, 2)),
    ("add_number", lambda lib, a: a + 2.5, [(3,)], (-2, 2)),
    ("sub", lambda lib, a, b: a - b, [(2, 3), (2, 3)], (-2, 2)),
    ("rsub_number", lambda lib, a: 1.0 - a, [(3,)], (-2, 2)),
    ("mul", lambda lib, a, b: a * b, [(2, 3), (1, 3)], (-2, 2)),
    ("div", lambda lib, a, b: a / b, [(4,), (4,)], (0.5, 2)),
    ("pow_scalar", lambda lib, a: a**3, [(4,)], (-2, 2)),
    ("pow_tensor", lambda lib, a, b: a**b, [(4,), (4,)], (0.5, 2)),
    ("neg", lambda lib, a: -a, [(4,)], (-2, 2)),
    ("exp", lambda lib, a: a.exp(), [(4,)], (-2, 2)),
    ("log", lambda lib, a: a.log(), [(4,)], (0.5, 2)),
    ("sin_cos", lambda lib, a: a.sin() * a.cos(), [(4,)], (-2, 2)),
    ("tanh", lambda lib, a: a.tanh(), [(4,)], (-2, 2)),
    ("sigmoid", lambda lib, a: a.sigmoid(), [(4,)], (-2, 2)),
    ("relu", lambda lib, a: a.relu(), [(6,)], (-2, 2)),
    ("sqrt", lambda lib, a: a.sqrt(), [(4,)], (0.5, 2)),
    ("abs", lambda lib, a: a.abs(), [(4,)], (0.5, 2)),
    ("clamp", lambda lib, a: a.clamp(-0.5, 0.5), [(6,)], (-2, 2)),
    ("where", lambda lib, a, b: lib.where(a > 0, a, b), [(6,), (6,)], (-2, 2)),
    ("where_number", lambda lib, a: lib.where(a > 0, a, 1.5), [(6,)], (-2, 2)),
    ("sum", lambda lib, a: a.sum(), [(2, 3)], (-2, 2)),
    ("sum_dim", lambda lib, a: a.sum(1, keepdim=True), [(2, 3)], (-2, 2)),
    ("mean_dim", lambda lib, a: a.mean(0), [(2, 3)], (-2, 2)),
    ("matmul", lambda lib, a, b: a @ b, [(2, 3), (3, 4)], (-2, 2)),
    ("bmm", lambda lib, a, b: a @ b, [(2, 2, 3), (3, 2)], (-2, 2)),
    ("matvec", lambda lib, a, b: a @ b, [(2, 3), (3,)], (-2, 2)),
    ("view_reshape", lambda lib, a: a.view(6).reshape(3, 2), [(2, 3)], (-2, 2)),
    ("expand", lambda lib, a: a.expand(4, 3), [(1, 3)], (-2, 2)),
    ("transpose_permute_t", lambda lib, a: a.transpose(0, 1).permute(1, 0).t(), [(2, 3)], (-2, 2)),
    ("squeeze_unsqueeze", lambda lib, a: a.unsqueeze(0).squeeze(1), [(1, 3)], (-2, 2)),
    ("getitem", lambda lib, a: a[1:, ::2] * a[0, 0] + a[[0, 1], [1, 2]].sum(), [(2, 3)], (-2, 2)),
    ("to_clone_contiguous", lambda lib, a: a.double().clone().t().contiguous(), [(2, 3)], (-2, 2)),
    # families whose tangent rule is their backward (element-wise: diagonal Jacobian)
    ("expm1_log1p", lambda lib, a: a.expm1() + a.log1p(), [(4,)], (0.5, 2)),
    ("atan2_broadcast", lambda lib, a, b: lib.atan2(a, b), [(2, 3), (3,)], (0.5, 2)),
    ("maximum", lambda lib, a, b: lib.maximum(a, b), [(6,), (6,)], (-2, 2)),
    ("clamp_tensor_bounds", lambda lib, a, low: a.clamp(min=low), [(6,), (6,)], (-2, 2)),
    ("sign_floor_zero_tangent", lambda lib, a: a.sign() + a.floor() + a, [(6,)], (0.1, 0.9)),
    ("composite", lambda lib, a, b: ((a @ b).tanh() * 2 - b.sum()).exp().mean(), [(2, 3), (3, 2)], (-1, 1)),
]


def _inputs(shapes, domain, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(*domain, size=shape) for shape in shapes], [rng.standard_normal(shape) for shape in shapes]


def _ember_jvp(fn, primals, tangents):
    with fwAD.dual_level():
        duals = [fwAD.make_dual(ember.tensor(p), ember.tensor(t)) for p, t in zip(primals, tangents)]
        out = fn(ember, *duals)
        primal, tangent = fwAD.unpack_dual(out)
    return primal, tangent


@pytest.mark.parametrize("name,fn,shapes,domain", CASES, ids=[case[0] for case in CASES])
def test_tangent_matches_finite_differences(name, fn, shapes, domain):
    primals, tangents = _inputs(shapes, domain)
    _, tangent = _ember_jvp(fn, primals, tangents)
    eps = 1e-6
    plus = fn(ember, *[ember.tensor(p + eps * t) for p, t in zip(primals, tangents)]).numpy()
    minus = fn(ember, *[ember.tensor(p - eps * t) for p, t in zip(primals, tangents)]).numpy()
    assert_close(tangent, (plus - minus) / (2 * eps), rtol=1e-5, atol=1e-6, what=f"{name} tangent")


@pytest.mark.parametrize("name,fn,shapes,domain", CASES, ids=[case[0] for case in CASES])
def test_tangent_matches_torch(torch, name, fn, shapes, domain):
    import torch.autograd.forward_ad as torch_fwAD

    primals, tangents = _inputs(shapes, domain, seed=1)
    primal, tangent = _ember_jvp(fn, [p.astype(np.float32) for p in primals], [t.astype(np.float32) for t in tangents])
    with torch_fwAD.dual_level():
        duals = [
            torch_fwAD.make_dual(torch.tensor(p, dtype=torch.float32), torch.tensor(t, dtype=torch.float32))
            for p, t in zip(primals, tangents)
        ]
        expected_primal, expected_tangent = torch_fwAD.unpack_dual(fn(torch, *duals))
    assert_close(primal, expected_primal, rtol=1e-5, atol=1e-6, what=f"{name} primal")
    assert_close(tangent, expected_tangent, rtol=1e-4, atol=1e-5, what=f"{name} tangent")
    assert tangent.dtype == primal.dtype


def test_unpack_dual_is_a_namedtuple_and_tangent_is_forgotten_after_the_level():
    with fwAD.dual_level() as level:
        assert level == 0
        dual = fwAD.make_dual(ember.tensor([1.0, 2.0]), ember.tensor([3.0, 4.0]))
        unpacked = fwAD.unpack_dual(dual)
        assert isinstance(unpacked, fwAD.UnpackedDualTensor)
        assert unpacked.primal.tolist() == [1.0, 2.0] and unpacked.tangent.tolist() == [3.0, 4.0]
        assert fwAD.unpack_dual(ember.ones(2)).tangent is None
    assert fwAD.unpack_dual(dual).tangent is None
    with fwAD.dual_level():
        assert fwAD.unpack_dual(dual).tangent is None  # a new level does not see the old tangent


def test_make_dual_errors_match_torch():
    with pytest.raises(RuntimeError, match="no level exists"):
        fwAD.make_dual(ember.ones(2), ember.ones(2))
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match=r"different size.*\[3\].*\[2\]"):
            fwAD.make_dual(ember.ones(3), ember.ones(2))
        with pytest.raises(ValueError, match="Expected primal to be floating point"):
            fwAD.make_dual(ember.ones(2, dtype=ember.int64), ember.ones(2))
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
            fwAD.enter_dual_level()
    with pytest.raises(RuntimeError, match="not the last one"):
        fwAD.exit_dual_level()


def test_enter_and_exit_by_hand():
    level = fwAD.enter_dual_level()
    try:
        dual = fwAD.make_dual(ember.tensor([2.0]), ember.tensor([1.0]))
        assert fwAD.unpack_dual(dual * dual).tangent.tolist() == [4.0]
    finally:
        fwAD.exit_dual_level(level=level)
    assert fwAD.state.level is None


def test_dual_of_a_tensor_that_requires_grad_keeps_reverse_mode():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, ember.ones(2))
        y = (dual * dual).sum()
        assert fwAD.unpack_dual(y).tangent.item() == pytest.approx(6.0)
    y.backward()
    assert x.grad.tolist() == [2.0, 4.0]


class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_forward(x)
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x**2

    @staticmethod
    def jvp(ctx, tangent):
        (x,) = ctx.saved_tensors
        return tangent * 3 * x**2


class NoJvp(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


def test_user_function_jvp_with_save_for_forward():
    with fwAD.dual_level():
        dual = fwAD.make_dual(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 0.5]))
        out = Cube.apply(dual)
        assert fwAD.unpack_dual(out).tangent.tolist() == [3.0, 6.0]


def test_user_function_without_jvp_raises_pytorchs_error():
    with fwAD.dual_level():
        dual = fwAD.make_dual(ember.ones(2), ember.ones(2))
        with pytest.raises(NotImplementedError, match="You must implement the jvp function"):
            NoJvp.apply(dual)
        assert NoJvp.apply(ember.ones(2)).tolist() == [2.0, 2.0]  # no dual input: no jvp needed


def test_primitive_without_a_rule_names_itself():
    class Erf(Primitive, node="ErfBackward0"):
        @staticmethod
        def forward(ctx, a):
            return a * 0.5

        @staticmethod
        def backward(ctx, grad):
            return grad * 0.5

    with fwAD.dual_level():
        dual = fwAD.make_dual(ember.ones(2), ember.ones(2))
        with pytest.raises(NotImplementedError, match="forward AD with Erf.*ErfBackward0"):
            Erf.apply(dual)


def test_tangent_rules_live_on_the_declarations():
    from ember.ops import elementwise, shape, linalg, conv
    from ember.ops._tangents import linear_jvp

    for cls in (elementwise.Mul, elementwise.Exp, shape.View, shape.Permute, conv.Convolution):
        assert cls.jvp is not Function.jvp, cls
    assert shape.View.jvp is linear_jvp
    assert linalg.Mm.jvp is linalg.Matmul.jvp  # renamed nodes share their base's rule
    assert not hasattr(fwAD, "_jvp_rules")


def test_conv2d_tangent_matches_finite_differences():
    rng = np.random.default_rng(0)
    x, w, b = (ember.tensor(rng.standard_normal(shape)) for shape in ((2, 3, 5, 5), (4, 3, 3, 3), (4,)))
    tx, tw, tb = (ember.tensor(rng.standard_normal(t.shape)) for t in (x, w, b))
    with fwAD.dual_level():
        out = ember.nn.functional.conv2d(
            fwAD.make_dual(x, tx), fwAD.make_dual(w, tw), fwAD.make_dual(b, tb), padding=1, stride=2
        )
        tangent = fwAD.unpack_dual(out).tangent
    step = 1e-6
    conv = ember.nn.functional.conv2d
    expected = (
        conv(x + step * tx, w + step * tw, b + step * tb, padding=1, stride=2)
        - conv(x - step * tx, w - step * tw, b - step * tb, padding=1, stride=2)
    ) / (2 * step)
    assert_close(tangent, expected, atol=1e-6)


def test_no_cost_outside_a_level():
    assert fwAD.state.level is None
    y = ember.ones(2) * 3
    assert not hasattr(y, "_fw_grad")
