"""Timing helpers shared by the benchmarks: medians per round, the best round, and a table.

The machines are noisy (they drift up to ~1.7x between runs), so every figure that matters is a
ratio between implementations measured side by side in the same run.
"""
import statistics
import time

ROUNDS = 2


def measure(step, repeats, warmup=3):
    """Seconds per call of `step`: the lower of the per-round medians."""
    for _ in range(warmup):
        step()
    medians = []
    for _ in range(ROUNDS):
        samples = []
        for _ in range(repeats):
            start = time.perf_counter()
            step()
            samples.append(time.perf_counter() - start)
        medians.append(statistics.median(samples))
    return min(medians)


def try_import_torch():
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(2)
    return torch


def format_seconds(seconds):
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.3f} ms"
    return f"{seconds:.2f} s"


def report(title, times, unit_divisor=1, target=None):
    """Print one workload's times and the ratios ember/NumPy and ember/PyTorch; return the row."""
    ember_time = times.get("ember")
    row = {"workload": title}
    print(f"\n{title}")
    for name, seconds in times.items():
        print(f"  {name:<8} {format_seconds(seconds / unit_divisor):>12}")
        row[name] = seconds / unit_divisor
    for reference in ("numpy", "torch"):
        if ember_time is not None and reference in times:
            ratio = ember_time / times[reference]
            row[f"ember/{reference}"] = ratio
            print(f"  ember/{reference}: {ratio:.2f}x")
    if target:
        print(f"  target: {target}")
    return row
