"""nn ops as one primitive against the compositions of element-wise ops they replaced, forward and
backward, with PyTorch alongside: gelu, silu, leaky_relu on (64, 512); layer_norm on (64, 512);
batch_norm (training) and group_norm on (32, 64, 16, 16), all float32.

The composites are written here as they were in ember.nn.functional, so both run in the same process
and the ratio composite/primitive is measured side by side.
"""

import math

import numpy as np

import ember
import ember.nn.functional as F
from common import format_seconds, measure_side_by_side, try_import_torch


def composite_gelu(x):
    return x * (ember.erf(x * math.sqrt(0.5)) + 1) * 0.5


def composite_silu(x):
    return x * ember.sigmoid(x)


def composite_leaky_relu(x):
    return ember.where(x > 0, x, x * 0.01)


def _normalize(x, dims, eps=1e-5):
    mean = x.mean(dims, keepdim=True)
    centered = x - mean
    var = (centered * centered).mean(dims, keepdim=True)
    return centered * (var + eps) ** -0.5


def composite_layer_norm(x, weight, bias):
    return _normalize(x, (-1,)) * weight + bias


def composite_batch_norm(x, weight, bias):
    view = (1, -1, 1, 1)
    return _normalize(x, (0, 2, 3)) * weight.reshape(view) + bias.reshape(view)


def composite_group_norm(x, weight, bias, groups=8):
    view = (1, -1, 1, 1)
    grouped = _normalize(x.reshape((x.shape[0], groups, -1)), (2,)).reshape(x.shape)
    return grouped * weight.reshape(view) + bias.reshape(view)


def _workloads(torch):
    rng = np.random.default_rng(0)
    rows = rng.standard_normal((64, 512)).astype(np.float32)
    image = rng.standard_normal((32, 64, 16, 16)).astype(np.float32)
    ones512, ones64 = np.ones(512, np.float32), np.ones(64, np.float32)
    tf = torch.nn.functional if torch else None
    return [
        ("gelu (64, 512)", [rows], F.gelu, composite_gelu, tf and tf.gelu),
        ("silu (64, 512)", [rows], F.silu, composite_silu, tf and tf.silu),
        ("leaky_relu (64, 512)", [rows], F.leaky_relu, composite_leaky_relu, tf and tf.leaky_relu),
        (
            "layer_norm (64, 512)",
            [rows, ones512, ones512 * 0],
            lambda x, w, b: F.layer_norm(x, (512,), w, b),
            composite_layer_norm,
            tf and (lambda x, w, b: tf.layer_norm(x, (512,), w, b)),
        ),
        (
            "batch_norm train (32, 64, 16, 16)",
            [image, ones64, ones64 * 0],
            lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
            composite_batch_norm,
            tf and (lambda x, w, b: tf.batch_norm(x, None, None, w, b, training=True)),
        ),
        (
            "group_norm 8 groups (32, 64, 16, 16)",
            [image, ones64, ones64 * 0],
            lambda x, w, b: F.group_norm(x, 8, w, b),
            composite_group_norm,
            tf and (lambda x, w, b: tf.group_norm(x, 8, w, b)),
        ),
    ]


def _step(library, function, arrays):
    inputs = [library.tensor(array, requires_grad=True) for array in arrays]
    upstream = None

    def step():
        nonlocal upstream
        for tensor in inputs:
            tensor.grad = None
        output = function(*inputs)
        if upstream is None:
            upstream = library.ones_like(output)
        output.backward(upstream)
        return output, inputs[0].grad

    return step


def main():
    torch = try_import_torch()
    for title, arrays, fused, composite, torch_function in _workloads(torch):
        steps = {"primitive": _step(ember, fused, arrays), "composite": _step(ember, composite, arrays)}
        if torch_function is not None:
            steps["torch"] = _step(torch, torch_function, arrays)
        (fused_output, fused_grad), (composite_output, composite_grad) = steps["primitive"](), steps["composite"]()
        np.testing.assert_allclose(fused_output.detach().numpy(), composite_output.detach().numpy(), atol=1e-4)
        np.testing.assert_allclose(fused_grad.numpy(), composite_grad.numpy(), atol=1e-3)
        times = measure_side_by_side(steps, repeats=10)
        print(f"\n{title}, forward + backward")
        for name, seconds in times.items():
            print(f"  {name:<10} {format_seconds(seconds):>12}")
        print(f"  composite/primitive: {times['composite'] / times['primitive']:.2f}x")
        if "torch" in times:
            print(f"  primitive/torch:     {times['primitive'] / times['torch']:.2f}x")


if __name__ == "__main__":
    main()
