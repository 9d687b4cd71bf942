"""`torch.overrides`: the `__torch_function__` protocol's public helpers.

A Tensor subclass gets the calls made on it: ops on `MyTensor` return `MyTensor` (the default
`Tensor.__torch_function__` converts results with `as_subclass`), and a subclass that defines its own
`__torch_function__` classmethod decides what each public function, method, operator and
tensor-valued property does. An object that is not a tensor can take part too. A function of one's
own takes part the way PyTorch's documentation shows::

    def my_op(a):
        if has_torch_function((a,)):
            return handle_torch_function(my_op, (a,), a)
        return a + 0

Differences from PyTorch: a method called on a plain tensor does not look at its other arguments
(`t.add(my_tensor)` returns a plain tensor; `t + my_tensor` and `ember.add(t, my_tensor)` dispatch);
`func` is ember's function (`Tensor.__getitem__` is the op `getitem`, whose `__name__` says so);
there are no TorchFunctionMode and no `__torch_dispatch__`.
"""

from . import _torch_function
from ._torch_function import get_default_nowrap_functions, handle_torch_function, has_torch_function

__all__ = [
    "get_default_nowrap_functions",
    "get_ignored_functions",
    "get_overridable_functions",
    "handle_torch_function",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "is_tensor_like",
    "is_tensor_method_or_property",
    "resolve_name",
    "wrap_torch_function",
]


def get_ignored_functions():
    """The public functions that never dispatch (they take no tensor that could override them:
    `ember.zeros`, `ember.tensor` ...)."""
    import ember

    return {getattr(ember, name) for name in _torch_function.IGNORED if hasattr(ember, name)}


def get_overridable_functions():
    """{namespace: [its functions that dispatch]}: the ember module, nn.functional, linalg, fft and
    special, and Tensor with its methods and the getters of its tensor properties."""
    import importlib

    from ._tensor import Tensor

    for namespace in ("nn.functional", "linalg", "fft", "special"):  # (loaded on first use otherwise)
        importlib.import_module(f"ember.{namespace}")
    found = {}
    for wrapper in _torch_function._published.values():
        found.setdefault(importlib.import_module(wrapper.__module__), []).append(wrapper)
    methods = _torch_function.tensor_api()
    found[Tensor] = [
        vars(Tensor)[name].__get__ if isinstance(attribute, property) else getattr(Tensor, name)
        for name, attribute in methods.items()
    ]
    return found


def has_torch_function_unary(arg):
    """`has_torch_function((arg,))`."""
    return has_torch_function((arg,))


def has_torch_function_variadic(*args):
    """`has_torch_function(args)`."""
    return has_torch_function(args)


def is_tensor_like(inp):
    """Whether `inp` is a Tensor or has a `__torch_function__` (a tensor-like object)."""
    from ._tensor import Tensor

    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


def is_tensor_method_or_property(func):
    """Whether `func` is one of Tensor's methods or property getters (these take `self` first)."""
    from ._tensor import Tensor

    owner = getattr(func, "__self__", None)
    if isinstance(owner, property):  # a property's __get__
        return owner in vars(Tensor).values()
    name = getattr(func, "__name__", None)
    return name is not None and vars(Tensor).get(name) is func


def resolve_name(f):
    """The public name of `f`, such as 'ember.add' or 'ember.Tensor.add' (None when it has none)."""
    if is_tensor_method_or_property(f):
        return f"ember.Tensor.{f.__name__}"
    module, name = getattr(f, "__module__", None), getattr(f, "__name__", None)
    return f"{module}.{name}" if module and name else None


def wrap_torch_function(dispatcher):
    """Decorator: the function offers its calls to the `__torch_function__` of the arguments that
    `dispatcher(*args, **kwargs)` returns (the ones it considers tensor-like)."""
    import functools

    def decorate(function):
        @functools.wraps(function)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return function(*args, **kwargs)

        return wrapped

    return decorate
