"""`torch.autograd.graph`: hooks on saved tensors, the `Node` type of graph nodes, version bumps.

with ember.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = model(x)        # every tensor saved for backward goes through pack_hook
y.sum().backward()      # ... and comes back through unpack_hook when backward reads it
"""

from .._tensor import Tensor
from .edge import GradientEdge
from .function import Node, AccumulateGrad, _edge_to
from . import saved_hooks as _saved_hooks

__all__ = [
    "saved_tensors_hooks",
    "save_on_cpu",
    "disable_saved_tensors_hooks",
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
