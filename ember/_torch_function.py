"""The `__torch_function__` protocol: a Tensor subclass, or any object whose type has a
`__torch_function__` classmethod, takes over the public functions and methods it is passed to, as
PyTorch's "Extending torch Python API" describes (and `ember.overrides` exposes).

Where a call is offered to the arguments' `__torch_function__`:
- the public functions (`ember.add`, `nn.functional.relu`, `linalg.*`, `fft.*`, `special.*`): each
  namespace publishes `dispatching` wrappers of its ops (`publish`). Inside ember ops call each other
  directly, so what is offered is the user's call, not the ops it is made of;
- Tensor's methods, operators and tensor-valued properties, on an instance of a subclass that takes
  part: `Tensor.__init_subclass__` gives such a class wrappers of what it inherits (`prepare_subclass`).
  A plain tensor keeps the ops themselves, so its methods cost nothing more.

Until a type that takes part exists, the function wrappers only call through (`_overriding_seen`). A
Tensor subclass announces itself when it is defined; another tensor-like type is seen when an op
fails on it, and the call is then offered to it.

The default `Tensor.__torch_function__` (`default_handler`) runs the op with dispatch switched off and
makes tensor results instances of the subclass (`Tensor.as_subclass`), so `MyTensor` in gives
`MyTensor` out. `__torch_dispatch__` (the layer below autograd) and TorchFunctionMode are not
implemented.
"""

import functools
import threading
import types

from ._numpy_names import caused_by_numpy_names, retry_renamed
from ._tensor import _OPERATORS, Tensor, TensorBase, _op_method

__all__ = [
    "DisableTorchFunction",
    "DisableTorchFunctionSubclass",
    "default_handler",
    "dispatching",
    "get_default_nowrap_functions",
    "handle_torch_function",
    "has_torch_function",
    "op_behind",
    "overloaded_arguments",
    "prepare_subclass",
    "publish",
    "tensor_api",
]

_overriding_seen = False  # a type that takes part exists: the wrappers look at their arguments


class _State(threading.local):
    disabled = False  # inside DisableTorchFunction(Subclass): no argument is consulted


_state = _State()


class DisableTorchFunctionSubclass:
    """Context manager under which no argument's `__torch_function__` is consulted: the default
    handler runs the op inside one, so the op's own calls do not dispatch again."""

    def __enter__(self):
        self._previous = _state.disabled
        _state.disabled = True
        return self

    def __exit__(self, *exc_info):
        _state.disabled = self._previous


class DisableTorchFunction(DisableTorchFunctionSubclass):
    """As DisableTorchFunctionSubclass (ember has no torch function modes that it would also stop)."""


class _DisabledImplementation:
    """`torch._C._disabled_torch_function_impl`: the `__torch_function__` of a subclass that does not
    take part (Parameter's). An object, not a function, so that a class attribute never binds."""

    def __call__(self, func, types, args=(), kwargs=None):
        with DisableTorchFunctionSubclass():
            return func(*args, **(kwargs or {}))

    def __repr__(self):
        return "<built-in function _disabled_torch_function_impl>"


_disabled_torch_function_impl = _DisabledImplementation()

# Types known not to take part: these, and every type met without a __torch_function__ of its own
# (Parameter, ndarray ...), so that a call's arguments are checked with one set lookup each.
_NEVER_OVERRIDE = {Tensor, int, float, bool, complex, str, bytes, type(None), slice, type(Ellipsis)}


def _takes_part(kind):
    if kind in _NEVER_OVERRIDE:
        return False
    implementation = getattr(kind, "__torch_function__", _disabled_torch_function_impl)
    if implementation is _disabled_torch_function_impl:
        if kind not in (list, tuple, dict):  # (containers: their items decide)
            _NEVER_OVERRIDE.add(kind)
        return False
    return True


def overloaded_arguments(values):
    """The arguments among `values` whose type takes part, one per type, in the order PyTorch
    consults them: left to right, except that a subclass goes before any of its superclasses."""
    types, arguments = [], []
    for value in values:
        kind = type(value)
        if kind in types or not _takes_part(kind):
            continue
        index = next((i for i, seen in enumerate(types) if issubclass(kind, seen)), len(types))
        types.insert(index, kind)
        arguments.insert(index, value)
    return arguments


def _overloaded_in_call(args, kwargs):
    """`overloaded_arguments` of a call's arguments, quick when they are all plain tensors and numbers
    (the usual call, once a subclass exists somewhere)."""
    for values in (args, kwargs.values()):
        for value in values:
            if type(value) not in _NEVER_OVERRIDE:
                return overloaded_arguments(_relevant(args, kwargs))
    return ()


def _relevant(args, kwargs):
    """The values a call's arguments hold: each one, and the items of a list or tuple (`cat([a, b])`)."""
    for value in (*args, *kwargs.values()):
        if type(value) in (list, tuple):
            yield from value
        else:
            yield value


def has_torch_function(relevant_args):
    """Whether any of `relevant_args` takes part (its type is not Tensor and has `__torch_function__`)."""
    return not _state.disabled and any(_takes_part(type(value)) for value in relevant_args)


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Offer the call `public_api(*args, **kwargs)` to the `__torch_function__` of the arguments
    among `relevant_args` that take part; the first answer other than NotImplemented is the result."""
    return _offer(public_api, overloaded_arguments(relevant_args), args, kwargs)


def _offer(public_api, overloaded, args, kwargs, name=None):
    global _overriding_seen
    _overriding_seen = True
    kinds = tuple(type(argument) for argument in overloaded)
    for argument in overloaded:
        result = argument.__torch_function__(public_api, kinds, args, kwargs)
        if result is not NotImplemented:
            return result
    if name is None:
        name = f"{getattr(public_api, '__module__', None) or 'ember'}.{getattr(public_api, '__name__', public_api)}"
    raise TypeError(
        f"no implementation found for '{name}' on types that implement __torch_function__: "
        f"{list(kinds)} (each one's __torch_function__ returned NotImplemented)"
    )


def dispatching(function, module, name=None):
    """`function` as the public name `module.<name>`: it offers the call to its arguments'
    `__torch_function__` first (see the module docstring), and is what they receive as `func`."""

    @functools.wraps(function)
    def public(*args, **kwargs):
        if _overriding_seen and not _state.disabled:
            overloaded = _overloaded_in_call(args, kwargs)
            if overloaded:
                return _offer(public, overloaded, args, kwargs)
        try:
            return function(*args, **kwargs)
        except Exception as error:
            if kwargs and caused_by_numpy_names(error):  # `axis=` / `keepdims=`, as PyTorch accepts
                return retry_renamed(public, args, kwargs)
            # A tensor-like type that is not a Tensor subclass announces itself here, the first time.
            if _overriding_seen or _state.disabled:
                raise
            overloaded = _overloaded_in_call(args, kwargs)
            if not overloaded:
                raise
        return _offer(public, overloaded, args, kwargs)

    public.__module__ = module
    public.__qualname__ = name or function.__name__  # where pickle finds it (`__name__` stays the op's)
    public._dispatches = True
    return public


# What torch.overrides.get_ignored_functions lists among ember's top-level ops: they take no tensor
# whose type could override them (creation from sizes or data), so they do not dispatch.
IGNORED = frozenset(
    """arange as_strided as_tensor asarray bartlett_window blackman_window broadcast_shapes can_cast
    empty empty_permuted empty_strided eye fill from_numpy frombuffer full hamming_window hann_window
    kaiser_window linspace logspace normal ones rand rand_like randint randint_like randn randn_like
    randperm range result_type scalar_tensor sparse_coo_tensor tensor tril_indices triu_indices
    vander zeros is_tensor is_storage promote_types""".split()
)


def op_behind(value):
    """The op function a published name wraps (`value` itself when it is not such a wrapper)."""
    return value.__wrapped__ if getattr(value, "_dispatches", False) else value


_published = {}  # op function -> its one wrapper, whichever namespaces publish it (psi is digamma)


def publish(namespace, names, module, ignored=frozenset()):
    """Replace the op functions `names` of a public module's `namespace` (its globals) by their
    dispatching wrappers; the module's own code then calls through them too, as PyTorch's does."""
    for name in names:
        function = namespace.get(name)
        if type(function) is types.FunctionType and not hasattr(function, "_dispatches") and name not in ignored:
            if function not in _published:
                _published[function] = dispatching(function, module, name)
            namespace[name] = _published[function]


# ------------------------------------------------------------------------------ Tensor's side


_NOWRAP = frozenset((Tensor.grad.__get__,))


def get_default_nowrap_functions():
    """The functions whose results the default handler returns as they are (a `.grad`, not a subclass)."""
    return set(_NOWRAP)


def default_handler(cls, func, types, args, kwargs):
    """`Tensor.__torch_function__`: run `func` with dispatch off; tensors in the result become `cls`."""
    if not all(issubclass(cls, kind) for kind in types):
        return NotImplemented
    with DisableTorchFunctionSubclass():
        result = func(*args, **(kwargs or {}))
        if func in _NOWRAP:
            return result
        return _convert(result, cls)


def _convert(value, cls):
    if cls is Tensor:
        return value
    if isinstance(value, Tensor):
        return value if isinstance(value, cls) else value.as_subclass(cls)
    if isinstance(value, (tuple, list)):
        items = [_convert(item, cls) for item in value]
        kind = type(value)
        return kind._make(items) if hasattr(kind, "_fields") else kind(items)
    return value


# Tensor attributes a subclass does not dispatch: object machinery, copying and pickling, hashing
# (dict keys of internal bookkeeping), and those made of calls that dispatch themselves (`str` calls
# `repr`, iteration `unbind`), as in PyTorch.
_NOT_DISPATCHED = frozenset(
    """__init__ __new__ __init_subclass__ __subclasshook__ __torch_function__ __class__ __getattribute__
    __getattr__ __setattr__ __delattr__ __dir__ __sizeof__ __reduce__ __reduce_ex__ __getstate__
    __setstate__ __deepcopy__ __copy__ __hash__ __str__ __iter__ __doc__ __module__ __slots__ __dict__
    __weakref__ __array_priority__ __annotations__ as_subclass""".split()
)
_DISPATCHED_PROPERTIES = frozenset(("data", "grad", "T", "mT", "H", "mH", "real", "imag"))
# Operators whose call is offered as the method's, as PyTorch offers `s + 1` as `Tensor.add`.
_OFFERED_AS_METHOD = {
    "__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub", "__isub__": "sub_",
    "__mul__": "mul", "__rmul__": "mul", "__imul__": "mul_", "__truediv__": "div", "__itruediv__": "div_",
    "__matmul__": "matmul", "__pow__": "pow", "__mod__": "remainder", "__neg__": "neg", "__abs__": "abs",
    "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge", "__ne__": "ne",
}  # fmt: skip


def prepare_subclass(cls):
    """Give a new Tensor subclass that takes part dispatching wrappers of the methods, operators and
    tensor-valued properties it would inherit from Tensor (not of those a class of its own defines)."""
    global _overriding_seen
    if not _takes_part(cls):
        return
    _overriding_seen = True
    for name, attribute in tensor_api().items():
        owner = next((klass for klass in cls.__mro__ if name in vars(klass)), Tensor)
        if owner in (Tensor, TensorBase, object):
            setattr(cls, name, attribute)


@functools.cache
def tensor_api():
    """{name: dispatching method or property}: Tensor's public surface, as a subclass inherits it."""
    api = {}
    for name in dir(Tensor):
        if name in _NOT_DISPATCHED or (name.startswith("_") and not name.startswith("__")):
            continue
        if name in _OPERATORS or name not in vars(Tensor):
            try:
                _op_method(name)  # binds the op itself on Tensor (not the class body's late-binding slot)
            except AttributeError:
                continue  # object's (__ne__ ...): not Tensor's API
        attribute = vars(Tensor).get(name)
        if isinstance(attribute, property):
            if name in _DISPATCHED_PROPERTIES:
                api[name] = _dispatching_property(attribute)
        elif type(attribute) is types.FunctionType:
            offered = _OFFERED_AS_METHOD.get(name, name)
            api[name] = _dispatching_method(name, attribute, getattr(Tensor, offered))
    return api


def _dispatching_method(name, method, offered):
    @functools.wraps(method)
    def dispatched(self, *args, **kwargs):
        if not _state.disabled:
            overloaded = overloaded_arguments(_relevant((self, *args), kwargs))
            if overloaded:
                return _offer(offered, overloaded, (self, *args), kwargs, f"ember.Tensor.{name}")
        return method(self, *args, **kwargs)

    dispatched.__name__ = name
    dispatched.__qualname__ = f"Tensor.{name}"
    return dispatched


def _dispatching_property(prop):
    getter = prop.__get__

    def get(self):
        if not _state.disabled:
            overloaded = overloaded_arguments((self,))
            if overloaded:
                return _offer(getter, overloaded, (self,), {})
        return getter(self)

    return property(get, prop.fset, prop.fdel, prop.__doc__)
