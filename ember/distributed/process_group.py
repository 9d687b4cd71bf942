"""Process groups: the default group made by `init_process_group`, and subgroups from `new_group`.

A `ProcessGroup` wraps one MPI communicator. Ranks given to collectives (`src`, `dst`) are global
ranks, as in PyTorch; the group translates them to its own numbering.
"""

import datetime
import os
import sys
import time
import traceback

from . import _mpi

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
]

default_pg_timeout = datetime.timedelta(minutes=30)  # PyTorch's default for CPU backends


class Backend(str):
    """A backend name. ember runs every CPU backend ("gloo", "mpi") on MPI; there is no NCCL."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    MPI = "mpi"
    NCCL = "nccl"

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend name must be a string, but got: {name!r}")
        return super().__new__(cls, name.lower())


def get_default_timeout(backend=None):
    """How long collectives wait before failing, when `init_process_group` gets no `timeout`."""
    return default_pg_timeout


class ProcessGroup:
    """A set of processes that take part in collectives together (one MPI communicator)."""

    def __init__(self, comm, global_ranks, backend, timeout):
        self.comm = comm
        self.global_ranks = list(global_ranks)
        self.backend = Backend(backend)
        self.timeout = timeout
        self._group_rank_of = {global_rank: index for index, global_rank in enumerate(self.global_ranks)}

    def rank(self):
        """This process's rank in the group."""
        return self.comm.Get_rank()

    def size(self):
        """The number of processes in the group."""
        return self.comm.Get_size()

    def group_rank(self, global_rank, argument):
        """The rank inside this group of a global rank, or a ValueError naming the argument."""
        try:
            return self._group_rank_of[global_rank]
        except (KeyError, TypeError):
            raise ValueError(
                f"{argument}={global_rank!r} is not a rank of this process group (global ranks {self.global_ranks})"
            ) from None

    def name(self):
        """The backend's name in capitals ("MPI"), as PyTorch's groups report it."""
        return self.backend.upper()

    def __repr__(self):
        return f"<ember.distributed.ProcessGroup backend={self.backend!r} ranks={self.global_ranks}>"


class GroupMember:
    """PyTorch's markers: `GroupMember.WORLD` is the default group once initialised."""

    WORLD = None
    NON_GROUP_MEMBER = object()


group = GroupMember  # `dist.group.WORLD`, as in PyTorch


class _State:
    world = None
    previous_excepthook = None


_state = _State()


def is_available():
    """True when MPI (mpi4py) can be loaded: ember's only transport."""
    return _mpi.available()


is_mpi_available = is_available
is_gloo_available = is_available  # "gloo" is served by MPI


def is_nccl_available():
    """Always False: ember's only transport is MPI."""
    return False


def is_torchelastic_launched():
    """Whether this process was started by torchrun (TORCHELASTIC_RUN_ID is set)."""
    return "TORCHELASTIC_RUN_ID" in os.environ


def is_initialized():
    """Whether `init_process_group` has run (and `destroy_process_group` has not)."""
    return _state.world is not None


def _normalise_backend(backend):
    name = "mpi" if backend is None else str(backend).lower()
    if name.startswith("cpu:"):
        name = name[len("cpu:") :].split(",")[0]
    if name in ("nccl", "cuda:nccl", "ucc", "xccl"):
        raise RuntimeError(
            f"ember.distributed has no {name!r} backend: ember runs on the CPU. "
            "Use backend='gloo' or backend='mpi' (both run on MPI)."
        )
    if name not in ("mpi", "gloo"):
        raise ValueError(f"Invalid backend {backend!r}: ember.distributed supports 'mpi' and 'gloo' (on MPI)")
    return name


def _expected_world(world_size, rank):
    """World size and rank asked for by the arguments or torchrun-style variables (-1 when unknown)."""
    if world_size == -1 and "WORLD_SIZE" in os.environ:
        world_size = int(os.environ["WORLD_SIZE"])
    if rank == -1 and "RANK" in os.environ:
        rank = int(os.environ["RANK"])
    return world_size, rank


def _launcher_error(world_size):
    return RuntimeError(
        f"ember.distributed: init_process_group was asked for {world_size} processes, but no MPI launcher "
        "started this one. Start the job with ember's launcher (as torchrun):\n"
        f"    python -m ember.distributed.run --nproc-per-node {world_size} script.py [args]\n"
        f"or with MPI directly:\n    mpiexec -n {world_size} python script.py [args]"
    )


def init_process_group(
    backend=None,
    init_method=None,
    timeout=None,
    world_size=-1,
    rank=-1,
    store=None,
    group_name="",
    pg_options=None,
    device_id=None,
):
    """Join the job's default process group (all processes the MPI launcher started).

    `backend` "mpi" or "gloo" (PyTorch's CPU backend, served here by MPI with a one-line notice);
    `init_method` ("env://", "tcp://...", "file://...") is accepted and not needed: MPI's launcher
    already connected the processes. `world_size`/`rank`, when given (or set in the environment as
    torchrun does), must agree with the launcher's. `timeout` bounds every collective, so a dead peer
    ends the job with an error instead of a hang.
    """
    if _state.world is not None:
        raise RuntimeError("trying to initialize the default process group twice!")
    backend_name = _normalise_backend(backend)
    expected_size, expected_rank = _expected_world(world_size, rank)
    if not _mpi.launched_by_mpi():
        if expected_size not in (-1, 1):
            raise _launcher_error(expected_size)
        if expected_size == -1 and (init_method in (None, "env://")) and "RANK" not in os.environ:
            raise ValueError(
                "Error initializing ember.distributed using env:// rendezvous: environment variable RANK "
                "expected, but not set. Start the script with `python -m ember.distributed.run "
                "--nproc-per-node N script.py` (or `mpiexec -n N python script.py`), or pass rank=0, "
                "world_size=1 for a single process."
            )
    MPI = _mpi.load()
    world_comm = MPI.COMM_WORLD
    if expected_size not in (-1, world_comm.Get_size()):
        raise ValueError(
            f"init_process_group: world_size={expected_size} but the MPI launcher started "
            f"{world_comm.Get_size()} processes"
        )
    if expected_rank not in (-1, world_comm.Get_rank()):
        raise ValueError(
            f"init_process_group: rank={expected_rank} but MPI gave this process rank {world_comm.Get_rank()}"
        )
    if backend_name == "gloo" and world_comm.Get_rank() == 0:
        print("ember.distributed: backend 'gloo' runs on MPI (mpi4py) in ember", file=sys.stderr, flush=True)
    timeout = default_pg_timeout if timeout is None else timeout
    _state.world = ProcessGroup(world_comm.Dup(), range(world_comm.Get_size()), backend_name, timeout)
    GroupMember.WORLD = _state.world
    if world_comm.Get_size() > 1:
        _abort_job_on_uncaught_exception()


def _abort_job_on_uncaught_exception():
    """A rank that dies of an exception takes the job down at once, saying which rank it was,
    instead of leaving its peers waiting in a collective."""
    previous = sys.excepthook
    _state.previous_excepthook = previous

    def excepthook(kind, value, tb):
        rank = _mpi.load().COMM_WORLD.Get_rank()
        text = "".join(traceback.format_exception(kind, value, tb))
        sys.stderr.write(f"ember.distributed: rank {rank} raised {kind.__name__}; aborting the job.\n{text}")
        sys.stderr.flush()
        # Abort tears every process down at once; give the launcher a moment to forward the
        # message above, or the user may see the job end without a word on why.
        time.sleep(1.0)
        _mpi.load().COMM_WORLD.Abort(1)

    sys.excepthook = excepthook


def _world():
    if _state.world is None:
        raise ValueError("Default process group has not been initialized, please make sure to call init_process_group.")
    return _state.world


def resolve(group_or_none):
    """The group a collective runs on (the default one for None)."""
    if group_or_none is None or group_or_none is GroupMember.WORLD:
        return _world()
    if group_or_none is GroupMember.NON_GROUP_MEMBER:
        return None
    if not isinstance(group_or_none, ProcessGroup):
        raise TypeError(f"group must be a ProcessGroup from new_group() (or None), got {type(group_or_none).__name__}")
    return group_or_none


def destroy_process_group(group=None):
    """Leave a group (the default one, and with it every subgroup, when None)."""
    if group is None or group is GroupMember.WORLD:
        world = _world()
        world.comm.Free()
        _state.world = None
        GroupMember.WORLD = None
        if _state.previous_excepthook is not None:
            sys.excepthook = _state.previous_excepthook
            _state.previous_excepthook = None
    elif isinstance(group, ProcessGroup):
        group.comm.Free()


def get_rank(group=None):
    """This process's rank in `group` (global rank for the default group); -1 if not a member."""
    resolved = resolve(group)
    return -1 if resolved is None else resolved.rank()


def get_world_size(group=None):
    """The number of processes in `group` (the default group if None); -1 if this process is not a member."""
    resolved = resolve(group)
    return -1 if resolved is None else resolved.size()


def get_backend(group=None):
    """The backend name of `group` (the default group if None)."""
    resolved = resolve(group)
    if resolved is None:
        raise ValueError("Invalid process group specified")
    return resolved.backend


def get_global_rank(group, group_rank):
    """The global rank of the process with rank `group_rank` in `group`."""
    return resolve(group).global_ranks[group_rank]


def get_group_rank(group, global_rank):
    """The rank inside `group` of the process with global rank `global_rank` (ValueError if it is not a member)."""
    return resolve(group).group_rank(global_rank, "global_rank")


def get_process_group_ranks(group):
    """The global ranks of the members of `group`, in group-rank order."""
    return list(resolve(group).global_ranks)


def new_group(
    ranks=None,
    timeout=None,
    backend=None,
    pg_options=None,
    use_local_synchronization=False,
    group_desc=None,
    device_id=None,
    sort_ranks=True,
):
    """A subgroup of the given global ranks. As in PyTorch, every process of the job must call it (in
    the same order); processes outside `ranks` get `GroupMember.NON_GROUP_MEMBER`."""
    world = _world()
    members = list(range(world.size())) if ranks is None else [int(rank) for rank in ranks]
    if sort_ranks:
        members.sort()
    if len(set(members)) != len(members) or any(not 0 <= rank < world.size() for rank in members):
        raise ValueError(f"new_group: ranks must be distinct ranks of the world (0..{world.size() - 1}), got {ranks}")
    mpi_group = world.comm.Get_group().Incl(members)
    comm = world.comm.Create(mpi_group)
    mpi_group.Free()
    if comm == _mpi.load().COMM_NULL:
        return GroupMember.NON_GROUP_MEMBER
    name = world.backend if backend is None else _normalise_backend(backend)
    return ProcessGroup(comm, members, name, world.timeout if timeout is None else timeout)
