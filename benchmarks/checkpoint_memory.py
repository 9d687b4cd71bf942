"""Peak memory of a deep MLP's forward + backward with and without activation checkpointing.

Run: PYTHONPATH=. python benchmarks/checkpoint_memory.py [--depth 32 --width 256 --batch 2048]
NumPy reports its allocations to tracemalloc, so the peak it measures covers every array ember makes.
"""

import argparse
import time
import tracemalloc

import ember
from ember.utils.checkpoint import checkpoint_sequential


def build(depth, width):
    ember.manual_seed(0)
    layers = []
    for _ in range(depth):
        layers += [ember.nn.Linear(width, width), ember.nn.Tanh()]
    return ember.nn.Sequential(*layers)


def peak_of_training_step(model, x, segments, use_reentrant):
    model.zero_grad(set_to_none=True)
    tracemalloc.start()
    tracemalloc.reset_peak()
    start = time.perf_counter()
    if segments:
        output = checkpoint_sequential(model, segments, x, use_reentrant=use_reentrant)
    else:
        output = model(x)
    output.square().mean().backward()
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=32)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--batch", type=int, default=2048)
    parser.add_argument("--segments", type=int, default=6)
    options = parser.parse_args()
    model = build(options.depth, options.width)
    x = ember.randn(options.batch, options.width, requires_grad=True)
    print(f"MLP: {options.depth} x Linear({options.width}, {options.width}) + Tanh, batch {options.batch}, float32")
    baseline, baseline_seconds = peak_of_training_step(model, x, 0, False)
    print(f"  no checkpointing:                  peak {baseline / 2**20:7.1f} MiB  {baseline_seconds:6.2f} s")
    for use_reentrant in (False, True):
        peak, seconds = peak_of_training_step(model, x, options.segments, use_reentrant)
        print(
            f"  checkpoint_sequential({options.segments}, use_reentrant={use_reentrant!s:5}): "
            f"peak {peak / 2**20:7.1f} MiB  {seconds:6.2f} s  -> {baseline / peak:.2f}x less memory"
        )


if __name__ == "__main__":
    main()
