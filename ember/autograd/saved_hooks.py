"""Saved-tensor hooks underneath `ember.autograd.graph.saved_tensors_hooks`.

While hooks are installed, every tensor saved for backward (by a built-in op or by a user Function's
`save_for_backward`, inputs and outputs alike) is handed to `pack_hook` when it is saved, and the
node keeps only what `pack_hook` returned. Each read of `ctx.saved_tensors` calls `unpack_hook` on
it; the result is re-attached to the saved tensor's place in the graph, so double backward works.
As in PyTorch, a tensor saved this way is not checked for later in-place changes (the hooks own it).
"""

import threading
from typing import Any, Callable

from .._tensor import Tensor, new_tensor


class _HooksState(threading.local):
    def __init__(self):
        self.stack = []  # (pack_hook, unpack_hook) pairs, innermost last
        self.disabled_message = None  # set by disable_saved_tensors_hooks


state = _HooksState()

# Called with a tensor just before an in-place op or an out= argument overwrites its memory;
# graph.allow_mutation_on_saved_tensors uses it to clone saved tensors before they change.
before_mutation: list[Callable[[Any], None]] = []


class PackedSaved:
    """One saved tensor as a pack hook left it, with what is needed to rebuild its graph links."""

    __slots__ = ("packed", "unpack_hook", "requires_grad", "grad_fn", "output_nr", "grad_accumulator", "is_output")

    def __init__(self, tensor, is_output, hooks):
        pack_hook, self.unpack_hook = hooks
        self.is_output = is_output  # its grad_fn is the saving node: not stored, so no cycle
        self.requires_grad = tensor._requires_grad
        self.grad_fn = None if is_output else tensor._grad_fn
        self.output_nr = tensor._output_nr
        self.grad_accumulator = None
        if self.requires_grad and self.grad_fn is None and not is_output:
            self.grad_accumulator = _accumulator_of(tensor)
        version = tensor._version
        self.packed = pack_hook(tensor)
        if tensor._version != version:
            raise RuntimeError(
                "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook "
                "can not be modified by in-place operations as this can lead to unexpected side-effects: return "
                "a modified copy instead."
            )

    def unpack(self, node, as_arrays):
        value = self.unpack_hook(self.packed)
        if not isinstance(value, Tensor):
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                f"type {type(value).__name__}"
            )
        if as_arrays:
            return value._data
        if not self.requires_grad:
            return value
        grad_fn = node if self.is_output else self.grad_fn
        tensor = new_tensor(value._data, True, grad_fn, self.output_nr)
        if grad_fn is None:
            tensor._grad_accumulator = self.grad_accumulator
        return tensor


def _accumulator_of(leaf):
    """The AccumulateGrad node of a leaf that requires grad (made now if forward did not make it)."""
    if leaf._grad_accumulator is None:
        from .function import AccumulateGrad

        leaf._grad_accumulator = AccumulateGrad(leaf)
    return leaf._grad_accumulator
