"""Timing helpers shared by the benchmarks: medians per round, the best round, and a table.

The machines are noisy (they drift up to ~1.7x between runs), so every figure that matters is a
ratio between implementations measured side by side in the same run.
"""

import statistics
import time

ROUNDS = 3


TORCH_THREADS = 2
clock = time.perf_counter


def measure_one_thread_cpu_time():
    """Time steps by this process's CPU time, everything on one thread (NumPy's BLAS and PyTorch): on
    a machine other processes share, wall-clock time mostly measures the others, and BLAS threads
    that wait for a busy core cost far more than they save. The BLAS thread count is read when NumPy
    loads, so OPENBLAS_NUM_THREADS=1 must be set before (bench_compile.py --one-thread does it)."""
    global clock, TORCH_THREADS
    clock, TORCH_THREADS = time.process_time, 1


def measure_side_by_side(steps, repeats, warmup=3):
    """Seconds per call of each step in `steps` ({name: step}): the lower of its per-round medians.

    Rounds alternate between the implementations, so a drift of the machine during the run hits
    them all alike instead of whichever happened to be measured last."""
    for step in steps.values():
        for _ in range(warmup):
            step()
    medians = {name: [] for name in steps}
    for _ in range(ROUNDS):
        for name, step in steps.items():
            samples = []
            for _ in range(repeats):
                start = clock()
                step()
                samples.append(clock() - start)
            medians[name].append(statistics.median(samples))
    return {name: min(values) for name, values in medians.items()}


def median_pair_ratio(step, reference, pairs, warmup=3):
    """The median over `pairs` of step's time / reference's time, the two run one after the other
    (in turns: which goes first alternates). Steal and drift on a shared machine last longer than a
    step, so each pair sees the same machine, where rounds of many steps do not."""
    for _ in range(warmup):
        step()
        reference()
    ratios = []
    for index in range(pairs):
        order = (step, reference) if index % 2 == 0 else (reference, step)
        seconds = []
        for call in order:
            start = clock()
            call()
            seconds.append(clock() - start)
        mine, theirs = seconds if index % 2 == 0 else seconds[::-1]
        ratios.append(mine / theirs)
    return statistics.median(ratios)


def measure(step, repeats, warmup=3):
    """Seconds per call of one `step` (see measure_side_by_side)."""
    return measure_side_by_side({"step": step}, repeats, warmup)["step"]


def try_import_torch():
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(TORCH_THREADS)
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
