"""ember.distributed: `torch.distributed` on MPI — process groups, collectives, object collectives.

Start a job with ember's launcher (as torchrun) or with MPI directly:

    python -m ember.distributed.run --nproc-per-node 2 train.py
    mpiexec -n 2 python train.py

and in the script, as with PyTorch (backend "gloo" or "mpi"; both run on MPI):

    import ember.distributed as dist
    dist.init_process_group("gloo")
    dist.all_reduce(tensor, op=dist.ReduceOp.SUM)

MPI comes from the optional extra `pip install "ember-autograd[distributed]"` (mpi4py and MPICH).
`DistributedDataParallel` is in `ember.nn.parallel`, `DistributedSampler` in `ember.utils.data`.
"""

from .process_group import (
    Backend,
    ProcessGroup,
    GroupMember,
    group,
    init_process_group,
    destroy_process_group,
    is_available,
    is_initialized,
    is_mpi_available,
    is_gloo_available,
    is_nccl_available,
    is_torchelastic_launched,
    get_rank,
    get_world_size,
    get_backend,
    new_group,
    get_global_rank,
    get_group_rank,
    get_process_group_ranks,
    get_default_timeout,
    default_pg_timeout,
)
from .collectives import (
    ReduceOp,
    reduce_op,
    Work,
    all_reduce,
    broadcast,
    all_gather,
    all_gather_into_tensor,
    gather,
    scatter,
    reduce,
    reduce_scatter,
    reduce_scatter_tensor,
    all_to_all,
    all_to_all_single,
    send,
    recv,
    isend,
    irecv,
    barrier,
    monitored_barrier,
    P2POp,
    batch_isend_irecv,
)
from .objects import all_gather_object, broadcast_object_list, gather_object, scatter_object_list

__all__ = [
    "Backend",
    "ProcessGroup",
    "GroupMember",
    "group",
    "init_process_group",
    "destroy_process_group",
    "is_available",
    "is_initialized",
    "is_mpi_available",
    "is_gloo_available",
    "is_nccl_available",
    "is_torchelastic_launched",
    "get_rank",
    "get_world_size",
    "get_backend",
    "new_group",
    "get_global_rank",
    "get_group_rank",
    "get_process_group_ranks",
    "get_default_timeout",
    "ReduceOp",
    "reduce_op",
    "Work",
    "all_reduce",
    "broadcast",
    "all_gather",
    "all_gather_into_tensor",
    "gather",
    "scatter",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "all_to_all",
    "all_to_all_single",
    "send",
    "recv",
    "isend",
    "irecv",
    "barrier",
    "monitored_barrier",
    "P2POp",
    "batch_isend_irecv",
    "all_gather_object",
    "broadcast_object_list",
    "gather_object",
    "scatter_object_list",
]
