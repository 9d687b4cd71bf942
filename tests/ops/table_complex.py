"""Op table: complex inputs. Holomorphic ops (their gradient is grad * conj(f'(z)) in PyTorch's
convention) and the ops of complex numbers themselves (conj, real, imag, angle, sgn, view_as_real,
complex, polar). gradcheck checks complex inputs and outputs part by part, so a missing conjugate
fails here. Names start with `complex_` so `-k complex_` runs just these."""

import numpy as np

import ember

from .op_table import OpCase


def _complex_inputs(low=-2.0, high=2.0):
    def make(shapes, rng):
        return [rng.uniform(low, high, size=shape) + 1j * rng.uniform(low, high, size=shape) for shape in shapes]

    return make


def case(name, ember_fn, numpy_fn, shapes, torch_fn, **options):
    options.setdefault("make_inputs", _complex_inputs())
    return OpCase("complex_" + name, ember_fn, numpy_fn, shapes, torch_fn=torch_fn, **options)


def unary(name, numpy_fn, **options):
    return case(
        name,
        lambda z: getattr(ember, name)(z),
        numpy_fn,
        [((3,),), ((2, 3),)],
        lambda torch, z: getattr(torch, name)(z),
        **options,
    )


BINARY_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((), (2,))]

CASES = [
    # holomorphic element-wise ops
    case("mul", lambda a, b: a * b, np.multiply, BINARY_SHAPES, lambda torch, a, b: a * b),
    case("div", lambda a, b: a / b, np.divide, BINARY_SHAPES, lambda torch, a, b: a / b),
    case("mul_number", lambda a: a * (2 - 1j), lambda a: a * (2 - 1j), [((3,),)], lambda torch, a: a * (2 - 1j)),
    case("pow_number", lambda a: a**3, lambda a: a**3, [((3,),)], lambda torch, a: a**3),
    case("pow_tensor", lambda a, b: a**b, np.power, [((3,), (3,))], lambda torch, a, b: a**b),
    unary("exp", np.exp),
    unary("log", np.log),
    unary("sin", np.sin),
    unary("cos", np.cos),
    unary("tanh", np.tanh),
    unary("sigmoid", lambda z: 1 / (1 + np.exp(-z)), make_inputs=_complex_inputs(-1.0, 1.0)),
    unary("sqrt", np.sqrt),
    unary("reciprocal", np.reciprocal),
    unary("sinh", np.sinh),
    unary("asin", np.arcsin),
    unary("acosh", np.arccosh),
    unary("sinc", np.sinc),
    # holomorphic products and reductions
    case("matmul", lambda a, b: a @ b, np.matmul, [((2, 3), (3, 4)), ((2, 2, 3), (3,))], lambda torch, a, b: a @ b),
    case(
        "einsum",
        lambda a, b: ember.einsum("ij,jk->ik", a, b),
        None,
        [((2, 3), (3, 2))],
        lambda t, a, b: t.einsum("ij,jk->ik", a, b),
    ),
    case(
        "linear",
        lambda x, w, b: ember.nn.functional.linear(x, w, b),
        lambda x, w, b: x @ w.T + b,
        [((2, 3), (4, 3), (4,))],
        lambda torch, x, w, b: torch.nn.functional.linear(x, w, b),
    ),
    case("inv", lambda a: ember.linalg.inv(a), np.linalg.inv, [((3, 3),)], lambda torch, a: torch.linalg.inv(a)),
    case("det", lambda a: ember.linalg.det(a), np.linalg.det, [((3, 3),)], lambda torch, a: torch.linalg.det(a)),
    case("prod", lambda a: a.prod(-1), lambda a: a.prod(-1), [((2, 3),)], lambda torch, a: a.prod(-1)),
    case("cumprod", lambda a: a.cumprod(0), lambda a: a.cumprod(0), [((4,),)], lambda torch, a: a.cumprod(0)),
    case("sum", lambda a: a.sum(0), lambda a: a.sum(0), [((2, 3),)], lambda torch, a: a.sum(0)),
    case("vdot", lambda a, b: ember.vdot(a, b), np.vdot, [((3,), (3,))], lambda torch, a, b: torch.vdot(a, b)),
    # complex numbers themselves (not holomorphic)
    case("conj", lambda z: z.conj() * 1, np.conj, [((3,),)], lambda torch, z: z.conj() * 1),
    case(
        "conj_physical", lambda z: ember.conj_physical(z), np.conj, [((3,),)], lambda torch, z: torch.conj_physical(z)
    ),
    case("real", lambda z: z.real * 1, np.real, [((3,),), ((2, 3),)], lambda torch, z: z.real * 1),
    case("imag", lambda z: z.imag * 1, np.imag, [((3,),), ((2, 3),)], lambda torch, z: z.imag * 1),
    case("abs", lambda z: z.abs(), np.abs, [((3,),)], lambda torch, z: z.abs()),
    case("angle", lambda z: z.angle(), np.angle, [((3,),)], lambda torch, z: z.angle()),
    case(
        "angle_of_real",
        lambda x: x.angle(),
        np.angle,
        [((5,),)],
        lambda torch, x: x.angle(),
        make_inputs=lambda shapes, rng: [rng.uniform(-2, 2, size=shape) for shape in shapes],
    ),
    case("sgn", lambda z: z.sgn(), lambda z: z / np.abs(z), [((3,),)], lambda torch, z: z.sgn()),
    case(
        "view_as_real",
        lambda z: ember.view_as_real(z) * 1,
        lambda z: np.stack([z.real, z.imag], -1),
        [((3,),)],
        lambda torch, z: torch.view_as_real(z) * 1,
    ),
    case(
        "view_as_complex",
        lambda x: ember.view_as_complex(x) * 1,
        lambda x: x[..., 0] + 1j * x[..., 1],
        [((3, 2),)],
        lambda torch, x: torch.view_as_complex(x) * 1,
        make_inputs=lambda shapes, rng: [rng.uniform(-2, 2, size=shape) for shape in shapes],
    ),
    case(
        "complex",
        lambda x, y: ember.complex(x, y),
        lambda x, y: x + 1j * y,
        [((3,), (3,)), ((2, 3), (3,))],
        lambda torch, x, y: torch.complex(x, y),
        make_inputs=lambda shapes, rng: [rng.uniform(-2, 2, size=shape) for shape in shapes],
    ),
    case(
        "polar",
        lambda r, theta: ember.polar(r, theta),
        lambda r, theta: r * np.exp(1j * theta),
        [((3,), (3,))],
        lambda torch, r, theta: torch.polar(r, theta),
        make_inputs=lambda shapes, rng: [rng.uniform(0.5, 2, size=shape) for shape in shapes],
    ),
    case(
        "real_times_complex",
        lambda x, z: x * z,
        np.multiply,
        [((3,), (3,))],
        lambda torch, x, z: x * z,
        make_inputs=lambda shapes, rng: [
            rng.uniform(-2, 2, size=shapes[0]),
            rng.uniform(-2, 2, size=shapes[1]) + 1j * rng.uniform(-2, 2, size=shapes[1]),
        ],
    ),
]
