"""Distributed training on this machine: MLP step scaling from 1 to 2 processes, and the cost of
averaging a 10 MB gradient (ember's all_reduce and DDP against mpi4py's raw Allreduce, the floor).

    python bench_distributed.py          # launches itself with mpiexec -n 1 and -n 2, prints a table

Each process uses one BLAS thread (OMP_NUM_THREADS=1, as torchrun sets), so 2 processes on 2 cores
can scale. The step is weak-scaled: every process trains on its own batch of 128, so the time per
sample is the step time / (128 x processes), and the efficiency is the speed-up over one process
divided by the number of processes (100% is perfect scaling). Measure on an idle machine: with
other work running, 2 processes on 2 cores compete for the CPU and the figures mean little.

The 10 MB figures, all on 2 processes and the same 10 MB of float32:
- floor: mpi4py's blocking `Allreduce` in place on a NumPy buffer;
- `ember.distributed.all_reduce` on a tensor of that size (a non-blocking Iallreduce and its wait);
- DDP's overhead: (forward + backward of a bias-free Linear whose weight is the 10 MB, wrapped in
  DDP) minus (the same forward + backward without DDP, then a barrier: no reduction can end before
  the slowest rank's backward has, so that wait is not DDP's). The model has one parameter, so
  nothing of backward is left to overlap the reduction with: this is the whole cost DDP adds
  (averaging, hooks, waiting and the collective itself), and 1.0x the floor means DDP costs no
  more than the bare collective. The averaging, one pass dividing the 10 MB by the world size, is
  timed too: it is the part of DDP's cost that no implementation avoids.
The four are timed in turns, each after a barrier, and their medians compared, so a change of load
on the machine hits them alike; the ratios are of figures from the same run.
"""

import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BATCH = 128
GRADIENT_FLOATS = 10 * 1024 * 1024 // 4  # 10 MB of float32
REPEATS = 40


def median_time(function, repeats):
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return sorted(times)[len(times) // 2]


def median_times_in_turns(functions, repeats, barrier):
    """The median time of each of `functions` (a dict), run one after the other `repeats` times,
    each after `barrier()` so that every rank starts it together."""
    times = {name: [] for name in functions}
    for _ in range(repeats):
        for name, function in functions.items():
            barrier()
            started = time.perf_counter()
            function()
            times[name].append(time.perf_counter() - started)
    return {name: sorted(values)[len(values) // 2] for name, values in times.items()}


def worker():
    import numpy as np
    from mpi4py import MPI

    import ember
    import ember.distributed as dist
    from ember import nn
    from ember.nn.parallel import DistributedDataParallel

    dist.init_process_group("mpi")
    rank, size = dist.get_rank(), dist.get_world_size()
    ember.manual_seed(0)
    model = DistributedDataParallel(
        nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    )
    optimizer = ember.optim.SGD(model.parameters(), lr=0.01)
    x, y = ember.randn(BATCH, 784), ember.randint(0, 10, (BATCH,))

    def step():
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()

    step()
    dist.barrier()
    step_time = median_time(step, 30)

    # A model whose gradient is 10 MB, to compare DDP's reduction with the bare collective.
    big = nn.Linear(GRADIENT_FLOATS // 1024, 1024, bias=False)
    ddp_big = DistributedDataParallel(big)
    source = ember.randn(1, GRADIENT_FLOATS // 1024)

    def backward(with_ddp):
        big.zero_grad()
        (ddp_big if with_ddp else big)(source).sum().backward()
        if not with_ddp:  # DDP's reduction waits for the slowest rank: so does the baseline
            MPI.COMM_WORLD.Barrier()

    buffer = np.ones(GRADIENT_FLOATS, np.float32)
    tensor = ember.ones(GRADIENT_FLOATS)
    backward(True)
    backward(False)
    medians = median_times_in_turns(
        {
            "raw": lambda: MPI.COMM_WORLD.Allreduce(MPI.IN_PLACE, buffer),
            "ours": lambda: dist.all_reduce(tensor),
            "ddp": lambda: backward(True),
            "local": lambda: backward(False),
            "averaging": lambda: np.multiply(buffer, 0.5, out=buffer),
        },
        REPEATS,
        MPI.COMM_WORLD.Barrier,
    )
    if rank == 0:
        print(
            "RESULT "
            + json.dumps(
                {
                    "size": size,
                    "step": step_time,
                    "raw_allreduce": medians["raw"],
                    "all_reduce": medians["ours"],
                    "ddp_added": max(medians["ddp"] - medians["local"], 0.0),
                    "local_backward": medians["local"],
                    "averaging": medians["averaging"],
                }
            ),
            flush=True,
        )
    dist.destroy_process_group()


def launch(processes):
    environment = dict(
        os.environ,
        OMP_NUM_THREADS="1",
        PYTHONPATH=os.path.dirname(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    )
    from ember.distributed._mpi import find_mpiexec

    output = subprocess.run(
        [find_mpiexec(), "-n", str(processes), sys.executable, __file__, "--worker"],
        capture_output=True,
        text=True,
        env=environment,
        stdin=subprocess.DEVNULL,
        check=True,
    ).stdout
    return next(json.loads(line[len("RESULT ") :]) for line in output.splitlines() if line.startswith("RESULT "))


def main():
    sys.path.insert(0, os.path.dirname(HERE))
    one, two = launch(1), launch(2)
    per_sample = [result["step"] / (BATCH * result["size"]) for result in (one, two)]
    print(f"MLP 784-512-512-10, batch {BATCH} per process, SGD step (OMP_NUM_THREADS=1):")
    print(f"  1 process : {one['step'] * 1e3:7.2f} ms/step, {per_sample[0] * 1e6:6.1f} µs/sample")
    print(
        f"  2 processes: {two['step'] * 1e3:7.2f} ms/step, {per_sample[1] * 1e6:6.1f} µs/sample, "
        f"speed-up {per_sample[0] / per_sample[1]:.2f}x, efficiency {per_sample[0] / per_sample[1] / 2:.0%}"
    )
    print("10 MB gradient, 2 processes:")
    print(f"  mpi4py Allreduce (floor): {two['raw_allreduce'] * 1e3:7.2f} ms")
    print(
        f"  ember.distributed.all_reduce: {two['all_reduce'] * 1e3:7.2f} ms "
        f"({two['all_reduce'] / two['raw_allreduce']:.2f}x the floor)"
    )
    print(f"  forward + backward without DDP (slowest rank): {two['local_backward'] * 1e3:7.2f} ms")
    print(
        f"  DDP, time added to forward + backward: {two['ddp_added'] * 1e3:7.2f} ms "
        f"({two['ddp_added'] / two['raw_allreduce']:.2f}x the floor; target <= 1.2x)"
    )
    print(
        f"  of which the averaging DDP must do (one pass dividing 10 MB): {two['averaging'] * 1e3:7.2f} ms "
        f"({two['averaging'] / two['raw_allreduce']:.2f}x the floor)"
    )


if __name__ == "__main__":
    worker() if "--worker" in sys.argv else main()
