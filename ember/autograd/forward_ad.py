"""Forward-mode AD, as `torch.autograd.forward_ad`: dual tensors carry a tangent through each op.

Inside `with dual_level():`, `make_dual(x, t)` gives a tensor whose tangent is `t`. Every op that
receives a dual tensor computes its output's tangent, the Jacobian-vector product J·t, with the
`jvp(ctx, *tangents)` staticmethod of its Function: a built-in primitive states it in its own
declaration (see `Primitive`), a user Function as in PyTorch.

    import ember.autograd.forward_ad as fwAD
    with fwAD.dual_level():
        x = fwAD.make_dual(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 0.0]))
        y = (x * x).sum()
        fwAD.unpack_dual(y).tangent        # d y / d x[0] = 2.0

The hook is one check in `Function.apply` (`state.level is not None`), so forward AD costs nothing
while no dual level is open. Tangents live in the tensor's `_fw_grad` slot, tagged with the
token of the level that made them: once the level exits they are ignored, as PyTorch drops them.

Differences from PyTorch: one level at a time (PyTorch eager has the same limit), and the tangent
computation itself is not seen by forward AD (no forward-over-forward).

`autograd.functional.hvp` opens a *private* level (`private_level`) for forward-over-reverse: the
public API does not see it (a user level may open inside it), and where a tangent cannot follow the
reverse-mode graph (an op without a jvp rule, a user Function, saved-tensor hooks, a user level) it
is marked `incomplete` instead of raising, so that hvp falls back to double backward on the same graph.
"""

import threading
from typing import NamedTuple, Optional

from .._tensor import Tensor
from . import grad_mode as _grad_mode

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "dual_level"]


class _ForwardADState:
    """Process-wide, as PyTorch's `_current_level`. `level` is None when forward AD is off: the
    only thing `Function.apply` reads."""

    level = None
    token = None  # identifies the open level; tangents of other (exited) levels are ignored
    lock = threading.Lock()
    private = False  # the open level is hvp's (see `private_level`)
    incomplete = False  # under a private level: some tangent could not follow the graph
    tangent_graph = True  # under a private level: whether tangent rules are recorded for autograd
    suspended_token = None  # the private level's token while a user level is open inside it


state = _ForwardADState()


def __getattr__(name):
    """`_current_level` as PyTorch's module global: the open level's index, -1 when none is open
    (PyTorch's own tests read it to close levels a failing test left open)."""
    if name == "_current_level":
        return _public_level()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class UnpackedDualTensor(NamedTuple):
    """What `unpack_dual` returns: the primal (a view of the tensor) and its tangent (or None)."""

    primal: Tensor
    tangent: Optional[Tensor]


def _public_level():
    """The open level's index as the public API sees it: -1 when none (or only a private one) is open."""
    return -1 if state.level is None or state.private else state.level


def enter_dual_level():
    """Open the dual level (returns its index, 0). Prefer `with dual_level():`."""
    with state.lock:
        if state.level is not None and not state.private:
            raise RuntimeError("Nested forward mode AD is not supported at the moment")
        if state.private:  # the private level's tangents stop here: its hvp falls back
            state.suspended_token, state.private, state.incomplete = state.token, False, True
        state.token = object()
        state.level = 0
    return 0


def exit_dual_level(*, level=None):
    """Close the dual level: tangents made inside it are forgotten."""
    current = _public_level()
    if level is None:
        level = current
    if level != current or current < 0:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. This is not supported."
        )
    if state.suspended_token is not None:  # back to the private level the user's was opened in
        state.token, state.private, state.suspended_token = state.suspended_token, True, None
        return
    state.level = None
    state.token = None


class private_level:
    """hvp's forward-over-reverse level: `with private_level(tangent_graph) as opened:` gives False
    (and opens nothing) when a user level is already open. Inside, `state.incomplete` says whether
    some tangent was lost; `tangent_graph=False` runs tangent rules without recording them."""

    def __init__(self, tangent_graph):
        self.tangent_graph = tangent_graph
        self.opened = False

    def __enter__(self):
        with state.lock:
            if state.level is None:
                state.token, state.level, state.private = object(), 0, True
                state.incomplete, state.tangent_graph = False, self.tangent_graph
                self.opened = True
        return self.opened

    def __exit__(self, *exc_info):
        if self.opened:
            state.level = state.token = state.suspended_token = None
            state.private, state.incomplete, state.tangent_graph = False, False, True
        return False


def note_lost_tangent():
    """Where tangents cannot follow reverse mode: under a private level, mark it incomplete."""
    if state.private:
        state.incomplete = True


class dual_level:
    """Context manager (and decorator) for a forward-AD level: `with dual_level(): ...`."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc_info):
        exit_dual_level()
        return False

    def __call__(self, function):
        import functools

        @functools.wraps(function)
        def run_in_dual_level(*args, **kwargs):
            with dual_level():
                return function(*args, **kwargs)

        return run_in_dual_level


def make_dual(tensor, tangent, *, level=None):
    """A view of `tensor` that carries `tangent` (same shape) as its forward gradient."""
    if level is None:
        level = _public_level()
    if level < 0 or _public_level() < 0 or level != state.level:
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first (or use `with ember.autograd.forward_ad.dual_level():`)."
        )
    for what, value in (("primal", tensor), ("tangent", tangent)):
        if not isinstance(value, Tensor):
            raise TypeError(f"make_dual: the {what} must be a Tensor, got {type(value).__name__}")
        if not (value.is_floating_point() or value.is_complex()):
            raise ValueError(f"Expected {what} to be floating point or complex, but got: {value.dtype}")
    if tangent._data.shape != tensor._data.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original Tensor, "
            f"this is not supported. Tensor is of size {list(tensor.shape)} while the given forward gradient "
            f"is of size {list(tangent.shape)}."
        )
    if tangent_of(tangent) is not None:
        raise RuntimeError(
            f"Setting a forward grad that itself has a forward gradient at the same level {level} is not supported."
        )
    with _forward_ad_off():
        dual = tensor.view_as(tensor)
    _set_tangent(dual, tangent)
    return dual


def unpack_dual(tensor, *, level=None):
    """`(primal, tangent)` of a dual tensor; tangent is None for a plain tensor or outside a level."""
    if level is None:
        level = _public_level()
    if level < 0 or _public_level() < 0:
        return UnpackedDualTensor(tensor, None)
    tangent = tangent_of(tensor)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    with _forward_ad_off():
        primal = tensor.view_as(tensor)
    return UnpackedDualTensor(primal, tangent)


def tangent_of(tensor):
    """The tangent `tensor` carries at the open level, or None."""
    entry = getattr(tensor, "_fw_grad", None) if isinstance(tensor, Tensor) else None
    if entry is None or entry[0] is not state.token:
        return None
    return entry[1]


def _set_tangent(tensor, tangent):
    tensor._fw_grad = (state.token, tangent)


class _forward_ad_off:
    """Tangent rules run ember ops on primals and tangents; those ops must not propagate again."""

    def __enter__(self):
        self.level = state.level
        state.level = None

    def __exit__(self, *exc_info):
        state.level = self.level
        return False


# ---------------------------------------------------------------- propagation (called by Function.apply)
def propagate_tangents(cls, node, args, outputs):
    """Give `outputs` of `cls.apply(*args)` their tangents, when any input is dual."""
    tangents = [tangent_of(arg) for arg in args]
    if all(tangent is None for tangent in tangents):
        return outputs
    if state.private and not _follows_reverse_mode(cls):
        return outputs
    grad_enabled = _grad_mode.state.enabled
    _grad_mode.state.enabled = grad_enabled and state.tangent_graph
    try:
        with _forward_ad_off():
            _set_output_tangents(cls, node, args, outputs, tangents)
    finally:
        _grad_mode.state.enabled = grad_enabled
    return outputs


def _set_output_tangents(cls, node, args, outputs, tangents):
    input_tangents = None
    if cls._array_forward:
        output_tangents = _primitive_jvp(cls, node, args, outputs, tangents)
    else:
        output_tangents, input_tangents = _user_jvp(cls, node, args, tangents)
    single = not isinstance(outputs, tuple)
    output_tuple = (outputs,) if single else outputs
    tangent_tuple = (
        (output_tangents,) if single or not isinstance(output_tangents, (tuple, list)) else tuple(output_tangents)
    )
    if len(tangent_tuple) != len(output_tuple):
        raise RuntimeError(
            f"{cls.__name__}.jvp returned {len(tangent_tuple)} tangents for "
            f"{len(output_tuple)} outputs; return one tangent per output"
        )
    for index, (output, tangent) in enumerate(zip(output_tuple, tangent_tuple)):
        if input_tangents is not None and tangent is not None and _not_differentiable(node, output):
            raise RuntimeError(
                f"{cls.__name__}'s jvp returned a gradient at position {index}, but the corresponding forward "
                "output is not a differentiable Tensor (not floating point or complex, or marked with "
                "ctx.mark_non_differentiable). You should return None at that position instead."
            )
        if isinstance(output, Tensor) and tangent is not None and output._data.dtype.kind in "fcV":
            if input_tangents is not None and (output._base is not None or any(output is arg for arg in args)):
                _check_view_tangent(cls, node, index, output, tangent, args, input_tangents)
            _set_tangent(output, _fit_to(tangent, output, cls))
    if node._saved is not None:
        _keep_saved_output_tangents(node, output_tuple)


def _not_differentiable(node, output):
    """Whether a user Function's output can have no tangent: not a floating or complex tensor, or marked."""
    if not isinstance(output, Tensor) or output._data.dtype.kind not in "fcV":
        return True
    marked = node._non_differentiable or ()
    return any(item is output or item is output._data for item in marked)


def _keep_saved_output_tangents(node, outputs):
    """An output saved for backward is kept without its tensor; it keeps the tangent too, so that a
    backward run under this level (forward-over-reverse) sees it, as PyTorch's saved variables do."""
    from .function import _SavedOutput

    for item in node._saved:
        if type(item) is _SavedOutput and item.output_nr < len(outputs):
            item.tangent = getattr(outputs[item.output_nr], "_fw_grad", None)


def _follows_reverse_mode(cls):
    """Under a private level, whether to propagate through `cls`: not with grad mode off (reverse mode
    sees a constant there too); and where the tangent could disagree with double backward (no jvp
    rule, a user Function's own backward), the level is marked incomplete."""
    from .function import Function

    if not _grad_mode.state.enabled:
        return False
    if not cls._array_forward or cls.jvp is Function.jvp:
        state.incomplete = True
        return False
    return True


def _fit_to(tangent, output, cls):
    """A tangent with the output's shape and dtype (rules may return a broadcastable tangent)."""
    if not isinstance(tangent, Tensor):
        raise TypeError(f"{cls.__name__}: a tangent must be a Tensor or None, got {type(tangent).__name__}")
    if tangent._data.shape != output._data.shape:
        tangent = tangent.expand(output.shape)
    if tangent._data.dtype != output._data.dtype:
        tangent = tangent.to(output.dtype)
    return tangent


class _JvpContext:
    """The ctx a jvp sees: the node, with `saved_tensors` from `ctx.save_for_forward` (user
    Functions), and `inputs` / `outputs`, the op's arguments and results (primitives)."""

    def __init__(self, node, inputs=None, outputs=None):
        object.__setattr__(self, "_node", node)
        object.__setattr__(self, "inputs", inputs)
        object.__setattr__(self, "outputs", outputs)

    @property
    def saved_tensors(self):
        saved = getattr(self._node, "_saved_for_forward", None)
        return tuple(saved) if saved is not None else self._node.saved_tensors

    def __getattr__(self, name):
        return getattr(self._node, name)

    def __setattr__(self, name, value):
        setattr(self._node, name, value)


def _user_jvp(cls, node, args, tangents):
    from ..ops import zeros_like

    # a missing tangent is zeros, except for non-tensors and integer or bool tensors: those have none
    materialized = [
        tangent
        if tangent is not None or not isinstance(arg, Tensor) or arg._data.dtype.kind not in "fcV"
        else zeros_like(arg)
        for arg, tangent in zip(args, tangents)
    ]
    return cls.jvp(_JvpContext(node), *materialized), materialized


def _base_of(tensor):
    return tensor if tensor._base is None else tensor._base


def _check_view_tangent(cls, node, index, output, tangent, args, input_tangents):
    """A user Function's output that is a view of an input (or the input as-is) needs a tangent
    that is a view of that input's tangent, as PyTorch checks: they must alias as the values do."""
    base = _base_of(output)
    returned = next((k for k, arg in enumerate(args) if arg is output), None)  # unrecorded: the input itself
    position = returned
    if position is None:
        position = next((k for k, arg in enumerate(args) if isinstance(arg, Tensor) and _base_of(arg) is base), None)
    if position is None:
        return  # a view of a tensor made inside forward
    input_tangent = input_tangents[position]
    same_base = tangent._base is not None and _base_of(tangent) is _base_of(input_tangent)
    name = cls.__name__
    if returned is not None or index in (node._inputs_returned or ()):
        if not same_base:
            raise RuntimeError(
                f"A custom Function's forward is returning a view (or an input as-is): output {index} of {name} "
                f"is input {position}, so {name}.jvp must return a view of that input's tangent (e.g. "
                "x_t.view_as(x_t)), not the tangent itself or a new tensor."
            )
    elif tangent._base is None:
        raise RuntimeError(
            f"{name}.jvp is not returning a view for output {index}, which forward made as a view of input "
            f"{position}: return the same view of that input's tangent."
        )
    elif not same_base:
        which = "the same base" if input_tangent._base is not None else "the given"
        raise RuntimeError(
            f"{name}.jvp is not returning a view of {which} tangent for output {index} (a view of input "
            f"{position}): return the same view of that input's tangent."
        )


def _primitive_jvp(cls, node, args, outputs, tangents):
    """A primitive's jvp gets None for inputs without a tangent (no zeros made), as its backward
    gets needs_input_grad."""
    from .function import Function

    if cls.jvp is Function.jvp:
        raise NotImplementedError(
            f"Trying to use forward AD with {cls.__name__} ({cls._backward_cls.__name__}) that does not support "
            f"it because it has not been implemented yet: add a jvp to its declaration ({cls.__module__})."
        )
    ctx = _JvpContext(node, args, outputs)
    # The node may be a holomorphic op's conjugating twin (for backward); the tangent rule is the op's own.
    object.__setattr__(ctx, "_forward_cls", cls)
    return cls.jvp(ctx, *tangents)
