"""One process of a job started by `python -m ember.distributed.run`: set torchrun's variables from
what MPI's launcher says, then run the script (with `import torch` resolving to ember by default)."""

import os
import sys

from ._mpi import local_rank_and_size


def torchrun_environment(environ):
    """RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK from the MPI launcher's variables."""
    rank = int(environ.get("PMI_RANK", environ.get("OMPI_COMM_WORLD_RANK", environ.get("PMIX_RANK", 0))))
    size = int(environ.get("PMI_SIZE", environ.get("OMPI_COMM_WORLD_SIZE", 1)))
    local_rank, local_size = local_rank_and_size()
    per_node = int(environ.get("EMBER_NPROC_PER_NODE", local_size or size))
    local_rank = rank % per_node if local_rank is None else local_rank
    return {
        "RANK": str(rank),
        "WORLD_SIZE": str(size),
        "LOCAL_RANK": str(local_rank),
        "LOCAL_WORLD_SIZE": str(local_size or per_node),
        "GROUP_RANK": str(rank // per_node),
        "MASTER_ADDR": environ.get("MASTER_ADDR", "127.0.0.1"),
        "MASTER_PORT": environ.get("MASTER_PORT", "29500"),
    }


def main(argv):
    os.environ.update(torchrun_environment(os.environ))
    compat = True
    if argv and argv[0] == "--no-torch-compat":
        compat, argv = False, argv[1:]
    as_module = bool(argv) and argv[0] == "-m"
    if as_module:
        argv = argv[1:]
    from ..__main__ import run, run_plain

    (run if compat else run_plain)(argv[0], argv[1:], as_module=as_module)


if __name__ == "__main__":
    main(sys.argv[1:])
