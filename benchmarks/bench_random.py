"""Random fills: ember (PyTorch's Mersenne Twister and kernels, bit-identical) against PyTorch and
against plain NumPy PCG64 draws, which is what ember did before it matched PyTorch's numbers.

    python bench_random.py
"""

import numpy as np

import ember
from common import measure_side_by_side, try_import_torch

torch = try_import_torch()
old = np.random.default_rng(0)

WORKLOADS = {
    "rand(1e6) float32": (lambda lib: lib.rand(1_000_000), lambda: old.random(1_000_000).astype(np.float32)),
    "randn(1e6) float32": (lambda lib: lib.randn(1_000_000), lambda: old.standard_normal(1_000_000).astype(np.float32)),
    "randn(1e6) float64": (lambda lib: lib.randn(1_000_000, dtype=lib.float64), lambda: old.standard_normal(1_000_000)),
    "randint(0, 10, 1e6)": (lambda lib: lib.randint(0, 10, (1_000_000,)), lambda: old.integers(0, 10, 1_000_000)),
    "randperm(60000)": (lambda lib: lib.randperm(60_000), lambda: old.permutation(60_000)),
    "dropout(1e6, 0.5)": (
        lambda lib: lib.nn.functional.dropout(lib.ones(1_000_000), 0.5),
        lambda: (old.random(1_000_000, dtype=np.float32) >= 0.5).astype(np.float32) * np.float32(2),
    ),
    "Linear(512, 512) init": (lambda lib: lib.nn.Linear(512, 512), lambda: old.uniform(-1, 1, (512 * 513,))),
}


def run():
    print(
        f"{'workload':24} {'NumPy PCG64 (old)':>18} {'PyTorch':>10} {'ember':>10} {'ember/old':>10} {'ember/torch':>12}"
    )
    for name, (library_step, numpy_step) in WORKLOADS.items():
        steps = {"old": numpy_step, "ember": lambda: library_step(ember)}
        if torch is not None:
            steps["torch"] = lambda: library_step(torch)
        times = measure_side_by_side(steps, repeats=5, warmup=1)
        torch_time = times.get("torch")
        torch_cell = f"{torch_time * 1e3:8.2f}ms" if torch_time else f"{'':>10}"
        ratio = f"{times['ember'] / torch_time:11.2f}x" if torch_time else ""
        print(
            f"{name:24} {times['old'] * 1e3:16.2f}ms {torch_cell} {times['ember'] * 1e3:8.2f}ms "
            f"{times['ember'] / times['old']:9.2f}x {ratio}"
        )


if __name__ == "__main__":
    if torch is not None:
        torch.set_num_threads(2)
    run()
