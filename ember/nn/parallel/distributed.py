"""`DistributedDataParallel`: one model replica per process, gradients averaged during backward.

How it works, as in PyTorch:
1. At construction, rank 0's parameters and buffers are broadcast, so every replica starts equal.
2. Parameters are grouped into buckets (in reverse order of `parameters()`, roughly the order in
   which backward produces their gradients; the first bucket small so communication starts early).
3. A post-accumulate-grad hook on every parameter marks it ready; when a bucket is full its gradients
   are divided by the world size and an all-reduce (SUM) starts without waiting (MPI's non-blocking
   Iallreduce), so communication overlaps the rest of backward. Buckets start in the same order on
   every rank, as MPI requires of collectives, even when their gradients arrive in another order.
4. When the last bucket has started, DDP waits for all of them; `.grad` then holds the average on
   every rank, so `optimizer.step()` sees the same gradients everywhere.

What a step costs beyond the collective is kept to one pass over each gradient (the division):
- a gradient of `_IN_PLACE_BYTES` or more is its own bucket and is reduced in its own memory, where
  backward left it (copying it into a flat buffer would cost a good part of the transfer itself);
- smaller gradients are copied, divided on the way, into one flat buffer per bucket, so they travel
  as one message, and `.grad` becomes a view of that buffer (no copy back).
"""

import contextlib

import numpy as np

from ..._tensor import Tensor, new_tensor
from ...autograd import grad_mode
from ..modules.module import Module
from ... import distributed as dist
from ...distributed import _mpi

__all__ = ["DistributedDataParallel"]

_FIRST_BUCKET_BYTES = 1024 * 1024  # PyTorch's dist._DEFAULT_FIRST_BUCKET_BYTES
_DEFAULT_BUCKET_CAP_MB = 25
# At this size one more message costs less than copying the gradient into a shared buffer.
_IN_PLACE_BYTES = 1024 * 1024


class _Bucket:
    """Parameters whose gradients are all-reduced together, and the state of one reduction.

    Either one large parameter, reduced in its gradient's own memory (`in_place`), or several small
    ones, copied into a flat buffer: kept from step to step with gradient_as_bucket_view, else new
    each step so that no `.grad` of the last step changes under the user."""

    def __init__(self, parameters, in_place):
        self.parameters = parameters
        self.ids = frozenset(id(p) for p in parameters)
        self.in_place = in_place
        self.dtype = parameters[0]._data.dtype
        self.numel = sum(p._data.size for p in parameters)
        self.buffer = None  # the persistent flat buffer (gradient_as_bucket_view) ...
        self.buffer_views = None  # ... and each parameter's part of it
        self.pending = set()
        self.array = None  # the memory being reduced this step ...
        self.views = None  # ... and each parameter's part of it, shaped as the parameter
        self.request = None
        self.locally_used = None

    def slots(self, flat):
        """Each parameter's part of `flat`, shaped as the parameter."""
        views, offset = [], 0
        for parameter in self.parameters:
            count = parameter._data.size
            views.append(flat[offset : offset + count].reshape(parameter._data.shape))
            offset += count
        return views


class DistributedDataParallel(Module):
    """Data parallelism over processes: wrap the model, train as usual, gradients are averaged.

    Args: module (the model); broadcast_buffers (send rank 0's buffers, e.g. BatchNorm statistics,
    at every forward; default True); process_group (default: the whole job); bucket_cap_mb (bucket
    size, default 25); find_unused_parameters (walk the autograd graph after forward so parameters
    the loss does not use are reduced too); gradient_as_bucket_view (keep each bucket's flat buffer
    from step to step, as PyTorch's: no allocation, and a gradient zeroed in place with
    `zero_grad(set_to_none=False)` is accumulated where it is reduced; a `.grad` kept from an earlier
    step then changes with the next one). device_ids, output_device and static_graph are accepted for
    compatibility (CPU only). Gradients of small parameters are views of their bucket either way.

    Example:
        dist.init_process_group("gloo")
        model = DistributedDataParallel(Net())
        loss_fn(model(x), y).backward()     # gradients averaged over the ranks
    """

    def __init__(
        self,
        module,
        device_ids=None,
        output_device=None,
        dim=0,
        broadcast_buffers=True,
        init_sync=True,
        process_group=None,
        bucket_cap_mb=None,
        find_unused_parameters=False,
        check_reduction=False,
        gradient_as_bucket_view=False,
        static_graph=False,
        **unsupported,
    ):
        super().__init__()
        if unsupported:
            raise TypeError(f"DistributedDataParallel: unsupported argument(s) {sorted(unsupported)} in ember")
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel expects an nn.Module, got {type(module).__name__}")
        self.module = module
        self.process_group = dist.process_group.resolve(process_group)
        self.broadcast_buffers = True if broadcast_buffers is None else bool(broadcast_buffers)
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self.device_ids = device_ids
        self.dim = dim
        self.static_graph = static_graph
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.bucket_bytes_cap = int((_DEFAULT_BUCKET_CAP_MB if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        self._named_parameters = [(name, p) for name, p in module.named_parameters() if p.requires_grad]
        if not self._named_parameters:
            raise RuntimeError(
                "DistributedDataParallel is not needed when a module doesn't have any parameter "
                "that requires a gradient."
            )
        if init_sync:
            self._broadcast_from_rank0([p for _, p in module.named_parameters()] + list(module.buffers()))
        self._buckets = _make_buckets([p for _, p in self._named_parameters], self.bucket_bytes_cap)
        self._bucket_of = {id(p): bucket for bucket in self._buckets for p in bucket.parameters}
        self._armed = False
        self._launched = 0  # buckets start in index order: those before this one have started
        self._hook_handles = [
            p.register_post_accumulate_grad_hook(self._gradient_ready) for _, p in self._named_parameters
        ]

    # ---------------------------------------------------------------- forward
    def forward(self, *inputs, **kwargs):
        if self._armed and self._launched < len(self._buckets) and _any_started(self._buckets):
            raise RuntimeError(self._unfinished_reduction_message())
        if self.broadcast_buffers and self.process_group.size() > 1:
            self._broadcast_from_rank0(list(self.module.buffers()))
        output = self.module(*inputs, **kwargs)
        self._arm(output if grad_mode.is_grad_enabled() and self.require_backward_grad_sync else None)
        return output

    def _arm(self, output):
        """Prepare the reduction of the coming backward (none under no_sync or no_grad)."""
        self._armed = output is not None
        self._launched = 0
        for bucket in self._buckets:
            bucket.pending = set(bucket.ids)
            bucket.array = bucket.request = None
            bucket.locally_used = np.ones(len(bucket.parameters), np.int32)
        if self._armed and self.find_unused_parameters:
            used = _parameters_reached_from(output)
            for bucket in self._buckets:
                for index, parameter in enumerate(bucket.parameters):
                    if id(parameter) not in used:
                        bucket.locally_used[index] = 0
                        self._mark_ready(parameter)

    @contextlib.contextmanager
    def no_sync(self):
        """Accumulate gradients locally (no communication) inside; the first backward after it
        averages the accumulated gradients."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    # ---------------------------------------------------------------- backward
    def _gradient_ready(self, parameter):
        if self._armed:
            self._mark_ready(parameter)

    def _mark_ready(self, parameter):
        bucket = self._bucket_of[id(parameter)]
        bucket.pending.discard(id(parameter))
        buckets = self._buckets
        if bucket.pending or bucket is not buckets[self._launched]:
            # Not this bucket's turn yet: let MPI move the buckets already under way.
            if self._launched:
                _mpi.load().Request.Testall([b.request for b in buckets[: self._launched]])
            return
        while self._launched < len(buckets) and not buckets[self._launched].pending:
            self._launch(buckets[self._launched])
            self._launched += 1
        if self._launched == len(buckets):
            self._finish()

    def _launch(self, bucket):
        """Divide the bucket's gradients by the world size and start their all-reduce."""
        size = self.process_group.size()
        if bucket.in_place:
            bucket.array = _own_contiguous_gradient(bucket.parameters[0])
            bucket.views = [bucket.array]
            if size > 1:
                np.multiply(bucket.array, 1.0 / size, out=bucket.array)
        else:
            if not self.gradient_as_bucket_view:
                bucket.array = np.empty(bucket.numel, bucket.dtype)
                bucket.views = bucket.slots(bucket.array)
            else:
                if bucket.buffer is None:
                    bucket.buffer = np.empty(bucket.numel, bucket.dtype)
                    bucket.buffer_views = bucket.slots(bucket.buffer)
                bucket.array, bucket.views = bucket.buffer, bucket.buffer_views
            for parameter, slot in zip(bucket.parameters, bucket.views):
                _divide_into(parameter, slot, size)
        MPI = _mpi.load()
        bucket.request = self.process_group.comm.Iallreduce(MPI.IN_PLACE, bucket.array, op=MPI.SUM)

    def _finish(self):
        """Wait for every bucket; the averaged gradients are then in `.grad`."""
        group = self.process_group
        dist.collectives._start(
            group,
            "DistributedDataParallel gradient all_reduce",
            [bucket.request for bucket in self._buckets],
            None,
            False,
        )
        globally_used = None
        if self.find_unused_parameters:
            local = np.concatenate([bucket.locally_used for bucket in self._buckets])
            globally_used = np.empty_like(local)
            group.comm.Allreduce(local, globally_used)
        position = 0
        for bucket in self._buckets:
            for parameter, averaged in zip(bucket.parameters, bucket.views):
                if globally_used is None or globally_used[position] or parameter._grad is not None:
                    grad = parameter._grad
                    if grad is not None and grad._data is averaged:
                        grad._bump_version()
                    else:
                        parameter._grad = new_tensor(averaged)
                position += 1
        self._armed = False

    def _unfinished_reduction_message(self):
        missing = [name for name, p in self._named_parameters if id(p) in self._bucket_of[id(p)].pending]
        return (
            "Expected to have finished reduction in the prior iteration before starting a new one. This "
            "error indicates that your module has parameters that were not used in producing loss. You can "
            "enable unused parameter detection by passing the keyword argument `find_unused_parameters=True` "
            "to `ember.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function "
            f"outputs participate in calculating loss.\nParameters which did not receive grad for rank "
            f"{dist.get_rank()}: {', '.join(missing)}"
        )

    # ---------------------------------------------------------------- helpers
    def _broadcast_from_rank0(self, tensors):
        """Rank 0's values into `tensors` on every rank, one message per dtype."""
        group = self.process_group
        if group.size() == 1 or not tensors:
            return
        root = group.group_rank(group.global_ranks[0], "src")
        by_dtype = {}
        for tensor in tensors:
            by_dtype.setdefault(tensor._data.dtype, []).append(tensor)
        for dtype, same in by_dtype.items():
            flat = np.concatenate([t._data.ravel() for t in same])
            dist.collectives._start(
                group, "DistributedDataParallel broadcast", [group.comm.Ibcast(flat, root=root)], None, False
            )
            if group.rank() != root:
                offset = 0
                for tensor in same:
                    tensor._data[...] = flat[offset : offset + tensor._data.size].reshape(tensor._data.shape)
                    tensor._bump_version()
                    offset += tensor._data.size

    def register_comm_hook(self, state, hook):
        raise NotImplementedError("DistributedDataParallel.register_comm_hook is not implemented in ember")

    def extra_repr(self):
        return ""


def _make_buckets(parameters, cap_bytes):
    """Buckets in reverse parameter order, one dtype each; the first is capped at 1 MiB. A large
    parameter is a bucket of its own, reduced in place, and closes the bucket before it, so that
    buckets start in the order backward fills them."""
    buckets, current, current_bytes, limit = [], [], 0, min(_FIRST_BUCKET_BYTES, cap_bytes)

    def close():
        nonlocal current, current_bytes, limit
        if current:
            buckets.append(_Bucket(current, in_place=False))
            current, current_bytes, limit = [], 0, cap_bytes

    for parameter in reversed(parameters):
        size = parameter._data.nbytes
        if size >= _IN_PLACE_BYTES:
            close()
            buckets.append(_Bucket([parameter], in_place=True))
            continue
        if current and (current_bytes + size > limit or parameter._data.dtype != current[0]._data.dtype):
            close()
        current.append(parameter)
        current_bytes += size
    close()
    return buckets


def _own_contiguous_gradient(parameter):
    """The array of `parameter.grad` if DDP may reduce it where it is, else a contiguous copy (zeros
    for a parameter without gradient); `_finish` makes a copy the new `.grad`."""
    grad = parameter._grad
    if grad is None:
        return np.zeros(parameter._data.shape, parameter._data.dtype)
    array = grad._data
    if array.flags.c_contiguous and array.flags.writeable and not grad._requires_grad:
        return array
    return np.array(array, parameter._data.dtype, order="C")


def _divide_into(parameter, slot, size):
    """`slot` = parameter.grad / size in one pass (zeros without a gradient); a gradient that already
    is `slot` (gradient_as_bucket_view, zeroed in place) is divided where it is."""
    grad = parameter._grad
    if grad is None:
        slot[...] = 0
    elif size == 1:
        if grad._data is not slot:
            np.copyto(slot, grad._data)
    else:
        np.multiply(grad._data, 1.0 / size, out=slot)


def _any_started(buckets):
    return any(len(bucket.pending) < len(bucket.parameters) for bucket in buckets)


def _parameters_reached_from(output):
    """ids of the leaves whose AccumulateGrad nodes the autograd graph of `output` reaches."""
    stack = [t.grad_fn for t in _tensors_in(output) if t.grad_fn is not None]
    reached = {id(t) for t in _tensors_in(output) if t.grad_fn is None and t.requires_grad}
    seen = set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        variable = getattr(node, "variable", None)
        if variable is not None:
            reached.add(id(variable))
        stack.extend(next_node for next_node, _ in node.next_functions)
    return reached


def _tensors_in(value):
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in _tensors_in(item)]
    return []
