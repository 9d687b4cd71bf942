"""Peak memory (max RSS) of a process that trains the MLP of bench_mlp for 20 steps, and the cost
of `import` alone, each measured in a fresh Python process."""

import os
import subprocess
import sys


HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Peak RSS is read from /proc (VmHWM): getrusage's ru_maxrss survives exec, so a child of a big
# benchmark process would report at least its parent's size.
_PEAK = "int(next(l for l in open('/proc/self/status') if l.startswith('VmHWM')).split()[1]) * 1024"

_TRAIN = (
    """
import sys
sys.path[:0] = [{here!r}, {root!r}]
import bench_mlp
params, x, y = bench_mlp.make_data()
{setup}
for _ in range(20):
    step()
print("""
    + _PEAK
    + """)
"""
)

_SETUPS = {
    "numpy": "step = bench_mlp.numpy_step(params, x, y)",
    "torch": "import torch; torch.set_num_threads(2); step = bench_mlp.library_step(torch, params, x, y)",
    "ember": "import ember; step = bench_mlp.library_step(ember, params, x, y)",
}

_IMPORT = (
    "import sys, time; sys.path.insert(0, {root!r}); start = time.perf_counter(); import {module}; "
    "print(time.perf_counter() - start, " + _PEAK + ")"
)


def _run(code):
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return result.stdout.split()


def _available(name):
    if name != "torch":
        return True
    try:
        import importlib.util

        return importlib.util.find_spec("torch") is not None
    except ImportError:
        return False


def run():
    peaks = {}
    for name, setup in _SETUPS.items():
        if _available(name):
            peaks[name] = int(_run(_TRAIN.format(here=HERE, root=ROOT, setup=setup))[-1])
    print("\npeak memory of the MLP training process")
    for name, peak in peaks.items():
        print(f"  {name:<8} {peak / 2**20:8.1f} MB")
    print(f"  ember/numpy: {peaks['ember'] / peaks['numpy']:.2f}x   (target <= 1.3x NumPy)")
    row = {
        "workload": "peak memory, MLP training (MB)",
        **{k: v / 2**20 for k, v in peaks.items()},
        "ember/numpy": peaks["ember"] / peaks["numpy"],
    }

    # Import ember as an installed package is imported: from bytecode (pip compiles it at install;
    # a source checkout run with PYTHONDONTWRITEBYTECODE=1 would recompile every module each time).
    import compileall

    compileall.compile_dir(os.path.join(ROOT, "ember"), quiet=1)
    imports = {}
    for module in ("numpy", "torch", "ember"):
        if _available(module):
            samples = [_run(_IMPORT.format(root=ROOT, module=module)) for _ in range(5)]
            seconds = sorted(float(s[0]) for s in samples)[2]
            memory = sorted(int(s[1]) for s in samples)[2]
            imports[module] = (seconds, memory)
    print("\nimport cost (median of 5 fresh processes)")
    for module, (seconds, memory) in imports.items():
        print(f"  import {module:<6} {seconds * 1e3:8.1f} ms {memory / 2**20:8.1f} MB")
    if "torch" in imports:
        print(
            f"  ember/torch: {imports['ember'][0] / imports['torch'][0]:.2f}x time, "
            f"{imports['ember'][1] / imports['torch'][1]:.2f}x memory   (target <= 0.2x)"
        )
    return row


if __name__ == "__main__":
    run()
