"""The backward engine shared by `Tensor.backward`, `autograd.backward` and `autograd.grad`.

It reads as PyTorch's 2017 pure-Python engine did, in named steps:

1. `GraphTask.prepare`: walk the graph from the roots with an explicit stack and count, for every
   node, how many edges lead into it (no recursion: a chain of 100,000 ops is fine).
2. `run_node`: once all of a node's incoming gradients have arrived, run its backward with its
   hooks. Backward runs in grad mode `create_graph`, so with create_graph=True it is recorded and
   can be differentiated again. Saved tensors are freed after use unless `retain_graph`.
3. hand on (in `run_backward`'s loop): check each gradient the node returns at this boundary and
   add it to the buffer of the next node; a node whose last gradient arrived is ready to run. The
   most recently readied node runs next, leaves (AccumulateGrad) first, as in PyTorch, whose engine
   gives them the highest priority: their hooks run before the rest of the backward continues.
4. `GraphTask.accumulate`: at a leaf, `AccumulateGrad` adds into `.grad` (`backward`); with
   `inputs` (`grad`, `backward(inputs=...)`), `GraphTask.capture` keeps the gradients reaching them.
5. `GraphTask.run_callbacks`: what `queue_callback` was given during the pass runs once it is done.

Ownership of gradient buffers is decided by what the engine knows, never by reference counts:

* a sum the engine made itself is owned: later gradients are added into it in place, and it may
  become a leaf's `.grad` as it is;
* a gradient from the caller (`grad_outputs`), returned by a hook or seen by one, or made by a
  user's backward (other than passing on the gradient it received) is shared: it is summed out of
  place, and copied before it becomes a leaf's `.grad` (`.grad` is changed in place by the next
  backward and by optimizers);
* what ember's own backwards return is new memory or the gradient they received, so a leaf's
  `.grad` may take it without a copy, once: an array already taken or read-only is copied, and so is
  a view, unless it is the whole of an array no one else was handed (Linear's weight gradient: a
  GEMM's result transposed twice).
"""

import itertools

from numpy import ndarray as _ndarray, asarray as _as_array

from .._sparse_coo import SparseCoo
from .._tensor import Tensor, new_tensor
from .. import _float_errors
from . import grad_mode
from . import anomaly
from ._hook_checks import checked_hook_result, checked_hook_results
from .function import AccumulateGrad, _edge_to
from .saved_hooks import state as _saved_hooks_state
from .._warn import warn as _warn

_grad_state = grad_mode.state
_anomaly_state = anomaly.state

# The backward pass now running (innermost, for a backward started inside another), -1 outside
# any: what PyTorch calls the graph task id (checkpoint recomputes once per backward pass).
current_task = -1
_task_ids = itertools.count()
# Its GraphTask, None outside any backward: where `queue_callback` puts a callback.
current_graph_task = None
# False while a backward runs that is autograd.grad or has `inputs`: reentrant checkpoint cannot
# serve those (PyTorch's torch.autograd._is_checkpoint_valid()).
checkpoint_valid = True

# Callables told about every node the engine runs: observer(node, grad_outputs, grad_inputs).
# The backward trace (`ember.autograd.trace`) adds itself here while it is active.
observers: list = []


def run_backward(roots, root_grads, retain_graph, create_graph, inputs=None, accumulate=True):
    """Backpropagate `root_grads` from the tensors `roots`.

    With `inputs` the gradients of those tensors are returned (only the part of the graph that
    leads to them runs); with `accumulate` they (or, without `inputs`, all leaves) get `.grad`.
    """
    global current_task, current_graph_task, checkpoint_valid
    task = GraphTask(retain_graph, create_graph, accumulate)
    task.prepare(roots, root_grads, inputs)
    outer_task, current_task = current_task, next(_task_ids)
    outer_graph_task, current_graph_task = current_graph_task, task
    outer_valid, checkpoint_valid = checkpoint_valid, accumulate and inputs is None
    ready, runnable, buffers, targets = task.ready, task.runnable, task.buffers, task.targets
    dependencies, ready_leaves = task.dependencies, []
    previous_mode = _grad_state.enabled
    _grad_state.enabled = create_graph
    # Saved-tensor hooks entered or exited during backward (by a hook, say) end with it, as in
    # PyTorch, whose engine restores the caller's thread-local state after the graph task.
    hooks_stack = _saved_hooks_state.stack
    hooks_before = hooks_stack[:]
    # inf and nan come back silently, as in PyTorch: NumPy's float warnings are off for the whole pass
    # (once here rather than around each node's kernels; hooks and user backwards run so too).
    float_errors = _float_errors.quiet()
    try:
        while ready:
            node = ready.pop()
            grads = buffers.pop(node, None)
            if grads is None or node._tensor_pre_hooks is not None or node._retained_outputs is not None:
                grads = task.take_gradients(node, grads)
            if targets is not None and node in targets:
                task.capture(node, grads)
            if type(node) is AccumulateGrad:
                task.accumulate(node, grads)
                continue
            if runnable is not None and node not in runnable:
                continue
            grad_inputs = run_node(task, node, grads)

            # Hand on: send each gradient along its edge, checked, into the next node's buffer, and
            # queue that node once nothing more is coming to it. This runs for every node of every
            # backward, so it is written out here, as in PyTorch's 2017 engine, not called.
            edges = node._edges
            if len(grad_inputs) != len(edges):
                grad_inputs = _check_count(node, grad_inputs)
            for grad, (next_node, input_nr, shape, dtype) in zip(grad_inputs, edges):
                if next_node is None:
                    if grad is not None and node._non_tensor_inputs:
                        _check_gradients(node, grad_inputs)  # raises if it is a non-tensor's position
                    continue
                if runnable is not None and next_node not in runnable and next_node not in targets:
                    continue
                if grad is not None:
                    if type(grad) is not Tensor:
                        grad = _check_type(node, grad_inputs, grad)
                    data = grad._data
                    if data.shape != shape or data.dtype != dtype:
                        grad = _conform(node, grad_inputs, grad, shape, dtype)
                    if next_node in buffers or next_node._output_meta is not None:
                        task.add_to_buffer(next_node, input_nr, grad)
                    else:
                        buffers[next_node] = [grad]  # the common case: the first gradient of a one-output node
                remaining = dependencies[next_node] - 1
                dependencies[next_node] = remaining
                if remaining == 0:
                    if type(next_node) is AccumulateGrad:
                        ready_leaves.append(next_node)
                    else:
                        ready.append(next_node)
            if ready_leaves:  # queued last, so they run first: a leaf's .grad is final as soon as possible
                ready += ready_leaves
                ready_leaves.clear()
        # Still inside the pass: queued callbacks run last, in its grad mode, seeing every .grad.
        captured = task.finish(inputs)
        if task.callbacks is not None:
            task.run_callbacks()
    finally:
        _float_errors.restore(float_errors)
        _grad_state.enabled = previous_mode
        if hooks_stack != hooks_before:
            hooks_stack[:] = hooks_before
        current_task, current_graph_task, checkpoint_valid = outer_task, outer_graph_task, outer_valid
    return captured


class GraphTask:
    """The state of one backward pass: dependency counts, gradient buffers, the ready nodes."""

    __slots__ = (
        "retain_graph",
        "create_graph",
        "fills_grad",
        "dependencies",
        "buffers",
        "owned",
        "shared",
        "ready",
        "targets",
        "runnable",
        "captured",
        "callbacks",
    )

    def __init__(self, retain_graph, create_graph, accumulate):
        self.retain_graph = retain_graph
        self.create_graph = create_graph
        self.fills_grad = accumulate  # leaves (or the `inputs`) get .grad
        self.buffers = {}  # node -> one gradient (or None) per output of the node, summed so far
        self.owned = set()  # (node, output_nr) of buffered gradients the engine made (may add into)
        # ids of gradient arrays no leaf's .grad may take uncopied. Only ids, to keep no gradient
        # alive: should a freed array's id be reused, the new array is merely copied once.
        self.shared = set()
        self.targets = None  # with `inputs`: node -> [(output_nr, index in inputs)]
        self.runnable = None  # with `inputs`: the nodes whose backward leads to one (None: all)
        self.captured = None  # with `inputs`: the gradient of each, as it arrives
        self.callbacks = None  # what `queue_callback` was given during this pass, in order

    def prepare(self, roots, root_grads, inputs):
        """Count the dependencies from the roots, buffer the root gradients, find the ready nodes."""
        root_edges = [_edge_to(root) for root in roots]
        root_nodes = [edge.node for edge in root_edges]
        self.dependencies = dependencies = _count_dependencies(root_nodes)
        if inputs is not None:
            self._prepare_targets(inputs, root_nodes)
        self._share(root_grads)
        for edge, grad in zip(root_edges, root_grads):
            self.add_to_buffer(edge.node, edge.input_nr, grad)
        self.ready = list(dict.fromkeys(node for node in root_nodes if dependencies.get(node, 0) == 0))

    def _prepare_targets(self, inputs, root_nodes):
        self.targets = targets = {}
        for index, tensor in enumerate(inputs):
            edge = _edge_to(tensor)
            targets.setdefault(edge.node, []).append((edge.input_nr, index))
        self.captured = [None] * len(inputs)
        if any(type(node) is AccumulateGrad and node not in targets for node in self.dependencies):
            self.runnable = _nodes_leading_to(targets, self.dependencies, root_nodes)
            if self.fills_grad:
                self.runnable.update(targets)  # as PyTorch, backward(inputs=) runs the inputs' own nodes and hooks
        # else every leaf is an input, so every node leads to one: all run

    def take_gradients(self, node, grads):
        """The gradients that arrived at `node`'s outputs (`grads`, from its buffer, None if none
        did), after the hooks of its output tensors (the loop in run_backward does the rest)."""
        if grads is None:
            grads = [None] * _output_count(node)
        if node._tensor_pre_hooks is not None or node._retained_outputs is not None:
            self._share(grads)  # the hooks see them
            grads = _run_tensor_hooks(node, grads)
            self._share(grads)  # and may return their own
        return grads

    def capture(self, node, grads):
        """Keep the gradients of the `inputs` whose gradient is `node`'s output."""
        for output_nr, index in self.targets[node]:
            self.captured[index] = grads[output_nr]

    def add_to_buffer(self, node, output_nr, grad):
        """Sum `grad` into the buffer of `node`'s output `output_nr` (PyTorch 2017's `_add_grad`)."""
        buffer = self.buffers.get(node)
        if buffer is None:
            buffer = self.buffers[node] = [None] * _output_count(node)
        existing = buffer[output_nr]
        if existing is None:
            buffer[output_nr] = grad
        else:
            if type(existing._data) is SparseCoo and type(grad._data) is not SparseCoo:
                existing, grad = grad, existing  # dense + sparse is dense; sparse + dense is refused
                self.owned.discard((node, output_nr))
            if self.create_graph or existing._requires_grad or grad._requires_grad:
                buffer[output_nr] = existing + grad  # recorded, so the sum can be differentiated
            elif (node, output_nr) in self.owned:
                existing._data += grad._data
            else:  # neither gradient is the engine's to change: a new sum, which the engine owns
                # the sum of two 0-d arrays is a NumPy scalar, which a tensor must not hold
                buffer[output_nr] = new_tensor(_non_ndarray_result(existing._data + grad._data))
                self.owned.add((node, output_nr))

    def _share(self, grads):
        shared = self.shared
        for grad in grads:
            if isinstance(grad, Tensor):
                data = grad._data
                shared.add(id(data))
                if type(data) is _ndarray and data.base is not None:
                    shared.add(id(data.base))

    def share_results_of_user_backward(self, grads, grad_inputs):
        """A user's backward may return memory it keeps (a global, a saved input): none of it may
        become a `.grad` uncopied. Passing on a gradient it received passes on its ownership."""
        received = {id(grad._data) for grad in grads if grad is not None}
        self._share(grad for grad in grad_inputs if isinstance(grad, Tensor) and id(grad._data) not in received)

    def accumulate(self, node, grads):
        """A leaf's gradient arrived: add it into `.grad` (with the node's hooks)."""
        grad = grads[0]
        if self.fills_grad and grad is not None and (self.targets is None or node in self.targets):
            if node._pre_hooks is None and node._post_hooks is None and node._post_accumulate_hooks is None:
                _accumulate(node, grad, self.create_graph, self._may_take(node, grad))
            else:
                # Hooks that run after accumulation see `.grad` itself, so only prehooks (which may
                # keep or replace the gradient) stop `.grad` from taking it (DDP's hooks rely on it:
                # a copy of every gradient would cost as much as reducing it).
                owned = node._pre_hooks is None and self._may_take(node, grad)
                _accumulate_with_hooks(node, grad, self.create_graph, owned)
        for observer in observers:
            observer(node, (grad,), ())

    def _may_take(self, node, grad):
        """Whether the leaf's `.grad` may be `grad` itself (see the module docstring)."""
        if observers or node._tensor_pre_hooks is not None:
            return False  # they may keep the gradient they saw
        if (node, 0) in self.owned:
            return True
        data = grad._data
        if type(data) is SparseCoo:
            # never changed in place (accumulating into it makes a new one), but two leaves given the
            # same one, or one whose values are strided, get copies, as PyTorch's: judged by its values
            data = data.values
        if not data.flags.writeable or not data.flags.c_contiguous or id(data) in self.shared:
            return False
        base = data.base
        if base is not None:
            if (
                type(base) is not _ndarray
                or not base.flags.owndata
                or base.nbytes != data.nbytes
                or id(base) in self.shared
            ):
                return False  # part of other memory, or of memory someone was handed
            self.shared.add(id(base))
        self.shared.add(id(data))  # taken: no other leaf gets the same memory
        return True

    def finish(self, inputs):
        """With `inputs`, give the non-leaf ones their `.grad` (backward) and return all gradients."""
        if inputs is not None and self.fills_grad:
            for tensor, grad in zip(inputs, self.captured):
                if grad is not None and isinstance(tensor, Tensor) and not tensor.is_leaf:
                    _accumulate_into(tensor, grad, self.create_graph, owned=False)
        return self.captured

    def run_callbacks(self):
        """Call what `queue_callback` queued, in order; a callback may queue more, which run too."""
        callbacks, index = self.callbacks, 0
        while index < len(callbacks):  # not a for loop: the list may grow while it runs
            callbacks[index]()
            index += 1


def queue_callback(callback):
    """Call `callback()` once, when the backward pass now running has finished (after every node
    and `.grad`), as PyTorch's `Variable._execution_engine.queue_callback` does; within a backward
    started inside another, when that inner one finishes. It runs in the pass's grad mode
    (`create_graph`) and is dropped if the pass raises. Code that must act once all gradients of a
    pass are in (PyTorch's FSDP) uses it: no hook on one node can tell that."""
    task = current_graph_task
    if task is None:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    if task.callbacks is None:
        task.callbacks = []
    task.callbacks.append(callback)


class ExecutionEngine:
    """`Variable._execution_engine`: PyTorch's handle on its engine, for code that reaches it
    directly (run a backward with `ember.autograd.backward` or `ember.autograd.grad`)."""

    __slots__ = ()

    queue_callback = staticmethod(queue_callback)

    @staticmethod
    def is_checkpoint_valid():
        """False inside an `autograd.grad` or `backward(inputs=...)` pass (see `checkpoint_valid`)."""
        return checkpoint_valid


def _count_dependencies(root_nodes):
    """How many edges lead into each node reachable from `root_nodes`."""
    dependencies = {}
    stack = list(dict.fromkeys(root_nodes))  # a root given twice is still walked once
    roots = set(stack)
    while stack:
        for edge in stack.pop()._edges:
            next_node = edge.node
            if next_node is None:
                continue
            if next_node in dependencies:
                dependencies[next_node] += 1
            else:  # first reached: walk on from it (a root is walked from the start already)
                dependencies[next_node] = 1
                if next_node not in roots:
                    stack.append(next_node)
    return dependencies


def _nodes_leading_to(targets, dependencies, root_nodes):
    """The nodes whose backward must run for gradients to reach `targets` (a node on the path)."""
    # Topological order (parents before children) from the dependency counts, then one pass back.
    remaining = dict(dependencies)
    order, stack = [], list(dict.fromkeys(node for node in root_nodes if remaining.get(node, 0) == 0))
    while stack:
        node = stack.pop()
        order.append(node)
        for edge in node._edges:
            if edge.node is None:
                continue
            count = remaining[edge.node] - 1
            remaining[edge.node] = count
            if count == 0:
                stack.append(edge.node)
    leads_to_target = set(targets)
    runnable = set()
    for node in reversed(order):
        for edge in node._edges:
            if edge.node in leads_to_target:
                runnable.add(node)
                leads_to_target.add(node)
                break
    return runnable


def _output_count(node):
    meta = node._output_meta
    return 1 if meta is None else len(meta)


def _run_tensor_hooks(node, grads):
    grads = list(grads)
    if node._tensor_pre_hooks is not None:
        for output_nr, hooks in node._tensor_pre_hooks.items():
            for hook in list(hooks.values()):
                # An output that got no gradient still has its hooks called, with None (as PyTorch).
                result = hook(grads[output_nr])
                if result is not None:
                    grads[output_nr] = checked_hook_result(hook, result, grads[output_nr])
    if node._retained_outputs is not None:
        for output_nr, tensor_ref in node._retained_outputs.items():
            tensor = tensor_ref()
            if tensor is not None and grads[output_nr] is not None:
                grad = grads[output_nr]
                tensor._grad = grad.detach().clone() if tensor._grad is None else tensor._grad + grad.detach()
    return grads


def run_node(task, node, grads):
    """Run one node's backward with its hooks and free what it saved (unless `retain_graph`);
    returns one gradient per forward argument, as a tuple."""
    count = len(grads)
    if count != 1 or grads[0] is None:
        if node._forward_cls._array_forward and all(grad is None for grad in grads):
            return _nothing_to_run(task, node)
        # A custom Function runs even when no gradient reached it, as in PyTorch: its backward sees
        # zeros (or None, after ctx.set_materialize_grads(False)) and its side effects happen.
        if node._materialize_grads and node._output_meta is not None:
            grads = [
                _zeros(meta) if grad is None and meta is not None else grad
                for grad, meta in zip(grads, node._output_meta)
            ]
    if node._pre_hooks is not None:
        task._share(grads)  # a hook may keep what it sees, or return its own
        for hook in list(node._pre_hooks.values()):
            result = hook(tuple(grads))
            if result is not None:
                grads = list(checked_hook_results(hook, result, grads))
                task._share(grads)
    create_graph = task.create_graph
    if create_graph and node._tensor_attributes is not None:
        _warn_tensor_attributes(node)
    forward_cls = node._forward_cls
    try:
        if forward_cls._array_backward and not create_graph:
            # A built-in op's first-order backward, run on the arrays inside the tensors: nothing is
            # recorded, so its formula needs no tensor (see autograd.function). Written out here
            # rather than called, as it runs for nearly every node.
            node._unpack_as_arrays = True
            try:
                if count == 1:
                    results = forward_cls.backward(node, grads[0]._data)
                else:
                    results = forward_cls.backward(node, *[grad._data for grad in grads])
            finally:
                node._unpack_as_arrays = False
            if type(results) is not tuple:  # one input: no loop on the path of every unary op
                grad_inputs = (new_tensor(results if type(results) is _ndarray else _non_ndarray_result(results)),)
            else:
                grad_inputs = _wrap_array_results(results)
        else:
            if _anomaly_state.enabled:
                grad_inputs = _backward_under_anomaly_mode(node, grads)
            else:
                grad_inputs = forward_cls.backward(node, *grads)
            if type(grad_inputs) is not tuple:
                grad_inputs = tuple(grad_inputs) if isinstance(grad_inputs, list) else (grad_inputs,)
            if not forward_cls._array_forward:
                task.share_results_of_user_backward(grads, grad_inputs)
    except Exception as error:
        _explain_backward_error(node, error)
        raise
    if node._post_hooks is not None:
        grad_inputs = _check_gradients(node, grad_inputs)
        task._share(grad_inputs)
        for hook in list(node._post_hooks.values()):
            result = hook(grad_inputs, tuple(grads))
            if result is not None:
                grad_inputs = _check_gradients(node, checked_hook_results(hook, result, grad_inputs))
                task._share(grad_inputs)
    if _anomaly_state.enabled:
        try:
            anomaly.check_backward_outputs(node, grad_inputs)
        except RuntimeError:
            anomaly.warn_backward_error(node)
            raise
    if observers:
        for observer in observers:
            observer(node, tuple(grads), _check_gradients(node, grad_inputs))
    if node._saved is not None and not task.retain_graph:
        node._saved = None
        node._saved_was_freed = True
    return grad_inputs


def _nothing_to_run(task, node):
    """No gradient reached a built-in op's node: it sends None to every input (its hooks are not called)."""
    _free_saved(task, node)
    return (None,) * len(node._edges)


def _free_saved(task, node):
    if node._saved is not None and not task.retain_graph:
        node._saved = None
        node._saved_was_freed = True


def _wrap_array_results(results):
    """The gradients an array backward returned for several inputs, as tensors (None stays None)."""
    return tuple(
        [
            None if result is None else new_tensor(result if type(result) is _ndarray else _non_ndarray_result(result))
            for result in results
        ]
    )


def _non_ndarray_result(result):
    """A NumPy scalar or number as an array; a sparse gradient (`SparseCoo`) as it is."""
    return result if type(result) is SparseCoo else _as_array(result)


def _explain_backward_error(node, error):
    """Add what ember knows to an error raised inside a backward (the exception class is kept)."""
    if isinstance(error, ValueError) and "unpack" in str(error) and node._saved is None and not node._saved_was_freed:
        _append_to_message(
            error,
            f": ctx.saved_tensors is empty because {node._forward_cls.__name__}.forward "
            "saved nothing; call ctx.save_for_backward(...) in forward with the "
            "tensors backward needs",
        )
    if _anomaly_state.enabled:
        anomaly.warn_backward_error(node)
        if node._trace:
            _append_to_message(error, anomaly.where_created(node))


def _backward_under_anomaly_mode(node, grads):
    """A backward on tensors in anomaly mode: the nodes it makes remember it as their parent."""
    outer, anomaly.state.running = anomaly.state.running, node
    try:
        return node._forward_cls.backward(node, *grads)
    finally:
        anomaly.state.running = outer


def _append_to_message(error, text):
    if error.args and isinstance(error.args[0], str):
        error.args = (error.args[0] + text,) + error.args[1:]
    else:
        error.add_note(text)


def _zeros(meta):
    import numpy as np

    shape, dtype = meta
    return new_tensor(np.zeros(shape, dtype), False, None, 0)


def _check_count(node, grad_inputs):
    edges = node._edges
    if len(grad_inputs) > len(edges) and all(grad is None for grad in grad_inputs[len(edges) :]):
        return grad_inputs[: len(edges)]  # PyTorch allows extra trailing Nones
    raise _boundary_error(
        node,
        f"{node._forward_cls.__name__}.backward returned {len(grad_inputs)} gradient"
        f"{'' if len(grad_inputs) == 1 else 's'}, but forward took {len(edges)} input"
        f"{'' if len(edges) == 1 else 's'}; return None for inputs that need no gradient",
    )


def _boundary_error(node, message):
    """A RuntimeError about what a backward returned, with anomaly mode's forward line when on."""
    error = RuntimeError(message)
    _explain_backward_error(node, error)
    return error


def _check_type(node, grad_inputs, grad):
    if isinstance(grad, Tensor):
        return grad
    index = next(i for i, item in enumerate(grad_inputs) if item is grad)
    raise _boundary_error(
        node,
        f"expected Variable or None (got {type(grad).__name__}): {node._forward_cls.__name__}.backward "
        f"returned it as gradient {index}; return a tensor (or None for an input that needs no gradient)",
    )


def _conform(node, grad_inputs, grad, shape, dtype):
    """A gradient of another shape (summed back if it is a broadcast of the input's) or dtype (cast)."""
    if grad._data.shape != shape:
        index = next(i for i, item in enumerate(grad_inputs) if item is grad)
        try:
            grad = _reduce_to_shape(node._forward_cls.__name__, index, grad, shape)
        except RuntimeError as error:
            _explain_backward_error(node, error)
            raise
    if grad._data.dtype != dtype:
        grad = grad.to(_dtype_of(dtype))
    return grad


def _check_gradients(node, grad_inputs):
    """The whole check at once (count, type, shape, dtype), for hooks and observers to see."""
    if type(grad_inputs) is not tuple:
        grad_inputs = tuple(grad_inputs) if isinstance(grad_inputs, list) else (grad_inputs,)
    if len(grad_inputs) != len(node._edges):
        grad_inputs = _check_count(node, grad_inputs)
    checked = list(grad_inputs)
    for index, (grad, edge) in enumerate(zip(grad_inputs, node._edges)):
        if grad is None:
            continue
        if edge.node is None:
            if index in node._non_tensor_inputs:
                raise _boundary_error(
                    node,
                    f"{node._forward_cls.__name__}.backward returned a gradient different than None at "
                    f"position {index}, but the corresponding forward input was not a tensor; return "
                    "None there",
                )
            checked[index] = None
            continue
        grad = _check_type(node, grad_inputs, grad)
        if grad._data.shape != edge.shape or grad._data.dtype != edge.dtype:
            grad = _conform(node, grad_inputs, grad, edge.shape, edge.dtype)
        checked[index] = grad
    return tuple(checked)


def _dtype_of(numpy_dtype):
    from .._dtype import from_numpy_dtype

    return from_numpy_dtype(numpy_dtype)


def _reduce_to_shape(function_name, index, grad, shape):
    from ..ops.broadcast import sum_to_shape, is_expandable_to

    if not is_expandable_to(shape, grad._data.shape):
        raise RuntimeError(
            f"Function {function_name}Backward returned an invalid gradient at index {index} - "
            f"got {list(grad._data.shape)} but expected shape compatible with {list(shape)}"
        )
    return sum_to_shape(grad, shape)


def _accumulate(node, grad, create_graph, owned):
    tensor = node._variable_ref()
    if tensor is not None and grad is not None:
        _accumulate_into(tensor, grad, create_graph, owned)


def _accumulate_with_hooks(node, grad, create_graph, owned):
    """AccumulateGrad with hooks, in PyTorch's order: node prehooks, accumulation into `.grad`,
    the tensor's post-accumulate-grad hooks, node posthooks."""
    grads = (grad,)
    if node._pre_hooks is not None:
        for hook in list(node._pre_hooks.values()):
            result = hook(grads)
            if result is not None:
                grads = tuple(checked_hook_results(hook, result, grads))
    tensor = node._variable_ref()
    first = tensor is not None and tensor._grad is None
    _accumulate(node, grads[0], create_graph, owned)
    if first and not create_graph and grads[0] is not None:
        # PyTorch's .grad takes over the first gradient, so the hooks below see that gradient as
        # `.grad`; where `.grad` had to be a copy, they see the copy.
        grads = (tensor._grad,)
    if node._post_accumulate_hooks is not None and tensor is not None:
        for hook in list(node._post_accumulate_hooks.values()):
            if hook(tensor) is not None:
                raise RuntimeError("post accumulate grad hooks should return None.")
    if node._post_hooks is not None:
        for hook in list(node._post_hooks.values()):
            hook((), grads)


def _accumulate_into(tensor, grad, create_graph, owned):
    """`.grad += grad`, in place unless the graph of the gradient itself is being recorded.

    A first gradient becomes `.grad` itself only if the engine `owned` it; anything else may be
    referenced elsewhere (the caller's grad_output, a hook's tensor, another leaf's gradient) and
    is copied, as `.grad` is changed in place later. PyTorch decides the same by reference count."""
    existing = tensor._grad
    if existing is None:
        if owned:
            tensor._grad = grad
        elif create_graph:
            tensor._grad = grad.clone()  # recorded, so the new .grad still leads back to the graph
        else:
            tensor._grad = new_tensor(grad._data.copy())
    elif create_graph or existing._requires_grad:
        tensor._grad = existing + grad
    else:
        existing._data += grad._data


def _warn_tensor_attributes(node):
    names = ", ".join(f"ctx.{name}" for name in node._tensor_attributes)
    _warn(
        f"{node._forward_cls.__name__}.backward is being differentiated (create_graph=True) and uses "
        f"{names}, a tensor kept as a ctx attribute instead of through ctx.save_for_backward(): its use "
        "in backward is not recorded, so second derivatives through it are silently wrong. Save it "
        "with ctx.save_for_backward() and read it from ctx.saved_tensors.",
        UserWarning,
        stacklevel=4,
    )
    node._tensor_attributes = None
