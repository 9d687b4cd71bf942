"""Op table: the arithmetic, reduction, shape and matmul ops of the autograd core."""

import numpy as np

import ember

from .op_table import OpCase

BINARY_SHAPES = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 3), (4, 1)), ((), (2, 3))]
UNARY_SHAPES = [((3, 4),), ((),), ((2, 3, 2),)]

CASES = [
    OpCase("add", lambda a, b: a + b, np.add, BINARY_SHAPES, torch_fn=lambda t, a, b: a + b),
    OpCase("sub", lambda a, b: a - b, np.subtract, BINARY_SHAPES, torch_fn=lambda t, a, b: a - b),
    OpCase("mul", lambda a, b: a * b, np.multiply, BINARY_SHAPES, torch_fn=lambda t, a, b: a * b),
    OpCase("div", lambda a, b: a / b, np.divide, BINARY_SHAPES, domain=(0.5, 2.0), torch_fn=lambda t, a, b: a / b),
    OpCase("add_alpha", lambda a, b: ember.add(a, b, alpha=2.5), lambda a, b: a + 2.5 * b, BINARY_SHAPES[:2]),
    OpCase(
        "scalar_ops",
        lambda a: (2 - a) * 3 / (a + 4) ** 2,
        lambda a: (2 - a) * 3 / (a + 4) ** 2,
        UNARY_SHAPES,
        torch_fn=lambda t, a: (2 - a) * 3 / (a + 4) ** 2,
    ),
    OpCase("pow_scalar", lambda a: a**3, lambda a: a**3, UNARY_SHAPES, torch_fn=lambda t, a: a**3),
    OpCase(
        "pow_tensor", lambda a, b: a**b, np.power, BINARY_SHAPES[:3], domain=(0.5, 2.0), torch_fn=lambda t, a, b: a**b
    ),
    OpCase("rpow", lambda a: 2.0**a, lambda a: 2.0**a, UNARY_SHAPES, torch_fn=lambda t, a: 2.0**a),
    OpCase("neg", lambda a: -a, np.negative, UNARY_SHAPES),
    OpCase("exp", ember.exp, np.exp, UNARY_SHAPES, torch_fn=lambda t, a: t.exp(a)),
    OpCase("log", ember.log, np.log, UNARY_SHAPES, domain=(0.2, 3.0), torch_fn=lambda t, a: t.log(a)),
    OpCase("sin", ember.sin, np.sin, UNARY_SHAPES, torch_fn=lambda t, a: t.sin(a)),
    OpCase("cos", ember.cos, np.cos, UNARY_SHAPES, torch_fn=lambda t, a: t.cos(a)),
    OpCase("tanh", ember.tanh, np.tanh, UNARY_SHAPES, torch_fn=lambda t, a: t.tanh(a)),
    OpCase("sigmoid", ember.sigmoid, lambda a: 1 / (1 + np.exp(-a)), UNARY_SHAPES, torch_fn=lambda t, a: t.sigmoid(a)),
    OpCase("relu", ember.relu, lambda a: np.maximum(a, 0), UNARY_SHAPES, torch_fn=lambda t, a: t.relu(a)),
    OpCase("sqrt", ember.sqrt, np.sqrt, UNARY_SHAPES, domain=(0.2, 3.0), torch_fn=lambda t, a: t.sqrt(a)),
    OpCase("abs", ember.abs, np.abs, UNARY_SHAPES, domain=(0.2, 2.0), torch_fn=lambda t, a: t.abs(a)),
    OpCase("sum", lambda a: a.sum(), np.sum, UNARY_SHAPES, torch_fn=lambda t, a: a.sum()),
    OpCase(
        "sum_dim", lambda a: a.sum(1), lambda a: a.sum(1), [((3, 4),), ((2, 3, 2),)], torch_fn=lambda t, a: a.sum(1)
    ),
    OpCase(
        "sum_dims_keepdim",
        lambda a: a.sum((0, 2), keepdim=True),
        lambda a: a.sum((0, 2), keepdims=True),
        [((2, 3, 2),)],
        torch_fn=lambda t, a: a.sum((0, 2), keepdim=True),
    ),
    OpCase("mean", lambda a: a.mean(), np.mean, UNARY_SHAPES, torch_fn=lambda t, a: a.mean()),
    OpCase(
        "mean_dim",
        lambda a: a.mean(-1, keepdim=True),
        lambda a: a.mean(-1, keepdims=True),
        [((3, 4),), ((2, 3, 2),)],
        torch_fn=lambda t, a: a.mean(-1, keepdim=True),
    ),
    OpCase("view", lambda a: a.view(4, 3), lambda a: a.reshape(4, 3), [((3, 4),)]),
    OpCase("reshape_noncontiguous", lambda a: a.t().reshape(-1), lambda a: a.T.reshape(-1), [((3, 4),)]),
    OpCase(
        "expand",
        lambda a: a.expand(2, 3, 4),
        lambda a: np.broadcast_to(a, (2, 3, 4)),
        [((3, 1),)],
        torch_fn=lambda t, a: a.expand(2, 3, 4),
    ),
    OpCase("transpose", lambda a: a.transpose(0, 2), lambda a: a.swapaxes(0, 2), [((2, 3, 2),)]),
    OpCase("permute", lambda a: a.permute(2, 0, 1), lambda a: a.transpose(2, 0, 1), [((2, 3, 4),)]),
    OpCase("t", lambda a: a.t(), lambda a: a.T, [((3, 4),)]),
    OpCase("squeeze_unsqueeze", lambda a: a.unsqueeze(0).squeeze(2), lambda a: a[None].squeeze(2), [((3, 1, 2),)]),
    OpCase("getitem_basic", lambda a: a[1:, ::2], lambda a: a[1:, ::2], [((3, 4),)], torch_fn=lambda t, a: a[1:, ::2]),
    OpCase("getitem_select", lambda a: a[1, -1], lambda a: a[1, -1], [((3, 4),)]),
    OpCase(
        "getitem_advanced_repeats",
        lambda a: a[[0, 2, 0]],
        lambda a: a[[0, 2, 0]],
        [((3, 4),)],
        torch_fn=lambda t, a: a[[0, 2, 0]],
    ),
    OpCase("getitem_mask", lambda a: a[a > 0], lambda a: a[a > 0], [((3, 4),)]),
    OpCase("matmul_2d", lambda a, b: a @ b, np.matmul, [((3, 4), (4, 2))], torch_fn=lambda t, a, b: a @ b),
    OpCase(
        "matmul_batched_broadcast",
        lambda a, b: a @ b,
        np.matmul,
        [((2, 3, 4), (4, 5)), ((2, 1, 3, 4), (3, 4, 2))],
        torch_fn=lambda t, a, b: a @ b,
    ),
    OpCase(
        "matmul_vectors",
        lambda a, b: a @ b,
        np.matmul,
        [((4,), (4,)), ((4,), (4, 3)), ((3, 4), (4,))],
        torch_fn=lambda t, a, b: a @ b,
    ),
    OpCase(
        "where",
        lambda a, b: ember.where(a > 0, a, b),
        lambda a, b: np.where(a > 0, a, b),
        BINARY_SHAPES[:2],
        torch_fn=lambda t, a, b: t.where(a > 0, a, b),
    ),
    OpCase("clone", lambda a: a.clone() * 2, lambda a: a * 2, UNARY_SHAPES),
    OpCase("setitem_through_clone", lambda a, b: _setitem(a, b), lambda a, b: _setitem_np(a, b), [((3, 4), (4,))]),
]


def _setitem(a, b):
    c = a.clone()
    c[1] = b
    return c * a


def _setitem_np(a, b):
    c = a.copy()
    c[1] = b
    return c * a
