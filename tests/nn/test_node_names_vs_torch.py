"""The node a printed result shows (`grad_fn=<NativeLayerNormBackward0>`) for common nn calls, against
PyTorch's: a composite of element-wise ops would show its last inner op instead, and printed output
is compared with PyTorch's. Calls that still differ are listed in DIFFERENT (strict xfail), so a fix
shows as a pass to move up and a regression as a failure."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def _inputs(library, seed=0):
    """Inputs of the common layouts, requiring grad: (N, C, H, W), (N, C, L), (N, F), and class targets."""
    rng = np.random.default_rng(seed)
    arrays = {
        "image": rng.standard_normal((2, 4, 6, 6)),
        "sequence": rng.standard_normal((2, 4, 6)),
        "rows": rng.standard_normal((3, 8)),
    }
    made = {name: library.tensor(array.astype(np.float32), requires_grad=True) for name, array in arrays.items()}
    made["classes"] = library.tensor(rng.integers(0, 8, 3))
    made["grid"] = library.tensor(rng.uniform(-1, 1, (2, 3, 3, 2)).astype(np.float32))
    return made


# name -> call(library, F, inputs)
MATCHING = {
    "linear_3d": lambda t, F, x: F.linear(x["sequence"], t.ones(5, 6), t.ones(5)),
    "linear_3d_no_bias": lambda t, F, x: F.linear(x["sequence"], t.ones(5, 6)),
    "linear": lambda t, F, x: F.linear(x["rows"], t.ones(5, 8), t.ones(5)),
    "linear_no_bias": lambda t, F, x: F.linear(x["rows"], t.ones(5, 8)),
    "conv2d": lambda t, F, x: F.conv2d(x["image"], t.ones(3, 4, 3, 3)),
    "conv1d": lambda t, F, x: F.conv1d(x["sequence"], t.ones(3, 4, 3)),
    "conv_transpose2d": lambda t, F, x: F.conv_transpose2d(x["image"], t.ones(4, 2, 2, 2)),
    "relu": lambda t, F, x: F.relu(x["rows"]),
    "leaky_relu": lambda t, F, x: F.leaky_relu(x["rows"], 0.2),
    "gelu": lambda t, F, x: F.gelu(x["rows"]),
    "gelu_tanh": lambda t, F, x: F.gelu(x["rows"], approximate="tanh"),
    "silu": lambda t, F, x: F.silu(x["rows"]),
    "elu": lambda t, F, x: F.elu(x["rows"]),
    "selu": lambda t, F, x: F.selu(x["rows"]),
    "celu": lambda t, F, x: F.celu(x["rows"], 1.5),
    "hardtanh": lambda t, F, x: F.hardtanh(x["rows"]),
    "relu6": lambda t, F, x: F.relu6(x["rows"]),
    "logsigmoid": lambda t, F, x: F.logsigmoid(x["rows"]),
    "hardswish": lambda t, F, x: F.hardswish(x["rows"]),
    "hardsigmoid": lambda t, F, x: F.hardsigmoid(x["rows"]),
    "mish": lambda t, F, x: F.mish(x["rows"]),
    "prelu": lambda t, F, x: F.prelu(x["image"], t.full((4,), 0.25)),
    "glu": lambda t, F, x: F.glu(x["rows"]),
    "softplus": lambda t, F, x: F.softplus(x["rows"]),
    "sigmoid": lambda t, F, x: t.sigmoid(x["rows"]),
    "tanh": lambda t, F, x: t.tanh(x["rows"]),
    "softmax": lambda t, F, x: F.softmax(x["rows"], 1),
    "log_softmax": lambda t, F, x: F.log_softmax(x["rows"], 1),
    "batch_norm_train": lambda t, F, x: F.batch_norm(x["image"], t.zeros(4), t.ones(4), training=True),
    "batch_norm_eval": lambda t, F, x: F.batch_norm(x["image"], t.zeros(4), t.ones(4)),
    "batch_norm_affine": lambda t, F, x: F.batch_norm(x["sequence"], None, None, t.ones(4), t.zeros(4), True),
    "layer_norm": lambda t, F, x: F.layer_norm(x["rows"], (8,), t.ones(8), t.zeros(8)),
    "group_norm": lambda t, F, x: F.group_norm(x["image"], 2),
    "instance_norm": lambda t, F, x: F.instance_norm(x["image"]),
    "max_pool2d": lambda t, F, x: F.max_pool2d(x["image"], 2),
    "avg_pool2d": lambda t, F, x: F.avg_pool2d(x["image"], 2),
    "adaptive_avg_pool2d_global": lambda t, F, x: F.adaptive_avg_pool2d(x["image"], 1),
    "adaptive_max_pool2d": lambda t, F, x: F.adaptive_max_pool2d(x["image"], 2),
    "max_pool1d": lambda t, F, x: F.max_pool1d(x["sequence"], 2),
    "max_pool1d_unbatched": lambda t, F, x: F.max_pool1d(x["rows"], 2, return_indices=True)[0],
    "avg_pool1d": lambda t, F, x: F.avg_pool1d(x["sequence"], 2),
    "adaptive_avg_pool1d": lambda t, F, x: F.adaptive_avg_pool1d(x["sequence"], 4),
    "adaptive_max_pool1d": lambda t, F, x: F.adaptive_max_pool1d(x["sequence"], 4),
    "adaptive_avg_pool2d": lambda t, F, x: F.adaptive_avg_pool2d(x["image"], 4),
    "adaptive_avg_pool2d_one_dim_kept": lambda t, F, x: F.adaptive_avg_pool2d(x["image"], (6, 3)),
    "adaptive_avg_pool3d": lambda t, F, x: F.adaptive_avg_pool3d(x["image"].unsqueeze(0), 3),
    "pixel_shuffle": lambda t, F, x: F.pixel_shuffle(x["image"], 2),
    "pixel_unshuffle": lambda t, F, x: F.pixel_unshuffle(x["image"], 2),
    "lp_pool1d": lambda t, F, x: F.lp_pool1d(x["sequence"], 2, 2),
    "embedding": lambda t, F, x: F.embedding(x["classes"], x["rows"].t()),
    "dropout_eval": lambda t, F, x: F.dropout(x["rows"], training=False) * 1,
    "pad_constant": lambda t, F, x: F.pad(x["image"], (1, 1)),
    "cross_entropy": lambda t, F, x: F.cross_entropy(x["rows"], x["classes"]),
    "nll_loss": lambda t, F, x: F.nll_loss(x["rows"], x["classes"]),
    "mse_loss": lambda t, F, x: F.mse_loss(x["rows"], t.zeros(3, 8)),
    "l1_loss": lambda t, F, x: F.l1_loss(x["rows"], t.zeros(3, 8)),
    "smooth_l1_loss": lambda t, F, x: F.smooth_l1_loss(x["rows"], t.zeros(3, 8)),
    "bce_with_logits": lambda t, F, x: F.binary_cross_entropy_with_logits(x["rows"], t.ones(3, 8)),
    "scaled_dot_product_attention": lambda t, F, x: F.scaled_dot_product_attention(
        x["sequence"], x["sequence"], x["sequence"]
    ),
}

# Calls whose node still differs from PyTorch's (PyTorch's name in the comment).
DIFFERENT = {
    "interpolate_nearest": lambda t, F, x: F.interpolate(x["image"], scale_factor=2),  # UpsampleNearest2DBackward0
    "interpolate_bilinear": lambda t, F, x: F.interpolate(x["image"], scale_factor=2, mode="bilinear"),
    "grid_sample": lambda t, F, x: F.grid_sample(x["image"], x["grid"], align_corners=False),  # GridSampler2D...
    "pad_reflect": lambda t, F, x: F.pad(x["image"], (1, 1, 1, 1), mode="reflect"),  # ReflectionPad2DBackward0
    "pad_replicate": lambda t, F, x: F.pad(x["image"], (1, 1, 1, 1), mode="replicate"),  # ReplicationPad2D...
}


def _node_names(call):
    names = []
    for library, functional in ((ember, ember.nn.functional), (torch, torch.nn.functional)):
        output = call(library, functional, _inputs(library))
        names.append(type(output.grad_fn).__name__)
    return names


@pytest.mark.parametrize("name", sorted(MATCHING))
def test_node_is_pytorchs(name):
    ember_name, torch_name = _node_names(MATCHING[name])
    assert ember_name == torch_name


@pytest.mark.parametrize("name", sorted(DIFFERENT))
@pytest.mark.xfail(strict=True, reason="still a composite: its node is not PyTorch's yet")
def test_node_known_to_differ(name):
    ember_name, torch_name = _node_names(DIFFERENT[name])
    assert ember_name == torch_name
