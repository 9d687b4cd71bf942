"""`Function`: the one mechanism behind every differentiable operation.

A `Function` subclass states `forward` and `backward` (and `jvp` for forward-mode AD).
`Function.apply` runs forward and, when recording, makes a graph node. The node *is* the `ctx` that
forward and backward receive (`z.grad_fn` is the `ctx` of the op that made `z`): it holds the saved
tensors, the edges to the nodes of the inputs (`next_functions`) and any attribute forward stored on it.

Two kinds of forward share this machinery:

* a user's Function, as in PyTorch: forward receives the tensors themselves and runs in no-grad mode;
* ember's built-in primitives (`Primitive`, below): forward receives and returns the NumPy arrays
  inside the tensors. Their backward still works on tensors, so double backward is the same for both.

`Primitive` documents the one way a built-in op is declared; the speed paths it enables (array
forward here, array first-order backward in the engine) are explained there.
"""

import functools
import inspect
import weakref

from numpy import ndarray as _ndarray, asarray as _as_array

from .._sparse_coo import SparseCoo
from .._tensor import INFERENCE_COUNTER, Tensor, TensorBase, VersionCounter, new_tensor
from .. import _naming
from .._float_errors import quiet as _quiet_float_errors, restore as _restore_float_errors
from ..utils.hooks import RemovableHandle
from . import grad_mode
from . import anomaly as anomaly_mode
from . import forward_ad
from .edge import Edge, NO_EDGE, GradientEdge
from .saved_hooks import PackedSaved as _PackedSaved, state as _saved_hooks_state
from .._warn import warn as _warn

__all__ = [
    "Function",
    "Primitive",
    "FunctionCtx",
    "BackwardCFunction",
    "once_differentiable",
    "InplaceFunction",
    "NestedIOFunction",
]

_grad_state = grad_mode.state
_forward_ad_state = forward_ad.state
_anomaly_state = anomaly_mode.state


def _unpack_saved(node, on_access=True):
    """`ctx.saved_tensors` (`on_access`: honouring `clear_saved_tensors_on_access`): the saved
    entries as tensors, or as arrays while the engine runs a `backward_on_arrays` on arrays. The
    property's getter itself, so that reading it costs one call, on the path of every backward."""
    saved = node._saved
    if saved is None:
        if node._saved_was_freed:
            if on_access and _clears_on_access(node):
                raise RuntimeError(
                    f"{node.name()}: ctx.saved_tensors can only be accessed once when the Function sets "
                    "clear_saved_tensors_on_access = True; keep what the first access returned"
                )
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved tensors "
                "after they have already been freed). Saved intermediate values of the graph are freed "
                "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
                "backward through the graph a second time or if you need to access saved tensors after "
                "calling backward."
            )
        if on_access and _clears_on_access(node):
            node._saved_was_freed = True
        return ()
    as_arrays = node._unpack_as_arrays
    result = list(saved)
    for index, version in enumerate(node._saved_versions):
        if version is None:
            continue  # not a tensor
        item = result[index]
        if type(item) is _SavedOutput:
            if item.version_counter.value != version:
                raise _modified_error(node, item.unpack(node), item.version_counter.value, version)
            result[index] = item.data if as_arrays else item.unpack(node)
        elif type(item) is _PackedSaved:  # saved under saved_tensors_hooks: no version check (PyTorch's)
            result[index] = item.unpack(node, as_arrays)
        else:
            counter = item._version_counter
            if counter is not None and counter.value != version:
                raise _modified_error(node, item, counter.value, version)
            if as_arrays:
                result[index] = item._data
    # Only a Function's node saves anything (`_resolve_saved`), so `_forward_cls` is set here.
    if on_access and node._forward_cls.clear_saved_tensors_on_access:
        node._saved, node._saved_was_freed = None, True
    return tuple(result)


def _clears_on_access(node):
    """Whether the node's Function sets `clear_saved_tensors_on_access` (a node no Function made,
    AccumulateGrad, has none)."""
    forward_cls = node._forward_cls
    return forward_cls is not None and forward_cls.clear_saved_tensors_on_access


class FunctionCtx:
    """What forward and backward may do with `ctx` (the node of the graph, see `Node`)."""

    # Defaults for every node: instances only store what differs, which keeps node creation cheap.
    _saved = None  # list of saved entries, None once freed (or when nothing was saved)
    _saved_versions = None  # version of each saved tensor when it was saved
    _saved_was_freed = False
    _to_save = None  # what forward passed to save_for_backward, resolved after forward
    _kernel_inputs = None  # the arrays an array forward got, when two input tensors share one array
    _dirty = None
    _non_differentiable = None
    _materialize_grads = True
    # PyTorch's private switch (set in forward): False leaves None, not zeros, for the gradients of
    # outputs marked non-differentiable, even while _materialize_grads is True.
    _materialize_non_diff_grads = True
    _inputs_returned = None  # indices of the outputs that forward returned as inputs, as they were
    _unpack_as_arrays = False  # set by the engine while a `backward_on_arrays` runs on arrays
    needs_input_grad = ()

    def save_for_backward(self, *tensors):
        """Keep tensors (or None) for backward. Use this rather than `ctx.x = x` for tensors:
        saved tensors are checked against later in-place changes and take part in double backward."""
        self._to_save = tensors

    def save_for_forward(self, *tensors):
        """Keep tensors for `jvp` (forward mode), as `save_for_backward` does for backward."""
        self._saved_for_forward = tensors

    def mark_dirty(self, *tensors):
        """Declare the inputs that forward modified in place (they are returned as outputs)."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        """Declare outputs that have no gradient (e.g. indices): they will not require grad."""
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        """With False, backward receives None instead of zeros for outputs that got no gradient."""
        self._materialize_grads = bool(value)

    saved_tensors = property(
        _unpack_saved,
        doc="""The tensors given to `save_for_backward`, unpacked for backward.

        Raises PyTorch's error if one of them was modified in place since it was saved (the versions are named),
        or if the graph was already freed by an earlier backward without `retain_graph=True`. A Function
        with `clear_saved_tensors_on_access = True` frees them on this first access, as PyTorch's.
        """,
    )

    @property
    def saved_variables(self):
        """Book-era name of `saved_tensors`; warns with a DeprecationWarning."""
        _warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, stacklevel=2)
        return _unpack_saved(self, on_access=False)


class Node(FunctionCtx):
    """A node of the backward graph: the rectangle of the book's drawings.

    `next_functions` lists, per tensor input, `(node, output_nr)` of where its gradient goes
    (`AccumulateGrad` for leaves, None for inputs that need no gradient).
    """

    _edges = ()  # one Edge per forward argument (NO_EDGE where no gradient flows)
    _non_tensor_inputs = ()  # positions of arguments that were not tensors (nor wrapped numbers)
    _output_meta = None  # (shape, numpy dtype) per output, to materialize missing gradients
    _pre_hooks = None
    _post_hooks = None
    _tensor_pre_hooks = None  # hooks registered on output tensors: {output_nr: {id: hook}}
    _retained_outputs = None  # {output_nr: weakref to a tensor that called retain_grad()}
    _forward_cls = None
    _trace = None  # where forward ran, recorded by anomaly mode
    _anomaly_parent = None  # anomaly mode: the node whose backward (create_graph) made this one
    _tensor_attributes = None  # names of tensors forward kept as ctx attributes
    metadata_dict = None

    def name(self):
        """The node's name as PyTorch prints it: `MulBackward0`, `AccumulateGrad`, or `<YourFunction>Backward`."""
        return type(self).__name__

    @property
    def next_functions(self):
        """`(node, output_nr)` per tensor input: where this node sends each input's gradient.

        `AccumulateGrad` for a leaf that requires grad, `(None, 0)` for an input that needs no gradient; following
        these tuples from `loss.grad_fn` walks the whole backward graph.
        """
        non_tensors = self._non_tensor_inputs
        return tuple(
            (edge.node, edge.input_nr) for position, edge in enumerate(self._edges) if position not in non_tensors
        )

    @property
    def metadata(self):
        """A dict of your own for this node (empty until used), kept as long as the node."""
        if self.metadata_dict is None:
            self.metadata_dict = {}
        return self.metadata_dict

    def apply(self, *grad_outputs):
        """Call this node's backward directly, as `z.grad_fn.apply(ember.ones(1))` in the book."""
        return self._forward_cls.backward(self, *grad_outputs)

    def __call__(self, *grad_outputs):
        """`z.grad_fn(grad)`: as `apply`, with one gradient per output of the node checked."""
        expected = 1 if self._output_meta is None else len(self._output_meta)
        if len(grad_outputs) != expected:
            raise TypeError(
                f"{self.name()}: expected {expected} arguments, got {len(grad_outputs)} instead "
                "(one gradient per output of the node)"
            )
        return self.apply(*grad_outputs)

    def register_hook(self, hook):
        """`hook(grad_inputs, grad_outputs)` runs after this node's backward; it may return new grad_inputs."""
        if self._post_hooks is None:
            self._post_hooks = {}
        return RemovableHandle(self._post_hooks, hook)

    def register_prehook(self, hook):
        """`hook(grad_outputs)` runs before this node's backward; it may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        return RemovableHandle(self._pre_hooks, hook)

    def _register_tensor_hook(self, output_nr, hook):
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        return RemovableHandle(self._tensor_pre_hooks.setdefault(output_nr, {}), hook)

    def _retain_output(self, output_nr, tensor):
        if self._retained_outputs is None:
            self._retained_outputs = {}
        self._retained_outputs[output_nr] = weakref.ref(tensor)

    def __repr__(self):
        forward_cls = getattr(self, "_forward_cls", None)
        if forward_cls is not None and not issubclass(forward_cls, Primitive):  # a Function written in Python
            return f"<{_naming.package}.autograd.function.{self.name()} object at {hex(id(self))}>"
        return f"<{self.name()} object at {hex(id(self))}>"


class BackwardCFunction(Node):
    """Base of the node classes made for each Function (`MultiplyAddBackward`, `MulBackward0`)."""


class AccumulateGrad(Node):
    """The node of a leaf that requires grad: the engine adds the gradient that reaches it to `.grad`.

    It refers to its tensor weakly and the tensor keeps the node, so no cycle holds either alive.
    """

    _post_accumulate_hooks = None

    def __init__(self, tensor):
        self._variable_ref = weakref.ref(tensor)

    def _register_post_accumulate_hook(self, hook):
        if self._post_accumulate_hooks is None:
            self._post_accumulate_hooks = {}
        return RemovableHandle(self._post_accumulate_hooks, hook)

    @property
    def variable(self):
        return self._variable_ref()

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def __repr__(self):
        return f"<AccumulateGrad object at {hex(id(self))}>"


class _SavedOutput:
    """An output saved for backward, kept without its tensor so node -> tensor -> node is no cycle.

    Unpacking rebuilds a tensor on the same memory whose grad_fn is the saving node.
    """

    __slots__ = ("data", "output_nr", "requires_grad", "version_counter", "tangent")

    def __init__(self, tensor):
        self.tangent = None  # the output's forward-AD tangent, (level token, tangent), once it has one
        self.data = tensor._data
        self.output_nr = tensor._output_nr
        self.requires_grad = tensor._requires_grad
        if tensor._version_counter is None:
            tensor._version_counter = VersionCounter()
        self.version_counter = tensor._version_counter

    def unpack(self, node):
        tensor = new_tensor(self.data, self.requires_grad, node if self.requires_grad else None, self.output_nr)
        tensor._version_counter = self.version_counter
        if self.tangent is not None:
            tensor._fw_grad = self.tangent
        return tensor


def _modified_error(node, tensor, version, expected):
    kind = "output 0 of " + node.name() if tensor.grad_fn is node else "saved by " + node.name()
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [{tensor.type()} {list(tensor.shape)}], which is {kind}, is at version {version}; "
        f"expected version {expected} instead. Hint: enable anomaly detection to find the operation "
        "that failed to compute its gradient, with ember.autograd.set_detect_anomaly(True)."
    )


def _resolve_saved(node, inputs, outputs, raw_outputs=()):
    """Turn what forward passed to save_for_backward into saved entries and their versions
    (None for entries that are not tensors).

    Built-in forwards save arrays: each is matched to the input or output tensor holding it.
    `raw_outputs` are what an array forward returned before wrapping (a 0-d result may be a NumPy
    scalar that only identity with these maps to its output tensor)."""
    to_save = node._to_save
    node._to_save = None
    array_forward = node._forward_cls._array_forward
    saved = list(to_save)
    versions = [None] * len(saved)
    hooks_stack = _saved_hooks_state.stack  # saved_tensors_hooks: the innermost pair packs
    for index, item in enumerate(saved):
        if item is None or array_forward and type(item) in _NUMBERS:
            continue  # a gap, or a Python number a built-in op keeps for backward
        if not isinstance(item, TensorBase):
            if not array_forward:
                raise TypeError(
                    f"{node._forward_cls.__name__}.forward: save_for_backward can only save tensors or None, "
                    f"but argument {index} is of type {type(item).__name__}. Keep other values as ctx "
                    "attributes (ctx.name = value)."
                )
            # The first input holding the array is the one whose array the kernel got as it is (see
            # `_distinct_arrays`); a view the kernel got for a later holder is found by `_input_given`.
            for tensor in inputs:
                if isinstance(tensor, TensorBase) and tensor._data is item:
                    item = tensor
                    break
            else:
                given = None if node._kernel_inputs is None else _input_given(node, item, inputs)
                item = _tensor_holding(item, outputs, raw_outputs) if given is None else given
        if hooks_stack:
            if item._version_counter is INFERENCE_COUNTER:
                raise _inference_saved_error(node)
            forward_ad.note_lost_tangent()  # what unpack returns carries no tangent
            saved[index] = _PackedSaved(item, item._grad_fn is node, hooks_stack[-1])
            versions[index] = 0
        elif item._grad_fn is node:
            item = saved[index] = _SavedOutput(item)
            versions[index] = item.version_counter.value
        else:
            saved[index] = item
            counter = item._version_counter
            if counter is INFERENCE_COUNTER:
                raise _inference_saved_error(node)
            versions[index] = 0 if counter is None else counter.value
    node._saved = saved
    node._saved_versions = versions


def _inference_saved_error(node):
    return RuntimeError(
        "Inference tensors cannot be saved for backward. To work around you can make a clone to get a "
        f"normal tensor and use it in autograd. ({node.name()} needs an input made under inference_mode(); "
        "clone() it outside inference mode first.)"
    )


def _input_given(node, array, inputs):
    """The input tensor whose array (or view of it, see `_distinct_arrays`) the kernel saved."""
    for tensor, given in zip(inputs, node._kernel_inputs):
        if given is array and isinstance(tensor, TensorBase):
            return tensor
    return None


def _tensor_holding(array, outputs, raw_outputs):
    """The output holding a saved array, or a constant tensor for an intermediate one."""
    for tensor, raw in zip(outputs, raw_outputs):
        if raw is array:
            return tensor
    return new_tensor(_as_array(array))


def _edge_to(tensor):
    """Where the gradient of `tensor` goes: its grad_fn, or the AccumulateGrad of a leaf (a
    GradientEdge names the place itself)."""
    if type(tensor) is GradientEdge:
        return Edge((tensor.node, tensor.output_nr, None, None))
    node = tensor._grad_fn
    if node is not None and tensor._base is not None:
        node = refresh_view_grad_fn(tensor)
    if node is None:
        node = tensor._grad_accumulator
        if node is None:
            node = tensor._grad_accumulator = AccumulateGrad(tensor)
    data = tensor._data
    return Edge((node, tensor._output_nr, data.shape, data.dtype))


def refresh_view_grad_fn(view):
    """The grad_fn of a view, rebuilt from its base if the base changed in place since it was made.

    A view recorded before an in-place change of its base (or of another view of it) would otherwise
    send its gradient to the base's old history (PyTorch regenerates it the same way)."""
    recorded = view._view_version
    counter = view._version_counter
    if recorded is None or counter is None or counter.value == recorded:
        return view._grad_fn
    base, replay = view._base, view._view_replay
    if replay is not None and base._requires_grad:
        previous = _grad_state.enabled
        _grad_state.enabled = True
        try:
            fresh = replay(base)
        finally:
            _grad_state.enabled = previous
        retained = _stop_retaining(view)
        view._grad_fn, view._output_nr = fresh._grad_fn, fresh._output_nr
        if retained:
            view.retain_grad()
    view._view_version = counter.value
    return view._grad_fn


def _stop_retaining(tensor):
    """Unregister the tensor's retain_grad() from its current node; True if it was registered.

    When a tensor's history is replaced (in-place op, regenerated view) its retained gradient must
    follow it to the new node, as PyTorch moves its retains_grad hook."""
    if not tensor.retains_grad:
        return False
    del tensor._grad_fn._retained_outputs[tensor._output_nr]
    return True


_FLOATING_KINDS = frozenset("fcV")  # "V": ml_dtypes' bfloat16 and float8 (see ember._dtype)


def _apply_array_forward(cls, node, args, recording):
    token = _quiet_float_errors()  # inf and nan come back silently, as in PyTorch
    try:
        count = len(args)
        if count == 1:
            only = args[0]
            result = cls.forward(node, only._data if isinstance(only, TensorBase) else only)
        elif count == 2:  # unrolled, as binary ops are the most common
            first, second = args
            a = first._data if isinstance(first, TensorBase) else first
            b = second._data if isinstance(second, TensorBase) else second
            if a is b and first is not second:
                a, b = _distinct_arrays(node, args)
            result = cls.forward(node, a, b)
        else:
            arrays = [arg._data if isinstance(arg, TensorBase) else arg for arg in args]
            if len({id(array) for array in arrays}) < len({id(arg) for arg in args}):
                arrays = _distinct_arrays(node, args)
            result = cls.forward(node, *arrays)
    finally:
        _restore_float_errors(token)
    if type(result) is _ndarray:
        array = result
    elif type(result) is tuple:
        return _wrap_outputs(cls, node, args, result, recording)
    elif type(result) is SparseCoo:
        array = result  # a sparse COO tensor's arrays: wrapped like an ndarray (see ember._sparse_coo)
    else:
        array = _as_array(result)  # a NumPy scalar from a reduction, or a Python number
    # Written so that a float result costs no more than one comparison (this runs for every op).
    if recording and (array.dtype.kind in "fV" or _joins_graph_as_complex(cls, node, array)):
        output = new_tensor(array, True, node, 0)
        if node._non_differentiable is not None:
            _apply_non_differentiable(node, (output,))
        if node._to_save is not None:
            _resolve_saved(node, args, (output,), (result,))
        if _anomaly_state.enabled:
            anomaly_mode.record_forward(node)
        return output
    return new_tensor(array)


def _distinct_arrays(node, args):
    """The arrays for an array forward when two different input tensors hold one array
    (`x * x.detach()`, two `from_numpy` of one array): each later holder gets its own view, so
    that what the kernel saves maps back to the right tensor (see `_resolve_saved`)."""
    arrays, seen = [], {}
    for arg in args:
        if isinstance(arg, TensorBase):
            array = arg._data
            arrays.append(array if seen.setdefault(id(array), arg) is arg else array.view())
        else:
            arrays.append(arg)
    node._kernel_inputs = tuple(arrays)
    return arrays


def _joins_graph_as_complex(cls, node, array):
    """Whether a non-float result joins the graph: only a complex one. The node of a holomorphic
    primitive then becomes its conjugating twin (see `_conjugating_node_class`)."""
    if array.dtype.kind != "c":
        return False
    if cls._complex_node_cls is not None:
        node.__class__ = cls._complex_node_cls
    return True


def _conjugating_node_class(cls):
    """The node class a holomorphic primitive uses on complex values.

    PyTorch's gradients are conjugate Wirtinger derivatives: a holomorphic f sends back
    `grad * conj(f'(z))`. A holomorphic primitive states its backward as on real numbers,
    `grad * f'(z)`; this twin runs it as `conj(backward(conj(grad)))`, which is the same thing for
    complex values, so real dtypes pay nothing (the twin is chosen only for complex results).
    """
    plain_backward = cls.backward

    def conjugated_backward(ctx, *grads):
        from ..ops.complex_numbers import conj_if_complex

        results = plain_backward(ctx, *[conj_if_complex(grad) for grad in grads])
        if type(results) is tuple:
            return tuple([conj_if_complex(result) for result in results])
        return conj_if_complex(results)

    namespace = {
        "__module__": cls.__module__,
        "__qualname__": cls.__qualname__,
        "backward": staticmethod(conjugated_backward),
        "_complex_node_cls": None,
    }
    twin = type.__new__(type(cls), cls.__name__, (cls,), namespace)  # no metaclass __init__: no new declaration
    twin._backward_cls = type(cls._backward_cls.__name__, (cls._backward_cls,), {"_forward_cls": twin})
    return twin._backward_cls


def _wrap_outputs(cls, node, args, results, recording):
    """Several outputs of an array forward: wrap each (floating and complex ones join the graph)."""
    outputs = []
    for index, result in enumerate(results):
        array = result if type(result) is _ndarray else _as_array(result)
        differentiable = recording and (array.dtype.kind in "fV" or _joins_graph_as_complex(cls, node, array))
        outputs.append(new_tensor(array, differentiable, node if differentiable else None, index))
    outputs = tuple(outputs)
    if recording:
        node._output_meta = tuple((output._data.shape, output._data.dtype) for output in outputs)
        if node._non_differentiable is not None:
            _apply_non_differentiable(node, outputs)
        if node._to_save is not None:
            _resolve_saved(node, args, outputs, results)
        if _anomaly_state.enabled:
            anomaly_mode.record_forward(node)
    return outputs


def _apply_non_differentiable(node, outputs):
    marked = {id(item) for item in node._non_differentiable}
    for tensor in outputs:
        if id(tensor) in marked or id(tensor._data) in marked:
            tensor._requires_grad = False
            tensor._grad_fn = None


def _apply_tensor_forward(cls, node, args, recording):
    previous = _grad_state.enabled
    _grad_state.enabled = False
    try:
        if cls._uses_setup_context:
            result = cls.forward(*args)
            cls.setup_context(node, args, result)
        else:
            result = cls.forward(node, *args)
    finally:
        _grad_state.enabled = previous
    if not recording:
        _forbid_inplace_on_views(cls, result)
        node._to_save = None
        return result

    is_tuple = isinstance(result, tuple)
    outputs = list(result) if is_tuple else [result]
    dirty = {id(tensor) for tensor in node._dirty} if node._dirty else ()
    non_differentiable = {id(tensor) for tensor in node._non_differentiable} if node._non_differentiable else ()
    input_ids = {id(arg) for arg in args if isinstance(arg, TensorBase)}
    returned_outputs = tuple(outputs)  # what forward returned, before any aliasing below
    for index, output in enumerate(outputs):
        if not isinstance(output, TensorBase):
            continue
        returned_id = id(output)  # what mark_non_differentiable saw, before any aliasing below
        if id(output) in input_ids and id(output) not in dirty:
            output = outputs[index] = output._alias()  # returning an input: a new tensor on its memory
            node._inputs_returned = (node._inputs_returned or ()) + (index,)
        elif id(output) in dirty:
            if id(output) not in input_ids:
                _not_an_input_marked_dirty(cls, output)
            _check_dirty_input(cls, output)
            output._bump_version()  # as PyTorch: marking dirty counts as a modification
        differentiable = returned_id not in non_differentiable and output._data.dtype.kind in _FLOATING_KINDS
        output._requires_grad = differentiable
        output._grad_fn = node if differentiable else None
        output._output_nr = index
    keep_none = () if node._materialize_non_diff_grads else non_differentiable
    node._output_meta = tuple(
        (output._data.shape, output._data.dtype)
        if isinstance(output, TensorBase) and id(returned) not in keep_none
        else None  # None: the engine materializes no zeros for it
        for output, returned in zip(outputs, returned_outputs)
    )
    if node._to_save is not None:
        _resolve_saved(node, args, [output for output in outputs if isinstance(output, TensorBase)])
    if _anomaly_state.enabled:
        anomaly_mode.record_forward(node)
    _warn_about_tensor_attributes(cls, node)
    _forbid_inplace_on_views(cls, outputs)
    return tuple(outputs) if is_tuple else outputs[0]


def _forbid_inplace_on_views(cls, result):
    """Views a custom forward returns (of an input, or an input as-is) may not be changed in place, as
    in PyTorch: the base's history would be rebuilt around the change and bypass the custom backward."""
    for output in result if isinstance(result, (tuple, list)) else (result,):
        if isinstance(output, TensorBase) and output._base is not None:
            output._view_replay = _CustomFunctionView(cls.__name__, output._grad_fn is not None)


class _CustomFunctionView:
    """The replay of a view a custom Function returned: it cannot be rebuilt, and it forbids in-place
    changes (see `_forbid_inplace_on_views`)."""

    __slots__ = ("function_name", "recorded")
    forbids_inplace = True

    def __init__(self, function_name, recorded):
        self.function_name, self.recorded = function_name, recorded

    def __call__(self, tensor):  # its base changed in place since: its history cannot be rebuilt
        raise self._error(
            f"Output 0 of {self.function_name} is a view and its base or another view of its base has been "
            "modified inplace."
        )

    def inplace_error(self, output_nr):
        if not self.recorded:  # (made under no_grad, or of inputs that need no gradient: PyTorch's words)
            return self._error(
                "A view was created in no_grad mode and is being modified inplace with grad mode enabled."
            )
        return self._error(f"Output {output_nr} of {self.function_name} is a view and is being modified inplace.")

    def _error(self, what):
        return RuntimeError(
            f"{what} This view was created inside a custom Function (or because an input was returned "
            "as-is) and the autograd logic to handle view+inplace would override the custom backward "
            "associated with the custom Function, leading to incorrect gradients. This behavior is forbidden. "
            "You can fix this by cloning the output of the custom Function."
        )


def _not_an_input_marked_dirty(cls, tensor):
    """mark_dirty is for inputs forward changed in place: PyTorch warns about a new tensor and refuses a
    view (its history could not be rebased onto a base that is no input)."""
    message = (
        "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have been mutated "
        f"should be passed to ctx.mark_dirty() ({cls.__name__}.forward marked a tensor it made)."
    )
    if tensor._base is not None:
        raise RuntimeError(message)
    _warn(message, UserWarning)


def _check_dirty_input(cls, tensor):
    if tensor._grad_fn is None and tensor._requires_grad:
        raise RuntimeError(
            f"{cls.__name__}: a leaf Variable that requires grad is being used in an in-place operation "
            "(mark_dirty). Clone it first, or modify it under ember.no_grad()."
        )


def _warn_about_tensor_attributes(cls, node):
    """Remember tensors kept as plain ctx attributes; the engine warns if double backward uses them."""
    attributes = getattr(node, "__dict__", None)
    if not attributes:
        return
    names = [
        name
        for name, value in attributes.items()
        if isinstance(value, TensorBase) and value._requires_grad and not name.startswith("_")
    ]
    if names:
        node._tensor_attributes = tuple(names)


def _raise_legacy(cls, node, args, recording):
    raise RuntimeError(_LEGACY_MESSAGE.format(name=cls.__name__))


class _FunctionMeta(type):
    """Gives each Function subclass its own node class, named as PyTorch names it, and reads the
    declaration keywords of a class statement (`class Mul(Primitive, node="MulBackward0")`)."""

    def __new__(mcls, name, bases, namespace, **declaration):
        return super().__new__(mcls, name, bases, namespace)

    def __init__(cls, name, bases, namespace, node=None, **declaration):
        super().__init__(name, bases, namespace)
        cls._backward_cls = type(
            node or name + "Backward", (BackwardCFunction,), {"_forward_cls": cls, "__module__": cls.__module__}
        )
        if declaration:
            if not cls._array_forward:
                raise TypeError(f"{name}: {sorted(declaration)} can only be declared by a Primitive")
            unknown = set(declaration) - {"wraps_numbers", "backward_on_arrays", "holomorphic"}
            if unknown:
                raise TypeError(f"{name}: unknown declaration keywords {sorted(unknown)}")
            if "wraps_numbers" in declaration:
                cls._wraps_numbers = bool(declaration["wraps_numbers"])
            if "backward_on_arrays" in declaration:
                cls._array_backward = bool(declaration["backward_on_arrays"])
        # A subclass of a holomorphic primitive is holomorphic too, with its own node name.
        if declaration.get("holomorphic", cls._complex_node_cls is not None):
            cls._complex_node_cls = _conjugating_node_class(cls)
        forward = namespace.get("forward")
        cls._is_legacy = (
            forward is not None and not isinstance(forward, staticmethod) and not isinstance(forward, classmethod)
        )
        # Chosen once per class, so apply does not ask on every call.
        if cls._is_legacy:
            cls._run_forward = staticmethod(_raise_legacy)
        elif cls._array_forward:
            cls._run_forward = staticmethod(_apply_array_forward)
        else:
            cls._run_forward = staticmethod(_apply_tensor_forward)
        # PyTorch 2 style: forward without ctx, plus setup_context(ctx, inputs, output).
        cls._uses_setup_context = not getattr(cls.setup_context, "_is_placeholder", False)
        if cls._uses_setup_context and _has_defaults(cls.forward):
            cls.apply = classmethod(_apply_with_defaults)  # (so no other Function pays for it)
        # `vjp` is PyTorch's other name for backward: a class may define either, not both.
        if "vjp" in namespace and "backward" not in namespace:
            cls.backward = namespace["vjp"]
        elif "vjp" in namespace and "backward" in namespace and namespace["vjp"] is not namespace["backward"]:
            cls.backward = staticmethod(_both_backward_and_vjp)  # (Function itself aliases the two)


def _both_backward_and_vjp(ctx, *grad_outputs):
    raise RuntimeError(
        "Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You should "
        f"only implement one of them ({ctx._forward_cls.__name__} defines both)."
    )


class Function(FunctionCtx, metaclass=_FunctionMeta):
    """Base class for differentiable operations; subclass it and call `MyFunction.apply(...)`.

    Example (the book's)::

        class MultiplyAdd(Function):
            @staticmethod
            def forward(ctx, w, x, b):
                ctx.save_for_backward(w, x)
                return w * x + b

            @staticmethod
            def backward(ctx, grad_output):
                w, x = ctx.saved_tensors
                return grad_output * x, grad_output * w, grad_output

        z = MultiplyAdd.apply(w, x, b)

    `forward` receives the arguments as given (tensors run in no-grad mode); `backward` receives one
    gradient per output and returns one per forward argument (None where there is none).
    """

    # Set from a Primitive's declaration (see Primitive); a user's Function has none of them.
    _array_forward = False
    _array_backward = False
    _wraps_numbers = False
    _complex_node_cls = None  # a holomorphic primitive's node class for complex values
    # PyTorch's switch: True frees the saved tensors on the first `ctx.saved_tensors`. A class
    # attribute here, as in PyTorch, so reading it never fails on the path of every backward.
    clear_saved_tensors_on_access = False

    def __init__(self, *args, **kwargs):
        _warn(
            f"{type(self)} should not be instantiated. Methods on autograd functions are all static, so you "
            "should invoke them on the class itself. Instantiating an autograd function will raise an error in "
            "a future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __call__(self, *args, **kwargs):
        raise RuntimeError(_LEGACY_MESSAGE.format(name=type(self).__name__))

    @staticmethod
    def forward(ctx, *args, **kwargs):
        """The computation: `forward(ctx, *args)` returns the output(s); subclasses define it.

        Tensors come in as tensors and the body runs in no-grad mode, so nothing inside is recorded:
        the node of `apply` stands for it. With PyTorch 2's style, define `forward(*args)` without `ctx` plus
        `setup_context`.
        """
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """PyTorch 2's style: `setup_context(ctx, inputs, output)` saves what backward needs, so that
        `forward(*args)` can do without `ctx`.
        """
        raise NotImplementedError("setup_context is not implemented.")

    setup_context.__func__._is_placeholder = True  # type: ignore[attr-defined]

    @staticmethod
    def backward(ctx, *grad_outputs):
        """The gradient rule: `backward(ctx, *grad_outputs)` returns one gradient per forward argument
        (None for non-tensors or where none is needed).

        Written with ember ops on tensors, it is recorded when the engine runs with `create_graph=True`,
        so gradients of gradients work; `@once_differentiable` marks one that cannot be differentiated
        again. `vjp` is the same method under PyTorch's other name.
        """
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function "
            "to use it with backward mode AD."
        )

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """The forward-mode rule: `jvp(ctx, *input_tangents)` returns the output tangent(s); needed only for
        `forward_ad` and `func.jvp`.
        """
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with forward mode AD."
        )

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run the Function on `args`: call forward and, when an input requires grad and grad mode is on, record one
        graph node.

        Always call `MyFunction.apply(...)`, never `forward` directly (which would record nothing) nor an instance
        (the pre-PyTorch-1.0 style, refused with a message saying how to port it).
        """
        if kwargs:
            args = _bind_arguments(cls, args, kwargs)
        node = cls._backward_cls()
        recording = _grad_state.enabled and _connect(node, args)
        if not recording:
            count = len(args)
            node.needs_input_grad = _ALL_FALSE[count] if count < 8 else (False,) * count
        outputs = cls._run_forward(cls, node, args, recording)
        if _forward_ad_state.level is not None:
            return forward_ad.propagate_tangents(cls, node, args, outputs)
        return outputs


_ALL_FALSE = [(False,) * count for count in range(8)]
_ONE_TRUE = (True,)
_TRUE_FALSE = (True, False)
_NUMBERS = (int, float, bool, complex)


def _connect(node, args):
    """Give the node its edges (one per argument) and needs_input_grad; False if no input needs a
    gradient (then nothing is recorded and the node is only forward's ctx)."""
    if len(args) == 1:  # unary ops are the most common: no loop, no lists
        (arg,) = args
        if isinstance(arg, TensorBase) and arg._requires_grad:
            node_of_arg = arg._grad_fn
            if node_of_arg is None or arg._base is not None:
                node._edges = (_edge_to(arg),)
            else:
                data = arg._data
                node._edges = (Edge((node_of_arg, arg._output_nr, data.shape, data.dtype)),)
            node.needs_input_grad = _ONE_TRUE
            return True
    elif len(args) == 2:  # binary ops next: the loop below unrolled, tuples instead of lists
        first, second = args
        if isinstance(first, TensorBase) and first._requires_grad:
            node_of_arg = first._grad_fn
            if node_of_arg is None or first._base is not None:
                first_edge = _edge_to(first)
            else:
                data = first._data
                first_edge = Edge((node_of_arg, first._output_nr, data.shape, data.dtype))
        elif type(first) in _NUMBERS and node._forward_cls._wraps_numbers or isinstance(first, TensorBase):
            first_edge = NO_EDGE
        else:
            first_edge = None  # a non-tensor argument: the loop below lists it
        if isinstance(second, TensorBase) and second._requires_grad:
            node_of_arg = second._grad_fn
            if node_of_arg is None or second._base is not None:
                second_edge = _edge_to(second)
            else:
                data = second._data
                second_edge = Edge((node_of_arg, second._output_nr, data.shape, data.dtype))
        elif type(second) in _NUMBERS and node._forward_cls._wraps_numbers or isinstance(second, TensorBase):
            second_edge = NO_EDGE
        else:
            second_edge = None
        if first_edge is not None:
            if second_edge is not None:
                if first_edge is NO_EDGE and second_edge is NO_EDGE:
                    return False
                node._edges = (first_edge, second_edge)
                node.needs_input_grad = (first_edge is not NO_EDGE, second_edge is not NO_EDGE)
                return True
            # the second argument is not a tensor (a dim, a shape): no edge, listed as the loop lists it
            if first_edge is NO_EDGE:
                return False
            node._edges = (first_edge, NO_EDGE)
            node.needs_input_grad = _TRUE_FALSE
            node._non_tensor_inputs = (1,)
            return True
    edges, needs, any_needed, non_tensors = [], [], False, ()
    for arg in args:
        if isinstance(arg, TensorBase):
            if arg._requires_grad:
                node_of_arg = arg._grad_fn
                if node_of_arg is None or arg._base is not None:
                    edges.append(_edge_to(arg))  # leaves and views take the longer way
                else:
                    data = arg._data
                    edges.append(Edge((node_of_arg, arg._output_nr, data.shape, data.dtype)))
                needs.append(True)
                any_needed = True
                continue
        elif not (node._forward_cls._wraps_numbers and type(arg) in _NUMBERS):
            non_tensors += (len(edges),)  # rare: a dim, a shape, a flag
        edges.append(NO_EDGE)
        needs.append(False)
    if any_needed:
        node._edges = edges
        node.needs_input_grad = tuple(needs)
        if non_tensors:
            node._non_tensor_inputs = non_tensors
    return any_needed


_LEGACY_MESSAGE = (
    "Legacy autograd function with non-static forward method is deprecated and not supported: "
    "{name} must be used as {name}.apply(...), with forward and backward as @staticmethod:\n\n"
    "    class {name}(Function):\n"
    "        @staticmethod\n"
    "        def forward(ctx, x):\n"
    "            ctx.save_for_backward(x)\n"
    "            return ...\n\n"
    "        @staticmethod\n"
    "        def backward(ctx, grad_output):\n"
    "            x, = ctx.saved_tensors\n"
    "            return ...\n\n"
    "    y = {name}.apply(x)"
)


def _has_defaults(forward):
    return any(parameter.default is not parameter.empty for parameter in inspect.signature(forward).parameters.values())


def _apply_with_defaults(cls, *args, **kwargs):
    """`apply` of a setup_context Function whose forward has defaults: PyTorch binds them first, so
    setup_context's `inputs` (and needs_input_grad, and backward's gradients) include them."""
    return Function.apply.__func__(cls, *_bind_arguments(cls, args, kwargs))


def _bind_arguments(cls, args, kwargs):
    """Keyword arguments become positional ones, in forward's order (gradients are per position);
    with setup_context, forward's defaults fill in the rest, as PyTorch binds them."""
    parameters = list(inspect.signature(cls.forward).parameters.values())
    if not cls._uses_setup_context:
        parameters = parameters[1:]  # ctx
    bound = list(args)
    for parameter in parameters[len(args) :]:
        if parameter.name in kwargs:
            bound.append(kwargs.pop(parameter.name))
        elif cls._uses_setup_context and parameter.default is not parameter.empty:
            bound.append(parameter.default)
        else:
            break
    if kwargs:
        raise TypeError(f"{cls.__name__}.apply got unexpected keyword arguments {sorted(kwargs)}")
    return tuple(bound)


def once_differentiable(backward):
    """Decorate a backward that cannot itself be differentiated (e.g. it computes with NumPy).

    It receives gradients outside the graph; if double backward reaches it, a RuntimeError says so.
    """

    @functools.wraps(backward)
    def wrapper(ctx, *grad_outputs):
        with grad_mode.no_grad():
            grads = backward(ctx, *[g.detach() if isinstance(g, Tensor) else g for g in grad_outputs])
        if not _grad_state.enabled:
            return grads
        # Tensors through which a second differentiation could reach this backward.
        anchors = [t for t in (*grad_outputs, *_safe_saved(ctx)) if isinstance(t, Tensor) and t._requires_grad]
        if not anchors:
            return grads
        single = not isinstance(grads, tuple)
        wrapped = tuple(
            _DelayedError.apply(g, ctx.name(), *anchors) if isinstance(g, Tensor) else g
            for g in ((grads,) if single else grads)
        )
        return wrapped[0] if single else wrapped

    return wrapper


def _safe_saved(ctx):
    try:
        return ctx.saved_tensors
    except RuntimeError:
        return ()


class _DelayedError(Function, node="DelayedError"):
    """Passes a gradient through, but raises if anything tries to differentiate it again."""

    @staticmethod
    def forward(ctx, grad, name, *anchors):
        ctx.function_name = name
        return grad.clone()

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError(
            f"trying to differentiate twice a function that was marked with @once_differentiable "
            f"({ctx.function_name}): its backward ran outside the graph, so it has no second derivative. "
            "Write its backward with ember ops (and drop @once_differentiable) to get one."
        )


class Primitive(Function):
    """Base of ember's built-in ops: one class statement holds an op's whole story.

    Example (`ember/ops/elementwise.py`)::

        class Mul(Primitive, node="MulBackward0", wraps_numbers=True, backward_on_arrays=True):
            @staticmethod
            def forward(ctx, a, b):                 # NumPy arrays in, arrays out
                needs_a, needs_b = ctx.needs_input_grad
                ctx.save_for_backward(a if needs_b else None, b if needs_a else None)
                return a * b

            @staticmethod
            def backward(ctx, grad):                # ember ops, so double backward works
                a, b = ctx.saved_tensors
                needs_a, needs_b = ctx.needs_input_grad
                return (grad * b if needs_a else None), (grad * a if needs_b else None)

            @staticmethod
            def jvp(ctx, tangent_a, tangent_b):     # forward mode: J @ tangents
                a, b = ctx.inputs
                return add_tangents(tangent_a and tangent_a * b, tangent_b and a * tangent_b)

    and beside it the public function that PyTorch's users call, with its variants::

        @op(method=True, inplace=True)              # x.mul(y), x.mul_(y); out= from its signature
        def mul(input, other, *, out=None): ...

    What the class statement declares:

    * `node`: PyTorch's name of the graph node (`MulBackward0`), shown by `grad_fn.name()`.
    * `forward(ctx, *args)`: receives the arrays inside tensor arguments (other arguments as given)
      and returns arrays. What it saves with `ctx.save_for_backward` (arrays of its inputs or
      outputs) comes back in backward as tensors; save only what the wanted gradients read.
    * `backward(ctx, *grads)`: gradients in, one gradient (or None) per forward argument out.
    * `jvp(ctx, *tangents)`: one tangent per forward argument (None where an argument is not a
      tensor or has no tangent); returns the output's tangent (None for zero). `ctx.inputs` and
      `ctx.outputs` hold the arguments and results as tensors. Shared rules for families of ops
      (linear ops, element-wise ops) live in `ember/ops/_tangents.py`.
    * `wraps_numbers=True`: a Python number operand is PyTorch's "wrapped number", a constant
      tensor, so it shows in `next_functions` as `(None, 0)` (arithmetic: add, mul, ...).
    * `backward_on_arrays=True`: see below.
    * `holomorphic=True`: the op is complex-differentiable and backward is written as for real
      numbers (`grad * f'(z)`); on complex values it runs as `conj(backward(conj(grad)))`, PyTorch's
      `grad * conj(f'(z))`. Ops that are not holomorphic (abs, angle, real) state their complex
      backward themselves; ops linear with real coefficients (add, sum, views) need neither.

    Two speed paths, both contained here and in the engine, on the path of every op:

    * array forward (every Primitive): `apply` hands forward the arrays and wraps its results, so
      no tensor is made and unwrapped inside the op.
    * array backward (`backward_on_arrays=True`): a first-order backward records nothing, so the
      engine may run it on arrays: gradients arrive as arrays and `ctx.saved_tensors` gives arrays.
      Such a backward may only use what arrays and tensors share (operators, `.T`, `.reshape`,
      `.sum`), and calls other primitives through `Cls.call(...)`, which computes on arrays and
      applies the op on tensors. With `create_graph=True` the same backward runs on tensors.
    """

    _array_forward = True

    @classmethod
    def call(cls, *operands):
        """`cls.apply(*operands)` on tensors; on the arrays of a first-order backward that runs on
        arrays (`backward_on_arrays`), the same forward computation with nothing recorded."""
        if isinstance(operands[0], _ndarray):  # (a subclass too: ember.compile records with one)
            return cls.forward(FunctionCtx(), *operands)
        return cls.apply(*operands)


def not_implemented(name):
    """The error a primitive's backward raises where PyTorch defines no derivative (its
    derivatives.yaml formula `not_implemented("name")`): `raise not_implemented("geqrf")`.

    Such an op still records its node, as PyTorch's does, so the output requires grad and the error
    comes only if a backward reaches it (gradients of the op's other inputs still work).
    """
    return NotImplementedError(f"the derivative for '{name}' is not implemented.")


class InplaceFunction(Function):
    def __init__(self, inplace=False):
        self.inplace = inplace


class NestedIOFunction(Function):
    pass
