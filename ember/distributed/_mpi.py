"""The one place ember.distributed touches MPI: loading mpi4py, knowing whether an MPI launcher
started this process, and waiting on MPI requests with a deadline.

MPI is the transport (`pip install "ember-autograd[distributed]"` brings mpi4py and the MPICH wheel);
ember grows no networking of its own.
"""
import os
import time

INSTALL_HINT = 'pip install "ember-autograd[distributed]"  (or: pip install mpi4py mpich)'

# Variables that MPI launchers (MPICH's hydra, Open MPI, PMIx, MVAPICH, Slurm's PMI) put in the
# environment of the processes they start.
_LAUNCHER_VARIABLES = ("PMI_RANK", "PMI_SIZE", "PMIX_RANK", "OMPI_COMM_WORLD_SIZE", "MPI_LOCALRANKID",
                       "MV2_COMM_WORLD_SIZE", "PMI_FD")


def load():
    """mpi4py's MPI module (importing it initialises MPI), or a clear error naming what to install."""
    try:
        from mpi4py import MPI
    except ImportError as error:
        raise RuntimeError(f"ember.distributed runs on MPI through mpi4py, which is not installed "
                           f"({error}). Install it with: {INSTALL_HINT}") from None
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
    for rank_name, size_name in (("MPI_LOCALRANKID", "MPI_LOCALNRANKS"),
                                 ("OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"),
                                 ("MV2_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_SIZE")):
        if rank_name in os.environ:
            return int(os.environ[rank_name]), int(os.environ.get(size_name, 0)) or None
    return None, None


def wait(requests, deadline, describe):
    """Drive MPI requests to completion, raising RuntimeError once `deadline` (time.monotonic) passes.

    MPI's own Wait would block forever on a peer that died; polling with a short, growing sleep keeps
    the deadline and leaves the CPU to the other processes of the job on a small machine.
    """
    MPI = load()
    pause = 2e-5
    while not MPI.Request.Testall(requests):
        if time.monotonic() > deadline:
            raise RuntimeError(describe())
        time.sleep(pause)
        pause = min(pause * 2, 2e-3)
