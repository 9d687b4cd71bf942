"""Turning a finished recording into one flat Python function: guards first, then the NumPy calls.

The generated function takes the call's `(args, kwargs)` and returns `MISS` if any guard fails, before
anything has run, so a miss leaves no state half-updated. Otherwise it reads each input array (from the
arguments, from the tensors met while recording, from their `.grad`), makes the recorded calls in
order with plain local variables (`del` at each slot's last use frees buffers as early as eager would,
or earlier), applies the recorded effects (`p.grad = ...`, `p.data = ...`) and builds the result.
Reading `source` (kept on the function) shows exactly what a replay does.
"""

import numpy

from .. import _float_errors
from .._tensor import new_tensor
from ..autograd import anomaly, grad_mode
from ..autograd.function import Function, once_differentiable
from ..ops import creation
from . import _trace

__all__ = ["MISS", "Unsupported", "build"]


class _Miss:
    def __repr__(self):
        return "MISS"


MISS = _Miss()


class Unsupported(Exception):
    """Something in the call's arguments or result that a replay cannot reproduce (a graph break)."""


_SCALARS = (bool, int, float, str, type(None), complex)


class _Writer:
    def __init__(self):
        self.lines = []
        self.names = {}  # id(object) -> global name
        self.globals = {"MISS": MISS, "np": numpy}
        self.keep = []

    def constant(self, value, prefix="c"):
        if type(value) in (bool, type(None)) or (type(value) is int) or (type(value) is str and len(value) < 80):
            return repr(value)
        key = id(value)
        name = self.names.get(key)
        if name is None:
            name = self.names[key] = f"{prefix}{len(self.names)}"
            self.globals[name] = value
            self.keep.append(value)
        return name

    def line(self, text, depth=1):
        self.lines.append("    " * depth + text)

    def template(self, value):
        if isinstance(value, _trace.Ref):
            return f"v{value.slot}"
        kind = type(value)
        if kind is tuple:
            return "(" + "".join(self.template(item) + ", " for item in value) + ")"
        if kind is list:
            return "[" + ", ".join(self.template(item) for item in value) + "]"
        if kind is dict:
            return "{" + ", ".join(f"{self.constant(key)}: {self.template(item)}" for key, item in value.items()) + "}"
        if kind is _trace._SliceTemplate:
            return "slice" + self.template(value.parts)
        return self.constant(value)


class _Spent(Function):
    """The grad_fn of a replayed output whose graph a backward inside the function already used up."""

    @staticmethod
    def forward(ctx, value, anchor):
        return value.detach()

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError(
            "Trying to backward through the graph a second time: this tensor came from a compiled "
            "function whose own backward already used the graph (as in eager mode)."
        )


_ANCHOR = new_tensor(numpy.zeros(()), requires_grad=True)


def _spent(array):
    return _Spent.apply(new_tensor(array), _ANCHOR)


def _as_tensor_array(value):
    return value if type(value) is numpy.ndarray else numpy.asarray(value)


def build(recording, plan):
    """The replay function for `recording`; `plan` (see ember.compiler._api) holds the guards, the
    argument paths, the effects and the result template worked out after the recorded run."""
    writer = _Writer()
    writer.globals.update(
        grad_state=grad_mode.state,
        anomaly_state=anomaly.state,
        quiet=_float_errors.quiet,
        restore=_float_errors.restore,
        new_tensor=new_tensor,
        as_tensor_array=_as_tensor_array,
        spent=_spent,
        attach=_attach,
        ndarray=numpy.ndarray,
    )
    line = writer.line
    line(f"if grad_state.enabled is not {plan.grad_enabled!r} or anomaly_state.enabled:")
    line("return MISS", 2)
    # --- arguments: structure and Python values
    for name, expression, checks in plan.argument_checks:
        line(f"{name} = {expression}")
        for kind, value in checks:
            if kind == "type":
                line(f"if type({name}) is not {writer.constant(value)}:")
            elif kind == "len":
                line(f"if len({name}) != {value}:")
            elif kind == "keys":
                line(f"if tuple({name}) != {writer.constant(value)}:" if value else f"if {name}:")
            elif kind == "same":
                line(f"if {name} is not {value}:")
            elif kind == "value":
                line(f"if type({name}) is not {writer.constant(type(value))} or {name} != {writer.constant(value)}:")
            else:  # identity
                line(f"if {name} is not {writer.constant(value)}:")
            line("return MISS", 2)
    # --- Python state: modules, optimizers, globals
    for container, key, value, how in plan.guards:
        target = f"{writer.constant(container, 'g')}.get({writer.constant(key)}, MISS)"
        if how == "is":
            line(f"if {target} is not {writer.constant(value)}:")
        elif how == "len":
            line(f"if len({writer.constant(container, 'g')}) != {value}:")
        elif how == "cell":
            line(f"if {writer.constant(container, 'g')}.cell_contents is not {writer.constant(value)}:")
        else:
            line(f"if {target} != {writer.constant(value)} or type({target}) is not {writer.constant(type(value))}:")
        line("return MISS", 2)
    for source, was_none in plan.grad_checks:
        line(f"if ({_source_expression(source, writer)}._grad is None) is not {was_none}:")
        line("return MISS", 2)
    # --- input arrays
    for source, requires_grad, is_leaf in plan.input_flags:
        expression = _source_expression(source, writer)
        line(
            f"if {expression}._requires_grad is not {requires_grad} or ({expression}._grad_fn is None) is not {is_leaf}:"
        )
        line("return MISS", 2)
    for slot, source in plan.input_expressions:
        array = recording.values[slot]
        line(f"v{slot} = {_source_expression(source, writer)}._data")
        line(
            f"if v{slot}.shape != {array.shape!r} or v{slot}.strides != {array.strides!r} "
            f"or v{slot}.dtype != {writer.constant(array.dtype)}:"
        )
        line("return MISS", 2)
    if len(plan.input_expressions) > 1:
        roots = ", ".join(f"v{slot}" for slot, _ in plan.input_expressions)
        groups = _alias_groups([recording.values[slot] for slot, _ in plan.input_expressions])
        line(f"if not _aliases_match(({roots},), {groups!r}):")
        line("return MISS", 2)
        writer.globals["_aliases_match"] = _aliases_match
    # --- the recorded calls
    ops = _products_with_ones(recording, recording.ops[: plan.forward_ops])
    pinned = set()
    for value in [plan.result] + [effect[2] for effect in plan.effects]:
        _result_slots(value, pinned)
    if plan.joint is not None:
        pinned.update(plan.joint[0])
        pinned.update(plan.joint[1])
    guarded = {slot for _, slot, _, _ in recording.value_guards}
    dead = _dead_ops(ops, pinned | guarded)
    last_use = {}
    for index, op in enumerate(ops):
        if index not in dead:
            for slot in _trace.slots_in(op.args, []) + _trace.slots_in(op.kwargs, []):
                last_use[slot] = index
    guards_at = {}
    for position, slot, convert, expected in recording.value_guards:
        guards_at.setdefault(position, []).append((slot, convert, expected))
        last_use[slot] = max(last_use.get(slot, -1), position)
    draws_before_guard = any(op.name.startswith("random.") for op in recording.ops[: max(guards_at, default=0)])
    if draws_before_guard:  # a miss must leave the random state as it found it
        line("random_state = generator.get_state()")
        writer.globals["generator"] = creation.default_generator
    made_once = _arrays_made_once(recording, ops, pinned)
    reuse = _reused_buffers(recording, ops, last_use, pinned, dead | set(made_once))
    for index, (how, slot) in reuse.items():
        if how == "alias":
            last_use[slot] = max(last_use.get(slot, -1), index)  # a root standing for its view
    dying = {}  # op index -> the slots last used there
    for slot, last in last_use.items():
        dying.setdefault(last, []).append(slot)
    release_at = max(guards_at, default=0)  # past the last guard, a miss can no longer happen
    line("token = quiet()")
    line("try:")
    for index, op in enumerate(ops):
        for slot, convert, expected in guards_at.get(index, ()):
            line(f"if {writer.constant(convert, 'f')}(v{slot}) != {writer.constant(expected)}:", 2)
            if draws_before_guard:
                line("generator.set_state(random_state)", 3)
            line("return MISS", 3)
        if index == release_at:
            for source in _replaced_grads(plan):
                line(f"{_source_expression(source, writer)}._grad = None", 2)
        if index not in dead:
            if index in made_once:
                line(f"v{op.outs} = {writer.constant(made_once[index])}", 2)
            else:
                _emit_op(writer, op, 2, reuse.get(index))
        freed = [slot for slot in dying.get(index, ()) if slot not in pinned]
        if freed:
            line("del " + ", ".join(f"v{slot}" for slot in sorted(freed)), 2)
    for slot, convert, expected in guards_at.get(len(ops), ()):
        line(f"if {writer.constant(convert, 'f')}(v{slot}) != {writer.constant(expected)}:", 2)
        line("return MISS", 3)
    line("pass", 2)
    line("finally:")
    line("restore(token)", 2)
    # --- effects and result
    if plan.joint is not None:
        slots, saved, backward, leaves = plan.joint
        slot_tuple = "(" + "".join(f"v{slot}, " for slot in slots) + ")"
        saved_tuple = "(" + "".join(f"v{slot}, " for slot in saved) + ")"
        leaf_tuple = "(" + "".join(_source_expression(leaf, writer) + ", " for leaf in leaves) + ")"
        line(f"attached = attach({slot_tuple}, {writer.constant(backward, 'b')}, {saved_tuple}, {leaf_tuple})")
    for source, attribute, value in plan.effects:
        line(f"{_source_expression(source, writer)}.{attribute} = {_result_expression(value, writer)}")
    line(f"return {_result_expression(plan.result, writer)}")
    source = "def replay(A, K):\n" + "\n".join(writer.lines) + "\n"
    namespace = dict(writer.globals)
    code = compile(source, f"<ember-replay {plan.name}>", "exec")
    exec(code, namespace)
    replay = namespace["replay"]
    replay.source = source
    replay.keep = writer.keep
    return replay, writer


def _replaced_grads(plan):
    """The tensors whose old `.grad` the call replaces without reading it (`zero_grad` then backward).

    Eager mode drops such a gradient at `zero_grad`; the replay drops it once no guard can miss any
    more, rather than keeping it alive beside the new one until the end (its peak would be higher)."""
    read = {source for _, source in plan.input_expressions}
    return [
        source
        for source, attribute, value in plan.effects
        if attribute == "_grad" and value[0] in ("tensor", "none") and ("grad", source) not in read
    ]


# Recorded calls that only compute their result: nothing written, nothing drawn, nothing raised that
# the guards let through. Any other call stays, even when nothing reads its result.
_PURE_CALLS = frozenset(
    ("numpy.empty", "numpy.zeros", "numpy.ones", "numpy.asarray", "numpy.reshape", "numpy.moveaxis")
    + ("ndarray.astype", "ndarray.reshape", "ndarray.swapaxes", "ndarray.transpose", "ndarray.view")
    + ("ndarray.ravel", "ndarray.squeeze", "ndarray.min", "ndarray.max", "numpy.min", "numpy.max")
)


def _dead_ops(ops, needed):
    """Indices of the ops a replay can skip: pure calls (an element-wise ufunc without `out=`, or one
    of `_PURE_CALLS`) whose results nothing later reads, nor the result, the effects or a guard
    (`needed`). Eager code makes such calls on its way (a cast that turns out to be a no-op, a
    buffer it then does not use); each costs a replay microseconds."""
    used = set(needed)
    dead = set()
    for index in range(len(ops) - 1, -1, -1):
        op = ops[index]
        outs = op.outs if type(op.outs) is tuple else (op.outs,)
        pure = op.name in _PURE_CALLS or (op.name.endswith(".__call__") and "out" not in op.kwargs)
        if pure and not any(out is not None and out in used for out in outs):
            dead.add(index)
            continue
        used.update(_trace.slots_in(op.args, []) + _trace.slots_in(op.kwargs, []))
    return dead


def _written_slots(op):
    """The slots `op` changes in place: those it recorded as written, and its `out=`."""
    return set(op.writes) | set(_trace.slots_in(op.kwargs.get("out"), []))


_ONES_MAKERS = frozenset(("numpy.ones", "numpy.ones_like"))


def _products_with_ones(recording, ops):
    """`ops`, with each `np.multiply(ones, x)` whose `ones` the replay itself filled (np.ones or
    np.ones_like, not written since) made `np.multiply(x, 1)`: per element the same IEEE product in
    the same dtype, reading one array instead of two. A backward makes such products when it scales
    operands by the seed gradient `ones_like(z)` that `z.backward()` or a user passed in."""
    values = recording.values
    ones = {}  # slot -> id of its memory's owner, for the arrays still all ones
    rewritten = list(ops)
    for index, op in enumerate(ops):
        simple = type(op.outs) is int and not op.unpack
        if simple and op.name in _ONES_MAKERS and _owns(values[op.outs]):
            ones[op.outs] = id(values[op.outs])
            continue
        if simple and ones and op.fn is numpy.multiply and not op.kwargs and len(op.args) == 2:
            result = values[op.outs]
            for factor, other in (op.args, op.args[::-1]):
                if not (isinstance(factor, _trace.Ref) and factor.slot in ones and isinstance(other, _trace.Ref)):
                    continue
                operand = values[other.slot]
                if (
                    type(operand) is numpy.ndarray
                    and type(result) is numpy.ndarray
                    and result.dtype.kind in "biufc"
                    and operand.shape == result.shape
                    and operand.dtype == result.dtype == values[factor.slot].dtype
                ):
                    one = result.dtype.type(1)
                    rewritten[index] = _trace.Op(op.fn, (other, one), {}, op.outs, op.name, op.unpack, op.writes)
                    break
        written = _written_slots(op)
        if written and ones:
            roots = {id(_trace._root(values[slot])) for slot in written if isinstance(values[slot], numpy.ndarray)}
            ones = {slot: root for slot, root in ones.items() if root not in roots}
    return rewritten


# NumPy's makers of arrays from their arguments alone (no data read, nothing drawn).
_CONSTANT_MAKERS = frozenset(("numpy.ones", "numpy.zeros", "numpy.full", "numpy.arange", "numpy.eye"))
# Made-once arrays stay with the variant; above this size the call costs little beside the fill.
_CONSTANT_MAX_BYTES = 64 * 1024


def _arrays_made_once(recording, ops, pinned):
    """{op index: array} for the arrays a replay would make from constants alone (`np.ones(10)` for a
    sum as a product, `np.arange(128)` for row indices) that no op writes, that are not part of the
    result or the effects, and of which no view is: such an array is made once, read-only, when the
    replay is built, and every replay uses it (a call fewer each). Small ones only: they stay with
    the variant. A write the analysis missed would raise (read-only), never change a later replay."""
    values = recording.values
    kept = set()  # ids of the arrays whose memory something writes or the caller sees
    for op in ops:
        for slot in _written_slots(op):
            if isinstance(values[slot], numpy.ndarray):
                kept.add(id(_trace._root(values[slot])))
    for slot in pinned:
        if isinstance(values[slot], numpy.ndarray):
            kept.add(id(_trace._root(values[slot])))
    made_once = {}
    for index, op in enumerate(ops):
        if op.name not in _CONSTANT_MAKERS or type(op.outs) is not int or op.unpack:
            continue
        value = values[op.outs]
        if (
            type(value) is numpy.ndarray
            and value.nbytes <= _CONSTANT_MAX_BYTES
            and id(value) not in kept
            and not _trace.slots_in(op.args, [])
            and not _trace.slots_in(op.kwargs, [])
        ):
            constant = value.copy()
            constant.flags.writeable = False
            made_once[index] = constant
    return made_once


def _root_id(array):
    base = array.base
    return id(array) if base is None else id(base)


def _alias_groups(arrays):
    first = {}
    return [first.setdefault(_root_id(array), index) for index, array in enumerate(arrays)]


# Ufuncs whose every element is one correctly rounded IEEE operation: computed into a dying operand's
# memory they give the same bits as into new memory.
_EXACT_UFUNCS = frozenset(
    (numpy.add, numpy.subtract, numpy.multiply, numpy.true_divide, numpy.negative, numpy.positive)
    + (numpy.absolute, numpy.square, numpy.sqrt, numpy.maximum, numpy.minimum, numpy.reciprocal)
)


_OUT_MIN_BYTES = 256 * 1024  # NumPy's threshold for eliding temporaries: below it, `out=` costs more than it saves


def _reused_buffers(recording, ops, last_use, pinned, dead):
    """{op index: slot whose memory the op may take}: buffers reused within a replay.

    Eager code cannot always know that nobody else holds an array, so it copies (a gradient a user's
    backward returned becomes `.grad` through a copy) or allocates (NumPy elides `a * b + c`'s temporary
    only for operators, not for the recorded ufunc calls). The replay knows: every array it makes is a
    local variable. An array made by a recorded op (not an input's or a constant's memory, owning its
    memory, not part of the result, no view of it used later) whose last use is
    * `array.copy()` (C-contiguous): the copy is the array itself, or, for a view with its owner's
      very layout (a transposed gradient transposed back), that owner;
    * an operand (of 256 KiB or more) of an exact element-wise ufunc with the result's shape, strides
      and dtype: the result is written into it (`out=`), as NumPy's elision would.
    """
    made_by_ops = set()
    for index, op in enumerate(ops):
        if index in dead:
            continue
        outs = op.outs if type(op.outs) is tuple else (op.outs,)
        made_by_ops.update(out for out in outs if out is not None)
    views = {}  # id(root array) -> the slots sharing its memory
    for slot in made_by_ops:
        value = recording.values[slot]
        if isinstance(value, numpy.ndarray):
            views.setdefault(id(_trace._root(value)), []).append(slot)

    owners = {id(recording.values[slot]): slot for slot in made_by_ops if _owns(recording.values[slot])}

    def owned_and_dying(slot, index, view=None):
        value = recording.values[slot]
        if slot not in made_by_ops or slot in pinned or not _owns(value):
            return False
        if view is None and last_use.get(slot) != index:
            return False
        return all(
            other in (slot, view) or (other not in pinned and last_use.get(other, -1) < index)
            for other in views[id(value)]
        )

    def owner_in_view(slot, index):
        """The slot owning the memory of view `slot` if the view has its exact layout and dies at `index`."""
        view = recording.values[slot]
        owner = owners.get(id(_trace._root(view)))
        if owner is None or slot in pinned or last_use.get(slot) != index:
            return None
        root = recording.values[owner]
        same = _trace._layout(view) == _trace._layout(root)
        return owner if same and owned_and_dying(owner, index, view=slot) else None

    reuse = {}
    for index, op in enumerate(ops):
        if type(op.outs) is not int or op.unpack or index in dead:
            continue
        result = recording.values[op.outs]
        if type(result) is not numpy.ndarray:
            continue
        refs = [item for item in op.args if isinstance(item, _trace.Ref)]
        if op.fn is numpy.ndarray.copy and len(op.args) == 1 and not op.kwargs and refs:
            source = refs[0].slot
            if recording.values[source].flags.c_contiguous:
                if owned_and_dying(source, index):
                    reuse[index] = ("alias", source)
                elif type(recording.values[source]) is numpy.ndarray and source in made_by_ops:
                    owner = owner_in_view(source, index)
                    if owner is not None:
                        reuse[index] = ("alias", owner)
        elif op.name.endswith(".__call__") and op.fn in _EXACT_UFUNCS and not op.kwargs:
            for ref in refs:
                operand = recording.values[ref.slot]
                if (
                    type(operand) is numpy.ndarray
                    and operand.nbytes >= _OUT_MIN_BYTES
                    and operand.shape == result.shape
                    and operand.strides == result.strides
                    and operand.dtype == result.dtype
                    and owned_and_dying(ref.slot, index)
                ):
                    reuse[index] = ("out", ref.slot)
                    break
    return reuse


def _owns(value):
    """A plain writeable array owning its memory."""
    return type(value) is numpy.ndarray and value.base is None and value.flags.writeable


def _emit_op(writer, op, depth, reuse=None):
    if reuse is not None and reuse[0] == "alias":
        writer.line(f"v{op.outs} = v{reuse[1]}", depth)
        return
    call = f"{writer.constant(op.fn, 'f')}("
    parts = [writer.template(item) for item in op.args]
    parts += [f"{key}={writer.template(item)}" for key, item in op.kwargs.items()]
    if reuse is not None:
        parts.append(f"out=v{reuse[1]}")
    call += ", ".join(parts) + ")"
    if op.outs is None:
        writer.line(call, depth)
    elif op.unpack == "0d":
        writer.line(f"v{op.outs} = np.asarray({call})", depth)
    elif op.unpack:
        targets = ", ".join("_" if out is None else f"v{out}" for out in op.outs)
        writer.line(f"{targets}, = {call}", depth)
    else:
        writer.line(f"v{op.outs} = {call}", depth)


def build_backward(recording, first_op, saved_slots, grad_slots, result_slots, name):
    """The backward of a compiled forward: the recorded first-order backward calls, from the saved
    slots of the forward and the incoming gradients (one per result that needs autograd) to the
    gradient of each input that requires it."""
    writer = _Writer()
    writer.globals.update(quiet=_float_errors.quiet, restore=_float_errors.restore)
    if saved_slots:
        writer.line(", ".join(f"v{slot}" for slot in saved_slots) + ", = S")
    writer.line("".join(f"v{slot}, " for slot in grad_slots) + "= G")
    writer.line("token = quiet()")
    writer.line("try:")
    for op in recording.ops[first_op:]:
        _emit_op(writer, op, 2)
    writer.line("pass", 2)
    writer.line("finally:")
    writer.line("restore(token)", 2)
    writer.line("return (" + "".join("None, " if slot is None else f"v{slot}, " for slot in result_slots) + ")")
    source = "def backward(S, G):\n" + "\n".join(writer.lines) + "\n"
    namespace = dict(writer.globals)
    exec(compile(source, f"<ember-replay {name} backward>", "exec"), namespace)
    backward = namespace["backward"]
    backward.source = source
    return backward


class _Replayed(Function):
    """The grad_fn of a compiled forward's results that need autograd: its backward replays the
    recorded backward. A result the caller does not differentiate gets a zero gradient (materialized
    by the engine), which the recorded backward adds like any other."""

    @staticmethod
    def forward(ctx, arrays, backward, saved, *leaves):
        ctx.replay_backward, ctx.replay_saved = backward, saved
        if len(arrays) == 1:
            return new_tensor(arrays[0])
        return tuple(new_tensor(array) for array in arrays)

    @staticmethod
    @once_differentiable
    def backward(ctx, *grads):
        grads = ctx.replay_backward(ctx.replay_saved, tuple(grad._data for grad in grads))
        return (None, None, None, *[None if g is None else new_tensor(_as_tensor_array(g)) for g in grads])


def _attach(arrays, backward, saved, leaves):
    """The results that need autograd, as one tuple of tensors sharing a `_Replayed` grad_fn."""
    results = _Replayed.apply(tuple(_as_tensor_array(array) for array in arrays), backward, saved, *leaves)
    return results if type(results) is tuple else (results,)


def _aliases_match(arrays, groups):
    """Inputs that shared memory when recorded share it now, and only those (in-place work depends on it)."""
    return _alias_groups(arrays) == groups


def _result_slots(value, into):
    if value[0] in ("tensor", "scalar", "array"):
        into.add(value[1])
    elif value[0] in ("tuple", "list"):
        for item in value[1]:
            _result_slots(item, into)
    elif value[0] == "dict":
        for item in value[2]:
            _result_slots(item, into)


def _source_expression(source, writer):
    kind = source[0]
    if kind == "arg":
        return source[1]
    if kind == "grad":
        return _source_expression(source[1], writer) + "._grad"
    return writer.constant(source[1], "h")


def _result_expression(value, writer):
    """Python source for a result template: ("slot", k, how) / ("held", source) / ("const", obj) /
    ("none",) / (container kind, items)."""
    kind = value[0]
    if kind == "attached":
        return f"attached[{value[1]}]"
    if kind == "tensor":
        _, slot, how = value
        if how == "spent":
            return f"spent(as_tensor_array(v{slot}))"
        if how == "leaf":
            return f"new_tensor(as_tensor_array(v{slot}), True)"
        return f"new_tensor(as_tensor_array(v{slot}))"
    if kind == "scalar":
        return f"float(v{value[1]})"
    if kind == "array":
        return f"as_tensor_array(v{value[1]})"
    if kind == "held":
        return _source_expression(value[1], writer)
    if kind == "const":
        return writer.constant(value[1])
    if kind == "none":
        return "None"
    if kind == "tuple":
        return "(" + "".join(_result_expression(item, writer) + ", " for item in value[1]) + ")"
    if kind == "list":
        return "[" + ", ".join(_result_expression(item, writer) for item in value[1]) + "]"
    if kind == "dict":
        items = ", ".join(
            f"{writer.constant(key)}: {_result_expression(item, writer)}" for key, item in zip(value[1], value[2])
        )
        return "{" + items + "}"
    raise AssertionError(kind)
