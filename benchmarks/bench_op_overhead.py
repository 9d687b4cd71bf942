"""Per-op overhead: a chain of 1,000 element-wise ops on a 1-element float32 tensor, forward+backward.

The NumPy version is the floor: forward and backward derived by hand, no engine.
"""

import numpy as np

from common import measure_side_by_side, report, try_import_torch

CHAIN = 250  # x 4 ops = 1,000 ops


def numpy_step():
    x = np.ones(1, np.float32)
    saved = []
    y = x
    scale, shift = np.float32(1.0001), np.float32(0.5)
    for _ in range(CHAIN):
        a = y * scale
        b = a + shift
        c = np.tanh(b)
        d = np.sin(c)
        saved.append((c, np.cos(c)))
        y = d
    grad = np.ones(1, np.float32)
    for c, cos_c in reversed(saved):
        grad = grad * cos_c
        grad = grad * (1 - c * c)
        grad = grad * scale
    return y, grad


def library_step(lib):
    x = lib.ones(1, requires_grad=True)

    def step():
        y = x
        for _ in range(CHAIN):
            y = (y * 1.0001 + 0.5).tanh().sin()
        y.backward()
        x.grad = None
        return y

    return step


def run():
    steps = {"numpy": numpy_step}
    torch = try_import_torch()
    if torch is not None:
        steps["torch"] = library_step(torch)
    import ember

    steps["ember"] = library_step(ember)
    times = measure_side_by_side(steps, 20)
    return report("op overhead, per element-wise op (fwd+bwd)", times, unit_divisor=4 * CHAIN, target="<= 0.6x PyTorch")


if __name__ == "__main__":
    run()
