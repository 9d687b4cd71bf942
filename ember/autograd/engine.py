"""The backward engine shared by `Tensor.backward`, `autograd.backward` and `autograd.grad`.

1. Walk the graph from the roots with an explicit stack and count, for every node, how many edges
   lead into it (no recursion: a chain of 100,000 ops is fine).
2. Run a node once all of its incoming gradients have arrived, summing gradients that meet at one
   output; call tensor hooks and node hooks on the way.
3. Backward runs in grad mode `create_graph`, so with create_graph=True it is recorded and can be
   differentiated again. Saved tensors are freed after use unless `retain_graph`.
4. At a leaf, `AccumulateGrad` adds into `.grad` (`backward`) or the gradient is captured and
   returned (`grad`, and `backward(inputs=...)`).
"""
import sys
import warnings

from numpy import ndarray as _ndarray, asarray as _as_array

from .._tensor import Tensor, new_tensor
from . import grad_mode
from . import anomaly
from .function import AccumulateGrad, _edge_to

_grad_state = grad_mode.state

# Callables told about every node the engine runs: observer(node, grad_outputs, grad_inputs).
# The backward trace (`ember.autograd.trace`) adds itself here while it is active.
observers = []


def run_backward(roots, root_grads, retain_graph, create_graph, inputs=None, accumulate=True):
    """Backpropagate `root_grads` from the tensors `roots`.

    With `inputs` the gradients of those tensors are returned (only the part of the graph that
    leads to them runs); with `accumulate` they (or, without `inputs`, all leaves) get `.grad`.
    """
    root_edges = [_edge_to(root) for root in roots]
    dependencies = _count_dependencies(edge[0] for edge in root_edges)

    targets = runnable = None
    if inputs is not None:
        targets = {}
        for index, tensor in enumerate(inputs):
            edge = _edge_to(tensor)
            targets.setdefault(edge[0], []).append((edge[1], index))
        if all(type(node) is not AccumulateGrad or node in targets for node in dependencies):
            runnable = None  # every leaf is an input, so every node leads to one: all run
        else:
            runnable = _nodes_leading_to(targets, dependencies, [edge[0] for edge in root_edges])
            if accumulate:
                runnable.update(targets)  # as PyTorch, backward(inputs=) runs the inputs' own nodes and hooks
    captured = [None] * len(inputs) if inputs is not None else None

    buffers = {}
    for edge, grad in zip(root_edges, root_grads):
        _add_to_buffer(buffers, edge[0], edge[1], grad)
    ready = list(dict.fromkeys(edge[0] for edge in root_edges if dependencies.get(edge[0], 0) == 0))

    previous_mode = _grad_state.enabled
    _grad_state.enabled = create_graph
    try:
        while ready:
            node = ready.pop()
            grads = buffers.pop(node, None)
            if grads is None:
                grads = [None] * _output_count(node)
            if node._tensor_pre_hooks is not None or node._retained_outputs is not None:
                grads = _run_tensor_hooks(node, grads)
            if targets is not None:
                if node in targets:
                    for output_nr, index in targets[node]:
                        captured[index] = grads[output_nr]
                if runnable is not None and type(node) is not AccumulateGrad and node not in runnable:
                    continue
            if type(node) is AccumulateGrad:
                if accumulate and (targets is None or node in targets) and grads[0] is not None:
                    if node._pre_hooks is None and node._post_hooks is None and node._post_accumulate_hooks is None:
                        _accumulate(node, grads[0], create_graph)
                    else:
                        _accumulate_with_hooks(node, grads[0], create_graph)
                for observer in observers:
                    observer(node, (grads[0],), ())
                continue

            grad_inputs = _call_backward(node, grads, create_graph)
            if not retain_graph and node._saved is not None:
                node._saved = None
                node._saved_was_freed = True
            edges = node._edges
            if len(grad_inputs) != len(edges):
                grad_inputs = _check_count(node, grad_inputs)
            # Distribute the gradients to the next nodes, checking each at this boundary.
            for grad, edge in zip(grad_inputs, edges):
                if edge is None:
                    if grad is not None:
                        _check_gradients(node, grad_inputs)  # raises, naming the position
                    continue
                next_node = edge[0]
                if next_node is None:
                    continue
                if runnable is not None and next_node not in runnable and next_node not in targets:
                    continue
                if grad is not None:
                    if type(grad) is not Tensor:
                        grad = _check_type(node, grad_inputs, grad)
                    # (no local for grad._data: a reference left in this frame would make
                    # _owned_copy see the array as shared and copy it)
                    if grad._data.shape != edge[2] or grad._data.dtype != edge[3]:
                        grad = _conform(node, grad_inputs, grad, edge)
                    buffer = buffers.get(next_node)
                    if buffer is None:
                        if next_node._output_meta is None:
                            buffers[next_node] = [grad]
                        else:
                            buffer = buffers[next_node] = [None] * len(next_node._output_meta)
                            buffer[edge[1]] = grad
                    else:
                        existing = buffer[edge[1]]
                        buffer[edge[1]] = grad if existing is None else existing + grad
                remaining = dependencies[next_node] - 1
                dependencies[next_node] = remaining
                if remaining == 0:
                    ready.append(next_node)
    finally:
        _grad_state.enabled = previous_mode

    if inputs is not None and accumulate:
        for tensor, grad in zip(inputs, captured):
            if grad is not None and not tensor.is_leaf:
                _accumulate_into(tensor, grad, create_graph)
    return captured


def _count_dependencies(root_nodes):
    dependencies = {}
    stack = list(dict.fromkeys(root_nodes))  # a root given twice is still walked once
    roots = set(stack)
    while stack:
        for edge in stack.pop()._edges:
            if edge is None:
                continue
            next_node = edge[0]
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
            if edge is None or edge[0] is None:
                continue
            count = remaining[edge[0]] - 1
            remaining[edge[0]] = count
            if count == 0:
                stack.append(edge[0])
    leads_to_target = set(targets)
    runnable = set()
    for node in reversed(order):
        for edge in node._edges:
            if edge is not None and edge[0] in leads_to_target:
                runnable.add(node)
                leads_to_target.add(node)
                break
    return runnable


def _output_count(node):
    meta = node._output_meta
    return 1 if meta is None else len(meta)


def _add_to_buffer(buffers, node, output_nr, grad):
    buffer = buffers.get(node)
    if buffer is None:
        buffer = buffers[node] = [None] * _output_count(node)
    existing = buffer[output_nr]
    buffer[output_nr] = grad if existing is None else existing + grad


def _run_tensor_hooks(node, grads):
    grads = list(grads)
    if node._tensor_pre_hooks is not None:
        for output_nr, hooks in node._tensor_pre_hooks.items():
            for hook in list(hooks.values()):
                # An output that got no gradient still has its hooks called, with None (as PyTorch).
                result = hook(grads[output_nr])
                if result is not None:
                    grads[output_nr] = result
    if node._retained_outputs is not None:
        for output_nr, tensor_ref in node._retained_outputs.items():
            tensor = tensor_ref()
            if tensor is not None and grads[output_nr] is not None:
                grad = grads[output_nr]
                tensor._grad = grad.detach().clone() if tensor._grad is None else tensor._grad + grad.detach()
    return grads


def _call_backward(node, grads, create_graph):
    """Run one node's backward with its hooks; returns its gradients as a tuple."""
    if len(grads) == 1:
        if grads[0] is None:
            return (None,) * len(node._edges)
    elif all(grad is None for grad in grads):
        return (None,) * len(node._edges)
    elif node._materialize_grads and node._output_meta is not None:
        grads = [_zeros(meta) if grad is None and meta is not None else grad
                 for grad, meta in zip(grads, node._output_meta)]
    if node._pre_hooks is not None:
        for hook in list(node._pre_hooks.values()):
            result = hook(tuple(grads))
            if result is not None:
                grads = list(result)
    if create_graph and node._tensor_attributes is not None:
        _warn_tensor_attributes(node)
    try:
        if node._forward_cls._array_backward and not create_graph:
            grad_inputs = _backward_on_arrays(node, grads)
        else:
            grad_inputs = node._forward_cls.backward(node, *grads)
    except Exception as error:
        _explain_backward_error(node, error)
        raise
    if type(grad_inputs) is not tuple:
        grad_inputs = tuple(grad_inputs) if isinstance(grad_inputs, list) else (grad_inputs,)
    if node._post_hooks is not None:
        grad_inputs = _check_gradients(node, grad_inputs)
        for hook in list(node._post_hooks.values()):
            result = hook(grad_inputs, tuple(grads))
            if result is not None:
                grad_inputs = _check_gradients(node, result)
    if anomaly.state.enabled:
        anomaly.check_backward_outputs(node, grad_inputs)
    for observer in observers:
        observer(node, tuple(grads), _check_gradients(node, grad_inputs))
    return grad_inputs


def _backward_on_arrays(node, grads):
    """A built-in op's backward run on the arrays inside the tensors (nothing is recorded in a
    first-order backward, so its formula needs no tensor; see autograd.function)."""
    node._unpack_as_arrays = True
    try:
        if len(grads) == 1:
            results = node._forward_cls.backward(node, grads[0]._data)
        else:
            results = node._forward_cls.backward(node, *[grad._data for grad in grads])
    finally:
        node._unpack_as_arrays = False
    if type(results) is not tuple:
        results = (results,)
    return tuple([None if result is None else new_tensor(result if type(result) is _ndarray else
                                                           _as_array(result)) for result in results])


def _explain_backward_error(node, error):
    """Add what ember knows to an error raised inside a backward (the exception class is kept)."""
    if isinstance(error, ValueError) and "unpack" in str(error) and node._saved is None \
            and not node._saved_was_freed:
        _append_to_message(error, f": ctx.saved_tensors is empty because {node._forward_cls.__name__}.forward "
                                  "saved nothing; call ctx.save_for_backward(...) in forward with the "
                                  "tensors backward needs")
    if anomaly.state.enabled and node._trace:
        _append_to_message(error, anomaly.where_created(node))


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
    if len(grad_inputs) > len(edges) and all(grad is None for grad in grad_inputs[len(edges):]):
        return grad_inputs[:len(edges)]  # PyTorch allows extra trailing Nones
    raise _boundary_error(
        node, f"{node._forward_cls.__name__}.backward returned {len(grad_inputs)} gradient"
              f"{'' if len(grad_inputs) == 1 else 's'}, but forward took {len(edges)} input"
              f"{'' if len(edges) == 1 else 's'}; return None for inputs that need no gradient")


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
        node, f"expected Variable or None (got {type(grad).__name__}): {node._forward_cls.__name__}.backward "
              f"returned it as gradient {index}; return a tensor (or None for an input that needs no gradient)")


def _conform(node, grad_inputs, grad, edge):
    """A gradient of another shape (summed back if it is a broadcast of the input's) or dtype (cast)."""
    shape, dtype = edge[2], edge[3]
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
        if edge is None:
            raise _boundary_error(
                node, f"{node._forward_cls.__name__}.backward returned a gradient different than None at "
                      f"position {index}, but the corresponding forward input was not a tensor; return None there")
        if edge[0] is None:
            checked[index] = None
            continue
        grad = _check_type(node, grad_inputs, grad)
        if grad._data.shape != edge[2] or grad._data.dtype != edge[3]:
            grad = _conform(node, grad_inputs, grad, edge)
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
            f"got {list(grad._data.shape)} but expected shape compatible with {list(shape)}")
    return sum_to_shape(grad, shape)


def _accumulate(node, grad, create_graph):
    tensor = node._variable_ref()
    if tensor is not None and grad is not None:
        _accumulate_into(tensor, grad, create_graph)


def _accumulate_with_hooks(node, grad, create_graph):
    """AccumulateGrad with hooks, in PyTorch's order: node prehooks, accumulation into `.grad`,
    the tensor's post-accumulate-grad hooks, node posthooks."""
    grads = (grad,)
    if node._pre_hooks is not None:
        for hook in list(node._pre_hooks.values()):
            result = hook(grads)
            if result is not None:
                grads = tuple(result)
    _accumulate(node, grads[0], create_graph)
    tensor = node._variable_ref()
    if node._post_accumulate_hooks is not None and tensor is not None:
        for hook in list(node._post_accumulate_hooks.values()):
            if hook(tensor) is not None:
                raise RuntimeError("post accumulate grad hooks should return None.")
    if node._post_hooks is not None:
        for hook in list(node._post_hooks.values()):
            hook((), grads)


def _accumulate_into(tensor, grad, create_graph):
    """`.grad += grad`, in place unless the graph of the gradient itself is being recorded."""
    existing = tensor._grad
    if existing is None:
        tensor._grad = grad if create_graph else _owned_copy(grad)
    elif create_graph or existing._requires_grad:
        tensor._grad = existing + grad
    else:
        existing._data += grad._data


def _owned_copy(grad):
    """A detached gradient whose memory nothing else shares (so `.grad` may be changed in place)."""
    data = grad._data
    if data.base is not None or not data.flags.writeable or sys.getrefcount(data) > _UNSHARED_REFCOUNT:
        data = data.copy()
    return new_tensor(data, False, None, 0)


# getrefcount(data) inside _owned_copy sees: the tensor's slot, the local `data`, and its own argument.
_UNSHARED_REFCOUNT = 3


def _warn_tensor_attributes(node):
    names = ", ".join(f"ctx.{name}" for name in node._tensor_attributes)
    warnings.warn(
        f"{node._forward_cls.__name__}.backward is being differentiated (create_graph=True) and uses "
        f"{names}, a tensor kept as a ctx attribute instead of through ctx.save_for_backward(): its use "
        "in backward is not recorded, so second derivatives through it are silently wrong. Save it "
        "with ctx.save_for_backward() and read it from ctx.saved_tensors.", UserWarning, stacklevel=4)
    node._tensor_attributes = None
