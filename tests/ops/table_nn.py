"""Op table: the differentiable functions of ember.nn.functional (convolution, pooling, activations,
normalization, losses). Names start with `nn_` so `-k nn_` runs just these.

NumPy references are written independently of ember (sliding_window_view + einsum for convolution,
explicit formulas elsewhere); cases whose reference would be long are checked against torch only.
"""

import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

import ember
import ember.nn.functional as F

from .op_table import OpCase


# ---------------------------------------------------------------- NumPy references
def np_conv2d(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """Direct (im2col-free) 2-D cross-correlation: windows of the padded input contracted with einsum."""
    x = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    kh, kw = w.shape[2:]
    span_h, span_w = dilation * (kh - 1) + 1, dilation * (kw - 1) + 1
    windows = sliding_window_view(x, (span_h, span_w), axis=(2, 3))[:, :, ::stride, ::stride, ::dilation, ::dilation]
    cg, og = x.shape[1] // groups, w.shape[0] // groups
    outputs = [
        np.einsum("nchwij,ocij->nohw", windows[:, g * cg : (g + 1) * cg], w[g * og : (g + 1) * og])
        for g in range(groups)
    ]
    out = np.concatenate(outputs, axis=1)
    return out + b[None, :, None, None] if b is not None else out


def np_conv1d(x, w, b=None, stride=1, padding=0):
    x = np.pad(x, ((0, 0), (0, 0), (padding, padding)))
    return np_conv2d(x[:, :, None], w[:, :, None], b, stride)[:, :, 0]


def np_conv_transpose2d(x, w, b=None, stride=1, padding=0, output_padding=0):
    """Scatter form of the transposed convolution: every input pixel adds weight * value to its window."""
    n, c, h, wd = x.shape
    kh, kw = w.shape[2:]
    out = np.zeros((n, w.shape[1], (h - 1) * stride + kh + output_padding, (wd - 1) * stride + kw + output_padding))
    for i in range(h):
        for j in range(wd):
            out[:, :, i * stride : i * stride + kh, j * stride : j * stride + kw] += np.einsum(
                "nc,cokl->nokl", x[:, :, i, j], w
            )
    out = out[:, :, padding : out.shape[2] - padding, padding : out.shape[3] - padding]
    return out + b[None, :, None, None] if b is not None else out


def np_pool2d(x, k, s, reducer, padding=0, fill=0.0):
    x = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)), constant_values=fill)
    return reducer(sliding_window_view(x, (k, k), axis=(2, 3))[:, :, ::s, ::s], axis=(-2, -1))


def np_log_softmax(x, axis):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def np_softplus(x, beta=1.0, threshold=20.0):
    return np.where(x * beta > threshold, x, np.logaddexp(0, x * beta) / beta)


def np_normalize(x, axes, eps=1e-5):
    mean = x.mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=axes, keepdims=True) + eps)


def np_erf(x):
    return np.vectorize(math.erf)(x)


# ---------------------------------------------------------------- inputs
def _away_from_kinks(shapes, rng):
    """Uniform values kept 0.05 away from the kinks of piecewise activations (0, +-1, +-3, +-0.5, 6)."""
    arrays = []
    for shape in shapes:
        values = rng.uniform(-4, 7, size=shape)
        for kink in (0.0, 1.0, -1.0, 3.0, -3.0, 0.5, -0.5, 6.0):
            close = np.abs(values - kink) < 0.05
            values[close] += 0.1
        arrays.append(values)
    return arrays


def _distinct(shapes, rng):
    """Values whose pairwise gaps are large enough for finite differences never to swap a maximum."""
    arrays = []
    for shape in shapes:
        size = int(np.prod(shape))
        arrays.append((rng.permutation(size) * 0.1 - size * 0.05).reshape(shape) + rng.uniform(-0.01, 0.01, shape))
    return arrays


def _class_targets(classes, ignore=None):
    def make(shapes, rng):
        logits = rng.uniform(-2, 2, size=shapes[0])
        target_shape = (shapes[0][0],) + tuple(shapes[0][2:])
        target = rng.integers(0, classes, size=target_shape)
        if ignore is not None:
            target.reshape(-1)[::3] = ignore
        return [logits, target] + [rng.uniform(0.5, 1.5, size=shape) for shape in shapes[1:]]

    return make


def _label_lists(shapes, rng):
    """Scores (N, C) and multilabel_margin_loss targets: each row some distinct classes, then -1
    and padding (one row repeats a class, one row lists none)."""
    count, classes = shapes[0]
    target = np.full((count, classes), -1)
    for row in range(count):
        labels = rng.permutation(classes)[: rng.integers(1, classes)]
        target[row, : len(labels)] = labels
        target[row, len(labels) + 1 :] = rng.integers(0, classes, classes - len(labels) - 1)
    if count > 2:
        target[1, :2] = target[1, 0]
        target[2, 0] = -1
    return [rng.uniform(-1, 1, size=shapes[0]), target]


def _probabilities_and_targets(shapes, rng):
    return [rng.uniform(0.05, 0.95, size=shapes[0]), rng.uniform(0, 1, size=shapes[1])] + [
        rng.uniform(0.5, 1.5, size=shape) for shape in shapes[2:]
    ]


def _soft_targets(shapes, rng):
    logits = rng.uniform(-2, 2, size=shapes[0])
    target = rng.uniform(0.1, 1, size=shapes[0])
    return [logits, target / target.sum(axis=1, keepdims=True)]


def _signs(shapes, rng):
    arrays = [rng.uniform(-2, 2, size=shape) for shape in shapes[:-1]]
    return arrays + [rng.choice([-1.0, 1.0], size=shapes[-1])]


def _embedding_inputs(shapes, rng):
    return [rng.uniform(-1, 1, size=shapes[0]), rng.integers(0, shapes[0][0], size=shapes[1])]


def _positive(shapes, rng):
    return [rng.uniform(0.2, 2.0, size=shape) for shape in shapes]


def _log_probabilities_and_probabilities(shapes, rng):
    a = rng.uniform(0.1, 1, size=shapes[0])
    b = rng.uniform(0.1, 1, size=shapes[1])
    return [np.log(a / a.sum(-1, keepdims=True)), b / b.sum(-1, keepdims=True)]


def _batch_norm_ref(x, w, b):
    return np_normalize(x, (0, 2, 3)) * w[None, :, None, None] + b[None, :, None, None]


def _running_statistics(library):
    """(running_mean, running_var) of two channels, float64 as the op table's inputs."""
    return library.full((2,), 0.3, dtype=library.float64), library.full((2,), 1.7, dtype=library.float64)


def _losses(name, extra=""):
    return f"nn_{name}{extra}"


ACTIVATION_SHAPES = [((3, 4),), ((),), ((2, 3, 2),)]

CASES = [
    # ------------------------------------------------------------ linear and convolution
    OpCase(
        "nn_linear",
        F.linear,
        lambda x, w, b: x @ w.T + b,
        [((3, 4), (5, 4), (5,)), ((2, 3, 4), (5, 4), (5,)), ((4,), (5, 4), (5,))],
        torch_fn=lambda t, x, w, b: t.nn.functional.linear(x, w, b),
    ),
    OpCase(
        "nn_linear_no_bias",
        F.linear,
        lambda x, w: x @ w.T,
        [((3, 4), (5, 4)), ((2, 2, 3, 4), (5, 4))],
        torch_fn=lambda t, x, w: t.nn.functional.linear(x, w),
    ),
    OpCase(
        "nn_bilinear",
        F.bilinear,
        lambda a, b, w, c: np.einsum("ni,oij,nj->no", a, w, b) + c,
        [((3, 2), (3, 4), (5, 2, 4), (5,))],
        torch_fn=lambda t, a, b, w, c: t.nn.functional.bilinear(a, b, w, c),
    ),
    OpCase(
        "nn_conv2d",
        lambda x, w, b: F.conv2d(x, w, b, padding=1),
        lambda x, w, b: np_conv2d(x, w, b, padding=1),
        [((2, 2, 5, 4), (3, 2, 3, 3), (3,))],
        torch_fn=lambda t, x, w, b: t.nn.functional.conv2d(x, w, b, padding=1),
    ),
    OpCase(
        "nn_conv2d_many_columns",  # 36 column rows: the weight gradient takes the transposed GEMM
        lambda x, w, b: F.conv2d(x, w, b, padding=1),
        lambda x, w, b: np_conv2d(x, w, b, padding=1),
        [((2, 4, 4, 3), (3, 4, 3, 3), (3,))],
        torch_fn=lambda t, x, w, b: t.nn.functional.conv2d(x, w, b, padding=1),
    ),
    OpCase(
        "nn_conv2d_stride_dilation",
        lambda x, w: F.conv2d(x, w, stride=2, dilation=2, padding=1),
        lambda x, w: np_conv2d(x, w, stride=2, dilation=2, padding=1),
        [((1, 2, 7, 8), (2, 2, 2, 3))],
        torch_fn=lambda t, x, w: t.nn.functional.conv2d(x, w, stride=2, dilation=2, padding=1),
    ),
    OpCase(
        "nn_conv2d_groups",
        lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), groups=2),
        lambda x, w, b: np_conv2d(x, w, b, stride=1, groups=2)[:, :, ::2],
        [((2, 4, 5, 4), (4, 2, 2, 2), (4,))],
        torch_fn=lambda t, x, w, b: t.nn.functional.conv2d(x, w, b, stride=(2, 1), groups=2),
    ),
    OpCase(
        "nn_conv2d_same",
        lambda x, w: F.conv2d(x, w, padding="same"),
        None,
        [((1, 2, 5, 5), (2, 2, 2, 3))],
        torch_fn=lambda t, x, w: t.nn.functional.conv2d(x, w, padding="same"),
    ),
    OpCase(
        "nn_conv2d_unbatched",
        lambda x, w: F.conv2d(x, w),
        lambda x, w: np_conv2d(x[None], w)[0],
        [((2, 4, 4), (3, 2, 2, 2))],
        torch_fn=lambda t, x, w: t.nn.functional.conv2d(x, w),
    ),
    OpCase(
        "nn_conv1d",
        lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1),
        lambda x, w, b: np_conv1d(x, w, b, stride=2, padding=1),
        [((2, 3, 7), (4, 3, 3), (4,))],
        torch_fn=lambda t, x, w, b: t.nn.functional.conv1d(x, w, b, stride=2, padding=1),
    ),
    OpCase(
        "nn_conv3d",
        lambda x, w: F.conv3d(x, w, padding=1, stride=2),
        None,
        [((1, 2, 3, 4, 3), (2, 2, 2, 2, 2))],
        torch_fn=lambda t, x, w: t.nn.functional.conv3d(x, w, padding=1, stride=2),
        gradgrad=False,
    ),
    OpCase(
        "nn_conv_transpose2d",
        lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
        lambda x, w, b: np_conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
        [((2, 3, 3, 2), (3, 2, 3, 3), (2,))],
        torch_fn=lambda t, x, w, b: t.nn.functional.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
    ),
    OpCase(
        "nn_conv_transpose2d_groups_dilation",
        lambda x, w: F.conv_transpose2d(x, w, groups=2, dilation=2),
        None,
        [((1, 4, 3, 3), (4, 1, 2, 2))],
        torch_fn=lambda t, x, w: t.nn.functional.conv_transpose2d(x, w, groups=2, dilation=2),
    ),
    OpCase(
        "nn_conv_transpose2d_many_columns",  # 36 column rows in its weight gradient
        lambda x, w: F.conv_transpose2d(x, w, stride=2),
        None,
        [((1, 2, 2, 3), (2, 4, 3, 3))],
        torch_fn=lambda t, x, w: t.nn.functional.conv_transpose2d(x, w, stride=2),
    ),
    OpCase(
        "nn_conv_transpose1d",
        lambda x, w: F.conv_transpose1d(x, w, stride=3),
        None,
        [((2, 2, 4), (2, 3, 2))],
        torch_fn=lambda t, x, w: t.nn.functional.conv_transpose1d(x, w, stride=3),
    ),
    OpCase(
        "nn_unfold",
        lambda x: F.unfold(x, (2, 3), padding=1, stride=(2, 1)),
        None,
        [((2, 2, 4, 5),)],
        torch_fn=lambda t, x: t.nn.functional.unfold(x, (2, 3), padding=1, stride=(2, 1)),
    ),
    OpCase(
        "nn_fold",
        lambda x: F.fold(x, (4, 5), (2, 2), padding=1, stride=(2, 1)),
        None,
        [((2, 8, 18),)],
        torch_fn=lambda t, x: t.nn.functional.fold(x, (4, 5), (2, 2), padding=1, stride=(2, 1)),
    ),
    # ------------------------------------------------------------ pooling
    OpCase(
        "nn_max_pool2d",
        lambda x: F.max_pool2d(x, 2),
        lambda x: np_pool2d(x, 2, 2, np.max),
        [((2, 3, 4, 6),), ((2, 3, 5, 5),)],
        make_inputs=_distinct,
        torch_fn=lambda t, x: t.nn.functional.max_pool2d(x, 2),
    ),
    OpCase(
        "nn_max_pool2d_overlap_pad",
        lambda x: F.max_pool2d(x, 3, 2, padding=1),
        lambda x: np_pool2d(x, 3, 2, np.max, padding=1, fill=-np.inf),
        [((1, 2, 5, 6),)],
        make_inputs=_distinct,
        torch_fn=lambda t, x: t.nn.functional.max_pool2d(x, 3, 2, padding=1),
    ),
    OpCase(
        "nn_max_pool2d_ceil_dilation",
        lambda x: F.max_pool2d(x, 2, 2, dilation=2, ceil_mode=True),
        None,
        [((1, 2, 6, 7),)],
        make_inputs=_distinct,
        torch_fn=lambda t, x: t.nn.functional.max_pool2d(x, 2, 2, dilation=2, ceil_mode=True),
    ),
    OpCase(
        "nn_max_pool1d",
        lambda x: F.max_pool1d(x, 3, 1),
        None,
        [((2, 2, 6),)],
        make_inputs=_distinct,
        torch_fn=lambda t, x: t.nn.functional.max_pool1d(x, 3, 1),
    ),
    OpCase(
        "nn_avg_pool2d",
        lambda x: F.avg_pool2d(x, 2),
        lambda x: np_pool2d(x, 2, 2, np.mean),
        [((2, 3, 4, 6),)],
        torch_fn=lambda t, x: t.nn.functional.avg_pool2d(x, 2),
    ),
    OpCase(
        "nn_avg_pool2d_pad_exclude_ceil",
        lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
        None,
        [((1, 2, 6, 5),)],
        torch_fn=lambda t, x: t.nn.functional.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
    ),
    OpCase(
        "nn_avg_pool1d",
        lambda x: F.avg_pool1d(x, 3, 2, 1),
        None,
        [((2, 2, 7),)],
        torch_fn=lambda t, x: t.nn.functional.avg_pool1d(x, 3, 2, 1),
    ),
    OpCase(
        "nn_adaptive_avg_pool2d",
        lambda x: F.adaptive_avg_pool2d(x, (3, 2)),
        None,
        [((2, 2, 5, 7),)],
        torch_fn=lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, (3, 2)),
    ),
    OpCase(
        "nn_adaptive_avg_pool3d",
        lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)),
        None,
        [((1, 2, 3, 5, 2),), ((2, 4, 4, 3),)],
        torch_fn=lambda t, x: t.nn.functional.adaptive_avg_pool3d(x, (2, 3, 2)),
    ),
    OpCase(
        "nn_adaptive_avg_pool2d_global",
        lambda x: F.adaptive_avg_pool2d(x, 1),
        lambda x: x.mean((2, 3), keepdims=True),
        [((2, 3, 4, 4),)],
        torch_fn=lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, 1),
    ),
    OpCase(
        "nn_adaptive_max_pool2d",
        lambda x: F.adaptive_max_pool2d(x, (2, 3)),
        None,
        [((2, 2, 5, 7),)],
        make_inputs=_distinct,
        torch_fn=lambda t, x: t.nn.functional.adaptive_max_pool2d(x, (2, 3)),
    ),
    OpCase(
        "nn_lp_pool2d",
        lambda x: F.lp_pool2d(x, 2, 2),
        lambda x: np.sqrt(np_pool2d(x * x, 2, 2, np.sum)),
        [((1, 2, 4, 4),)],
        torch_fn=lambda t, x: t.nn.functional.lp_pool2d(x, 2, 2),
    ),
    OpCase(
        "nn_max_unpool2d",
        lambda x: F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2),
        None,
        [((1, 2, 4, 4),)],
        make_inputs=_distinct,
        torch_fn=lambda t, x: t.nn.functional.max_unpool2d(*t.nn.functional.max_pool2d(x, 2, return_indices=True), 2),
    ),
    # ------------------------------------------------------------ activations
    OpCase(
        "nn_relu6",
        F.relu6,
        lambda x: np.clip(x, 0, 6),
        ACTIVATION_SHAPES,
        make_inputs=_away_from_kinks,
        torch_fn=lambda t, x: t.nn.functional.relu6(x),
    ),
    OpCase(
        "nn_leaky_relu",
        lambda x: F.leaky_relu(x, 0.2),
        lambda x: np.where(x > 0, x, 0.2 * x),
        ACTIVATION_SHAPES,
        make_inputs=_away_from_kinks,
        torch_fn=lambda t, x: t.nn.functional.leaky_relu(x, 0.2),
    ),
    OpCase(
        "nn_elu",
        lambda x: F.elu(x, 0.7),
        lambda x: np.where(x > 0, x, 0.7 * np.expm1(x)),
        ACTIVATION_SHAPES,
        make_inputs=_away_from_kinks,
        torch_fn=lambda t, x: t.nn.functional.elu(x, 0.7),
    ),
    OpCase(
        "nn_selu",
        F.selu,
        lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
        ACTIVATION_SHAPES,
        make_inputs=_away_from_kinks,
        torch_fn=lambda t, x: t.nn.functional.selu(x),
    ),
    OpCase(
        "nn_celu",
        lambda x: F.celu(x, 2.0),
        lambda x: np.maximum(x, 0) + np.minimum(0, 2 * np.expm1(x / 2)),
        ACTIVATION_SHAPES,
        make_inputs=_away_from_kinks,
        torch_fn=lambda t, x: t.nn.functional.celu(x, 2.0),
    ),
    OpCase(
        "nn_gelu",
        F.gelu,
        lambda x: x * 0.5 * (1 + np_erf(x / math.sqrt(2))),
        ACTIVATION_SHAPES,
        torch_fn=lambda t, x: t.nn.functional.gelu(x),
    ),
    OpCase(
        "nn_gelu_tanh",
        lambda x: F.gelu(x, approximate="tanh"),
        lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
        ACTIVATION_SHAPES,
        torch_fn=lambda t, x: t.nn.functional.gelu(x, approximate="tanh"),
    ),
    OpCase(
        "nn_silu",
        F.silu,
        lambda x: x / (1 + np.exp(-x)),
        ACTIVATION_SHAPES,
        torch_fn=lambda t, x: t.nn.functional.silu(x),
    ),
    OpCase(
        "nn_mish",
        F.mish,
        lambda x: x * np.tanh(np.logaddexp(0, x)),
        ACTIVATION_SHAPES,
        torch_fn=lambda t, x: t.nn.functional.mish(x),
    ),
    OpCase(
        "nn_softplus",
        lambda x: F.softplus(x, beta=2.0, threshold=5.0),
        lambda x: np_softplus(x, 2.0, 5.0),
        ACTIVATION_SHAPES,
        make_inputs=_away_from_kinks,
        torch_fn=lambda t, x: t.nn.functional.softplus(x, beta=2.0, threshold=5.0),
    ),
    OpCase(
        "nn_softsign",
        F.softsign,
        lambda x: x / (1 + np.abs(x)),
        ACTIVATION_SHAPES,
        make_inputs=_away_from_kinks,
        torch_fn=lambda t, x: t.nn.functional.softsign(x),
    ),
    OpCase(
        "nn_hardtanh",
        lambda x: F.hardtanh(x, -1.0, 3.0),
        lambda x: np.clip(x, -1, 3),
        ACTIVATION_SHAPES,
        make_inputs=_away_from_kinks,
        torch_fn=lambda t, x: t.nn.functional.hardtanh(x, -1.0, 3.0),
    ),
    OpCase(
        "nn_hardsigmoid",
        F.hardsigmoid,
        lambda x: np.clip(x / 6 + 0.5, 0, 1),
        ACTIVATION_SHAPES,
        make_inputs=_away_from_kinks,
        torch_fn=lambda t, x: t.nn.functional.hardsigmoid(x),
    ),
    OpCase(
        "nn_hardswish",
        F.hardswish,
        lambda x: x * np.clip(x + 3, 0, 6) / 6,
        ACTIVATION_SHAPES,
        make_inputs=_away_from_kinks,
        torch_fn=lambda t, x: t.nn.functional.hardswish(x),
    ),
    OpCase(
        "nn_logsigmoid",
        F.logsigmoid,
        lambda x: -np.logaddexp(0, -x),
        ACTIVATION_SHAPES,
        torch_fn=lambda t, x: t.nn.functional.logsigmoid(x),
    ),
    OpCase(
        "nn_tanhshrink",
        F.tanhshrink,
        lambda x: x - np.tanh(x),
        ACTIVATION_SHAPES,
        torch_fn=lambda t, x: t.nn.functional.tanhshrink(x),
    ),
    OpCase(
        "nn_softshrink",
        F.softshrink,
        lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0)),
        ACTIVATION_SHAPES,
        make_inputs=_away_from_kinks,
        torch_fn=lambda t, x: t.nn.functional.softshrink(x),
    ),
    OpCase(
        "nn_hardshrink",
        F.hardshrink,
        lambda x: np.where(np.abs(x) > 0.5, x, 0),
        ACTIVATION_SHAPES,
        make_inputs=_away_from_kinks,
        torch_fn=lambda t, x: t.nn.functional.hardshrink(x),
    ),
    OpCase(
        "nn_threshold",
        lambda x: F.threshold(x, 0.5, -2.0),
        lambda x: np.where(x > 0.5, x, -2.0),
        ACTIVATION_SHAPES,
        make_inputs=_away_from_kinks,
        torch_fn=lambda t, x: t.nn.functional.threshold(x, 0.5, -2.0),
    ),
    OpCase(
        "nn_prelu",
        F.prelu,
        lambda x, w: np.where(x > 0, x, w[None, :, None] * x),
        [((2, 3, 4), (3,))],
        make_inputs=_away_from_kinks,
        torch_fn=lambda t, x, w: t.nn.functional.prelu(x, w),
    ),
    OpCase(
        "nn_prelu_one_weight",
        F.prelu,
        lambda x, w: np.where(x > 0, x, w[0] * x),
        [((2, 3), (1,)), ((), (1,))],
        make_inputs=_away_from_kinks,
        torch_fn=lambda t, x, w: t.nn.functional.prelu(x, w),
    ),
    OpCase(
        "nn_glu_last_dim",
        F.glu,
        lambda x: x[..., :3] / (1 + np.exp(-x[..., 3:])),
        [((2, 3, 6),)],
        torch_fn=lambda t, x: t.nn.functional.glu(x),
    ),
    OpCase(
        "nn_glu",
        lambda x: F.glu(x, 1),
        lambda x: x[:, :2] / (1 + np.exp(-x[:, 2:])),
        [((3, 4),)],
        torch_fn=lambda t, x: t.nn.functional.glu(x, 1),
    ),
    OpCase(
        "nn_softmax",
        lambda x: F.softmax(x, -1),
        lambda x: np.exp(np_log_softmax(x, -1)),
        [((3, 4),), ((2, 3, 2),), ((5,),)],
        torch_fn=lambda t, x: t.nn.functional.softmax(x, -1),
    ),
    OpCase(
        "nn_softmax_dim0",
        lambda x: F.softmax(x, 0),
        lambda x: np.exp(np_log_softmax(x, 0)),
        [((3, 4),)],
        torch_fn=lambda t, x: t.nn.functional.softmax(x, 0),
    ),
    OpCase(
        "nn_softmin",
        lambda x: F.softmin(x, 1),
        lambda x: np.exp(np_log_softmax(-x, 1)),
        [((3, 4),)],
        torch_fn=lambda t, x: t.nn.functional.softmin(x, 1),
    ),
    OpCase(
        "nn_log_softmax",
        lambda x: F.log_softmax(x, 1),
        lambda x: np_log_softmax(x, 1),
        [((3, 4),), ((2, 3, 2),)],
        torch_fn=lambda t, x: t.nn.functional.log_softmax(x, 1),
    ),
    # ------------------------------------------------------------ normalization and shape
    OpCase(
        "nn_batch_norm_train",
        lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
        _batch_norm_ref,
        [((3, 2, 2, 2), (2,), (2,))],
        torch_fn=lambda t, x, w, b: t.nn.functional.batch_norm(x, None, None, w, b, training=True),
    ),
    OpCase(
        "nn_batch_norm_eval",
        lambda x, m, v: F.batch_norm(x, m, v, training=False),
        lambda x, m, v: (x - m[None, :, None]) / np.sqrt(v[None, :, None] + 1e-5),
        [((3, 2, 4), (2,), (2,))],
        make_inputs=_positive,
        differentiable_inputs=[0],
        torch_fn=lambda t, x, m, v: t.nn.functional.batch_norm(x, m, v, training=False),
    ),
    OpCase(
        "nn_batch_norm_train_no_affine",
        lambda x: F.batch_norm(x, None, None, training=True),
        lambda x: np_normalize(x, (0,) + tuple(range(2, x.ndim))),
        [((4, 3, 2),), ((5, 2),)],
        torch_fn=lambda t, x: t.nn.functional.batch_norm(x, None, None, training=True),
    ),
    OpCase(
        "nn_torch_batch_norm",
        lambda x, w, b: ember.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
        _batch_norm_ref,
        [((3, 2, 2, 2), (2,), (2,))],
        torch_fn=lambda t, x, w, b: t.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, False),
    ),
    OpCase(
        "nn_batch_norm_eval_affine",
        lambda x, w, b: F.batch_norm(x, *_running_statistics(ember), w, b),
        lambda x, w, b: (x - 0.3) / np.sqrt(1.7 + 1e-5) * w[:, None, None] + b[:, None, None],
        [((3, 2, 2, 3), (2,), (2,))],
        torch_fn=lambda t, x, w, b: t.nn.functional.batch_norm(x, *_running_statistics(t), w, b),
    ),
    OpCase(
        "nn_layer_norm",
        lambda x, w, b: F.layer_norm(x, (3, 4), w, b),
        lambda x, w, b: np_normalize(x, (-2, -1)) * w + b,
        [((2, 3, 4), (3, 4), (3, 4))],
        torch_fn=lambda t, x, w, b: t.nn.functional.layer_norm(x, (3, 4), w, b),
    ),
    OpCase(
        "nn_layer_norm_last_dim",
        lambda x, w, b: F.layer_norm(x, (4,), w, b),
        lambda x, w, b: np_normalize(x, (-1,)) * w + b,
        [((3, 4), (4,), (4,)), ((2, 2, 4), (4,), (4,))],
        torch_fn=lambda t, x, w, b: t.nn.functional.layer_norm(x, (4,), w, b),
    ),
    OpCase(
        "nn_layer_norm_no_affine",
        lambda x: F.layer_norm(x, (4,)),
        lambda x: np_normalize(x, (-1,)),
        [((3, 4),), ((4,),)],
        torch_fn=lambda t, x: t.nn.functional.layer_norm(x, (4,)),
    ),
    OpCase(
        "nn_group_norm",
        lambda x, w, b: F.group_norm(x, 2, w, b),
        lambda x, w, b: np_normalize(x.reshape(2, 2, -1), (2,)).reshape(x.shape) * w[:, None, None] + b[:, None, None],
        [((2, 4, 2, 3), (4,), (4,))],
        torch_fn=lambda t, x, w, b: t.nn.functional.group_norm(x, 2, w, b),
    ),
    OpCase(
        "nn_group_norm_no_affine",
        lambda x: F.group_norm(x, 3),
        lambda x: np_normalize(x.reshape(x.shape[0], 3, -1), (2,)).reshape(x.shape),
        [((2, 6),), ((3, 3, 4),)],
        torch_fn=lambda t, x: t.nn.functional.group_norm(x, 3),
    ),
    OpCase(
        "nn_instance_norm_affine",
        lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
        lambda x, w, b: np_normalize(x, (2,)) * w[:, None] + b[:, None],
        [((2, 3, 4), (3,), (3,))],
        torch_fn=lambda t, x, w, b: t.nn.functional.instance_norm(x, weight=w, bias=b),
    ),
    OpCase(
        "nn_instance_norm",
        F.instance_norm,
        lambda x: np_normalize(x, (2, 3)),
        [((2, 3, 3, 2),)],
        torch_fn=lambda t, x: t.nn.functional.instance_norm(x),
    ),
    OpCase(
        "nn_rms_norm",
        lambda x, w: F.rms_norm(x, (4,), w, 1e-6),
        lambda x, w: x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * w,
        [((3, 4), (4,))],
        torch_fn=lambda t, x, w: t.nn.functional.rms_norm(x, (4,), w, 1e-6),
    ),
    OpCase(
        "nn_local_response_norm",
        lambda x: F.local_response_norm(x, 3),
        None,
        [((2, 4, 3, 2),), ((2, 5, 3),)],
        torch_fn=lambda t, x: t.nn.functional.local_response_norm(x, 3),
    ),
    OpCase(
        "nn_normalize",
        lambda x: F.normalize(x, dim=1),
        lambda x: x / np.linalg.norm(x, axis=1, keepdims=True),
        [((3, 4),)],
        torch_fn=lambda t, x: t.nn.functional.normalize(x, dim=1),
    ),
    OpCase(
        "nn_embedding",
        lambda w, i: F.embedding(i, w),
        lambda w, i: w[i],
        [((5, 3), (2, 4))],
        make_inputs=_embedding_inputs,
        torch_fn=lambda t, w, i: t.nn.functional.embedding(i, w),
    ),
    # The padding row gets no gradient by design, so only torch can check this one's gradients.
    OpCase(
        "nn_embedding_padding_idx",
        lambda w, i: F.embedding(i, w, padding_idx=1),
        None,
        [((5, 3), (3, 4))],
        make_inputs=_embedding_inputs,
        grad=False,
        gradgrad=False,
        torch_fn=lambda t, w, i: t.nn.functional.embedding(i, w, padding_idx=1),
    ),
    OpCase(
        "nn_pad_constant",
        lambda x: F.pad(x, (1, 2, -1, 1), value=0.5),
        None,
        [((2, 3, 4),)],
        torch_fn=lambda t, x: t.nn.functional.pad(x, (1, 2, -1, 1), value=0.5),
    ),
    OpCase(
        "nn_pad_reflect",
        lambda x: F.pad(x, (2, 1, 1, 2), mode="reflect"),
        lambda x: np.pad(x, ((0, 0), (0, 0), (1, 2), (2, 1)), mode="reflect"),
        [((1, 2, 4, 3),)],
        torch_fn=lambda t, x: t.nn.functional.pad(x, (2, 1, 1, 2), mode="reflect"),
    ),
    OpCase(
        "nn_pad_replicate",
        lambda x: F.pad(x, (2, 1), mode="replicate"),
        lambda x: np.pad(x, ((0, 0), (0, 0), (2, 1)), mode="edge"),
        [((1, 2, 3),)],
        torch_fn=lambda t, x: t.nn.functional.pad(x, (2, 1), mode="replicate"),
    ),
    OpCase(
        "nn_pad_circular",
        lambda x: F.pad(x, (1, 2, 2, 0), mode="circular"),
        lambda x: np.pad(x, ((0, 0), (0, 0), (2, 0), (1, 2)), mode="wrap"),
        [((1, 2, 3, 3),)],
        torch_fn=lambda t, x: t.nn.functional.pad(x, (1, 2, 2, 0), mode="circular"),
    ),
    OpCase(
        "nn_interpolate_nearest",
        lambda x: F.interpolate(x, scale_factor=2),
        lambda x: x.repeat(2, 2).repeat(2, 3),
        [((1, 2, 2, 3),)],
        torch_fn=lambda t, x: t.nn.functional.interpolate(x, scale_factor=2),
    ),
    OpCase(
        "nn_interpolate_bilinear",
        lambda x: F.interpolate(x, size=(5, 4), mode="bilinear"),
        None,
        [((1, 2, 3, 3),)],
        torch_fn=lambda t, x: t.nn.functional.interpolate(x, size=(5, 4), mode="bilinear"),
    ),
    OpCase(
        "nn_interpolate_bilinear_align",
        lambda x: F.interpolate(x, scale_factor=1.5, mode="bilinear", align_corners=True),
        None,
        [((1, 2, 3, 4),)],
        torch_fn=lambda t, x: t.nn.functional.interpolate(x, scale_factor=1.5, mode="bilinear", align_corners=True),
    ),
    OpCase(
        "nn_interpolate_linear",
        lambda x: F.interpolate(x, size=7, mode="linear"),
        None,
        [((2, 1, 4),)],
        torch_fn=lambda t, x: t.nn.functional.interpolate(x, size=7, mode="linear"),
    ),
    OpCase(
        "nn_interpolate_bicubic",
        lambda x: F.interpolate(x, size=(5, 6), mode="bicubic"),
        None,
        [((1, 1, 4, 3),)],
        torch_fn=lambda t, x: t.nn.functional.interpolate(x, size=(5, 6), mode="bicubic"),
    ),
    OpCase(
        "nn_pixel_shuffle",
        lambda x: F.pixel_shuffle(x, 2),
        None,
        [((1, 8, 2, 3),), ((8, 2, 2),), ((2, 1, 4, 1, 2),)],
        torch_fn=lambda t, x: t.nn.functional.pixel_shuffle(x, 2),
    ),
    OpCase(
        "nn_pixel_unshuffle",
        lambda x: F.pixel_unshuffle(x, 2),
        None,
        [((1, 2, 4, 6),), ((2, 2, 4),)],
        torch_fn=lambda t, x: t.nn.functional.pixel_unshuffle(x, 2),
    ),
    OpCase(
        "nn_cosine_similarity",
        F.cosine_similarity,
        lambda a, b: (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1),
        [((3, 4), (3, 4))],
        torch_fn=lambda t, a, b: t.nn.functional.cosine_similarity(a, b),
    ),
    OpCase(
        "nn_pairwise_distance",
        F.pairwise_distance,
        lambda a, b: np.linalg.norm(a - b + 1e-6, axis=-1),
        [((3, 4), (3, 4))],
        torch_fn=lambda t, a, b: t.nn.functional.pairwise_distance(a, b),
    ),
    # ------------------------------------------------------------ losses
    OpCase(
        "nn_mse_loss",
        F.mse_loss,
        lambda a, b: ((a - b) ** 2).mean(),
        [((3, 4), (3, 4))],
        torch_fn=lambda t, a, b: t.nn.functional.mse_loss(a, b),
    ),
    OpCase(
        "nn_mse_loss_sum_broadcast_target",
        lambda a, b: F.mse_loss(a, b.expand(3, 4), reduction="sum"),
        lambda a, b: ((a - b) ** 2).sum(),
        [((3, 4), (4,))],
        torch_fn=lambda t, a, b: t.nn.functional.mse_loss(a, b.expand(3, 4), reduction="sum"),
    ),
    OpCase(
        "nn_mse_loss_none",
        lambda a, b: F.mse_loss(a, b, reduction="none"),
        lambda a, b: (a - b) ** 2,
        [((3, 4), (3, 4)), ((), ())],
        torch_fn=lambda t, a, b: t.nn.functional.mse_loss(a, b, reduction="none"),
    ),
    OpCase(
        "nn_smooth_l1_loss_beta0_mean",
        lambda a, b: F.smooth_l1_loss(a, b, beta=0.0),
        lambda a, b: np.abs(a - b).mean(),
        [((3, 4), (3, 4))],
        gradgrad=False,
        torch_fn=lambda t, a, b: t.nn.functional.smooth_l1_loss(a, b, beta=0.0),
    ),
    OpCase(
        "nn_huber_loss_sum",
        lambda a, b: F.huber_loss(a, b, reduction="sum", delta=0.3),
        lambda a, b: np.where(np.abs(a - b) < 0.3, 0.5 * (a - b) ** 2, 0.3 * (np.abs(a - b) - 0.15)).sum(),
        [((3, 4), (3, 4))],
        torch_fn=lambda t, a, b: t.nn.functional.huber_loss(a, b, reduction="sum", delta=0.3),
    ),
    OpCase(
        "nn_soft_margin_loss_none",
        lambda x, t: F.soft_margin_loss(x, t, reduction="none"),
        lambda x, t: np.logaddexp(0, -t * x),
        [((5,), (5,))],
        differentiable_inputs=[0],
        torch_fn=lambda t, x, y: t.nn.functional.soft_margin_loss(x, y, reduction="none"),
    ),
    OpCase(
        "nn_bce_with_logits_sum_weight",
        lambda x, t, w: F.binary_cross_entropy_with_logits(x, t, w, reduction="sum"),
        lambda x, t, w: (w * (t * np.logaddexp(0, -x) + (1 - t) * np.logaddexp(0, x))).sum(),
        [((3, 4), (3, 4), (3, 4))],
        differentiable_inputs=[0],
        torch_fn=lambda t, x, y, w: t.nn.functional.binary_cross_entropy_with_logits(x, y, w, reduction="sum"),
    ),
    OpCase(
        "nn_l1_loss_sum",
        lambda a, b: F.l1_loss(a, b, reduction="sum"),
        lambda a, b: np.abs(a - b).sum(),
        [((3, 4), (3, 4))],
        torch_fn=lambda t, a, b: t.nn.functional.l1_loss(a, b, reduction="sum"),
    ),
    OpCase(
        "nn_smooth_l1_loss",
        lambda a, b: F.smooth_l1_loss(a, b, reduction="none", beta=0.5),
        lambda a, b: np.where(np.abs(a - b) < 0.5, (a - b) ** 2, np.abs(a - b) - 0.25),
        [((3, 4), (3, 4))],
        torch_fn=lambda t, a, b: t.nn.functional.smooth_l1_loss(a, b, reduction="none", beta=0.5),
    ),
    OpCase(
        "nn_huber_loss",
        lambda a, b: F.huber_loss(a, b, delta=0.7),
        None,
        [((3, 4), (3, 4))],
        torch_fn=lambda t, a, b: t.nn.functional.huber_loss(a, b, delta=0.7),
    ),
    OpCase(
        "nn_cross_entropy",
        F.cross_entropy,
        lambda x, t: -np_log_softmax(x, 1)[np.arange(len(t)), t].mean(),
        [((4, 5),)],
        make_inputs=_class_targets(5),
        torch_fn=lambda t, x, y: t.nn.functional.cross_entropy(x, y),
    ),
    OpCase(
        "nn_cross_entropy_weight_ignore",
        lambda x, t, w: F.cross_entropy(x, t, w, ignore_index=2),
        None,
        [((6, 4), (4,))],
        make_inputs=_class_targets(4, ignore=2),
        differentiable_inputs=[0],
        torch_fn=lambda t, x, y, w: t.nn.functional.cross_entropy(x, y, w, ignore_index=2),
    ),
    OpCase(
        "nn_cross_entropy_smoothing",
        lambda x, t, w: F.cross_entropy(x, t, w, label_smoothing=0.2),
        None,
        [((5, 4), (4,))],
        make_inputs=_class_targets(4),
        differentiable_inputs=[0],
        torch_fn=lambda t, x, y, w: t.nn.functional.cross_entropy(x, y, w, label_smoothing=0.2),
    ),
    OpCase(
        "nn_cross_entropy_kdim_none",
        lambda x, t: F.cross_entropy(x, t, reduction="none", ignore_index=1),
        None,
        [((2, 3, 2, 2),)],
        make_inputs=_class_targets(3, ignore=1),
        torch_fn=lambda t, x, y: t.nn.functional.cross_entropy(x, y, reduction="none", ignore_index=1),
    ),
    OpCase(
        "nn_cross_entropy_probabilities",
        lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1),
        None,
        [((3, 4),)],
        make_inputs=_soft_targets,
        torch_fn=lambda t, x, y: t.nn.functional.cross_entropy(x, y, label_smoothing=0.1),
    ),
    OpCase(
        "nn_nll_loss_sum",
        lambda x, t: F.nll_loss(x, t, reduction="sum"),
        lambda x, t: -x[np.arange(len(t)), t].sum(),
        [((4, 3),)],
        make_inputs=_class_targets(3),
        torch_fn=lambda t, x, y: t.nn.functional.nll_loss(x, y, reduction="sum"),
    ),
    OpCase(
        "nn_binary_cross_entropy",
        lambda x, t, w: F.binary_cross_entropy(x, t, w),
        lambda x, t, w: (-w * (t * np.log(x) + (1 - t) * np.log(1 - x))).mean(),
        [((3, 4), (3, 4), (3, 4))],
        make_inputs=_probabilities_and_targets,
        differentiable_inputs=[0, 1],
        torch_fn=lambda t, x, y, w: t.nn.functional.binary_cross_entropy(x, y, w),
    ),
    OpCase(
        "nn_bce_with_logits",
        lambda x, t, p: F.binary_cross_entropy_with_logits(x, t, pos_weight=p),
        lambda x, t, p: (p * t * np.logaddexp(0, -x) + (1 - t) * np.logaddexp(0, x)).mean(),
        [((3, 4), (3, 4), (4,))],
        differentiable_inputs=[0, 1],
        torch_fn=lambda t, x, y, p: t.nn.functional.binary_cross_entropy_with_logits(x, y, pos_weight=p),
    ),
    OpCase(
        "nn_kl_div",
        lambda x, t: F.kl_div(x, t, reduction="batchmean"),
        lambda x, t: (t * (np.log(t) - x)).sum() / x.shape[0],
        [((3, 4), (3, 4))],
        make_inputs=_log_probabilities_and_probabilities,
        torch_fn=lambda t, x, y: t.nn.functional.kl_div(x, y, reduction="batchmean"),
    ),
    OpCase(
        "nn_kl_div_log_target",
        lambda x, t: F.kl_div(x, t, reduction="sum", log_target=True),
        None,
        [((3, 4), (3, 4))],
        torch_fn=lambda t, x, y: t.nn.functional.kl_div(x, y, reduction="sum", log_target=True),
    ),
    OpCase(
        "nn_poisson_nll_loss",
        lambda x, t: F.poisson_nll_loss(x, t, full=True),
        None,
        [((3, 4), (3, 4))],
        make_inputs=lambda shapes, rng: [rng.uniform(-1, 1, shapes[0]), rng.uniform(0, 4, shapes[1])],
        torch_fn=lambda t, x, y: t.nn.functional.poisson_nll_loss(x, y, full=True),
    ),
    OpCase(
        "nn_gaussian_nll_loss",
        F.gaussian_nll_loss,
        None,
        [((3, 2), (3, 2), (3, 2))],
        make_inputs=_positive,
        torch_fn=lambda t, x, y, v: t.nn.functional.gaussian_nll_loss(x, y, v),
    ),
    OpCase(
        "nn_margin_ranking_loss",
        lambda a, b, y: F.margin_ranking_loss(a, b, y, 0.3),
        None,
        [((5,), (5,), (5,))],
        make_inputs=_signs,
        torch_fn=lambda t, a, b, y: t.nn.functional.margin_ranking_loss(a, b, y, 0.3),
    ),
    OpCase(
        "nn_hinge_embedding_loss",
        F.hinge_embedding_loss,
        None,
        [((3, 4), (3, 4))],
        make_inputs=_signs,
        differentiable_inputs=[0],
        torch_fn=lambda t, x, y: t.nn.functional.hinge_embedding_loss(x, y),
    ),
    OpCase(
        "nn_cosine_embedding_loss",
        lambda a, b, y: F.cosine_embedding_loss(a, b, y, 0.1),
        None,
        [((4, 3), (4, 3), (4,))],
        make_inputs=_signs,
        differentiable_inputs=[0, 1],
        torch_fn=lambda t, a, b, y: t.nn.functional.cosine_embedding_loss(a, b, y, 0.1),
    ),
    OpCase(
        "nn_triplet_margin_loss",
        lambda a, p, n: F.triplet_margin_loss(a, p, n, swap=True),
        None,
        [((3, 4), (3, 4), (3, 4))],
        torch_fn=lambda t, a, p, n: t.nn.functional.triplet_margin_loss(a, p, n, swap=True),
    ),
    OpCase(
        "nn_soft_margin_loss",
        F.soft_margin_loss,
        lambda x, y: np.logaddexp(0, -y * x).mean(),
        [((3, 4), (3, 4))],
        make_inputs=_signs,
        differentiable_inputs=[0],
        torch_fn=lambda t, x, y: t.nn.functional.soft_margin_loss(x, y),
    ),
    OpCase(
        "nn_multilabel_soft_margin_loss",
        F.multilabel_soft_margin_loss,
        None,
        [((3, 4), (3, 4))],
        make_inputs=lambda shapes, rng: [rng.uniform(-2, 2, shapes[0]), rng.integers(0, 2, shapes[1]) * 1.0],
        differentiable_inputs=[0],
        torch_fn=lambda t, x, y: t.nn.functional.multilabel_soft_margin_loss(x, y),
    ),
    OpCase(
        "nn_multi_margin_loss",
        lambda x, y: F.multi_margin_loss(x, y, p=2, margin=0.5),
        None,
        [((4, 3),)],
        make_inputs=_class_targets(3),
        torch_fn=lambda t, x, y: t.nn.functional.multi_margin_loss(x, y, p=2, margin=0.5),
    ),
    OpCase(
        "nn_multi_margin_loss_weight_none",
        lambda x, y, w: F.multi_margin_loss(x, y, margin=1.5, weight=w, reduction="none"),
        None,
        [((5, 4), (4,))],
        make_inputs=_class_targets(4),
        differentiable_inputs=[0],
        torch_fn=lambda t, x, y, w: t.nn.functional.multi_margin_loss(x, y, margin=1.5, weight=w, reduction="none"),
    ),
    OpCase(
        "nn_multi_margin_loss_unbatched_sum",
        lambda x, y, w: F.multi_margin_loss(x[0], y[0], p=2, weight=w, reduction="sum"),
        None,
        [((1, 4), (4,))],
        make_inputs=_class_targets(4),
        differentiable_inputs=[0],
        torch_fn=lambda t, x, y, w: t.nn.functional.multi_margin_loss(x[0], y[0], p=2, weight=w, reduction="sum"),
    ),
    OpCase(
        "nn_multilabel_margin_loss",
        F.multilabel_margin_loss,
        None,
        [((4, 5),)],
        make_inputs=_label_lists,
        torch_fn=lambda t, x, y: t.nn.functional.multilabel_margin_loss(x, y),
    ),
    OpCase(
        "nn_multilabel_margin_loss_none",
        lambda x, y: F.multilabel_margin_loss(x, y, reduction="none"),
        None,
        [((4, 5),)],
        make_inputs=_label_lists,
        torch_fn=lambda t, x, y: t.nn.functional.multilabel_margin_loss(x, y, reduction="none"),
    ),
    OpCase(
        "nn_multilabel_margin_loss_unbatched_sum",
        lambda x, y: F.multilabel_margin_loss(x[0], y[0], reduction="sum"),
        None,
        [((1, 5),)],
        make_inputs=_label_lists,
        torch_fn=lambda t, x, y: t.nn.functional.multilabel_margin_loss(x[0], y[0], reduction="sum"),
    ),
    OpCase(
        "nn_nll_loss_none_weight_ignore",
        lambda x, t, w: F.nll_loss(x, t, w, ignore_index=0, reduction="none"),
        None,
        [((6, 4), (4,)), ((3, 4), (4,))],
        make_inputs=_class_targets(4, ignore=0),
        differentiable_inputs=[0],
        torch_fn=lambda t, x, y, w: t.nn.functional.nll_loss(x, y, w, ignore_index=0, reduction="none"),
    ),
    OpCase(
        "nn_nll_loss_kdim_mean_weight",
        lambda x, t, w: F.nll_loss(x, t, w),
        None,
        [((2, 3, 4), (3,)), ((2, 3, 2, 2), (3,)), ((2, 3, 2, 1, 2), (3,))],
        make_inputs=_class_targets(3),
        differentiable_inputs=[0],
        torch_fn=lambda t, x, y, w: t.nn.functional.nll_loss(x, y, w),
    ),
    OpCase(
        "nn_nll_loss_kdim_none",
        lambda x, t: F.nll_loss(x, t, reduction="none", ignore_index=2),
        None,
        [((2, 3, 4),), ((2, 3, 2, 2),), ((2, 3, 2, 1, 2),)],
        make_inputs=_class_targets(3, ignore=2),
        torch_fn=lambda t, x, y: t.nn.functional.nll_loss(x, y, reduction="none", ignore_index=2),
    ),
    OpCase(
        "nn_cross_entropy_kdim_smoothing_weight",
        lambda x, t, w: F.cross_entropy(x, t, w, ignore_index=1, label_smoothing=0.3),
        None,
        [((2, 3, 4), (3,)), ((2, 3, 2, 2), (3,))],
        make_inputs=_class_targets(3, ignore=1),
        differentiable_inputs=[0],
        torch_fn=lambda t, x, y, w: t.nn.functional.cross_entropy(x, y, w, ignore_index=1, label_smoothing=0.3),
    ),
    OpCase(
        "nn_cross_entropy_unbatched_none",
        lambda x, t: F.cross_entropy(x[0], t[0], reduction="none", label_smoothing=0.1),
        None,
        [((1, 4),)],
        make_inputs=_class_targets(4),
        torch_fn=lambda t, x, y: t.nn.functional.cross_entropy(x[0], y[0], reduction="none", label_smoothing=0.1),
    ),
    # ------------------------------------------------------------ declared ops the cases above did not reach
    OpCase(
        "nn_max_pool3d",
        lambda x: F.max_pool3d(x, 2),
        None,
        [((1, 2, 4, 4, 4),)],
        make_inputs=_distinct,
        torch_fn=lambda t, x: t.nn.functional.max_pool3d(x, 2),
    ),
    OpCase(
        "avg_pool1d",
        lambda x: ember.avg_pool1d(x, 3, 2, 1),
        None,
        [((2, 3, 7),)],
        torch_fn=lambda t, x: t.avg_pool1d(x, 3, 2, 1),
    ),
    OpCase(
        "adaptive_max_pool1d",
        lambda x: ember.adaptive_max_pool1d(x, 3)[0],
        None,
        [((2, 3, 7),)],
        make_inputs=_distinct,
        torch_fn=lambda t, x: t.adaptive_max_pool1d(x, 3)[0],
    ),
    OpCase(
        "nn_conv_transpose3d",
        lambda x, w, b: F.conv_transpose3d(x, w, b, stride=2, padding=1),
        None,
        [((1, 2, 3, 3, 2), (2, 2, 2, 2, 2), (2,))],
        torch_fn=lambda t, x, w, b: t.nn.functional.conv_transpose3d(x, w, b, stride=2, padding=1),
    ),
]
