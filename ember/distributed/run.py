"""`python -m ember.distributed.run`: ember's torchrun, starting the processes through `mpiexec`.

    python -m ember.distributed.run --nproc-per-node 2 train.py --epochs 3
    python -m ember.distributed.run --nnodes 2 --nproc-per-node 4 --hostfile hosts train.py

Each process gets torchrun's variables (RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR,
MASTER_PORT) and runs the script as `python -m ember run` does, so `import torch` resolves to ember
and a torchrun-style script runs unchanged (`--no-torch-compat` runs it as plain Python instead).
"""

import argparse
import os
import subprocess
import sys

from ._mpi import INSTALL_HINT, find_mpiexec


def _parser():
    parser = argparse.ArgumentParser(
        prog="python -m ember.distributed.run",
        description="Start a distributed ember job on MPI, with torchrun's options and variables.",
    )
    parser.add_argument(
        "--nproc-per-node",
        "--nproc_per_node",
        default="1",
        help="processes per machine (a number; 'cpu' or 'auto' for the number of cores)",
    )
    parser.add_argument("--nnodes", default="1", help="number of machines (with --hostfile)")
    parser.add_argument("--hostfile", help="MPI host file: one machine per line (as mpiexec -f)")
    parser.add_argument("--master-addr", "--master_addr", default="127.0.0.1")
    parser.add_argument("--master-port", "--master_port", default="29500")
    parser.add_argument("--node-rank", "--node_rank", default="0", help="accepted for torchrun compatibility")
    parser.add_argument("--standalone", action="store_true", help="accepted for torchrun compatibility")
    parser.add_argument("--mpiexec", default=None, help="the MPI launcher to use (default: mpiexec on PATH)")
    parser.add_argument(
        "--no-torch-compat",
        action="store_true",
        help="run the script as plain Python, without `import torch` resolving to ember",
    )
    parser.add_argument("-m", "--module", action="store_true", help="run the target as a module (python -m)")
    parser.add_argument("script", help="the training script (or module with -m)")
    parser.add_argument("script_args", nargs=argparse.REMAINDER)
    return parser


def _processes_per_node(value):
    if value in ("cpu", "auto"):
        return os.cpu_count() or 1
    try:
        count = int(value)
    except ValueError:
        raise SystemExit(f"--nproc-per-node must be a number, 'cpu' or 'auto', got {value!r}") from None
    if count < 1:
        raise SystemExit(f"--nproc-per-node must be at least 1, got {count}")
    return count


def _hostfile_options(mpiexec, hostfile, per_node):
    """MPICH's hydra and Open MPI spell the host file and processes-per-machine differently."""
    version = subprocess.run([mpiexec, "--version"], capture_output=True, text=True).stdout
    if "Open MPI" in version or "OpenRTE" in version:
        return [
            "--hostfile",
            hostfile,
            "--npernode",
            str(per_node),
            "-x",
            "MASTER_ADDR",
            "-x",
            "MASTER_PORT",
            "-x",
            "EMBER_NPROC_PER_NODE",
            "-x",
            "OMP_NUM_THREADS",
        ]
    return ["-f", hostfile, "-ppn", str(per_node)]


def command(arguments):
    """The mpiexec command line that starts the job."""
    mpiexec = arguments.mpiexec or find_mpiexec()
    if mpiexec is None:
        raise SystemExit(f"python -m ember.distributed.run: no mpiexec found on PATH. Install MPI with: {INSTALL_HINT}")
    per_node = _processes_per_node(arguments.nproc_per_node)
    total = per_node * int(arguments.nnodes)
    line = [mpiexec, "-n", str(total)]
    if arguments.hostfile:
        line += _hostfile_options(mpiexec, arguments.hostfile, per_node)
    worker = [sys.executable, "-m", "ember.distributed._worker"]
    if arguments.no_torch_compat:
        worker.append("--no-torch-compat")
    if arguments.module:
        worker.append("-m")
    return line + worker + [arguments.script] + list(arguments.script_args)


def main(argv=None):
    arguments = _parser().parse_args(argv)
    per_node = _processes_per_node(arguments.nproc_per_node)
    environment = dict(
        os.environ,
        MASTER_ADDR=arguments.master_addr,
        MASTER_PORT=str(arguments.master_port),
        EMBER_NPROC_PER_NODE=str(per_node),
    )
    if per_node > 1 and "OMP_NUM_THREADS" not in os.environ:
        # As torchrun: several processes each running a multi-threaded BLAS on the same cores slow
        # each other down many times over.
        print(
            "ember.distributed.run: setting OMP_NUM_THREADS=1 for each process (as torchrun); set it yourself to tune",
            file=sys.stderr,
        )
        environment["OMP_NUM_THREADS"] = "1"
    return subprocess.call(command(arguments), env=environment)


if __name__ == "__main__":
    sys.exit(main())
