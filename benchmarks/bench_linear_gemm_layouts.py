"""Linear's three GEMMs in each orientation NumPy can hand to BLAS, on the MLP's shapes (batch 128).

For y = x @ W.T + b, grad_x = g @ W and grad_W = g.T @ x (what ember's Linear computes, eager and
replayed), each alternative gives the same product as a transposed view; the results have to be
C-contiguous (PyTorch's Linear output and weight.grad are), so the alternatives are timed with and
without the copy back to C order. Times are medians over interleaved calls; the ratio is to the
form ember uses (first in each row).

    python bench_linear_gemm_layouts.py [--one-thread] [repeats]
"""

import os
import statistics
import sys

import numpy as np

import common

BATCH = 128
LAYERS = ((784, 512), (512, 512), (512, 10))


def variants(fan_in, fan_out, rng):
    x = rng.standard_normal((BATCH, fan_in)).astype(np.float32)
    weight = rng.standard_normal((fan_out, fan_in)).astype(np.float32)
    bias = rng.standard_normal(fan_out).astype(np.float32)
    grad = rng.standard_normal((BATCH, fan_out)).astype(np.float32)

    def forward():
        result = x @ weight.T
        result += bias
        return result

    def forward_transposed():
        result = weight @ x.T
        result += bias[:, None]
        return np.ascontiguousarray(result.T)

    def forward_transposed_bias_in_copy():
        result = np.empty((BATCH, fan_out), np.float32)
        np.add((weight @ x.T).T, bias, out=result)
        return result

    return {
        f"forward {fan_in}->{fan_out}": {
            "x @ W.T, += b": forward,
            "(W @ x.T + b).T, C copy": forward_transposed,
            "b + (W @ x.T).T into C": forward_transposed_bias_in_copy,
        },
        f"grad_W {fan_in}->{fan_out}": {
            "g.T @ x": lambda: grad.T @ x,
            "(x.T @ g).T, no copy": lambda: (x.T @ grad).T,
            "(x.T @ g).T, C copy": lambda: np.ascontiguousarray((x.T @ grad).T),
            "C(g.T) @ x": lambda: np.ascontiguousarray(grad.T) @ x,
        },
        f"grad_x {fan_in}->{fan_out}": {
            "g @ W": lambda: grad @ weight,
            "(W.T @ g.T).T, no copy": lambda: (weight.T @ grad.T).T,
            "(W.T @ g.T).T, C copy": lambda: np.ascontiguousarray((weight.T @ grad.T).T),
        },
    }


def run(repeats):
    rng = np.random.default_rng(0)
    for fan_in, fan_out in LAYERS:
        for title, forms in variants(fan_in, fan_out, rng).items():
            reference = next(iter(forms.values()))()
            for form in forms.values():
                np.testing.assert_allclose(form(), reference, rtol=1e-4, atol=1e-3)
            samples = {name: [] for name in forms}
            for _ in range(repeats):
                for name, form in forms.items():
                    start = common.clock()
                    form()
                    samples[name].append(common.clock() - start)
            medians = {name: statistics.median(values) for name, values in samples.items()}
            first = next(iter(medians.values()))
            cells = [f"{name} {common.format_seconds(m)} ({m / first:.2f}x)" for name, m in medians.items()]
            print(f"{title:<18} " + " | ".join(cells))


if __name__ == "__main__":
    arguments = sys.argv[1:]
    if "--one-thread" in arguments:
        if os.environ.get("OPENBLAS_NUM_THREADS") != "1":  # (read when NumPy loads: start again with it)
            os.execve(sys.executable, [sys.executable, *sys.argv], dict(os.environ, OPENBLAS_NUM_THREADS="1"))
        common.measure_one_thread_cpu_time()
    counts = [int(argument) for argument in arguments if argument.isdigit()]
    run(counts[0] if counts else 60)
