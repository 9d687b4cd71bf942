"""`ember.compile`: record a call once, replay its NumPy work afterwards (see ember/compiler/__init__.py)."""

import functools
import os
import types

import numpy

from .._tensor import Tensor, new_tensor
from ..autograd import grad_mode
from ..ops import creation
from . import _capture, _program, _trace
from .._warn import warn as _warn

__all__ = ["compile", "explain", "CompiledFunction", "CompileWarning", "CompileVerificationError", "is_disabled"]

RECOMPILE_LIMIT = 8  # variants kept per function before it settles on eager mode (torch's recompile_limit)


class CompileWarning(UserWarning):
    """The one-time notice that a compiled function runs eagerly, and why."""


class CompileVerificationError(AssertionError):
    """`verify=K`: a replay and the eager run beside it differed."""


def is_disabled():
    """`EMBER_DISABLE_COMPILE=1` (or PyTorch's `TORCHDYNAMO_DISABLE=1`) turns compiling off."""
    return any(os.environ.get(name, "0") not in ("", "0") for name in ("EMBER_DISABLE_COMPILE", "TORCHDYNAMO_DISABLE"))


def _grad_enabled():
    return grad_mode.state.enabled


class _Plan:
    """What `_program.build` needs besides the recording."""

    def __init__(self, name):
        self.name = name
        self.grad_enabled = _grad_enabled()
        self.argument_checks = []
        self.guards = []
        self.grad_checks = []
        self.input_expressions = []
        self.effects = []
        self.result = ("none",)
        self.input_flags = []
        self.forward_ops = None  # all recorded ops, unless a backward was recorded after them
        self.joint = None  # (result slots, saved slots, backward, leaf sources) when results need autograd


def _describe_arguments(args, kwargs):
    """Guards on the call's arguments and the source of each tensor among them."""
    checks, sources = [], {}

    def walk(value, expression):
        name = f"a{len(checks)}"
        entry = (name, expression, [])
        checks.append(entry)
        kind = type(value)
        if isinstance(value, Tensor):
            first = sources.get(id(value))
            if first is not None:
                entry[2].append(("same", first[1]))
            else:
                entry[2].append(("type", kind))
                sources[id(value)] = ("arg", name)
        elif kind in (tuple, list):
            entry[2].extend([("type", kind), ("len", len(value))])
            for index, item in enumerate(value):
                walk(item, f"{name}[{index}]")
        elif kind is dict:
            entry[2].extend([("type", kind), ("keys", tuple(value))])
            for key, item in value.items():
                walk(item, f"{name}[{key!r}]")
        elif kind in _program._SCALARS:
            entry[2].append(("value", value))
        else:
            entry[2].append(("identity", value))

    walk(tuple(args), "A")
    walk(dict(kwargs), "K")
    return checks, sources


def _scalar_guard(value):
    if type(value) in _program._SCALARS:
        return True
    return type(value) is tuple and all(type(item) in _program._SCALARS for item in value)


def _module_guards(module, guards):
    for key, value in module.__dict__.items():
        if key.startswith("_") and key not in ("_parameters", "_buffers", "_modules"):
            continue
        if _scalar_guard(value):
            guards.append((module.__dict__, key, value, "eq"))
    for table in (module._parameters, module._buffers, module._modules):
        guards.append((table, None, len(table), "len"))
        for key, value in table.items():
            guards.append((table, key, value, "is"))


def _optimizer_guards(optimizer, guards):
    guards.append((optimizer.__dict__, "state", optimizer.state, "is"))
    guards.append((optimizer.__dict__, "param_groups", optimizer.param_groups, "is"))
    guards.append((optimizer.param_groups, None, len(optimizer.param_groups), "len"))
    for group in optimizer.param_groups:
        for key, value in group.items():
            if key == "params":
                guards.append((group, key, value, "is"))
                guards.append((value, None, len(value), "len"))
            elif _scalar_guard(value):
                guards.append((group, key, value, "eq"))
            else:
                guards.append((group, key, value, "is"))
        for param in group["params"]:
            state = optimizer.state.get(param)
            if state is None:
                guards.append((optimizer.state, param, _program.MISS, "is"))
                continue
            guards.append((optimizer.state, param, state, "is"))
            guards.append((state, None, len(state), "len"))
            for key, value in state.items():
                guards.append((state, key, value, "eq" if _scalar_guard(value) else "is"))


def _function_guards(fn, guards):
    """The globals and closure cells a function names: rebinding one (another model, another
    learning-rate variable) must re-record."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return
    namespace = fn.__globals__
    for name in code.co_names:
        if name in namespace:
            guards.append((namespace, name, namespace[name], "eq" if _scalar_guard(namespace[name]) else "is"))
    for cell in fn.__closure__ or ():
        try:
            guards.append((cell, None, cell.cell_contents, "cell"))
        except ValueError:
            pass


def _result_template(value, seen, recording):
    """The template `_program` turns into the result expression (see _program._result_expression)."""
    kind = type(value)
    if isinstance(value, Tensor):
        joint = getattr(seen, "joint", None)
        if joint is not None:
            for position, output in enumerate(joint[0]):
                if output is value:
                    return ("attached", position)
        if id(value) not in seen.created:
            return ("held", _capture._source_of(seen, value))
        array = _capture._DATA.__get__(value)
        if type(array) is not _trace.Traced or array._recording is not recording or array._slot is None:
            raise _program.Unsupported("a result tensor whose array the recording did not make")
        if value._requires_grad:
            if value._grad_fn is None:
                return ("tensor", array._slot, "leaf")
            if not seen.backward_ran:
                raise _program.Unsupported(
                    "the result needs autograd (compile the whole training step, backward included, or call "
                    "it under ember.no_grad())"
                )
            return ("tensor", array._slot, "spent")
        return ("tensor", array._slot, "plain")
    if kind is _trace.TracedScalar and value._recording is recording:
        return ("scalar", value._slot)
    if kind in (tuple, list):
        return (kind.__name__, [_result_template(item, seen, recording) for item in value])
    if kind is dict:
        return ("dict", list(value), [_result_template(item, seen, recording) for item in value.values()])
    if value is None:
        return ("none",)
    if isinstance(value, numpy.ndarray):
        raise _program.Unsupported("returning a NumPy array (return a tensor)")
    return ("const", value)


def _flat_tensors(value):
    if isinstance(value, Tensor):
        return [value]
    if type(value) in (tuple, list):
        return [tensor for item in value for tensor in _flat_tensors(item)]
    if type(value) is dict:
        return [tensor for item in value.values() for tensor in _flat_tensors(item)]
    return []


def _record_backward(name, seen, recording, result):
    """A forward whose results need autograd (`ember.compile(model)` while training): record the
    first-order backward too, by running it once on placeholder gradients (one per such result, as
    GPT-style models return logits and loss), so that a replay can give those results a shared grad_fn
    that replays that backward. None if nothing in the result needs it."""
    differentiable = []
    for tensor in _flat_tensors(result):
        if id(tensor) in seen.created and tensor._requires_grad and tensor._grad_fn is not None:
            if all(tensor is not other for other in differentiable):
                differentiable.append(tensor)
    if not differentiable:
        return None
    arrays = [_capture._DATA.__get__(output) for output in differentiable]
    if any(type(array) is not _trace.Traced or array._slot is None for array in arrays):
        raise _program.Unsupported("a result tensor whose array the recording did not make")
    leaves = [(slot, tensor) for slot, tensor in seen.input_tensors.items() if tensor._requires_grad]
    first_op, first_slot = len(recording.ops), len(recording.values)
    placeholders = [recording.new_slot(_capture.ORIGINAL_ONES(array.shape, array.dtype), True) for array in arrays]
    from ..autograd import grad as autograd_grad

    grads = autograd_grad(
        differentiable,
        [tensor for _, tensor in leaves],
        [new_tensor(placeholder) for placeholder in placeholders],
        retain_graph=True,
        allow_unused=True,
    )
    seen.backward_ran = False
    if any(position >= first_op for position, *_ in recording.value_guards):
        raise _program.Unsupported("the backward reads a value computed from the data")
    if recording.first_persistent_write is not None and recording.first_persistent_write >= first_op:
        raise _program.Unsupported("the backward writes into an input")
    result_slots = []
    for grad in grads:
        if grad is None:
            result_slots.append(None)
            continue
        data = _capture._DATA.__get__(grad)
        if type(data) is not _trace.Traced or data._recording is not recording or data._slot is None:
            raise _program.Unsupported("a gradient whose array the recording did not make")
        result_slots.append(data._slot)
    used = set()
    for op in recording.ops[first_op:]:
        used.update(_trace.slots_in(op.args, []) + _trace.slots_in(op.kwargs, []))
    used.update(slot for slot in result_slots if slot is not None)
    saved = sorted(slot for slot in used if slot < first_slot)
    grad_slots = [placeholder._slot for placeholder in placeholders]
    backward = _program.build_backward(recording, first_op, saved, grad_slots, result_slots, name)
    sources = [source for slot, source in recording.inputs if slot in dict(leaves)]
    return first_op, differentiable, ([array._slot for array in arrays], saved, backward, sources)


def _plain_result(value):
    kind = type(value)
    if kind is _trace.TracedScalar:
        return float.__float__(value)
    if kind in (tuple, list):
        return kind(_plain_result(item) for item in value)
    if kind is dict:
        return {key: _plain_result(item) for key, item in value.items()}
    return value


def _make_plan(name, fn, args, kwargs, argument_checks, seen, recording, result, extra_modules):
    plan = _Plan(name)
    joint = None
    if not seen.backward_ran:
        joint = _record_backward(name, seen, recording, result)
        if joint is not None:
            plan.forward_ops, outputs, plan.joint = joint
            seen.joint = (outputs,)
    plan.argument_checks = argument_checks
    for module in list(seen.modules.values()) + list(extra_modules):
        _module_guards(module, plan.guards)
    for optimizer in seen.optimizers.values():
        _optimizer_guards(optimizer, plan.guards)
    _function_guards(fn, plan.guards)
    plan.result = _result_template(result, seen, recording)
    for tensor, value in seen.data_writes.values():
        if type(value) is _trace.Traced and value._recording is recording and value._slot is not None:
            plan.effects.append((_capture._source_of(seen, tensor), "_data", ("array", value._slot)))
        else:
            raise _program.Unsupported("tensor.data set to an array the recording did not make")
    for tensor, value in seen.grad_writes.values():
        if value is None:
            template = ("none",)
        else:
            template = _result_template(value, seen, recording)
            if template[0] == "tensor" and template[2] != "plain":
                raise _program.Unsupported("a .grad that itself has a graph (create_graph=True)")
        plan.effects.append((_capture._source_of(seen, tensor), "_grad", template))
    for tensor, was_none in seen.grad_reads.values():
        plan.grad_checks.append((_capture._source_of(seen, tensor), was_none))
    plan.input_expressions = [(slot, source) for slot, source in recording.inputs]
    plan.input_flags = [
        (source, tensor._requires_grad, tensor._grad_fn is None)
        for slot, source in recording.inputs
        for tensor in [seen.input_tensors[slot]]
    ]
    if plan.forward_ops is None:
        plan.forward_ops = len(recording.ops)
    return plan


class _Attempt:
    """One recorded eager run: its result, and either a replay function or the breaks met."""

    def __init__(self, result, breaks, replay=None, plan=None, recording=None, warm_up=False):
        self.result, self.breaks, self.replay, self.plan = result, breaks, replay, plan
        self.recording, self.warm_up = recording, warm_up


def _record(fn, args, kwargs, name, fullgraph, extra_modules=()):
    recording = _trace.Recording(fullgraph)
    argument_checks, sources = _describe_arguments(args, kwargs)
    from ..autograd import anomaly, function

    plan = None
    with _capture.capturing(recording, sources) as seen:
        if anomaly.state.enabled:
            recording.broken("anomaly mode (it checks values in Python on every op)")
        if function._forward_ad_state.level is not None:
            recording.broken("forward-mode AD (dual tensors)")
        result = fn(*args, **kwargs)
        # a first optimizer step fills its state (a Python side effect): that recording is not kept
        warm_up = any(
            sizes != _capture.state_sizes(seen.optimizers[key]) for key, sizes in seen.optimizer_sizes.items()
        )
        if not warm_up and any(
            identities != _capture.state_identities(seen.optimizers[key])
            for key, identities in seen.optimizer_identities.items()
        ):
            recording.broken("the optimizer rebound an entry of its state (a replay would not)")
        if not recording.breaks:
            try:
                plan = _make_plan(name, fn, args, kwargs, argument_checks, seen, recording, result, extra_modules)
            except _program.Unsupported as error:
                recording.broken(str(error))
        recording.check_fresh()
    result = _plain_result(result)
    if recording.breaks:
        return _Attempt(result, recording.breaks, recording=recording)
    replay, _ = _program.build(recording, plan)
    return _Attempt(result, [], replay, plan, recording, warm_up)


class CompiledFunction:
    """What `ember.compile(fn)` returns: calls replay a recorded variant whose guards hold, record a new
    one on a miss (up to RECOMPILE_LIMIT), and run `fn` eagerly after a graph break."""

    def __init__(self, fn, *, fullgraph=False, dynamic=False, verify=0, extra_modules=()):
        self._fn = fn
        self._fullgraph = fullgraph
        self._dynamic = dynamic
        self._verify_left = int(verify)
        self._variants = []
        self._recordings = 0
        self._eager_reason = None
        self._extra_modules = tuple(extra_modules)
        self._name = getattr(fn, "__qualname__", type(fn).__name__)
        functools.update_wrapper(self, fn, updated=())

    @property
    def variants(self):
        """The replay functions kept (each has `.source`, the generated code)."""
        return list(self._variants)

    @property
    def eager_reason(self):
        """Why this function runs eagerly (a list of (reason, location)), or None."""
        return self._eager_reason

    def __get__(self, instance, owner=None):
        return self if instance is None else types.MethodType(self, instance)

    def __call__(self, *args, **kwargs):
        if self._eager_reason is not None:
            return self._fn(*args, **kwargs)
        for replay in self._variants:
            if self._verify_left > 0:
                result = self._verified(replay, args, kwargs)
            else:
                result = replay(args, kwargs)
            if result is not _program.MISS:
                return result
        if self._recordings >= RECOMPILE_LIMIT:
            self._fall_back([(f"{RECOMPILE_LIMIT} recordings, each missed by the next call's guards", self._name)])
            return self._fn(*args, **kwargs)
        self._recordings += 1
        attempt = _record(self._fn, args, kwargs, self._name, self._fullgraph, self._extra_modules)
        if attempt.breaks:
            self._fall_back(attempt.breaks)
        elif not attempt.warm_up:
            self._variants.insert(0, attempt.replay)
            del self._variants[RECOMPILE_LIMIT:]
        return attempt.result

    def _fall_back(self, breaks):
        self._eager_reason = breaks
        reason, location = breaks[0]
        more = f" (and {len(breaks) - 1} more; ember.compile.explain lists them)" if len(breaks) > 1 else ""
        _warn(
            f"ember.compile: {self._name} runs eagerly from now on: {reason} at {location}{more}",
            CompileWarning,
            stacklevel=3,
        )

    def _verified(self, replay, args, kwargs):
        """Replay, then rewind the state and run eagerly; raise if anything differs (bit for bit)."""
        tensors = _tensors_of(replay, args, kwargs)
        before = _Snapshot(tensors)
        result = replay(args, kwargs)
        if result is _program.MISS:
            return result
        self._verify_left -= 1
        replayed = _Snapshot(tensors)
        replayed_result = _flat_values(result)
        before.restore()
        expected = self._fn(*args, **kwargs)
        difference = _first_difference(replayed_result, _flat_values(expected), "result")
        difference = difference or replayed.difference(_Snapshot(tensors))
        if difference:
            raise CompileVerificationError(f"ember.compile({self._name}): the replay differs from eager: {difference}")
        return expected


def _tensors_of(replay, args, kwargs):
    found = {}

    def walk(value):
        if isinstance(value, Tensor):
            found[id(value)] = value
        elif type(value) in (tuple, list):
            for item in value:
                walk(item)
        elif type(value) is dict:
            for item in value.values():
                walk(item)

    walk(args)
    walk(kwargs)
    for value in replay.keep:
        if isinstance(value, Tensor):
            found[id(value)] = value
    for tensor in list(found.values()):
        grad = tensor._grad
        if grad is not None:
            found[id(grad)] = grad
    return list(found.values())


class _Snapshot:
    """Arrays (by reference and by value), `.grad` of some tensors, and the random state."""

    def __init__(self, tensors):
        self.entries = [(tensor, tensor._data, tensor._data.copy(), tensor._grad) for tensor in tensors]
        self.random = creation.default_generator.get_state()  # the whole stream state, cached normal included

    def restore(self):
        for tensor, array, values, grad in self.entries:
            tensor._data = array
            if array.flags.writeable:  # (a read-only view cannot have been written through)
                array[...] = values
            tensor._grad = grad
        creation.default_generator.set_state(self.random)

    def difference(self, other):
        for (tensor, _, values, grad), (_, _, other_values, other_grad) in zip(self.entries, other.entries):
            if (grad is None) != (other_grad is None):
                return f"the .grad of a {tuple(values.shape)} tensor is {'None' if grad is None else 'set'} after the replay"
            problem = _first_difference([values], [other_values], f"a {tuple(values.shape)} tensor's values")
            if problem:
                return problem
        return None


def _flat_values(value):
    if isinstance(value, Tensor):
        return [value._data]
    if type(value) in (tuple, list):
        return [item for part in value for item in _flat_values(part)]
    if type(value) is dict:
        return [item for part in value.values() for item in _flat_values(part)]
    return [value]


def _first_difference(left, right, what):
    if len(left) != len(right):
        return f"{what}: {len(left)} values against {len(right)}"
    for index, (a, b) in enumerate(zip(left, right)):
        if isinstance(a, numpy.ndarray) or isinstance(b, numpy.ndarray):
            a, b = numpy.asarray(a), numpy.asarray(b)
            if a.shape != b.shape or a.dtype != b.dtype or a.tobytes() != b.tobytes():
                return f"{what} #{index}: replay {a!r} but eager {b!r}"
        elif type(a) is float and type(b) is float:
            if a != b and not (a != a and b != b):
                return f"{what} #{index}: replay {a!r} but eager {b!r}"
        elif a is not b and a != b:
            return f"{what} #{index}: replay {a!r} but eager {b!r}"
    return None


def _default_verify():
    """`EMBER_COMPILE_VERIFY=K` in the environment: every compiled function verifies its first K replays
    (CI runs the compile tests so)."""
    return int(os.environ.get("EMBER_COMPILE_VERIFY", "0") or 0)


def compile(
    model=None,
    *,
    fullgraph=False,
    dynamic=None,
    backend="inductor",
    mode=None,
    options=None,
    disable=False,
    verify=None,
):  # noqa: A001
    """`torch.compile`: make `model` (a function or an `nn.Module`) run its recorded NumPy work.

    The first call runs eagerly while recording every array operation (forward kernels, backward,
    optimizer updates); later calls whose guards hold (shapes, dtypes and strides of the arrays read,
    grad mode, module attributes, optimizer hyper-parameters, parameter identity, ...) replay them as
    one flat function, bit for bit what eager computes. A graph break (Python branching on a value
    read from a tensor, hooks, `.numpy()` of a computed tensor, ...) makes the function run eagerly
    with a one-time `CompileWarning`; `fullgraph=True` raises `GraphBreak` at the line instead.
    `verify=K` runs eager beside the first K replays and raises on any difference. `dynamic`,
    `backend`, `mode` and `options` are accepted for compatibility; shapes are always specialized.
    Used as a decorator (`@ember.compile` or `@ember.compile(fullgraph=True)`) too.

    Example::

        step = ember.compile(train_step)      # def train_step(x, y): ... loss.backward(); opt.step()
        for x, y in loader:
            loss = step(x, y)
    """
    if model is None:
        return functools.partial(
            compile,
            fullgraph=fullgraph,
            dynamic=dynamic,
            backend=backend,
            mode=mode,
            options=options,
            disable=disable,
            verify=verify,
        )
    if disable or is_disabled():
        return model
    if verify is None:
        verify = _default_verify()
    from ..nn.modules.module import Module

    if isinstance(model, Module):
        from ._module import OptimizedModule

        return OptimizedModule(model, fullgraph=fullgraph, dynamic=dynamic, verify=verify)
    if not callable(model):
        raise TypeError(f"ember.compile expects a function or an nn.Module, got {type(model).__name__}")
    return CompiledFunction(model, fullgraph=fullgraph, dynamic=dynamic, verify=verify)


class ExplainOutput:
    """What `explain(fn)(*args)` found: the breaks that make `fn` run eagerly and the guards of a replay."""

    def __init__(self, attempt):
        self.break_reasons = list(attempt.breaks)
        self.graph_break_count = len(self.break_reasons)
        self.graph_count = 0 if attempt.breaks else 1
        self.op_count = len(attempt.recording.ops) if attempt.recording is not None else 0
        self.guards = [] if attempt.replay is None else _guard_lines(attempt.replay.source)
        self.source = None if attempt.replay is None else attempt.replay.source
        self.result = attempt.result

    def __str__(self):
        lines = [
            f"Graph Count: {self.graph_count}",
            f"Graph Break Count: {self.graph_break_count}",
            f"Op Count: {self.op_count}",
        ]
        if self.break_reasons:
            lines.append("Break Reasons:")
            lines += [f"  {reason}\n    at {location}" for reason, location in self.break_reasons]
        if self.guards:
            lines.append("Guards:")
            lines += [f"  {guard}" for guard in self.guards]
        return "\n".join(lines)

    __repr__ = __str__


def _guard_lines(source):
    lines = source.splitlines()
    return [line.strip()[3:-1] for line in lines if line.startswith("    if ")]


def explain(fn, *extra_args, **extra_kwargs):
    """`torch._dynamo.explain`: `explain(fn)(*args, **kwargs)` runs `fn` once (eagerly, recording) and
    returns an ExplainOutput listing its graph breaks (reason and line) or the guards of its replay."""
    from ..nn.modules.module import Module

    def run(*args, **kwargs):
        modules = (fn,) if isinstance(fn, Module) else ()
        attempt = _record(fn, args, kwargs, getattr(fn, "__qualname__", type(fn).__name__), False, modules)
        return ExplainOutput(attempt)

    if extra_args or extra_kwargs:
        return run(*extra_args, **extra_kwargs)
    return run
