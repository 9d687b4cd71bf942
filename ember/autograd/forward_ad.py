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
"""

import threading
from typing import NamedTuple, Optional

from .._tensor import Tensor

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "dual_level"]


class _ForwardADState:
    """Process-wide, as PyTorch's `_current_level`. `level` is None when forward AD is off: the
    only thing `Function.apply` reads."""

    level = None
    token = None  # identifies the open level; tangents of other (exited) levels are ignored
    lock = threading.Lock()


state = _ForwardADState()


def __getattr__(name):
    """`_current_level` as PyTorch's module global: the open level's index, -1 when none is open
    (PyTorch's own tests read it to close levels a failing test left open)."""
    if name == "_current_level":
        return -1 if state.level is None else state.level
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class UnpackedDualTensor(NamedTuple):
    """What `unpack_dual` returns: the primal (a view of the tensor) and its tangent (or None)."""

    primal: Tensor
    tangent: Optional[Tensor]


def enter_dual_level():
    """Open the dual level (returns its index, 0). Prefer `with dual_level():`."""
    with state.lock:
        if state.level is not None:
            raise RuntimeError("Nested forward mode AD is not supported at the moment")
        state.token = object()
        state.level = 0
    return 0


def exit_dual_level(*, level=None):
    """Close the dual level: tangents made inside it are forgotten."""
    current = -1 if state.level is None else state.level
    if level is None:
        level = current
    if level != current or current < 0:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. This is not supported."
        )
    state.level = None
    state.token = None


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
        level = -1 if state.level is None else state.level
    if level < 0 or state.level is None or level != state.level:
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
        level = -1 if state.level is None else state.level
    if level < 0 or state.level is None:
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
    with _forward_ad_off():
        if cls._array_forward:
            output_tangents = _primitive_jvp(cls, node, args, outputs, tangents)
        else:
            output_tangents = _user_jvp(cls, node, args, tangents)
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
        for output, tangent in zip(output_tuple, tangent_tuple):
            if isinstance(output, Tensor) and tangent is not None and output._data.dtype.kind in "fcV":
                _set_tangent(output, _fit_to(tangent, output, cls))
    return outputs


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

    materialized = [
        None if not isinstance(arg, Tensor) else tangent if tangent is not None else zeros_like(arg)
        for arg, tangent in zip(args, tangents)
    ]
    return cls.jvp(_JvpContext(node), *materialized)


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
