"""Gamma, Poisson, binomial and Dirichlet sampling: ember (PyTorch's CPU algorithms on its Mersenne
Twister, element by element in Python so that the draws are PyTorch's) against PyTorch and against
NumPy's own vectorized samplers, which is what ember used before it matched PyTorch's numbers.

    python bench_rejection_samplers.py
"""

import numpy as np

import ember
from common import measure_side_by_side, try_import_torch

torch = try_import_torch()
old = np.random.default_rng(0)
N = 100_000

WORKLOADS = {
    "_standard_gamma(0.5)": (
        lambda lib: lib._standard_gamma(lib.full((N,), 0.5)),
        lambda: old.standard_gamma(np.full(N, 0.5)).astype(np.float32),
    ),
    "_standard_gamma(5)": (
        lambda lib: lib._standard_gamma(lib.full((N,), 5.0)),
        lambda: old.standard_gamma(np.full(N, 5.0)).astype(np.float32),
    ),
    "poisson(3)": (lambda lib: lib.poisson(lib.full((N,), 3.0)), lambda: old.poisson(np.full(N, 3.0))),
    "poisson(100)": (lambda lib: lib.poisson(lib.full((N,), 100.0)), lambda: old.poisson(np.full(N, 100.0))),
    "binomial(20, 0.3)": (
        lambda lib: lib.binomial(lib.full((N,), 20.0), lib.full((N,), 0.3)),
        lambda: old.binomial(20, np.full(N, 0.3)),
    ),
    "binomial(1000, 0.3)": (
        lambda lib: lib.binomial(lib.full((N,), 1000.0), lib.full((N,), 0.3)),
        lambda: old.binomial(1000, np.full(N, 0.3)),
    ),
    "_sample_dirichlet(N/4 x 4)": (
        lambda lib: lib._sample_dirichlet(lib.full((N // 4, 4), 2.0)),
        lambda: old.dirichlet(np.full(4, 2.0), N // 4),
    ),
    "_standard_gamma_grad": (
        lambda lib: lib._standard_gamma_grad(lib.full((N,), 2.0), lib.full((N,), 1.5)),
        lambda: None,
    ),
}


def run():
    print(f"{N} elements each")
    print(f"{'workload':28} {'NumPy (old)':>12} {'PyTorch':>10} {'ember':>10} {'ember/old':>10} {'ember/torch':>12}")
    for name, (library_step, numpy_step) in WORKLOADS.items():
        steps = {"old": numpy_step, "ember": lambda: library_step(ember)}
        if torch is not None:
            steps["torch"] = lambda: library_step(torch)
        times = measure_side_by_side(steps, repeats=1, warmup=1)
        torch_time = times.get("torch")
        torch_cell = f"{torch_time * 1e3:8.2f}ms" if torch_time else f"{'':>10}"
        ratio = f"{times['ember'] / torch_time:11.1f}x" if torch_time else ""
        print(
            f"{name:28} {times['old'] * 1e3:10.2f}ms {torch_cell} {times['ember'] * 1e3:8.2f}ms "
            f"{times['ember'] / times['old']:9.1f}x {ratio}"
        )
    print(f"ember per element, _standard_gamma(5): {times_per_element('_standard_gamma(5)'):.2f} us")


def times_per_element(name):
    step = WORKLOADS[name][0]
    return measure_side_by_side({"ember": lambda: step(ember)}, repeats=1, warmup=1)["ember"] / N * 1e6


if __name__ == "__main__":
    run()
