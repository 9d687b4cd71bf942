"""Collectives with PyTorch's signatures and in-place semantics, run as non-blocking MPI calls.

Each collective starts a non-blocking MPI operation on the tensors' own memory (a contiguous copy
for non-contiguous tensors) and returns a `Work` handle when `async_op=True`; otherwise it waits.
Waiting polls with the group's timeout, so a dead peer ends the job with an error, never a hang.
Tensors written by a collective have their version bumped, as any in-place change.
"""

import enum
import time

import numpy as np

from .._tensor import Tensor
from . import _mpi
from .process_group import resolve

__all__ = [
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
]


class ReduceOp:
    """How `all_reduce`, `reduce` and `reduce_scatter` combine the ranks' values."""

    class RedOpType(enum.IntEnum):
        SUM = 0
        AVG = 1
        PRODUCT = 2
        MIN = 3
        MAX = 4
        BAND = 5
        BOR = 6
        BXOR = 7
        PREMUL_SUM = 8

    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR
    PREMUL_SUM = RedOpType.PREMUL_SUM


reduce_op = ReduceOp  # PyTorch's deprecated spelling


class Work:
    """The handle of a collective started with `async_op=True`: `wait()` finishes it."""

    def __init__(self, requests, finish, deadline, describe, result=None):
        self._requests = requests
        self._finish = finish
        self._deadline = deadline
        self._describe = describe
        self._result = result
        self._done = False

    def wait(self, timeout=None):
        """Block until the collective has finished and its outputs are written; returns True."""
        if not self._done:
            deadline = self._deadline if timeout is None else time.monotonic() + _seconds(timeout)
            _mpi.wait(self._requests, deadline, self._describe)
            if self._finish is not None:
                self._finish()
            self._done = True
        return True

    def is_completed(self):
        """Whether the asynchronous operation has finished (checked without waiting)."""
        if not self._done and _mpi.load().Request.Testall(self._requests):
            self.wait()
        return self._done

    def is_success(self):
        """Whether it has finished (a failure raises from `wait()` rather than being recorded)."""
        return self.is_completed()

    def result(self):
        """Wait for the operation and return its output tensors (a list; empty if it has none)."""
        self.wait()
        return self._result if self._result is not None else []

    def exception(self):
        """None: errors surface as exceptions from `wait()`."""
        return None


def _seconds(timeout):
    return timeout.total_seconds() if hasattr(timeout, "total_seconds") else float(timeout)


def _array(tensor, operation, argument="tensor"):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{operation}: {argument} must be an ember Tensor, got {type(tensor).__name__}")
    return tensor._data


class _Buffer:
    """The memory MPI works on for one tensor: its own array when contiguous, else a copy written back."""

    def __init__(self, tensor, operation, argument="tensor", read_only=False):
        self.tensor = tensor
        array = _array(tensor, operation, argument)
        self.own = array.flags.c_contiguous and (read_only or array.flags.writeable)
        self.array = array if self.own else np.ascontiguousarray(array)

    def written(self):
        if not self.own:
            self.tensor._data[...] = self.array.reshape(self.tensor._data.shape)
        self.tensor._bump_version()


def _start(group, name, requests, finish, async_op, peer=None, result=None):
    """Wrap started MPI requests in a Work handle, or wait for them when the call is synchronous."""
    rank = _mpi.load().COMM_WORLD.Get_rank()
    seconds = _seconds(group.timeout)

    def describe():
        waiting_for = f"rank {peer}" if peer is not None else f"its peers (ranks {group.global_ranks})"
        return (
            f"ember.distributed: {name} on rank {rank} timed out after {seconds:g} s waiting for "
            f"{waiting_for}: a peer process has died or is not calling {name}. See the other ranks' "
            "output for the first error."
        )

    work = Work(requests, finish, time.monotonic() + seconds, describe, result)
    if async_op:
        return work
    work.wait()
    return None


def _mpi_op(op, dtype, operation):
    """MPI's operation for a ReduceOp on this dtype (bool sums are logical or, as PyTorch's)."""
    MPI = _mpi.load()
    op = ReduceOp.RedOpType(op)
    if dtype == np.bool_:
        table = {
            ReduceOp.SUM: MPI.LOR,
            ReduceOp.MAX: MPI.LOR,
            ReduceOp.BOR: MPI.LOR,
            ReduceOp.PRODUCT: MPI.LAND,
            ReduceOp.MIN: MPI.LAND,
            ReduceOp.BAND: MPI.LAND,
            ReduceOp.BXOR: MPI.LXOR,
        }
    else:
        table = {
            ReduceOp.SUM: MPI.SUM,
            ReduceOp.AVG: MPI.SUM,
            ReduceOp.PRODUCT: MPI.PROD,
            ReduceOp.MIN: MPI.MIN,
            ReduceOp.MAX: MPI.MAX,
            ReduceOp.BAND: MPI.BAND,
            ReduceOp.BOR: MPI.BOR,
            ReduceOp.BXOR: MPI.BXOR,
        }
    if op not in table:
        raise ValueError(f"{operation}: ReduceOp.{op.name} is not supported for {dtype} tensors")
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR) and dtype.kind not in "biu":
        raise ValueError(f"{operation}: ReduceOp.{op.name} needs an integer or bool tensor, got {dtype}")
    if op == ReduceOp.AVG and dtype.kind not in "fcV":
        raise ValueError(
            f"{operation}: ReduceOp.AVG needs a floating-point tensor, got {dtype}; use ReduceOp.SUM and divide"
        )
    return table[op], op == ReduceOp.AVG


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Combine `tensor` across the group with `op`; every rank ends with the result, in place."""
    group = resolve(group)
    if group is None:
        return None
    buffer = _Buffer(tensor, "all_reduce")
    mpi_op, average = _mpi_op(op, buffer.array.dtype, "all_reduce")
    request = group.comm.Iallreduce(_mpi.load().IN_PLACE, buffer.array, op=mpi_op)

    def finish():
        if average:
            buffer.array /= group.size()
        buffer.written()

    return _start(group, "all_reduce", [request], finish, async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copy `tensor` of rank `src` into `tensor` on every rank of the group."""
    group = resolve(group)
    if group is None:
        return None
    root = _root(group, src, group_src, "src")
    buffer = _Buffer(tensor, "broadcast", read_only=group.rank() == root)
    request = group.comm.Ibcast(buffer.array, root=root)
    finish = None if group.rank() == root else buffer.written
    return _start(group, "broadcast", [request], finish, async_op)


def _root(group, global_rank, group_rank, argument):
    if group_rank is not None:
        if global_rank is not None:
            raise ValueError(f"Can not specify both {argument} and group_{argument}")
        return group_rank
    return group.group_rank(0 if global_rank is None else global_rank, argument)


def _check_list(tensors, count, shape, dtype, operation, argument):
    if not isinstance(tensors, (list, tuple)) or len(tensors) != count:
        got = len(tensors) if isinstance(tensors, (list, tuple)) else type(tensors).__name__
        raise ValueError(f"{operation}: {argument} must be a list of {count} tensors (one per rank), got {got}")
    for index, tensor in enumerate(tensors):
        array = _array(tensor, operation, f"{argument}[{index}]")
        if array.shape != shape or array.dtype != dtype:
            raise RuntimeError(
                f"{operation}: {argument}[{index}] has shape {tuple(array.shape)} and dtype "
                f"{array.dtype}; every tensor must match the input's shape {tuple(shape)} and "
                f"dtype {dtype}"
            )


def _write_rows(rows, tensors):
    for row, tensor in zip(rows, tensors):
        tensor._data[...] = row
        tensor._bump_version()


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Every rank's `tensor`, into `tensor_list[rank]` on every rank."""
    group = resolve(group)
    if group is None:
        return None
    source = np.ascontiguousarray(_array(tensor, "all_gather"))
    _check_list(tensor_list, group.size(), source.shape, source.dtype, "all_gather", "tensor_list")
    gathered = np.empty((group.size(),) + source.shape, source.dtype)
    request = group.comm.Iallgather(source, gathered)
    return _start(group, "all_gather", [request], lambda: _write_rows(gathered, tensor_list), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Every rank's input concatenated (or stacked) into `output_tensor` on every rank."""
    group = resolve(group)
    if group is None:
        return None
    source = np.ascontiguousarray(_array(input_tensor, "all_gather_into_tensor", "input_tensor"))
    buffer = _Buffer(output_tensor, "all_gather_into_tensor", "output_tensor")
    _check_numel(buffer.array, source.size * group.size(), source.dtype, "all_gather_into_tensor", "output_tensor")
    request = group.comm.Iallgather(source, buffer.array)
    return _start(group, "all_gather_into_tensor", [request], buffer.written, async_op)


def _check_numel(array, numel, dtype, operation, argument):
    if array.size != numel or array.dtype != dtype:
        raise ValueError(
            f"{operation}: {argument} must have {numel} elements of dtype {dtype} "
            f"(world size x input), got shape {tuple(array.shape)} and dtype {array.dtype}"
        )


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Every rank's `tensor` into `gather_list` on rank `dst` (other ranks pass no list)."""
    group = resolve(group)
    if group is None:
        return None
    root = _root(group, dst, group_dst, "dst")
    source = np.ascontiguousarray(_array(tensor, "gather"))
    finish = None
    gathered = None
    if group.rank() == root:
        _check_list(gather_list, group.size(), source.shape, source.dtype, "gather", "gather_list")
        gathered = np.empty((group.size(),) + source.shape, source.dtype)
        finish = lambda: _write_rows(gathered, gather_list)  # noqa: E731
    elif gather_list:
        raise ValueError("gather: Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    request = group.comm.Igather(source, gathered, root=root)
    return _start(group, "gather", [request], finish, async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """`scatter_list[rank]` of rank `src` into `tensor` on each rank."""
    group = resolve(group)
    if group is None:
        return None
    root = _root(group, src, group_src, "src")
    buffer = _Buffer(tensor, "scatter")
    stacked = None
    if group.rank() == root:
        _check_list(scatter_list, group.size(), buffer.array.shape, buffer.array.dtype, "scatter", "scatter_list")
        stacked = np.stack([item._data for item in scatter_list])
    elif scatter_list:
        raise ValueError("scatter: Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    request = group.comm.Iscatter(stacked, buffer.array, root=root)
    return _start(group, "scatter", [request], buffer.written, async_op)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Combine `tensor` across the group into `tensor` of rank `dst` (others keep theirs)."""
    group = resolve(group)
    if group is None:
        return None
    root = _root(group, dst, group_dst, "dst")
    buffer = _Buffer(tensor, "reduce")
    mpi_op, average = _mpi_op(op, buffer.array.dtype, "reduce")
    MPI = _mpi.load()
    if group.rank() == root:
        request = group.comm.Ireduce(MPI.IN_PLACE, buffer.array, op=mpi_op, root=root)

        def finish():
            if average:
                buffer.array /= group.size()
            buffer.written()
    else:
        request = group.comm.Ireduce(buffer.array, None, op=mpi_op, root=root)
        finish = None
    return _start(group, "reduce", [request], finish, async_op)


def _reduce_scatter(output, stacked, op, group, async_op, operation):
    buffer = _Buffer(output, operation, "output")
    mpi_op, average = _mpi_op(op, buffer.array.dtype, operation)
    request = group.comm.Ireduce_scatter_block(stacked, buffer.array, op=mpi_op)

    def finish():
        if average:
            buffer.array /= group.size()
        buffer.written()

    return _start(group, operation, [request], finish, async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Rank r's `output` is the reduction over ranks of their `input_list[r]`."""
    group = resolve(group)
    if group is None:
        return None
    target = _array(output, "reduce_scatter", "output")
    _check_list(input_list, group.size(), target.shape, target.dtype, "reduce_scatter", "input_list")
    stacked = np.stack([item._data for item in input_list])
    return _reduce_scatter(output, stacked, op, group, async_op, "reduce_scatter")


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """As `reduce_scatter`, with the inputs concatenated in one tensor of world size x output's size."""
    group = resolve(group)
    if group is None:
        return None
    target = _array(output, "reduce_scatter_tensor", "output")
    source = np.ascontiguousarray(_array(input, "reduce_scatter_tensor", "input"))
    _check_numel(source, target.size * group.size(), target.dtype, "reduce_scatter_tensor", "input")
    return _reduce_scatter(output, source, op, group, async_op, "reduce_scatter_tensor")


def _alltoallv(group, send, send_counts, receive, receive_counts):
    def displacements(counts):
        return np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)

    return group.comm.Ialltoallv(
        [send, (list(send_counts), list(displacements(send_counts)))],
        [receive, (list(receive_counts), list(displacements(receive_counts)))],
    )


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """Rank r sends `input_tensor_list[s]` to rank s, which receives it in `output_tensor_list[r]`."""
    group = resolve(group)
    if group is None:
        return None
    size = group.size()
    for argument, tensors in (("output_tensor_list", output_tensor_list), ("input_tensor_list", input_tensor_list)):
        if not isinstance(tensors, (list, tuple)) or len(tensors) != size:
            raise ValueError(f"all_to_all: {argument} must be a list of {size} tensors (one per rank)")
    inputs = [np.ascontiguousarray(_array(t, "all_to_all", "input_tensor_list")) for t in input_tensor_list]
    outputs = [_array(t, "all_to_all", "output_tensor_list") for t in output_tensor_list]
    send = np.concatenate([array.ravel() for array in inputs])
    receive = np.empty(sum(array.size for array in outputs), outputs[0].dtype)
    request = _alltoallv(group, send, [a.size for a in inputs], receive, [a.size for a in outputs])

    def finish():
        offset = 0
        for tensor, array in zip(output_tensor_list, outputs):
            tensor._data[...] = receive[offset : offset + array.size].reshape(array.shape)
            tensor._bump_version()
            offset += array.size

    return _start(group, "all_to_all", [request], finish, async_op)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op=False):
    """`all_to_all` on one tensor split along dim 0 (evenly, or by the given split sizes)."""
    group = resolve(group)
    if group is None:
        return None
    size = group.size()
    source = np.ascontiguousarray(_array(input, "all_to_all_single", "input"))
    buffer = _Buffer(output, "all_to_all_single", "output")
    row = int(np.prod(source.shape[1:], dtype=np.int64)) if source.ndim else 1

    def counts(split_sizes, rows, argument):
        if split_sizes is None:
            if rows % size:
                raise ValueError(
                    f"all_to_all_single: {argument}'s first dimension ({rows}) must divide by "
                    f"the world size ({size}) when no split sizes are given"
                )
            return [rows // size * row] * size
        if len(split_sizes) != size or sum(split_sizes) != rows:
            raise ValueError(
                f"all_to_all_single: {argument}_split_sizes {list(split_sizes)} must have {size} "
                f"entries summing to {rows}"
            )
        return [int(split) * row for split in split_sizes]

    request = _alltoallv(
        group,
        source.ravel(),
        counts(input_split_sizes, source.shape[0], "input"),
        buffer.array.reshape(-1),
        counts(output_split_sizes, buffer.array.shape[0], "output"),
    )
    return _start(group, "all_to_all_single", [request], buffer.written, async_op)


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Start sending `tensor` to rank `dst`; returns a Work handle."""
    group = resolve(group)
    if group is None:
        return None
    peer = _root(group, dst, group_dst, "dst")
    source = np.ascontiguousarray(_array(tensor, "isend"))
    request = group.comm.Isend(source, dest=peer, tag=tag)
    return _start(group, "send", [request], None, True, peer=group.global_ranks[peer])


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Start receiving into `tensor` from rank `src` (any rank when None); returns a Work handle."""
    group = resolve(group)
    if group is None:
        return None
    MPI = _mpi.load()
    peer = MPI.ANY_SOURCE if src is None and group_src is None else _root(group, src, group_src, "src")
    buffer = _Buffer(tensor, "irecv")
    status = MPI.Status()
    request = group.comm.Irecv(buffer.array, source=peer, tag=tag)
    sender = []

    def finish():
        request.Get_status(status)
        sender.append(group.global_ranks[status.Get_source()])
        buffer.written()

    named_peer = None if peer == MPI.ANY_SOURCE else group.global_ranks[peer]
    work = _start(group, "recv", [request], finish, True, peer=named_peer, result=sender)
    work.source_rank = lambda: (work.wait(), sender[0])[1]
    return work


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Send `tensor` to rank `dst` and wait until it has left."""
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into `tensor` from rank `src` (any rank when None); returns the sender's rank."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    return work.source_rank()


class P2POp:
    """One send or receive for `batch_isend_irecv`: `P2POp(dist.isend, tensor, peer)`."""

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (isend, irecv):
            raise ValueError(
                "Invalid ``op``. Expected ``op`` to be of type ``ember.distributed.isend`` or "
                "``ember.distributed.irecv``."
            )
        self.op, self.tensor, self.peer, self.group, self.tag, self.group_peer = (
            op,
            tensor,
            peer,
            group,
            tag,
            group_peer,
        )


def batch_isend_irecv(p2p_op_list):
    """Start every send and receive of the list; returns their Work handles."""
    return [op.op(op.tensor, op.peer, op.group, op.tag, op.group_peer) for op in p2p_op_list]


def barrier(group=None, async_op=False, device_ids=None, timeout=None):
    """Wait until every rank of the group has reached the barrier."""
    group = resolve(group)
    if group is None:
        return None
    request = group.comm.Ibarrier()
    if timeout is None:
        return _start(group, "barrier", [request], None, async_op)
    work = _start(group, "barrier", [request], None, True)
    return work if async_op else (work.wait(timeout), None)[1]


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    """A barrier that raises (naming the group's ranks) when a rank does not arrive within `timeout`."""
    return barrier(group, timeout=timeout)
