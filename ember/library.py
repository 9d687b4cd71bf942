"""`torch.library`'s Python custom ops: a Python function declared as an op, with its own gradient.

`custom_op("ns::name", fn, mutates_args=())` returns a callable op; `register_autograd` gives it a
backward (with an optional `setup_context` that saves what backward needs), and `register_fake` a
shape-only version for tracing. ember runs every op eagerly in Python, so the fake implementation is
recorded but never needed, and the schema string is not parsed. The op is reached through the
returned object or `ember.library.get_custom_op("ns::name")`; ember has no `torch.ops` namespace.
"""

from . import autograd
from .autograd import grad_mode

__all__ = ["custom_op", "register_autograd", "register_fake", "get_custom_op", "CustomOpDef"]

_CUSTOM_OPS = {}


class CustomOpDef:
    """A Python function registered as an op: call it like the function."""

    def __init__(self, name, fn, mutates_args):
        self.name, self._fn, self.mutates_args = name, fn, mutates_args
        self._backward = self._setup_context = self._fake = self._function = None
        self.__doc__, self.__name__ = fn.__doc__, name.partition("::")[2]

    def register_autograd(self, backward, *, setup_context=None):
        self._backward, self._setup_context = backward, setup_context
        self._function = _with_backward(self)

    def register_fake(self, fn):
        self._fake = fn
        return fn

    def __call__(self, *args):
        if self._function is None:
            return self._fn(*args)
        return self._function.apply(*args)

    def __repr__(self):
        return f"<CustomOpDef({self.name})>"


def _with_backward(op):
    """An autograd.Function that runs `op`'s function forward and its registered backward."""

    class CustomOpFunction(autograd.Function):
        @staticmethod
        def forward(ctx, *args):
            with grad_mode.no_grad():
                output = op._fn(*args)
            if op._setup_context is not None:
                op._setup_context(ctx, args, output)
            return output

        @staticmethod
        def backward(ctx, *grads):
            return op._backward(ctx, *grads)

    CustomOpFunction.__name__ = CustomOpFunction.__qualname__ = op.__name__
    return CustomOpFunction


def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None, tags=None):
    """Declare `fn` as the op `name` ("namespace::op_name"); used bare or as a decorator."""
    if "::" not in name:
        raise ValueError(f'custom_op: the name must look like "namespace::op_name", got {name!r}')

    def declare(function):
        if name in _CUSTOM_OPS:
            raise RuntimeError(f"custom_op: {name} is already registered")
        _CUSTOM_OPS[name] = CustomOpDef(name, function, mutates_args)
        return _CUSTOM_OPS[name]

    return declare if fn is None else declare(fn)


def get_custom_op(name):
    """The CustomOpDef registered as `name`."""
    try:
        return _CUSTOM_OPS[name]
    except KeyError:
        raise ValueError(f"no custom op named {name!r}; declare it with ember.library.custom_op") from None


def _resolve(op):
    return op if isinstance(op, CustomOpDef) else get_custom_op(op)


def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    """Give the custom op `op` (its name or CustomOpDef) a backward: `backward(ctx, *grads)` returns one
    gradient (or None) per input; `setup_context(ctx, inputs, output)` saves what it needs."""
    _resolve(op).register_autograd(backward, setup_context=setup_context)


def register_fake(op, func=None, /, *, lib=None, _stacklevel=1, allow_override=True):
    """Record the shape-only implementation of `op` (ember runs ops eagerly, so it is not called)."""
    if func is None:
        return lambda function: _resolve(op).register_fake(function)
    return _resolve(op).register_fake(func)
