"""Recording the NumPy work of one eager run, so that it can be replayed without the Python around it.

While a `Recording` is active, the arrays inside tensors are `Traced`: an ndarray subclass that shares
the array's memory and routes every NumPy operation on it (ufuncs and their methods, NumPy functions,
the ndarray methods that make views or copies) through `Recording.call`, which runs the real NumPy
call on plain arrays and appends it to the program. A number read from such an array (`.item()`) is
a `TracedScalar`, a float whose arithmetic is recorded too, so a step counter can feed the next step.

What cannot be replayed is a graph break (`GraphBreak`): Python branching on a value read from an
array, a NumPy call whose result shape depends on the data, an array derived from a recorded one
that slipped out of the recording (`np.asarray(view)` then used as a plain array), and so on. A break
never stops the eager run: the value asked for is returned as eager would, and the recording is
marked broken, so the function keeps running eagerly.
"""

import operator
import os
import sys
import threading
import zlib

import numpy

__all__ = ["GraphBreak", "Recording", "Traced", "TracedScalar", "Ref", "active"]


class GraphBreak(RuntimeError):
    """Raised by `fullgraph=True` (and by `explain`'s listing) for work a replay cannot reproduce."""


class Ref:
    """A slot of the recorded program inside an argument template."""

    __slots__ = ("slot",)

    def __init__(self, slot):
        self.slot = slot


class _State(threading.local):
    recording = None  # the Recording active in this thread, if any


_state = _State()


def active():
    return _state.recording


EMBER_DIRECTORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def in_ember(filename):
    return filename.startswith(EMBER_DIRECTORY) or filename.startswith("<ember-replay")


def _user_location():
    """file:line of the innermost frame outside ember, for messages that point at the user's code."""
    frame = sys._getframe(1)
    first = None
    while frame is not None:
        filename = frame.f_code.co_filename
        location = f"{filename}:{frame.f_lineno}"
        if first is None:
            first = location
        if not in_ember(filename):
            return location
        frame = frame.f_back
    return first or "<unknown>"


class Op:
    """One recorded call: `outs = fn(*args, **kwargs)` with Refs for slots in the templates; `writes`
    names the slots it changes in place (`out=`, `a[...] = `, `a.fill()` ...)."""

    __slots__ = ("fn", "args", "kwargs", "outs", "name", "unpack", "writes")

    def __init__(self, fn, args, kwargs, outs, name, unpack, writes=()):
        self.fn, self.args, self.kwargs, self.outs, self.name, self.unpack = fn, args, kwargs, outs, name, unpack
        self.writes = writes


class Recording:
    """The program being recorded: ops over numbered slots, inputs, and the breaks met on the way."""

    def __init__(self, fullgraph=False):
        self.fullgraph = fullgraph  # raise GraphBreak at the first break, where it happens
        self.thread = threading.get_ident()  # the switches of _capture act in this thread only
        self.ops = []
        self.values = []  # slot -> the plain value (array, numpy scalar or float) seen while recording
        self.wrappers = []  # slot -> the Traced/TracedScalar handed to eager code (kept alive: ids stay unique)
        self.dependent = []  # slot -> whether its value depends on the inputs' data (or random draws)
        self.constant_root = []  # slot -> True if it shares memory with an array created outside the recording
        self.slot_of_plain = {}  # id(plain array) -> slot
        self.slot_of_layout = {}  # (address, shape, strides, dtype) -> slot: finds what np.asarray(traced) aliases
        self.inputs = []  # (slot, source) in the order read
        self.constants = []  # plain arrays captured by reference (kept alive)
        self.constant_roots = {}  # id(root array) -> root, of constants
        self.breaks = []  # (reason, location)
        self.value_guards = []  # (number of ops before it, slot, convert, expected): Python read the data
        self.input_roots = set()  # ids of the arrays owning the inputs' memory
        self.first_persistent_write = None  # index of the first op writing into an input's memory
        self.fresh = {}  # slot -> (creator, checksum) of a new array no recorded call has used yet
        self.open = True

    # ----------------------------------------------------------------- slots
    def new_slot(self, plain, dependent, constant_root=False):
        slot = len(self.values)
        self.values.append(plain)
        self.dependent.append(dependent)
        self.constant_root.append(constant_root)
        if isinstance(plain, numpy.ndarray):
            wrapper = plain.view(Traced)
            wrapper._recording = self
            wrapper._slot = slot
            self.slot_of_plain[id(plain)] = slot
            self.slot_of_layout[_layout(plain)] = slot
        else:
            wrapper = TracedScalar(plain)
            wrapper._recording = self
            wrapper._slot = slot
        self.wrappers.append(wrapper)
        return wrapper

    def add_input(self, plain, source):
        wrapper = self.new_slot(plain, True)
        self.inputs.append((wrapper._slot, source))
        self.input_roots.add(id(_root(plain)))
        return wrapper

    def note_fresh(self, wrapper, creator):
        """`wrapper` was just made by NumPy's `creator`. Until a recorded call uses it, code the
        recorder cannot see may write into it: numpy.random's C code fills an `np.empty` it asked for,
        a C extension fills a buffer. A replay would not repeat those writes, so the first use checks
        that none happened (`check_fresh`): the bytes are as the creator left them (for `np.empty`,
        whatever was in that memory)."""
        slot = getattr(wrapper, "_slot", None)
        if type(wrapper) is Traced and wrapper._recording is self and slot == len(self.values) - 1:
            self.fresh[slot] = (creator, _checksum(self.values[slot]))

    def check_fresh(self, slots=None):
        """The new arrays among `slots` (at the end of the recording: all not yet used) still hold
        what their creator made."""
        for slot in list(self.fresh) if slots is None else slots:
            entry = self.fresh.pop(slot, None)
            if entry is not None and entry[1] != _checksum(self.values[slot]):
                self.broken(
                    f"an array made by numpy.{entry[0]} was filled by code the recorder does not see (e.g. "
                    "a numpy.random Generator's draw, a C extension): a replay would not fill it again"
                )

    def broken(self, reason):
        if self.open:
            location = _user_location()
            self.breaks.append((reason, location))
            if self.fullgraph:
                self.open = False
                raise GraphBreak(f"ember.compile(fullgraph=True): {reason} at {location}")
        return None

    # ----------------------------------------------------------------- argument templates
    def unwrap(self, value, found):
        """(plain value, template) of a call argument; `found` collects whether a slot was met, whether
        any is data-dependent, and whether any shares memory with a constant."""
        kind = type(value)
        if kind is Traced:
            if value._recording is self:
                slot = value._slot
                if slot is None:
                    self.broken("an array view made inside NumPy without going through the recording")
                    return value.view(numpy.ndarray), value.view(numpy.ndarray)
                found[0] = True
                found[1] = found[1] or self.dependent[slot]
                found[2] = found[2] or self.constant_root[slot]
                return self.values[slot], Ref(slot)
            plain = numpy.ndarray.view(value, numpy.ndarray)  # a leftover of a finished recording
            return plain, self.constant(plain, found)
        if kind is TracedScalar:
            if value._recording is self:
                found[0] = True
                found[1] = found[1] or self.dependent[value._slot]
                return self.values[value._slot], Ref(value._slot)
            return _float(value), _float(value)
        if isinstance(value, numpy.ndarray):
            return value, self.constant(value, found)
        if kind is tuple or kind is list:
            pairs = [self.unwrap(item, found) for item in value]
            return kind(pair[0] for pair in pairs), kind(pair[1] for pair in pairs)
        if kind is dict:
            pairs = {key: self.unwrap(item, found) for key, item in value.items()}
            return {key: pair[0] for key, pair in pairs.items()}, {key: pair[1] for key, pair in pairs.items()}
        if kind is slice:
            (start, stop, step), template = self.unwrap((value.start, value.stop, value.step), found)
            if isinstance(template, tuple) and not any(isinstance(part, Ref) for part in template):
                return value, value
            return slice(start, stop, step), _SliceTemplate(template)
        return value, value

    def constant(self, plain, found):
        """A plain array met in a call: the array of a slot seen through `np.asarray`, or a constant
        captured by reference (an error if it is derived from recorded work)."""
        base = plain
        while base is not None:
            if (type(base) is Traced and base._recording is self) or id(base) in self.slot_of_plain:
                alias = self._exact_alias(plain)
                if alias is not None:
                    return self.unwrap(alias, found)[1]
                self.broken(
                    "an array derived from recorded work escaped the recording (made by a NumPy call "
                    "the recorder did not see, e.g. np.ndarray(buffer=...) or a C extension)"
                )
                return plain
            base = base.base
        root = _root(plain)
        self.constants.append(plain)
        self.constant_roots[id(root)] = root
        found[2] = True
        return plain

    def adopt(self, plain):
        """`plain`, or the Traced it exactly aliases (what `np.asarray(traced)` returns)."""
        base = plain.base
        if base is None:
            return plain
        alias = self._exact_alias(plain)
        return plain if alias is None else alias

    def _exact_alias(self, plain):
        """The Traced whose plain array `plain` views exactly (what np.asarray(traced) returns)."""
        slot = self.slot_of_layout.get(_layout(plain))
        if slot is None or _root(self.values[slot]) is not _root(plain):
            return None
        return self.wrappers[slot]

    # ----------------------------------------------------------------- recording a call
    def call(self, fn, args, kwargs, name, mutated=(), depends=False):
        """Run `fn(*args, **kwargs)` on plain values and record it; the result comes back traced.

        `mutated`: positions of `args` (ints) or keyword names written in place; `depends`: the
        result depends on more than the arguments (random draws)."""
        found = [False, depends, False]
        plain_args, template_args = self.unwrap(tuple(args), found)
        plain_kwargs, template_kwargs = self.unwrap(dict(kwargs), found) if kwargs else ({}, {})
        writes = []
        for target in mutated:
            template = template_args[target] if isinstance(target, int) else template_kwargs.get(target)
            self._check_mutation(template, found)
            writes += [
                item.slot
                for item in (template if isinstance(template, tuple) else (template,))
                if isinstance(item, Ref)
            ]
        if self.fresh:
            self.check_fresh(slots_in((template_args, template_kwargs), []))
        _state.recording = None  # NumPy's own Python code (np.random's np.empty ...) is not recorded
        try:
            result = fn(*plain_args, **plain_kwargs)
        finally:
            _state.recording = self
        if not self.open:
            return result
        outs, unpack, wrapped = self._wrap_result(result, found)
        self.ops.append(Op(fn, template_args, template_kwargs, outs, name, unpack, tuple(writes)))
        return wrapped

    def _check_mutation(self, template, found):
        for item in template if isinstance(template, tuple) else (template,):
            if isinstance(item, Ref):
                if self.first_persistent_write is None and id(_root(self.values[item.slot])) in self.input_roots:
                    self.first_persistent_write = len(self.ops)
                if self.constant_root[item.slot]:
                    self.broken("an in-place change of an array created outside the recording")
                if found[1]:
                    self.dependent[item.slot] = True
            elif isinstance(item, numpy.ndarray):
                self.broken("an in-place change of a NumPy array that is not a tensor's (it would not be replayed)")

    def _wrap_result(self, result, found):
        dependent = found[1]
        if isinstance(result, numpy.ndarray):
            slot = self.slot_of_plain.get(id(result))
            if slot is not None and self.values[slot] is result:
                return None, False, self.wrappers[slot]  # an `out=` array or the input itself
            constant = found[2] and id(_root(result)) in self.constant_roots
            wrapper = self.new_slot(result, dependent, constant)
            if constant:
                self.constant_roots[id(result)] = result
            return wrapper._slot, False, wrapper
        if isinstance(result, numpy.generic):
            # a NumPy scalar: recorded (and replayed) as a 0-d array, which computes the same values
            wrapper = self.new_slot(_asarray(result), dependent)
            return wrapper._slot, "0d", wrapper
        if isinstance(result, (tuple, list)) and all(isinstance(item, _ARRAY_LIKE) for item in result):
            outs, items = [], []
            for item in result:
                out, _, wrapped = self._wrap_result(item, found)
                outs.append(out)
                items.append(wrapped)
            wrapped = type(result)(items) if type(result) in (tuple, list) else type(result)(*items)
            return tuple(outs), True, wrapped
        if result is None:
            return None, False, None
        if isinstance(result, (numpy.dtype, type)) or (
            type(result) is tuple and all(type(item) is int for item in result)
        ):
            return None, False, result  # metadata (a dtype, a shape): fixed by the guarded layouts
        if type(result) is float:
            wrapper = self.new_slot(result, dependent)
            return wrapper._slot, False, wrapper
        if dependent:
            self.broken(f"a NumPy call returned {type(result).__name__} computed from the data")
        return None, False, result

    def guard_value(self, slot, convert, expected, what):
        """Python read `expected = convert(value of slot)`: a replay checks it still holds, which it can
        only do before the first write into an input (a miss must leave nothing changed)."""
        if self.first_persistent_write is not None:
            self.broken(f"{what} of an array computed from the data, after an in-place update of an input")
        else:
            self.value_guards.append((len(self.ops), slot, convert, expected))

    def scalar_op(self, fn, operands, name):
        found = [False, False, False]
        plain, template = self.unwrap(tuple(operands), found)
        result = fn(*plain)
        if not self.open:
            return result
        if type(result) is not float:
            self.broken(f"{name} of a number read from an array gave a {type(result).__name__}")
            return result
        wrapper = self.new_slot(result, found[1])
        self.ops.append(Op(fn, template, {}, wrapper._slot, name, False))
        return wrapper


_asarray = numpy.asarray  # the real one: while recording, numpy.asarray is the recorded creator
_float = float.__float__
_ARRAY_LIKE = (numpy.ndarray, numpy.generic)  # the plain value of a TracedScalar, without the recording's hooks


def _checksum(array):
    """CRC-32 of the array's bytes, read in place where its memory is one contiguous block (as bytes:
    bfloat16 and float8 have no buffer format of their own)."""
    if array.flags.c_contiguous and not array.dtype.hasobject:
        return zlib.crc32(array.reshape(-1).view(numpy.uint8))
    return zlib.crc32(array.tobytes())


def slots_in(value, into):
    """The slots of the Refs in an argument template, appended to `into`."""
    if isinstance(value, Ref):
        into.append(value.slot)
    elif type(value) in (tuple, list):
        for item in value:
            slots_in(item, into)
    elif type(value) is dict:
        for item in value.values():
            slots_in(item, into)
    elif type(value) is _SliceTemplate:
        slots_in(value.parts, into)
    return into


def _layout(array):
    return (array.__array_interface__["data"][0], array.shape, array.strides, array.dtype.str)


def _root(array):
    """The array that owns `array`'s memory (NumPy keeps a view's base pointing at the owner)."""
    base = numpy.ndarray.base.__get__(array)
    while base is not None and isinstance(base, numpy.ndarray):
        array, base = base, numpy.ndarray.base.__get__(base)
    return array


class _SliceTemplate:
    __slots__ = ("parts",)

    def __init__(self, parts):
        self.parts = parts


# ----------------------------------------------------------------- the traced array


def _recording_of(array):
    recording = array._recording
    return recording if recording is not None and recording.open else None


def _plain(value):
    """`value` with traced arrays and numbers replaced by plain ones (for finished recordings)."""
    kind = type(value)
    if kind is Traced:
        return value.view(numpy.ndarray)
    if kind is TracedScalar:
        return _float(value)
    if kind is tuple or kind is list:
        return kind(_plain(item) for item in value)
    if kind is dict:
        return {key: _plain(item) for key, item in value.items()}
    return value


def _ufunc_mutated(method, kwargs):
    targets = ["out"] if "out" in kwargs else []
    if method == "at":
        targets.append(0)
    return targets


def _record_ufunc(ufunc, method, inputs, kwargs):
    recording = _state.recording
    if recording is None or not recording.open:
        return getattr(ufunc, method)(*_plain(inputs), **_plain(kwargs))
    fn = ufunc if method == "__call__" else getattr(ufunc, method)
    return recording.call(fn, inputs, kwargs, f"{ufunc.__name__}.{method}", _ufunc_mutated(method, kwargs))


# NumPy functions whose result shape or Python value depends on the data: a replay could not follow.
_DATA_SHAPED = {
    "nonzero",
    "argwhere",
    "flatnonzero",
    "unique",
    "unique_values",
    "unique_counts",
    "unique_inverse",
    "unique_all",
    "extract",
    "compress",
    "array_equal",
    "array_equiv",
    "allclose",
    "count_nonzero",
    "trim_zeros",
    "histogram",
    "bincount",
}
# NumPy functions that write into their first argument.
_WRITES_FIRST = {"copyto", "put", "place", "putmask", "fill_diagonal", "put_along_axis"}


class Traced(numpy.ndarray):
    """An array whose NumPy operations are recorded while its Recording is open (see module doc)."""

    _recording = None
    _slot = None

    def __array_finalize__(self, obj):
        self._recording = getattr(obj, "_recording", None)
        self._slot = None  # a view NumPy made itself: unknown to the recording until adopted

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _record_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        recording = _state.recording
        if recording is None or not recording.open:
            return func(*_plain(args), **_plain(kwargs))
        name = func.__name__
        if name in _DATA_SHAPED:
            recording.broken(f"numpy.{name} (its result depends on the data)")
            return func(*_plain(args), **_plain(kwargs))
        mutated = ["out"] if "out" in kwargs else []
        if name in _WRITES_FIRST:
            mutated.append(0)
        return recording.call(func, args, kwargs, f"numpy.{name}", mutated)

    # --- methods that bypass __array_function__
    def _method(self, name, *args, **kwargs):
        recording = _recording_of(self)
        method = getattr(numpy.ndarray, name)
        if recording is None:
            return method(self.view(numpy.ndarray), *_plain(args), **_plain(kwargs))
        return recording.call(method, (self, *args), kwargs, f"ndarray.{name}", ["out"] if "out" in kwargs else ())

    def reshape(self, *args, **kwargs):
        return self._method("reshape", *args, **kwargs)

    def transpose(self, *args):
        return self._method("transpose", *args)

    def swapaxes(self, *args):
        return self._method("swapaxes", *args)

    def squeeze(self, *args, **kwargs):
        return self._method("squeeze", *args, **kwargs)

    def ravel(self, *args):
        return self._method("ravel", *args)

    def flatten(self, *args):
        return self._method("flatten", *args)

    def astype(self, *args, **kwargs):
        return self._method("astype", *args, **kwargs)

    def copy(self, *args):
        return self._method("copy", *args)

    def view(self, *args, **kwargs):
        if args and isinstance(args[0], type) and issubclass(args[0], numpy.ndarray) and not kwargs:
            return numpy.ndarray.view(self, *args)  # the recorder's own unwrapping (and adoption)
        return self._method("view", *args, **kwargs)

    def diagonal(self, *args, **kwargs):
        return self._method("diagonal", *args, **kwargs)

    def repeat(self, *args, **kwargs):
        return self._method("repeat", *args, **kwargs)

    def take(self, *args, **kwargs):
        return self._method("take", *args, **kwargs)

    def dot(self, *args, **kwargs):
        return self._method("dot", *args, **kwargs)

    def conj(self):
        return self._method("conj")

    def conjugate(self):
        return self._method("conjugate")

    def round(self, *args, **kwargs):
        return self._method("round", *args, **kwargs)

    def clip(self, *args, **kwargs):
        return self._method("clip", *args, **kwargs)

    def cumsum(self, *args, **kwargs):
        return self._method("cumsum", *args, **kwargs)

    def cumprod(self, *args, **kwargs):
        return self._method("cumprod", *args, **kwargs)

    def sum(self, *args, **kwargs):
        return self._method("sum", *args, **kwargs)

    def mean(self, *args, **kwargs):
        return self._method("mean", *args, **kwargs)

    def prod(self, *args, **kwargs):
        return self._method("prod", *args, **kwargs)

    def max(self, *args, **kwargs):
        return self._method("max", *args, **kwargs)

    def min(self, *args, **kwargs):
        return self._method("min", *args, **kwargs)

    def any(self, *args, **kwargs):
        return self._method("any", *args, **kwargs)

    def all(self, *args, **kwargs):
        return self._method("all", *args, **kwargs)

    def argmax(self, *args, **kwargs):
        return self._method("argmax", *args, **kwargs)

    def argmin(self, *args, **kwargs):
        return self._method("argmin", *args, **kwargs)

    def argsort(self, *args, **kwargs):
        return self._method("argsort", *args, **kwargs)

    def std(self, *args, **kwargs):
        return self._method("std", *args, **kwargs)

    def var(self, *args, **kwargs):
        return self._method("var", *args, **kwargs)

    def trace(self, *args, **kwargs):
        return self._method("trace", *args, **kwargs)

    def nonzero(self):
        recording = _recording_of(self)
        if recording is not None and recording.dependent[self._slot or 0]:
            recording.broken("ndarray.nonzero (its result depends on the data)")
        return numpy.ndarray.nonzero(self.view(numpy.ndarray))

    def fill(self, value):
        recording = _recording_of(self)
        if recording is None:
            return numpy.ndarray.fill(self.view(numpy.ndarray), _plain(value))
        return recording.call(numpy.ndarray.fill, (self, value), {}, "ndarray.fill", (0,))

    def sort(self, *args, **kwargs):
        recording = _recording_of(self)
        if recording is None:
            return numpy.ndarray.sort(self.view(numpy.ndarray), *args, **kwargs)
        return recording.call(numpy.ndarray.sort, (self, *args), kwargs, "ndarray.sort", (0,))

    def _as_strided_view(self, as_strided, shape, strides, writeable):
        """ember._backend.as_strided on a recorded array (it would otherwise build a plain view)."""
        recording = _recording_of(self)
        if recording is None:
            return as_strided(self.view(numpy.ndarray), shape, strides, writeable)
        return recording.call(as_strided, (self, tuple(shape), tuple(strides), writeable), {}, "as_strided")

    @property
    def T(self):
        return self._method("transpose")

    @property
    def mT(self):
        return self._method("swapaxes", -1, -2)

    @property
    def real(self):
        recording = _recording_of(self)
        if recording is None:
            return self.view(numpy.ndarray).real
        return recording.call(numpy.real, (self,), {}, "numpy.real")

    @real.setter
    def real(self, value):  # `result.real = part` (ember.complex): a recorded write through the view
        self.real[...] = value

    @property
    def imag(self):
        recording = _recording_of(self)
        if recording is None:
            return self.view(numpy.ndarray).imag
        return recording.call(numpy.imag, (self,), {}, "numpy.imag")

    @imag.setter
    def imag(self, value):
        self.imag[...] = value

    @property
    def base(self):
        """The recorded array this one views, as eager code would see it (a Traced, not its plain)."""
        recording = _recording_of(self)
        if recording is None or self._slot is None:
            return numpy.ndarray.base.__get__(self)
        base = recording.values[self._slot].base
        if base is None:
            return None
        slot = recording.slot_of_plain.get(id(base))
        if slot is not None:
            return recording.wrappers[slot]
        return base  # for identity checks; computing with it is caught as an escape (see constant())

    def __getitem__(self, index):
        recording = _recording_of(self)
        if recording is None:
            return numpy.ndarray.__getitem__(self.view(numpy.ndarray), _plain(index))
        if _has_boolean_array(index):
            recording.broken("indexing with a boolean mask (the result's shape depends on the data)")
            return numpy.ndarray.__getitem__(self.view(numpy.ndarray), _plain(index))
        return recording.call(operator.getitem, (self, index), {}, "ndarray.__getitem__")

    def __setitem__(self, index, value):
        recording = _recording_of(self)
        if recording is None:
            return numpy.ndarray.__setitem__(self.view(numpy.ndarray), _plain(index), _plain(value))
        recording.call(operator.setitem, (self, index, value), {}, "ndarray.__setitem__", (0,))

    def __iter__(self):
        return (self[index] for index in range(len(self)))

    # --- reading values into Python
    def item(self, *args):
        recording = _recording_of(self)
        plain = self.view(numpy.ndarray)
        if recording is None or self._slot is None or not recording.dependent[self._slot]:
            return numpy.ndarray.item(plain, *args)
        value = numpy.ndarray.item(plain, *args)
        if type(value) in (bool, int) and not args:
            recording.guard_value(self._slot, numpy.ndarray.item, value, "ndarray.item()")
            return value
        if type(value) is not float:
            recording.broken(f"ndarray.item() read a {type(value).__name__} from the data")
            return value
        return recording.call(numpy.ndarray.item, (self, *args), {}, "ndarray.item")

    def _read(self, convert, what):
        recording = _recording_of(self)
        plain = self.view(numpy.ndarray)
        value = convert(plain)
        if recording is not None and (self._slot is None or recording.dependent[self._slot]):
            if self._slot is None or convert in (repr, str) or not isinstance(value, (bool, int, float, list)):
                recording.broken(f"{what} of an array computed from the data (Python then uses its value)")
            else:
                recording.guard_value(self._slot, convert, value, what)
        return value

    def tolist(self):
        return self._read(numpy.ndarray.tolist, "tolist()")

    def tobytes(self, *args, **kwargs):
        return self._read(lambda plain: plain.tobytes(*args, **kwargs), "tobytes()")

    def __bool__(self):
        return self._read(bool, "bool()")

    def __float__(self):
        return self._read(float, "float()")

    def __int__(self):
        return self._read(int, "int()")

    def __index__(self):
        return self._read(operator.index, "an index")

    def __complex__(self):
        return self._read(complex, "complex()")

    def __repr__(self):
        return self._read(repr, "repr()")

    def __str__(self):
        return self._read(str, "str()")

    def __format__(self, spec):
        return self._read(lambda plain: format(plain, spec), "formatting")

    def __reduce__(self):
        return self._read(lambda plain: plain.__reduce__(), "pickling")

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()


def _has_boolean_array(index):
    items = index if type(index) is tuple else (index,)
    for item in items:
        if isinstance(item, numpy.ndarray) and item.dtype == bool and item.ndim > 0:
            return True
        if isinstance(item, list) and item and isinstance(item[0], bool):
            return True
    return False


# ----------------------------------------------------------------- the traced number


def _scalar_binary(name, fn, reflected=False):
    def method(self, other):
        if isinstance(other, numpy.ndarray):
            return NotImplemented
        recording = self._recording
        plain_self = _float(self)
        if recording is None or not recording.open:
            other = _float(other) if type(other) is TracedScalar else other
            return fn(other, plain_self) if reflected else fn(plain_self, other)
        return recording.scalar_op(fn, (other, self) if reflected else (self, other), name)

    method.__name__ = f"__{'r' if reflected else ''}{name}__"
    return method


def _scalar_unary(name, fn):
    def method(self):
        recording = self._recording
        if recording is None or not recording.open:
            return fn(_float(self))
        return recording.scalar_op(fn, (self,), name)

    return method


def _scalar_read(name, convert):
    def method(self, *args):
        recording = self._recording
        if recording is not None and recording.open and recording.dependent[self._slot]:
            recording.broken(f"{name} of a number read from an array (Python then uses its value)")
        return convert(_float(self), *args)

    return method


class TracedScalar(float):
    """A Python float read from a recorded array (an optimizer's step count, a loss read with
    `.item()`): arithmetic on it is recorded; comparing, formatting or converting it is a break."""

    _recording = None
    _slot = None

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _record_ufunc(ufunc, method, inputs, kwargs)

    __add__ = _scalar_binary("add", operator.add)
    __radd__ = _scalar_binary("add", operator.add, True)
    __sub__ = _scalar_binary("sub", operator.sub)
    __rsub__ = _scalar_binary("sub", operator.sub, True)
    __mul__ = _scalar_binary("mul", operator.mul)
    __rmul__ = _scalar_binary("mul", operator.mul, True)
    __truediv__ = _scalar_binary("truediv", operator.truediv)
    __rtruediv__ = _scalar_binary("truediv", operator.truediv, True)
    __pow__ = _scalar_binary("pow", operator.pow)
    __rpow__ = _scalar_binary("pow", operator.pow, True)
    __neg__ = _scalar_unary("neg", operator.neg)
    __pos__ = _scalar_unary("pos", operator.pos)
    __abs__ = _scalar_unary("abs", abs)
    __float__ = _scalar_read("float()", float)
    __int__ = _scalar_read("int()", int)
    __bool__ = _scalar_read("bool()", bool)
    __round__ = _scalar_read("round()", round)
    __trunc__ = _scalar_read("trunc()", int)
    __floor__ = _scalar_read("floor()", lambda value: int(value // 1))
    __ceil__ = _scalar_read("ceil()", lambda value: -int(-value // 1))
    __repr__ = _scalar_read("repr()", repr)
    __str__ = _scalar_read("str()", str)
    __format__ = _scalar_read("formatting", format)
    __hash__ = _scalar_read("hash()", hash)
    __eq__ = _scalar_read("a comparison", float.__eq__)
    __ne__ = _scalar_read("a comparison", float.__ne__)
    __lt__ = _scalar_read("a comparison", float.__lt__)
    __le__ = _scalar_read("a comparison", float.__le__)
    __gt__ = _scalar_read("a comparison", float.__gt__)
    __ge__ = _scalar_read("a comparison", float.__ge__)
    __floordiv__ = _scalar_read("floor division", float.__floordiv__)
    __mod__ = _scalar_read("modulo", float.__mod__)
    __divmod__ = _scalar_read("divmod()", float.__divmod__)
    __getnewargs__ = _scalar_read("pickling", lambda value: (value,))
