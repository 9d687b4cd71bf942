"""Forward-mode AD, as `torch.autograd.forward_ad`: dual tensors carry a tangent through each op.

Inside `with dual_level():`, `make_dual(x, t)` gives a tensor whose tangent is `t`. Every op that
receives a dual tensor computes its output's tangent, the Jacobian-vector product J·t, from ONE
table (`_jvp_rules`) that pairs each built-in primitive Function with its tangent rule, in the spirit
of HIPS autograd and JAX. A user Function supplies its rule as a `jvp(ctx, *tangents)` staticmethod.

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

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual",
           "dual_level"]


class _ForwardADState:
    """Process-wide, as PyTorch's `_current_level`. `level` is None when forward AD is off: the
    only thing `Function.apply` reads."""

    level = None
    token = None   # identifies the open level; tangents of other (exited) levels are ignored
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
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. "
                           "This is not supported.")
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
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first (or use `with ember.autograd.forward_ad.dual_level():`).")
    for what, value in (("primal", tensor), ("tangent", tangent)):
        if not isinstance(value, Tensor):
            raise TypeError(f"make_dual: the {what} must be a Tensor, got {type(value).__name__}")
        if not (value.is_floating_point() or value.is_complex()):
            raise ValueError(f"Expected {what} to be floating point or complex, but got: {value.dtype}")
    if tangent._data.shape != tensor._data.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original Tensor, "
            f"this is not supported. Tensor is of size {list(tensor.shape)} while the given forward gradient "
            f"is of size {list(tangent.shape)}.")
    if tangent_of(tangent) is not None:
        raise RuntimeError(f"Setting a forward grad that itself has a forward gradient at the same level "
                           f"{level} is not supported.")
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
            rule = _rule_for(cls)
            if rule is None:
                raise NotImplementedError(
                    f"Trying to use forward AD with {cls.__name__} ({cls._backward_cls.__name__}) that does not "
                    "support it because it has not been implemented yet: add its tangent rule to the table "
                    "in ember/autograd/forward_ad.py (_jvp_rules).")
            output_tangents = rule(node, args, outputs, tangents)
        else:
            output_tangents = _user_jvp(cls, node, args, tangents)
        single = not isinstance(outputs, tuple)
        output_tuple = (outputs,) if single else outputs
        tangent_tuple = (output_tangents,) if single or not isinstance(output_tangents, (tuple, list)) \
            else tuple(output_tangents)
        if len(tangent_tuple) != len(output_tuple):
            raise RuntimeError(f"{cls.__name__}.jvp returned {len(tangent_tuple)} tangents for "
                               f"{len(output_tuple)} outputs; return one tangent per output")
        for output, tangent in zip(output_tuple, tangent_tuple):
            if isinstance(output, Tensor) and tangent is not None and output._data.dtype.kind in "fc":
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
    """The ctx a user's jvp sees: the node, with `saved_tensors` from `ctx.save_for_forward`."""

    def __init__(self, node):
        object.__setattr__(self, "_node", node)

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
    materialized = [None if not isinstance(arg, Tensor) else
                    tangent if tangent is not None else zeros_like(arg)
                    for arg, tangent in zip(args, tangents)]
    return cls.jvp(_JvpContext(node), *materialized)


# ---------------------------------------------------------------- the table of tangent rules
# A rule is rule(node, args, outputs, tangents): `args` as given to apply (tensors and other values),
# `tangents` one per arg (None where there is none), `node` the ctx forward filled. It returns the
# tangent of the output (a tuple for several outputs); broadcasting to the output's shape is done after.

def _plus(first, second):
    if first is None:
        return second
    if second is None:
        return first
    return first + second


def _linear(node, args, outputs, tangents):
    """Ops linear in their tensor arguments (views, reductions, copies, indexing): the tangent is the
    same op applied to the tangents (zeros for inputs without one)."""
    from ..ops import zeros_like
    replaced = [(tangent if tangent is not None else zeros_like(arg)) if isinstance(arg, Tensor) else arg
                for arg, tangent in zip(args, tangents)]
    return type(node)._forward_cls.apply(*replaced)


def _add(node, args, outputs, tangents):
    return _plus(*tangents)


def _sub(node, args, outputs, tangents):
    first, second = tangents
    return _plus(first, None if second is None else -second)


def _mul(node, args, outputs, tangents):
    (a, b), (ta, tb) = args, tangents
    return _plus(None if ta is None else ta * b, None if tb is None else a * tb)


def _div(node, args, outputs, tangents):
    (a, b), (ta, tb) = args, tangents
    return _plus(None if ta is None else ta / b, None if tb is None else -tb * outputs / b)


def _pow_scalar(node, args, outputs, tangents):
    (a, exponent), (ta, _) = args, tangents
    if exponent == 0:
        return ta * 0.0
    return ta * exponent * a ** (exponent - 1)


def _pow_tensor(node, args, outputs, tangents):
    from ..ops import where, log
    (a, b), (ta, tb) = args, tangents
    grad_a = None if ta is None else ta * b * a ** (b - 1)
    grad_b = None if tb is None else tb * where(a == 0, 0.0, outputs * log(a))
    return _plus(grad_a, grad_b)


def _unary(derivative):
    """Rule for y = f(a): tangent * f'(a), with f' given in terms of (a, y)."""
    def rule(node, args, outputs, tangents):
        return tangents[0] * derivative(args[0], outputs)
    rule.__name__ = derivative.__name__
    return rule


def _matmul(node, args, outputs, tangents):
    (a, b), (ta, tb) = args, tangents
    matmul = type(node)._forward_cls.apply
    return _plus(None if ta is None else matmul(ta, b), None if tb is None else matmul(a, tb))


def _elementwise_from_backward(node, args, outputs, tangents):
    """Element-wise ops have a diagonal Jacobian, so J t is their backward applied to t (broadcast
    to the output's shape): for these families the backward formula is the tangent rule."""
    from .function import _resolve_saved
    if node._to_save is not None:  # forward ran without recording: resolve what it saved now
        _resolve_saved(node, args, (outputs,), (outputs._data,))
    needs_input_grad = node.needs_input_grad
    total = None
    try:
        for index, tangent in enumerate(tangents):
            if tangent is None:
                continue
            node.needs_input_grad = tuple(position == index for position in range(len(args)))
            grads = node._forward_cls.backward(node, tangent.expand(outputs.shape))
            total = _plus(total, grads[index] if isinstance(grads, tuple) else grads)
    finally:
        node.needs_input_grad = needs_input_grad
    return total


def _where(node, args, outputs, tangents):
    """where(condition, a, b): either value may be a constant array (tangent zero)."""
    from ..ops import where
    from .._tensor import new_tensor
    first, second = tangents[1], tangents[2]
    return where(new_tensor(args[0]), 0.0 if first is None else first, 0.0 if second is None else second)


def _index_put(node, args, outputs, tangents):
    """index_put(a, value, index, ...): the value may be a constant (number or array)."""
    from ..ops import zeros_like
    (a, value, *rest), (ta, tvalue, *_) = args, tangents
    if tvalue is None:
        tvalue = zeros_like(value) if isinstance(value, Tensor) else 0.0
    return type(node)._forward_cls.apply(zeros_like(a) if ta is None else ta, tvalue, *rest)


_RULES = None


def _rule_for(cls):
    """The rule of `cls` or of the primitive it specialises (`Mm` is a `Matmul` with another node name)."""
    rules = _jvp_rules()
    for klass in cls.__mro__:
        rule = rules.get(klass)
        if rule is not None:
            return rule
    return None


def _jvp_rules():
    """{primitive Function class: tangent rule}, built on first use (ops import autograd, not the
    reverse). Subclasses that only rename the node share their base's rule (see `_rule_for`)."""
    global _RULES
    if _RULES is None:
        from ..ops import elementwise as e, pointwise, reduction, linalg, shape, indexing, conversion, \
            broadcast, inplace, joining
        from ..ops import sign, cos, sin
        _RULES = {
            # element-wise
            e.Add: _add,
            e.Sub: _sub,
            e.Mul: _mul,
            e.Div: _div,
            e.PowScalar: _pow_scalar,
            e.PowTensor: _pow_tensor,
            e.Neg: _linear,
            e.Exp: _unary(lambda a, y: y),
            e.Log: _unary(lambda a, y: 1 / a),
            e.Sin: _unary(lambda a, y: cos(a)),
            e.Cos: _unary(lambda a, y: -sin(a)),
            e.Tanh: _unary(lambda a, y: 1 - y * y),
            e.Sigmoid: _unary(lambda a, y: y * (1 - y)),
            e.Relu: _unary(lambda a, y: y > 0),
            e.Sqrt: _unary(lambda a, y: 0.5 / y),
            e.Abs: _unary(lambda a, y: sign(a)),
            pointwise._UnaryFunction: _elementwise_from_backward,
            pointwise._BinaryFunction: _elementwise_from_backward,
            pointwise._ZeroGradientFunction: _elementwise_from_backward,
            pointwise.Clamp: _elementwise_from_backward,
            indexing.Where: _where,
            # reductions
            reduction.Sum: _linear,
            reduction.Mean: _linear,
            broadcast.SumToSize: _linear,
            # matrix products
            linalg.Matmul: _matmul,
            # shapes and views
            shape.View: _linear,
            shape.Expand: _linear,
            shape.Permute: _linear,
            shape.Transpose: _linear,
            shape.Squeeze: _linear,
            shape.Unsqueeze: _linear,
            shape.Contiguous: _linear,
            joining.Cat: _linear,
            joining.Stack: _linear,
            # indexing
            indexing.BasicIndex: _linear,
            indexing.BasicIndexGradient: _linear,
            indexing.Index: _linear,
            indexing.IndexPut: _index_put,
            inplace.CopySlices: _linear,
            # conversions
            conversion.ToCopy: _linear,
            conversion.Clone: _linear,
        }
    return _RULES
