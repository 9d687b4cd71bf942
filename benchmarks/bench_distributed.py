"""Distributed training on this machine: MLP step scaling from 1 to 2 processes, and the cost of
averaging a 10 MB gradient (ember's all_reduce and DDP against mpi4py's raw Allreduce, the floor).

    python bench_distributed.py          # launches itself with mpiexec -n 1 and -n 2, prints a table

Each process uses one BLAS thread (OMP_NUM_THREADS=1, as torchrun sets), so 2 processes on 2 cores
can scale. The step is weak-scaled: every process trains on its own batch of 128, so the time per
sample is the step time / (128 x processes), and the efficiency is the speed-up over one process
divided by the number of processes (100% is perfect scaling). Measure on an idle machine: with
other work running, 2 processes on 2 cores compete for the CPU and the figures mean little.

The 10 MB figures, all on 2 processes and the same 10 MB of float32:
- floor: mpi4py's blocking `Allreduce` in place on a NumPy buffer; and the same on a gradient
  array as backward leaves it (the memory DDP reduces: at 10 MB, where the array was made and
  when it was last touched move the time by ~15%);
- averaging by hand: what a hand-written data-parallel step over mpi4py adds to forward + backward
  (one NumPy pass dividing the fresh gradient by the world size, then `Allreduce` in place on it);
- `ember.distributed.all_reduce` on a tensor of that size (a non-blocking Iallreduce and its wait);
- DDP's overhead: (forward + backward of a bias-free Linear whose weight is the 10 MB, wrapped in
  DDP) minus (the same forward + backward without DDP, then a barrier: no reduction can end before
  the slowest rank's backward has, so that wait is not DDP's). The model has one parameter, so
  nothing of backward is left to overlap the reduction with: this is the whole cost DDP adds
  (averaging, hooks, waiting and the collective itself), and 1.0x the floor means DDP costs no
  more than the bare collective. The averaging, one pass dividing the 10 MB by the world size, is
  timed too: it is the part of DDP's cost that no implementation avoids.
They are timed in turns, each after a barrier, in an order drawn anew each round (the same on every
rank), and their medians compared, so a change of load or of cache state hits them alike; the ratios
are of figures from the same run.

When PyTorch is installed, its DDP is measured the same way on its own floor (the gloo backend's
`all_reduce`) under `torch.distributed.run`, for comparison.
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
    """The median time of each of `functions` (a dict), run one after the other `repeats` times in
    a seeded random order (the same on every rank, as collectives need), each after `barrier()` so
    that every rank starts it together."""
    import random

    order = random.Random(0)
    times = {name: [] for name in functions}
    for _ in range(repeats):
        for name in order.sample(list(functions), len(functions)):
            function = functions[name]
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
    tensor = ember.from_numpy(buffer)  # the same memory: a buffer of its own would be colder in cache
    backward(True)
    backward(False)

    def averaging_by_hand():
        """What a hand-written data-parallel step does after backward: divide, then all-reduce."""
        big.zero_grad()
        big(source).sum().backward()
        gradient = big.weight.grad.numpy()
        np.multiply(gradient, 1.0 / size, out=gradient)
        MPI.COMM_WORLD.Allreduce(MPI.IN_PLACE, gradient)

    backward(False)
    gradient_buffer = big.weight.grad.numpy()
    big.weight.grad = None
    medians = median_times_in_turns(
        {
            "raw": lambda: MPI.COMM_WORLD.Allreduce(MPI.IN_PLACE, buffer),
            "raw_on_gradient": lambda: MPI.COMM_WORLD.Allreduce(MPI.IN_PLACE, gradient_buffer),
            "raw_average": averaging_by_hand,
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
                    "raw_on_gradient": medians["raw_on_gradient"],
                    "by_hand_added": max(medians["raw_average"] - medians["local"], 0.0),
                    "all_reduce": medians["ours"],
                    "ddp_added": max(medians["ddp"] - medians["local"], 0.0),
                    "local_backward": medians["local"],
                    "averaging": medians["averaging"],
                }
            ),
            flush=True,
        )
    dist.destroy_process_group()


def torch_worker():
    """PyTorch's DDP on the same 10 MB model, against gloo's all_reduce: the same measure as above."""
    import torch
    import torch.distributed as torch_dist

    torch.set_num_threads(1)
    torch_dist.init_process_group("gloo")
    big = torch.nn.Linear(GRADIENT_FLOATS // 1024, 1024, bias=False)
    ddp_big = torch.nn.parallel.DistributedDataParallel(big)
    source = torch.randn(1, GRADIENT_FLOATS // 1024)
    buffer = torch.ones(GRADIENT_FLOATS)

    def backward(with_ddp):
        big.zero_grad()
        (ddp_big if with_ddp else big)(source).sum().backward()
        if not with_ddp:
            torch_dist.barrier()

    backward(True)
    backward(False)
    medians = median_times_in_turns(
        {"raw": lambda: torch_dist.all_reduce(buffer), "ddp": lambda: backward(True), "local": lambda: backward(False)},
        REPEATS,
        torch_dist.barrier,
    )
    if torch_dist.get_rank() == 0:
        added = max(medians["ddp"] - medians["local"], 0.0)
        print("RESULT " + json.dumps({"raw_allreduce": medians["raw"], "ddp_added": added}), flush=True)
    torch_dist.destroy_process_group()


def run_torch(processes):
    """`torch_worker` under torch.distributed.run, or None where PyTorch (or its gloo) is missing."""
    try:
        import torch.distributed  # noqa: F401
    except ImportError:
        return None
    environment = dict(os.environ, OMP_NUM_THREADS="1")
    command = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", str(processes), __file__]
    result = subprocess.run(
        command + ["--torch-worker"], capture_output=True, text=True, env=environment, stdin=subprocess.DEVNULL
    )
    lines = [line for line in result.stdout.splitlines() if line.startswith("RESULT ")]
    return json.loads(lines[0][len("RESULT ") :]) if lines else None


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
    print(f"  mpi4py Allreduce on a gradient array as backward leaves it: {two['raw_on_gradient'] * 1e3:7.2f} ms")
    print(
        f"  ember.distributed.all_reduce: {two['all_reduce'] * 1e3:7.2f} ms "
        f"({two['all_reduce'] / two['raw_allreduce']:.2f}x the floor)"
    )
    print(f"  forward + backward without DDP (slowest rank): {two['local_backward'] * 1e3:7.2f} ms")
    print(
        f"  DDP, time added to forward + backward: {two['ddp_added'] * 1e3:7.2f} ms "
        f"({two['ddp_added'] / two['raw_allreduce']:.2f}x the floor; target <= 1.2x; "
        f"{two['ddp_added'] / two['raw_on_gradient']:.2f}x the Allreduce on a gradient array)"
    )
    print(
        f"  of which the averaging DDP must do (one pass dividing 10 MB): {two['averaging'] * 1e3:7.2f} ms "
        f"({two['averaging'] / two['raw_allreduce']:.2f}x the floor)"
    )
    print(
        f"  averaging by hand (divide the gradient, then mpi4py Allreduce), time added: "
        f"{two['by_hand_added'] * 1e3:7.2f} ms; DDP adds {two['ddp_added'] / two['by_hand_added']:.2f}x that"
    )
    torch_figures = run_torch(2)
    if torch_figures is not None:
        print(
            f"PyTorch's DDP (gloo), same measure: all_reduce {torch_figures['raw_allreduce'] * 1e3:.2f} ms, "
            f"DDP adds {torch_figures['ddp_added'] * 1e3:.2f} ms "
            f"({torch_figures['ddp_added'] / torch_figures['raw_allreduce']:.2f}x its floor)"
        )


if __name__ == "__main__":
    if "--worker" in sys.argv:
        worker()
    elif "--torch-worker" in sys.argv:
        torch_worker()
    else:
        main()
