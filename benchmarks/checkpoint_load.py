"""Loading a ~400 MB checkpoint: time and peak memory of ember.load against torch.load.

Each library saves the same state_dict (100 float32 tensors of 1M elements) in its own format; then
a fresh Python process per library loads it: the extra peak memory is VmHWM after the first load
minus VmRSS before it (the file is read once beforehand so both find it in the page cache), and the
time is the best of three further loads. Targets (issue 12): peak <= 1.2x the file, time <= 2x torch.

    python benchmarks/checkpoint_load.py [megabytes]
"""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

_CHILD = """
import sys, time
sys.path.insert(0, {root!r})
import {module} as library

def status(field):
    return int(next(l for l in open('/proc/self/status') if l.startswith(field)).split()[1]) * 1024

with open({path!r}, 'rb') as f:
    while f.read(1 << 24):
        pass
before = status('VmRSS')
state = library.load({path!r}{extra})
peak = status('VmHWM') - before
del state
times = []
for _ in range(3):
    start = time.perf_counter()
    state = library.load({path!r}{extra})
    times.append(time.perf_counter() - start)
    del state
print(min(times), peak)
"""


def _measure(module, path, extra=""):
    code = _CHILD.format(root=ROOT, module=module, path=path, extra=extra)
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    seconds, peak = output.split()
    return float(seconds), int(peak)


def main(megabytes=400):
    import numpy as np

    count = megabytes // 4
    arrays = {f"layer{i}.weight": np.full(1 << 20, i, dtype=np.float32) for i in range(count)}
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        ember_path = os.path.join(folder, "ember.pt")
        sys.path.insert(0, ROOT)
        import ember

        ember.save({key: ember.from_numpy(value) for key, value in arrays.items()}, ember_path)
        rows.append(("ember", ember_path, *_measure("ember", ember_path)))
        rows.append(("ember mmap=True", ember_path, *_measure("ember", ember_path, ", mmap=True")))
        try:
            import torch
        except ImportError:
            torch = None
        if torch is not None:
            torch_path = os.path.join(folder, "torch.pt")
            torch.save({key: torch.from_numpy(value) for key, value in arrays.items()}, torch_path)
            rows.append(("torch", torch_path, *_measure("torch", torch_path, ", weights_only=True")))
        print(f"checkpoint of {count} float32 tensors of 1M elements")
        print(f"{'library':<18}{'file MB':>9}{'load s':>9}{'peak MB':>9}{'peak/file':>11}")
        for name, path, seconds, peak in rows:
            size = os.path.getsize(path)
            print(f"{name:<18}{size / 2**20:>9.1f}{seconds:>9.3f}{peak / 2**20:>9.1f}{peak / size:>11.2f}")
        if torch is not None:
            torch_seconds = rows[-1][2]
            for name, _, seconds, _ in rows[:-1]:
                print(f"{name} / torch time: {seconds / torch_seconds:.2f}x")


if __name__ == "__main__":
    main(*(int(argument) for argument in sys.argv[1:2]))
