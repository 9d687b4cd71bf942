"""Autograd on complex tensors, as PyTorch's: gradients are conjugate Wirtinger derivatives (for a
real loss L of z = x + iy, z.grad is dL/dx + i dL/dy; a holomorphic f sends back grad * conj(f'(z))).

Differential tests against torch for real losses of complex inputs, complex gradcheck and
gradgradcheck (and forward mode) over the complex ops, gradcheck catching a backward that forgets
the conjugate, and the real/imag views."""

import numpy as np
import pytest

import ember
from ember.autograd import Function, gradcheck, gradgradcheck
from ember.autograd.gradcheck import GradcheckError

from ..conftest import assert_close


def _complex(rng, *shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def _real(rng, *shape):
    return rng.standard_normal(shape)


# name -> (loss(lib, *tensors) giving a real 0-d tensor, input makers); `c` complex, `r` real inputs.
LOSSES = {
    "mul_abs": (lambda L, z, w: (z * w).abs().sum(), "cc"),
    "exp_times_w_real": (lambda L, z, w: (z.exp() * w).real.sum(), "cc"),
    "matmul_abs": (lambda L, a, b: (a @ b).abs().sum(), ("c23", "c34")),
    "mm_imag": (lambda L, a, b: L.mm(a, b).imag.sum(), ("c23", "c34")),
    "bmm_abs": (lambda L, a, b: L.bmm(a, b).abs().sum(), ("c223", "c234")),
    "einsum_abs": (lambda L, a, b: L.einsum("ij,jk->ik", a, b).abs().sum(), ("c23", "c32")),
    "linear_abs": (lambda L, x, w, b: L.nn.functional.linear(x, w, b).abs().sum(), ("c23", "c43", "c4")),
    "div_abs": (lambda L, a, b: (a / b).abs().sum(), "cc"),
    "pow_number": (lambda L, a: (a ** (1.5 + 0.5j)).imag.sum(), "c"),
    "pow_tensor": (lambda L, a, b: (a**b).abs().sum(), "cc"),
    "log_parts": (lambda L, a: a.log().imag.sum() + a.log().real.sum(), "c"),
    "trig": (lambda L, a: (a.sin() * a.cos()).abs().sum() + a.tanh().abs().sum(), "c"),
    "sqrt_reciprocal_sigmoid": (lambda L, a: (a.sqrt() + a.reciprocal() + a.sigmoid()).abs().sum(), "c"),
    "zero_dim_products": (lambda L, a, b: (a.sum() * b.mean()).abs(), "cc"),
    "prod_cumprod": (lambda L, a: a.prod().abs() + a.cumprod(0).abs().sum(), "c"),
    "logsumexp": (lambda L, a: L.logsumexp(a, 0).abs(), "c"),
    "inverse_det_solve": (
        lambda L, a, b: L.linalg.inv(a).abs().sum() + L.linalg.det(a).abs() + L.linalg.solve(a, b).abs().sum(),
        ("c33", "c32"),
    ),
    "vdot_dot": (lambda L, a, b: L.vdot(a, b).abs() + L.dot(a, b).real, "cc"),
    "abs_squared": (lambda L, a: (a.abs() ** 2).sum(), "c"),
    "angle": (lambda L, a: a.angle().sum(), "c"),
    "sgn": (lambda L, a, w: (a.sgn() * w).real.sum(), "cc"),
    "conj": (lambda L, a, w: (a.conj() * w).real.sum() + (L.conj(a) * w).imag.sum(), "cc"),
    "real_imag": (lambda L, a: (L.real(a) * L.imag(a)).sum() + (a.real**2 - a.imag).sum(), "c"),
    "view_as_real": (lambda L, a: (L.view_as_real(a) ** 3).sum(), "c"),
    "view_as_complex": (lambda L, a: (L.view_as_complex(a) ** 3).abs().sum(), ("r32",)),
    "complex": (lambda L, a, b: (L.complex(a, b) ** 2).imag.sum(), "rr"),
    "polar": (lambda L, a, b: (L.polar(a.abs(), b) ** 2).real.sum(), "rr"),
    "real_times_complex": (lambda L, x, z: (x * z).abs().sum(), "rc"),
    "real_to_complex": (lambda L, x: (x.to(L.complex128) * (1 + 2j)).abs().sum(), "r"),
    "norm_var_std": (lambda L, a: a.norm() + L.linalg.vector_norm(a, 3) + a.var() + a.std(), "c"),
    "fft": (lambda L, a: L.fft.fft(a).abs().sum() + L.fft.ifft(a).real.sum(), "c"),
    "views_and_indexing": (lambda L, a, b: (a.flip(0)[1:] * b[:-1]).abs().sum(), "cc"),
    "broadcast": (lambda L, a, b: (a * b).abs().sum(), ("c31", "c14")),
    "complex_number_operand": (lambda L, a: (a * (2 - 1j) + 1j).exp().real.sum(), "c"),
}


def _arrays(makers, rng):
    arrays = []
    for maker in makers:
        shape = tuple(int(size) for size in maker[1:]) or (3,)
        arrays.append((_complex if maker[0] == "c" else _real)(rng, *shape))
    return arrays


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_gradients_of_real_losses_match_torch(torch, name):
    loss, makers = LOSSES[name]
    arrays = _arrays(makers, np.random.default_rng(0))
    theirs = [torch.tensor(array, requires_grad=True) for array in arrays]
    loss(torch, *theirs).backward()
    ours = [ember.tensor(array, requires_grad=True) for array in arrays]
    value = loss(ember, *ours)
    assert not value.is_complex()
    value.backward()
    for position, (mine, reference) in enumerate(zip(ours, theirs)):
        assert mine.grad.dtype.name == str(reference.grad.dtype).replace("torch.", "")
        assert_close(mine.grad, reference.grad.resolve_conj().numpy(), rtol=1e-9, atol=1e-10, what=f"grad {position}")


def test_second_order_gradients_match_torch(torch):
    rng = np.random.default_rng(1)
    arrays = [_complex(rng, 3), _complex(rng, 3)]

    def second(lib):
        z, w = (lib.tensor(array, requires_grad=True) for array in arrays)
        loss = ((z * w).exp().abs() ** 2).sum() + (z.conj() * w).sin().real.sum() + z.angle().sum()
        first = lib.autograd.grad(loss, [z, w], create_graph=True)
        return lib.autograd.grad(sum((g.abs() ** 2).sum() for g in first), [z, w])

    for mine, reference in zip(second(ember), second(torch)):
        assert_close(mine, reference.resolve_conj().numpy(), rtol=1e-8, atol=1e-10, what="second-order gradient")


def test_in_place_changes_and_writes_through_real_views_match_torch(torch):
    rng = np.random.default_rng(2)
    arrays = [_complex(rng, 3), _complex(rng, 3)]

    def gradients(lib):
        z, w = (lib.tensor(array, requires_grad=True) for array in arrays)
        y = z * 1
        y.mul_(w)
        y.real.mul_(2)
        y.imag.add_(w.real)
        parts = lib.view_as_real(y)
        parts[..., 1].mul_(3)
        ((parts**2).sum() + y.exp().abs().sum()).backward()
        return z.grad, w.grad

    for mine, reference in zip(gradients(ember), gradients(torch)):
        assert_close(mine, reference.resolve_conj().numpy(), rtol=1e-9, atol=1e-10, what="gradient")


def test_assigning_real_and_imag_parts_matches_torch(torch):
    rng = np.random.default_rng(7)
    arrays = [_complex(rng, 3), _real(rng, 3)]

    def gradients(lib):
        z, x = (lib.tensor(array, requires_grad=True) for array in arrays)
        y = z * 2
        y.imag = x**2
        y.real = z.imag * x
        (y.exp().abs().sum()).backward()
        return z.grad, x.grad

    for mine, reference in zip(gradients(ember), gradients(torch)):
        assert_close(mine, reference.resolve_conj().numpy(), rtol=1e-9, atol=1e-10, what="gradient")


def test_forward_mode_matches_torch(torch):
    rng = np.random.default_rng(3)
    primal, tangent = _complex(rng, 4), _complex(rng, 4)

    def function(lib, z):
        return (z.exp() * z.sin() / (z + 3)).sqrt() + z.abs() + z.angle() * 1j + z.conj() * z.sgn()

    with ember.autograd.forward_ad.dual_level():
        dual = ember.autograd.forward_ad.make_dual(ember.tensor(primal), ember.tensor(tangent))
        ours = ember.autograd.forward_ad.unpack_dual(function(ember, dual)).tangent
    with torch.autograd.forward_ad.dual_level():
        dual = torch.autograd.forward_ad.make_dual(torch.tensor(primal), torch.tensor(tangent))
        theirs = torch.autograd.forward_ad.unpack_dual(function(torch, dual)).tangent
    assert_close(ours, theirs.resolve_conj().numpy(), rtol=1e-9, atol=1e-10, what="tangent")


# ---------------------------------------------------------------- gradcheck on complex ops
def _c(*shape):
    return lambda rng: ember.tensor(_complex(rng, *shape), requires_grad=True)


def _r(*shape):
    return lambda rng: ember.tensor(_real(rng, *shape), requires_grad=True)


# name -> (function, input makers, whether every primitive on the way declares a jvp)
COMPLEX_OPS = {
    "mul": (lambda a, b: a * b, [_c(3), _c(3)], True),
    "div": (lambda a, b: a / b, [_c(3), _c(3)], True),
    "pow_number": (lambda a: a ** (1.5 + 0.5j), [_c(3)], True),
    "pow_tensor": (lambda a, b: a**b, [_c(3), _c(3)], True),
    "exp_log": (lambda a: a.exp() + a.log(), [_c(3)], True),
    "sin_cos_tanh": (lambda a: a.sin() * a.cos() + a.tanh(), [_c(3)], True),
    "sigmoid_sqrt": (lambda a: a.sigmoid() + a.sqrt(), [_c(3)], True),
    "reciprocal_rsqrt": (lambda a: a.reciprocal() + a.rsqrt(), [_c(3)], True),
    "inverse_trig": (lambda a: (a / 3).asin() + (a / 3).acos() + a.atan() + a.asinh() + a.acosh(), [_c(3)], True),
    "exp2_expm1_logs": (lambda a: a.exp2() + a.expm1() + a.log2() + a.log10() + a.log1p(), [_c(3)], True),
    "matmul": (lambda a, b: a @ b, [_c(2, 3), _c(3, 2)], True),
    "bmm": (lambda a, b: ember.bmm(a, b), [_c(2, 2, 3), _c(2, 3, 2)], True),
    "linear": (lambda x, w, b: ember.nn.functional.linear(x, w, b), [_c(2, 3), _c(2, 3), _c(2)], False),
    "einsum": (lambda a, b: ember.einsum("ij,jk->ik", a, b), [_c(2, 3), _c(3, 2)], False),
    "inverse_det": (lambda a: ember.linalg.inv(a) * ember.linalg.det(a), [_c(3, 3)], False),
    "prod": (lambda a: a.prod(1), [_c(2, 3)], False),
    "sum_mean_0d": (lambda a: a.sum() * a.mean(), [_c(2, 3)], True),
    "abs": (lambda a: a.abs(), [_c(3)], True),
    "angle": (lambda a: a.angle(), [_c(3)], True),
    "sgn": (lambda a: a.sgn(), [_c(3)], True),
    "conj": (lambda a: a.conj(), [_c(3)], True),
    "real_imag": (lambda a: a.real * a.imag, [_c(3)], True),
    "view_as_real": (lambda a: ember.view_as_real(a), [_c(3)], True),
    "view_as_complex": (lambda a: ember.view_as_complex(a), [_r(3, 2)], True),
    "complex": (lambda a, b: ember.complex(a, b), [_r(3), _r(3)], True),
    "polar": (
        lambda a, b: ember.polar(a, b),
        [lambda rng: ember.tensor(rng.uniform(0.5, 2, 3), requires_grad=True), _r(3)],
        True,
    ),
    "real_times_complex": (lambda x, z: x * z, [_r(3), _c(3)], True),
    "vector_norm": (lambda a: ember.linalg.vector_norm(a, 3), [_c(3)], False),
}


def _inputs(makers, seed=0):
    rng = np.random.default_rng(seed)
    return [make(rng) for make in makers]


@pytest.mark.parametrize("name", sorted(COMPLEX_OPS))
def test_gradcheck_and_gradgradcheck_of_complex_ops(name):
    function, makers, _ = COMPLEX_OPS[name]
    inputs = _inputs(makers)
    assert gradcheck(function, inputs)
    assert gradgradcheck(function, inputs)


@pytest.mark.parametrize("name", sorted(name for name, (_, _, has_jvp) in COMPLEX_OPS.items() if has_jvp))
def test_forward_mode_of_complex_ops(name):
    function, makers, _ = COMPLEX_OPS[name]
    assert gradcheck(function, _inputs(makers), check_forward_ad=True, check_backward_ad=False)


# ---------------------------------------------------------------- gradcheck catches complex mistakes
class SquareWithoutConjugate(Function):
    """z**2 with backward grad * f'(z): right for real numbers, wrong in PyTorch's complex convention."""

    @staticmethod
    def forward(ctx, z):
        ctx.save_for_backward(z)
        return z * z

    @staticmethod
    def backward(ctx, grad):
        (z,) = ctx.saved_tensors
        return grad * 2 * z


class Square(SquareWithoutConjugate):
    @staticmethod
    def backward(ctx, grad):
        (z,) = ctx.saved_tensors
        return grad * (2 * z).conj()


class RealPartOfGradientOnly(Square):
    """Drops the imaginary part of the gradient: a check of real parts alone would pass it."""

    @staticmethod
    def backward(ctx, grad):
        (z,) = ctx.saved_tensors
        return ember.complex(Square.backward(ctx, grad).real, ember.zeros_like(z.real))


def test_gradcheck_fails_on_a_backward_without_the_conjugate():
    z = ember.tensor(_complex(np.random.default_rng(4), 3), requires_grad=True)
    assert gradcheck(Square.apply, (z,))
    with pytest.raises(GradcheckError, match=r"(?s)\.imag.*grad \* f'\(z\)\.conj\(\)"):
        gradcheck(SquareWithoutConjugate.apply, (z,))
    assert gradcheck(SquareWithoutConjugate.apply, (z,), raise_exception=False) is False


def test_gradcheck_fails_on_a_wrong_imaginary_part():
    z = ember.tensor(_complex(np.random.default_rng(5), 3), requires_grad=True)
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradcheck(RealPartOfGradientOnly.apply, (z,))


def test_gradgradcheck_fails_when_double_backward_forgets_the_conjugate():
    class SquareWrongSecondOrder(Square):
        @staticmethod
        def backward(ctx, grad):
            (z,) = ctx.saved_tensors
            # Right first derivative, but conj() hides z from the graph: the second derivative is wrong.
            return grad * ember.tensor((2 * z).conj().detach().numpy())

    z = ember.tensor(_complex(np.random.default_rng(6), 3), requires_grad=True)
    assert gradcheck(SquareWrongSecondOrder.apply, (z,))
    with pytest.raises(GradcheckError, match="gradgradcheck"):
        gradgradcheck(SquareWrongSecondOrder.apply, (z,))


# ---------------------------------------------------------------- views, nodes and the real fast path
def test_real_and_imag_are_differentiable_views_with_pytorchs_nodes():
    z = ember.tensor([1 + 2j, 3 - 4j], requires_grad=True)
    real, imag = z.real, z.imag
    assert real.grad_fn.name() == "SelectBackward0" and imag.grad_fn.name() == "SelectBackward0"
    assert real.grad_fn.next_functions[0][0].name() == "ViewAsRealBackward0"
    assert z.conj().grad_fn.name() == "ConjBackward0"
    assert z.angle().grad_fn.name() == "AngleBackward0" and z.sgn().grad_fn.name() == "SgnBackward0"
    plain = ember.tensor([1 + 2j, 3 - 4j])
    plain.real.mul_(10)
    plain.imag[1] = 0.5
    assert_close(plain, np.array([10 + 2j, 30 + 0.5j]), what="writes through real and imag views")


def test_real_tensors_keep_their_own_parts():
    x = ember.tensor([1.0, -2.0], requires_grad=True)
    assert x.real is x and x.conj() is x and ember.conj_physical(x) is x
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex dtypes"):
        x.imag


def test_holomorphic_nodes_conjugate_only_for_complex_values():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    z = ember.tensor([1 + 1j, 2 - 1j], requires_grad=True)
    real_node, complex_node = (x * x).grad_fn, (z * z).grad_fn
    assert type(real_node) is ember.ops.elementwise.Mul._backward_cls
    assert type(complex_node) is not type(real_node) and isinstance(complex_node, type(real_node))
    assert complex_node.name() == real_node.name() == "MulBackward0"


def test_bad_arguments_raise_pytorchs_errors():
    with pytest.raises(RuntimeError, match="last dimension of size 2"):
        ember.view_as_complex(ember.zeros(3, 3))
    with pytest.raises(RuntimeError, match="view_as_real is only supported for complex tensors"):
        ember.view_as_real(ember.zeros(3))
    with pytest.raises(RuntimeError, match="same dtype"):
        ember.complex(ember.zeros(2), ember.zeros(2, dtype=ember.float64))
    with pytest.raises(TypeError, match="argument 'real' must be Tensor"):
        ember.complex(1.0, ember.zeros(2))


def test_complex_randn_has_random_real_and_imaginary_parts():
    sample = ember.randn(20000, dtype=ember.complex64, generator=ember.Generator().manual_seed(0))
    assert sample.dtype == ember.complex64
    assert abs(float(sample.real.var()) - 0.5) < 0.03 and abs(float(sample.imag.var()) - 0.5) < 0.03
