"""`torch.autograd.graph`: hooks on saved tensors, the `Node` type of graph nodes, version bumps.

with ember.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = model(x)        # every tensor saved for backward goes through pack_hook
y.sum().backward()      # ... and comes back through unpack_hook when backward reads it
"""

import collections
import contextlib
import weakref

from .._tensor import Tensor
from . import grad_mode as _grad_mode
from .edge import GradientEdge
from .function import Node, AccumulateGrad, _edge_to
from . import saved_hooks as _saved_hooks

__all__ = [
    "saved_tensors_hooks",
    "save_on_cpu",
    "disable_saved_tensors_hooks",
    "allow_mutation_on_saved_tensors",
    "Node",
    "increment_version",
    "GradientEdge",
    "get_gradient_edge",
]


class saved_tensors_hooks:
    """Context manager: pack every tensor saved for backward with `pack_hook`, unpack it with `unpack_hook`.

    Args:
        pack_hook: `pack_hook(tensor) -> anything`, called when an op (built-in or a user Function's
            `save_for_backward`) saves a tensor; the graph keeps only what it returns.
        unpack_hook: `unpack_hook(packed) -> Tensor`, called each time backward (or
            `ctx.saved_tensors`) reads the saved tensor; it must return a tensor with the same content.

    Hooks apply to what is saved while the context is active (backward later uses the hooks the tensor
    was packed with); the innermost context wins. As in PyTorch, tensors saved this way are not checked
    for later in-place changes, and the hooks must not modify their input in place.

    Example::

        with saved_tensors_hooks(lambda t: t.numpy().copy(), lambda a: ember.from_numpy(a)):
            loss = (w * x).sum()
        loss.backward()
    """

    def __init__(self, pack_hook, unpack_hook):
        for name, hook in (("pack_hook", pack_hook), ("unpack_hook", unpack_hook)):
            if not callable(hook):
                raise TypeError(f"saved_tensors_hooks: {name} must be callable, got {type(hook).__name__}")
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        message = _saved_hooks.state.disabled_message
        if message is not None:
            raise RuntimeError(message)
        _saved_hooks.state.stack.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc_info):
        _saved_hooks.state.stack.pop()
        return False


class save_on_cpu(saved_tensors_hooks):
    """Keep the tensors saved for backward on the CPU, copying them back to their device when used.

    ember's arrays already live on the CPU, so this stores a detached copy of each saved tensor (the
    memory moves, as on an accelerator, from the graph's tensors to the copies). `pin_memory` and
    `device_type` are accepted for compatibility.
    """

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack_to_cpu(tensor):
            return tensor.device, tensor.detach().to("cpu", copy=True)

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack_to_cpu, unpack_from_cpu)
        self.pin_memory = pin_memory
        self.device_type = device_type


class disable_saved_tensors_hooks:
    """Context manager (and decorator) under which using `saved_tensors_hooks` raises
    RuntimeError(error_message): for code whose saved tensors must not be intercepted."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        state = _saved_hooks.state
        if state.stack:  # as PyTorch: hooks already in use cannot be disabled from inside them
            raise RuntimeError(self.error_message)
        self._previous = state.disabled_message
        state.disabled_message = self.error_message
        return self

    def __exit__(self, *exc_info):
        _saved_hooks.state.disabled_message = self._previous
        return False

    def __call__(self, function):
        import functools

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with disable_saved_tensors_hooks(self.error_message):
                return function(*args, **kwargs)

        return wrapper


class _Handle:
    """What the graph keeps for one saved tensor inside allow_mutation_on_saved_tensors."""

    __slots__ = ("__weakref__",)


class _AllowMutationOnSavedContext:
    """The state of one allow_mutation_on_saved_tensors block (PyTorch's field names, which tests read).

    `tid_to_weakhandle` maps a saved tensor (id, address, version) to its handle, alive while a graph
    keeps it; `original` and `cloned` map a handle to the tensor as saved, or to the copy made before
    an in-place change; `sid_to_tid` lists the saved tensors of each storage."""

    def __init__(self):
        self.cloned = weakref.WeakKeyDictionary()
        self.original = weakref.WeakKeyDictionary()
        self.tid_to_weakhandle = weakref.WeakValueDictionary()
        self.sid_to_tid = collections.defaultdict(set)

    def clear(self):
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()


def _tensor_id(tensor):
    return id(tensor), tensor.data_ptr(), tensor._version


def _storage_id(tensor):
    return tensor.untyped_storage().data_ptr()


_mutation_context = None  # the open allow_mutation_on_saved_tensors block, if any


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Context manager: tensors saved for backward inside may be changed in place afterwards.

    A saved tensor about to be overwritten (by an in-place op on it or on a view of its memory, or as
    an `out=` argument) is cloned first, and backward reads the clone, so it computes the gradient
    of what was saved instead of raising the "modified by an inplace operation" error. Backward must
    run inside the same block. Yields the block's state (see `_AllowMutationOnSavedContext`).

    Example::

        with ember.autograd.graph.allow_mutation_on_saved_tensors():
            b = a.clone()
            out = (b ** 2).sum()
            b.sin_()             # b's saved value is kept aside
            out.backward()       # a.grad == 2 * a
    """
    global _mutation_context
    if _mutation_context is not None:
        raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
    ctx = _AllowMutationOnSavedContext()

    def pack_hook(tensor):
        tid = _tensor_id(tensor)
        ctx.sid_to_tid[_storage_id(tensor)].add(tid)
        handle = ctx.tid_to_weakhandle.get(tid)
        if handle is None:  # the same tensor at the same version may be saved many times: one handle
            handle = ctx.tid_to_weakhandle[tid] = _Handle()
            ctx.original[handle] = tensor
        return handle

    def unpack_hook(handle):
        message = (
            "Trying to backward outside of the 'allow_mutation_on_saved_tensors' context in which the "
            "graph was originally recorded."
        )
        assert _mutation_context is ctx, message
        if handle in ctx.cloned:
            return ctx.cloned[handle]
        assert handle in ctx.original, message
        return ctx.original[handle]

    def clone_saved(tensor):
        for tid in ctx.sid_to_tid.get(_storage_id(tensor), ()):
            handle = ctx.tid_to_weakhandle.get(tid)
            if handle is None or handle in ctx.cloned:  # no longer saved, or already kept aside
                continue
            with _grad_mode.no_grad():
                ctx.cloned[handle] = ctx.original[handle].clone()
            del ctx.original[handle]

    _mutation_context = ctx
    _saved_hooks.before_mutation.append(clone_saved)
    try:
        with saved_tensors_hooks(pack_hook, unpack_hook):
            yield ctx
    finally:
        _saved_hooks.before_mutation.remove(clone_saved)
        _mutation_context = None
        ctx.clear()


def increment_version(tensor):
    """Bump the version counter of `tensor` (or of each tensor in an iterable), as an in-place change
    would: backward then refuses the values saved before it. Inference tensors track no version:
    they are skipped, as in PyTorch."""
    tensors = (tensor,) if isinstance(tensor, Tensor) else tensor
    for item in tensors:
        if not item.is_inference():
            item._bump_version()


def get_gradient_edge(tensor):
    """The GradientEdge of `tensor`: where its gradient goes in the graph (its grad_fn and output
    number, or the AccumulateGrad of a leaf). It stays valid after the tensor is gone or changed in
    place, so `autograd.grad(out, edge)` still gives the gradient at that point of the graph."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require gradients")
    edge = _edge_to(tensor)
    node = edge.node
    if type(node) is not AccumulateGrad and node._output_meta is None:
        node._output_meta = ((edge.shape, edge.dtype),)  # one output: its shape, for the edge as a root
    return GradientEdge(node, edge.input_nr)
