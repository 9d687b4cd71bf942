"""Op-table cases for fractional max pooling (`F.fractional_max_pool2d` / `3d` and their
`_with_indices` forms). The `_random_samples` are bound in, drawn from a fixed seed for the input's
(batch, channels), so every run pools the same windows in ember, NumPy and torch."""

import functools
import itertools
import math

import numpy as np

import ember
import ember.nn.functional as F

from .op_table import OpCase


def _samples_array(x, n):
    """Fixed samples in [0, 1) of shape (N, C, n) for an (N, C, *spatial) or (C, *spatial) input."""
    shape = tuple(x.shape)
    return _samples_of_shape((shape[0] if len(shape) == n + 2 else 1, shape[-n - 1], n))


@functools.lru_cache(maxsize=None)
def _samples_of_shape(shape):
    # Made once per shape: ember.compile's replay of a step that wraps a NumPy array made afresh
    # inside it (ember.tensor(np.random...)) differs from eager (a compile limitation, not this op's).
    return np.random.default_rng(5).random(shape)


def _ember_samples(x, n):
    return ember.tensor(_samples_array(x, n))


def _torch_samples(torch, x, n):
    return torch.tensor(_samples_array(x, n))


def _distinct(shapes, rng):
    """Inputs without ties (0.1 apart), so the maxima, and so the gradient, are well defined."""
    return [(rng.permutation(math.prod(shape)).reshape(shape) - math.prod(shape) / 2) * 0.1 for shape in shapes]


def _starts(u, size, out, pool):
    """ATen's interval rule, written out in float64 (the cases' dtype)."""
    if out == 1:
        return [size - pool]
    alpha = (size - pool) / (out - 1)
    return [int((i + u) * alpha) - int(u * alpha) for i in range(out - 1)] + [size - pool]


def np_fractional_max_pool(x, kernel, out, samples, n):
    """(values, flat indices): the first maximum of every window, scanning each plane's windows in order."""
    unbatched = x.ndim == n + 1
    x = x[None] if unbatched else x
    values = np.empty(x.shape[:2] + tuple(out))
    indices = np.empty(x.shape[:2] + tuple(out), dtype=np.int64)
    spatial = x.shape[2:]
    # 2-d samples hold (width, height); 3-d samples (time, height, width).
    order = (1, 0) if n == 2 else (0, 1, 2)
    for b, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        starts = [_starts(samples[b, c, order[d]], spatial[d], out[d], kernel[d]) for d in range(n)]
        plane = x[b, c].ravel()
        for position in itertools.product(*[range(o) for o in out]):
            window = [range(starts[d][position[d]], starts[d][position[d]] + kernel[d]) for d in range(n)]
            flat = [int(np.ravel_multi_index(point, spatial)) for point in itertools.product(*window)]
            best = flat[int(np.argmax(plane[flat]))]
            values[(b, c) + position], indices[(b, c) + position] = plane[best], best
    return (values[0], indices[0]) if unbatched else (values, indices)


def _reference(kernel, out, n, with_indices=False):
    def reference(x):
        values, indices = np_fractional_max_pool(x, kernel, out, _samples_array(x, n), n)
        return (values, indices) if with_indices else values

    return reference


CASES = [
    OpCase(
        "nn_fractional_max_pool2d",
        lambda x: F.fractional_max_pool2d(x, 2, output_size=(4, 3), _random_samples=_ember_samples(x, 2)),
        _reference((2, 2), (4, 3), 2),
        [((2, 3, 9, 7),), ((3, 6, 5),)],
        make_inputs=_distinct,
        torch_fn=lambda t, x: t.nn.functional.fractional_max_pool2d(
            x, 2, output_size=(4, 3), _random_samples=_torch_samples(t, x, 2)
        ),
    ),
    OpCase(
        "nn_fractional_max_pool2d_with_indices_ratio",
        lambda x: F.fractional_max_pool2d_with_indices(
            x, (3, 2), output_ratio=(0.5, 0.75), _random_samples=_ember_samples(x, 2)
        ),
        _reference((3, 2), (4, 6), 2, with_indices=True),
        [((2, 2, 8, 8),)],
        make_inputs=_distinct,
        torch_fn=lambda t, x: t.nn.functional.fractional_max_pool2d_with_indices(
            x, (3, 2), output_ratio=(0.5, 0.75), _random_samples=_torch_samples(t, x, 2)
        ),
    ),
    OpCase(
        "nn_fractional_max_pool3d",
        lambda x: F.fractional_max_pool3d(x, 2, output_size=(3, 2, 3), _random_samples=_ember_samples(x, 3)),
        _reference((2, 2, 2), (3, 2, 3), 3),
        [((1, 2, 5, 4, 6),), ((2, 6, 5, 5),)],
        make_inputs=_distinct,
        torch_fn=lambda t, x: t.nn.functional.fractional_max_pool3d(
            x, 2, output_size=(3, 2, 3), _random_samples=_torch_samples(t, x, 3)
        ),
    ),
    OpCase(
        "nn_fractional_max_pool3d_with_indices_ratio",
        lambda x: F.fractional_max_pool3d_with_indices(
            x, (2, 3, 1), output_ratio=0.5, _random_samples=_ember_samples(x, 3)
        ),
        _reference((2, 3, 1), (3, 3, 2), 3, with_indices=True),
        [((2, 1, 6, 6, 5),)],
        make_inputs=_distinct,
        torch_fn=lambda t, x: t.nn.functional.fractional_max_pool3d_with_indices(
            x, (2, 3, 1), output_ratio=0.5, _random_samples=_torch_samples(t, x, 3)
        ),
    ),
]
