"""What is switched on while a function is recorded, and switched off again afterwards.

Recording needs to see four things the eager code does not announce: which tensors' arrays it reads
(they become inputs, read again on every replay) and writes (`p.grad = ...`, `p.data = ...`: effects
the replay repeats); NumPy calls that create arrays from nothing (`np.zeros`, random draws), which must
run again on each replay rather than be frozen; which modules and optimizers took part (their Python
numbers become guards); and anything a replay could not repeat (hooks, module attribute changes,
NumPy's global random state). `capturing(recording)` installs the class-level switches that report
these and removes them on exit; nothing is left behind, so eager code pays nothing outside it.
"""

import contextlib
import inspect
import sys
from threading import get_ident

import numpy

from .. import _tensor, _torch_function
from ..autograd import engine, function
from ..ops import _distribution_kernels, creation
from . import _trace

__all__ = ["capturing", "state_sizes", "state_identities"]

_Tensor = _tensor.Tensor
ORIGINAL_ONES = numpy.ones  # numpy.ones itself is switched while recording
_DATA = _Tensor.__dict__["_data"]  # the slot descriptors: the storage itself, reached without the switch
_GRAD = _Tensor.__dict__["_grad"]
_GRAD_FN = _Tensor.__dict__["_grad_fn"]
_REQUIRES_GRAD = _Tensor.__dict__["_requires_grad"]

# NumPy functions that make arrays (from nothing, from Python data, or aliasing an array): recorded as
# calls so a replay makes them afresh and `np.asarray(traced)` stays traced.
_CREATORS = (
    "zeros",
    "ones",
    "empty",
    "full",
    "zeros_like",
    "ones_like",
    "empty_like",
    "full_like",
    "arange",
    "eye",
    "identity",
    "linspace",
    "array",
    "asarray",
    "asanyarray",
    "ascontiguousarray",
    "asfortranarray",
    "tri",
)
# NumPy's global random state: a replay would freeze its draws.
_GLOBAL_RANDOM = ("rand", "randn", "random", "randint", "normal", "uniform", "permutation", "shuffle", "choice")


class _Seen:
    """Tensors and objects met while recording (strong references: ids must stay unique)."""

    def __init__(self, recording, argument_sources):
        self.recording = recording
        self.sources = dict(argument_sources)  # id(tensor) -> source of its array
        self.created = {}  # id(tensor) -> tensor, made during the recording
        self.swapped = {}  # id(tensor) -> (tensor, original plain array)
        self.input_tensors = {}  # input slot -> the tensor it was read from
        self.data_writes = {}  # id(tensor) -> (tensor, value), pre-existing tensors only
        self.grad_writes = {}  # id(tensor) -> (tensor, value)
        self.grad_reads = {}  # id(tensor) -> (tensor, was None)
        self.grad_parent = {}  # id(grad tensor) -> the tensor it is the .grad of
        self.modules = {}
        self.optimizers = {}
        self.optimizer_sizes = {}  # id(optimizer) -> state_sizes() when first seen
        self.optimizer_identities = {}  # id(optimizer) -> state_identities() when first seen
        self.backward_ran = False


class _DataSwitch:
    """Replaces `Tensor._data` while recording: reads hand out traced arrays, writes are noted."""

    def __init__(self, seen):
        self.seen = seen

    def __get__(self, tensor, owner=None):
        if tensor is None:
            return self
        value = _DATA.__get__(tensor, owner)
        seen = self.seen
        recording = seen.recording
        if type(value) is not numpy.ndarray or not recording.open or get_ident() != recording.thread:
            return value
        key = id(tensor)
        if key in seen.created:
            traced = recording.call(_fresh_copy, (value,), {}, "constant")  # a constant made outside NumPy's view
        else:
            traced = recording.add_input(value, _source_of(seen, tensor))
            seen.swapped[key] = (tensor, value)
            seen.input_tensors[traced._slot] = tensor
        _DATA.__set__(tensor, traced)
        return traced

    def __set__(self, tensor, value):
        seen = self.seen
        if get_ident() != seen.recording.thread:
            return _DATA.__set__(tensor, value)
        key = id(tensor)
        try:
            _DATA.__get__(tensor)
        except AttributeError:  # a new tensor
            seen.created[key] = tensor
        else:
            if key not in seen.created:
                seen.data_writes[key] = (tensor, value)
        if type(value) is numpy.ndarray and seen.recording.open:
            value = seen.recording.adopt(value)  # np.asarray(traced) seen as what it is
        _DATA.__set__(tensor, value)


def _fresh_copy(array):
    return array.copy()


def _source_of(seen, tensor):
    source = seen.sources.get(id(tensor))
    if source is not None:
        return source
    parent = seen.grad_parent.get(id(tensor))
    if parent is not None:
        return ("grad", _source_of(seen, parent))
    source = seen.sources[id(tensor)] = ("tensor", tensor)
    return source


class _GradSwitch:
    def __init__(self, seen):
        self.seen = seen

    def __get__(self, tensor, owner=None):
        if tensor is None:
            return self
        value = _GRAD.__get__(tensor, owner)
        seen = self.seen
        if get_ident() != seen.recording.thread:
            return value
        key = id(tensor)
        if key not in seen.created and key not in seen.grad_writes and key not in seen.grad_reads:
            seen.grad_reads[key] = (tensor, value is None)
            if value is not None:
                seen.grad_parent[id(value)] = tensor
        return value

    def __set__(self, tensor, value):
        seen = self.seen
        if get_ident() != seen.recording.thread:
            return _GRAD.__set__(tensor, value)
        key = id(tensor)
        if key not in seen.created:
            if key not in seen.grad_reads:
                seen.grad_reads[key] = (tensor, _GRAD.__get__(tensor) is None)
            seen.grad_writes[key] = (tensor, value)
        _GRAD.__set__(tensor, value)


class _GuardedSlot:
    """`_grad_fn` / `_requires_grad` of a tensor that existed before: a change is a side effect."""

    def __init__(self, seen, slot, name):
        self.seen, self.slot, self.name = seen, slot, name

    def __get__(self, tensor, owner=None):
        if tensor is None:
            return self
        return self.slot.__get__(tensor, owner)

    def __set__(self, tensor, value):
        if id(tensor) not in self.seen.created and get_ident() == self.seen.recording.thread:
            try:
                previous = self.slot.__get__(tensor)
            except AttributeError:
                previous = value
            if previous is not value and previous != value:
                self.seen.recording.broken(f"a change of {self.name} on a tensor made before the call")
        self.slot.__set__(tensor, value)


def _recorded_creator(name, original):
    def creator(*args, **kwargs):
        recording = _trace.active()
        if recording is None or not recording.open:
            return original(*args, **kwargs)
        array = recording.call(original, args, kwargs, f"numpy.{name}")
        recording.note_fresh(array, name)
        return array

    creator.__name__ = name
    creator.__wrapped__ = original
    return creator


def _global_random(name, original):
    def draw(*args, **kwargs):
        recording = _trace.active()
        if recording is not None:
            recording.broken(f"numpy.random.{name} (NumPy's global random state; use ember's random ops)")
        return original(*args, **kwargs)

    return draw


class _RecordingRng:
    """`Generator.rng` while recording: each draw is a recorded call that draws afresh on replay."""

    def __init__(self, generator):
        self._generator = generator

    def __getattr__(self, name):
        generator = self._generator
        method = getattr(_GENERATOR_RNG.fget(generator), name)
        if not callable(method):
            _trace.active().broken(f"Generator.rng.{name} read while recording")
            return method
        draw = _Draw(generator, name)

        def recorded(*args, **kwargs):
            written = ["out"] if "out" in kwargs else ()  # Generator.random(out=...) fills an array
            return _trace.active().call(draw, args, kwargs, f"random.{name}", written, depends=True)

        return recorded


class _Draw:
    """A random draw from an ember Generator, by method name, so a replay draws from its current state."""

    __slots__ = ("generator", "name")

    def __init__(self, generator, name):
        self.generator, self.name = generator, name

    def __call__(self, *args, **kwargs):
        return getattr(_GENERATOR_RNG.fget(self.generator), self.name)(*args, **kwargs)


_GENERATOR_RNG = creation.Generator.__dict__["rng"]

# ember's kernels of PyTorch's random streams (ops/_distribution_kernels.py) that draw from a generator's
# engine: each call is recorded whole, so a replay calls the kernel again and draws afresh, with the
# engine's state (cached normal sample included) handled in Python as in eager mode.
_DRAWING_KERNELS = tuple(
    name
    for name, value in vars(_distribution_kernels).items()
    if inspect.isfunction(value) and next(iter(inspect.signature(value).parameters), None) == "engine"
)


def _recorded_kernel(name, kernel):
    def draw(*args, **kwargs):
        recording = _trace.active()
        if recording is None:
            return kernel(*args, **kwargs)
        return recording.call(kernel, args, kwargs, f"random.{name}", depends=True)

    return draw


@contextlib.contextmanager
def capturing(recording, argument_sources):
    """Install the switches (see module doc) for the duration of one recorded eager run."""
    from ..nn.modules import module as module_file
    from ..optim import lr_scheduler
    from ..optim import optimizer as optimizer_file

    seen = _Seen(recording, argument_sources)
    Module = module_file.Module
    Optimizer = optimizer_file.Optimizer
    restore = []

    def replace(owner, name, value):
        restore.append((owner, name, owner.__dict__[name] if name in owner.__dict__ else getattr(owner, name)))
        setattr(owner, name, value)

    original_call = Module.__dict__["__call__"]

    def mine():
        return get_ident() == recording.thread

    def recorded_call(module, *args, **kwargs):
        if not mine():
            return original_call(module, *args, **kwargs)
        seen.modules[id(module)] = module
        if (
            module._forward_pre_hooks
            or module._forward_hooks
            or module._backward_hooks
            or module._backward_pre_hooks
            or module_file._global_forward_pre_hooks
            or module_file._global_forward_hooks
            or module_file._global_backward_hooks
            or module_file._global_backward_pre_hooks
        ):
            recording.broken(f"hooks on module {type(module).__name__} (they run Python a replay would skip)")
        return original_call(module, *args, **kwargs)

    original_setattr = Module.__dict__["__setattr__"]

    def recorded_setattr(module, name, value):
        if mine():
            recording.broken(f"setting {type(module).__name__}.{name} (a Python side effect a replay would skip)")
        return original_setattr(module, name, value)

    original_evaluate = Optimizer.__dict__["_evaluate"].__func__  # a staticmethod; the switch takes self

    def recorded_evaluate(optimizer, closure):
        if not mine():
            return original_evaluate(closure)
        if id(optimizer) not in seen.optimizers:
            seen.optimizers[id(optimizer)] = optimizer
            seen.optimizer_sizes[id(optimizer)] = state_sizes(optimizer)
            seen.optimizer_identities[id(optimizer)] = state_identities(optimizer)
        if optimizer._optimizer_step_pre_hooks or optimizer._optimizer_step_post_hooks:
            recording.broken(f"step hooks on {type(optimizer).__name__}")
        if closure is not None:
            recording.broken("optimizer.step(closure) (the closure is Python run inside the step)")
        return original_evaluate(closure)

    def scheduler_break(original):
        def step(scheduler, *args, **kwargs):
            if mine():
                recording.broken(
                    f"{type(scheduler).__name__}.step() inside the call (a replay would not change the learning "
                    "rate: call scheduler.step() outside the compiled function)"
                )
            return original(scheduler, *args, **kwargs)

        return step

    def breaking(reason, original):
        def wrapped(*args, **kwargs):
            if mine():
                recording.broken(reason)
            return original(*args, **kwargs)

        return wrapped

    def hooks_break(name, original):
        return breaking(f"{name} (hooks run Python a replay would skip)", original)

    original_run_backward = engine.run_backward

    def recorded_run_backward(*args, **kwargs):
        seen.backward_ran = seen.backward_ran or mine()
        return original_run_backward(*args, **kwargs)

    def user_conversion(name, original):
        def convert(tensor, *args, **kwargs):
            array = original(tensor, *args, **kwargs)
            caller = sys._getframe(1).f_code.co_filename
            if mine() and not _trace.in_ember(caller) and type(array) is _trace.Traced and array._slot is not None:
                if recording.dependent[array._slot]:
                    recording.broken(f"Tensor.{name}() of a computed tensor (NumPy work outside ember is not followed)")
            return array

        return convert

    try:
        replace(_Tensor, "numpy", user_conversion("numpy", _Tensor.numpy))
        replace(_Tensor, "__array__", user_conversion("__array__", _Tensor.__array__))
        replace(_Tensor, "_data", _DataSwitch(seen))
        replace(_Tensor, "_grad", _GradSwitch(seen))
        replace(_Tensor, "_grad_fn", _GuardedSlot(seen, _GRAD_FN, "grad_fn"))
        replace(_Tensor, "_requires_grad", _GuardedSlot(seen, _REQUIRES_GRAD, "requires_grad"))
        replace(Module, "__call__", recorded_call)
        replace(Module, "__setattr__", recorded_setattr)
        replace(Optimizer, "_evaluate", recorded_evaluate)
        for scheduler_class in _classes_defining(lr_scheduler, lr_scheduler.LRScheduler, "step"):
            replace(scheduler_class, "step", scheduler_break(scheduler_class.__dict__["step"]))
        replace(creation.Generator, "rng", property(_RecordingRng))
        for name in _DRAWING_KERNELS:
            replace(_distribution_kernels, name, _recorded_kernel(name, getattr(_distribution_kernels, name)))
        replace(engine, "_run_tensor_hooks", hooks_break("tensor hooks", engine._run_tensor_hooks))
        replace(engine, "_accumulate_with_hooks", hooks_break("gradient hooks", engine._accumulate_with_hooks))
        replace(engine, "run_backward", recorded_run_backward)
        subclass_reason = (
            "a call offered to __torch_function__ (a Tensor subclass or tensor-like: a replay would skip its "
            "Python and return plain tensors)"
        )
        replace(_torch_function, "_offer", breaking(subclass_reason, _torch_function._offer))
        replace(function.Node, "register_hook", hooks_break("grad_fn.register_hook", function.Node.register_hook))
        replace(function.Node, "register_prehook", hooks_break("register_prehook", function.Node.register_prehook))
        for name in _CREATORS:
            replace(numpy, name, _recorded_creator(name, getattr(numpy, name)))
        for name in _GLOBAL_RANDOM:
            replace(numpy.random, name, _global_random(name, getattr(numpy.random, name)))
        _trace._state.recording = recording
        yield seen
    finally:
        _trace._state.recording = None
        recording.open = False
        for owner, name, value in reversed(restore):
            setattr(owner, name, value)
        _make_plain(seen, recording)


def _classes_defining(module, base, name):
    """The classes of `module` derived from `base` whose own namespace defines `name`."""
    return [
        value
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, base) and name in value.__dict__
    ]


def state_sizes(optimizer):
    """What a first step changes: how many parameters have state, and how many entries each."""
    return [len(optimizer.state)] + [len(state) for state in optimizer.state.values()]


def state_identities(optimizer):
    """What a later step must not change: which object each state entry is (a replay would not
    rebind `state[p][name]`)."""
    return [id(value) for state in optimizer.state.values() for value in state.values()]


def _make_plain(seen, recording):
    """After recording, every tensor that got a traced array holds the plain one again."""
    tensors = [tensor for tensor, _ in seen.swapped.values()] + list(seen.created.values())
    for tensor in tensors + [tensor for tensor, _ in seen.data_writes.values()]:
        try:
            current = _DATA.__get__(tensor)
        except AttributeError:
            continue
        _DATA.__set__(tensor, _plain_array(current, recording))


def _plain_array(value, recording):
    if type(value) is _trace.Traced:
        if value._recording is recording and value._slot is not None:
            return recording.values[value._slot]
        return numpy.ndarray.view(value, numpy.ndarray)
    return value
