"""Peak memory of one ember.compile replay against one eager ember step (issue 13: replay <= eager).

NumPy reports its array buffers to tracemalloc, so the peak traced size reached during a step, less
what was traced just before it, is the step's peak working memory (arrays kept from the previous
step, such as the old `.grad`s, count when a step still holds them at its peak). Each step is
measured after warm-up calls, so a replay is measured, not the recording.

Also printed: minor page faults per step after warm-up. A replay frees each array at its last use
and lets malloc hand the memory to the next array (ember/_allocator.py keeps freed blocks in the
process), so a warm step should fault no new pages in: this column shows whether it does.

    python bench_compile_memory.py [mlp|lenet|custom|transformer ...]
"""

import resource
import sys
import tracemalloc

import bench_compile
import bench_custom_function
import bench_lenet
import bench_mlp

WORKLOADS = {
    "mlp": ("MLP 784-512-512-10 step", lambda lib: bench_mlp.library_step(lib, *bench_mlp.make_data())),
    "lenet": ("LeNet-5 step", lambda lib: bench_lenet.library_step(lib, *bench_lenet.make_data())),
    "custom": (
        "custom Function z = w*x+b, 1000x1000",
        lambda lib: bench_custom_function.library_step(lib, *bench_custom_function.make_data()),
    ),
    "transformer": ("char Transformer step", bench_compile.transformer_step),
}


def faults_per_step(step, warmup=5, steps=20):
    """Minor page faults (pages first touched) per call, after `warmup` calls."""
    for _ in range(warmup):
        step()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(steps):
        step()
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / steps


def peak_bytes(step, warmup=3, rounds=3):
    """The smallest, over `rounds` calls, of the peak traced bytes above the level before the call.
    The warm-up calls are traced too, so the arrays they leave (gradients, optimizer state) are
    traced when a measured call frees or keeps them."""
    peaks = []
    tracemalloc.start()
    try:
        for _ in range(warmup):
            step()
        for _ in range(rounds):
            before = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            step()
            peaks.append(tracemalloc.get_traced_memory()[1] - before)
    finally:
        tracemalloc.stop()
    return min(peaks)


def run_workload(name):
    import ember

    title, make = WORKLOADS[name]
    eager_step = make(ember)
    eager = peak_bytes(eager_step)
    compiled = ember.compile(make(ember), verify=0)
    replayed = peak_bytes(compiled)
    if compiled.eager_reason:
        print(f"  ember.compile fell back to eager: {compiled.eager_reason[0]}")
    ratio = replayed / eager
    faults = faults_per_step(eager_step), faults_per_step(compiled)
    print(
        f"{title}: peak eager {eager / 2**20:.2f} MiB, replay {replayed / 2**20:.2f} MiB, replay/eager {ratio:.2f}x; "
        f"page faults per step eager {faults[0]:.1f}, replay {faults[1]:.1f}"
    )
    return title, eager, replayed, ratio, faults


if __name__ == "__main__":
    names = sys.argv[1:] or list(WORKLOADS)
    rows = [run_workload(name) for name in names]
    print(
        "\n| workload | eager peak | replay peak | replay/eager (target <= 1.0x) | page faults per step (eager / replay) |"
    )
    print("|---|---:|---:|---:|---:|")
    for title, eager, replayed, ratio, faults in rows:
        print(
            f"| {title} | {eager / 2**20:.2f} MiB | {replayed / 2**20:.2f} MiB | {ratio:.2f}x | "
            f"{faults[0]:.1f} / {faults[1]:.1f} |"
        )
