"""Grad mode: whether operations record a graph. Thread-local, as in PyTorch.

Each switch (`no_grad`, `enable_grad`, `set_grad_enabled`, `inference_mode`) works both as a
context manager and as a decorator.
"""

import functools
import inspect
import sys
import threading
from typing import Any

from .. import _naming, _tensor
from .._warn import warn as _warn

__all__ = [
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "set_multithreading_enabled",
    "is_multithreading_enabled",
]


class _GradModeState(threading.local):
    # Class attributes are the defaults every new thread starts from.
    enabled = True
    inference = False


state = _GradModeState()
_blocks_lock = threading.Lock()


def is_grad_enabled():
    """Return True when operations on tensors that require grad are being recorded."""
    return state.enabled


def is_inference_mode_enabled():
    """Whether the current thread is inside `inference_mode`."""
    return state.inference


class _GradModeSwitch:
    """Base for the switches: subclasses say what `enabled` becomes inside the block."""

    enabled = True

    def __enter__(self):
        self._previous = state.enabled
        state.enabled = self.enabled

    def __exit__(self, *exc_info):
        state.enabled = self._previous
        return False

    def __repr__(self):
        return f"<{_naming.package}.autograd.grad_mode.{type(self).__name__} object at {hex(id(self))}>"

    def __call__(self, function):
        if inspect.isclass(function):
            _warn(
                "Decorating classes is deprecated and will be disabled in future versions. You "
                "should only decorate functions or methods. To preserve the current behavior of "
                "class decoration, you can directly decorate the `__init__` method and nothing "
                "else.",
                FutureWarning,
                stacklevel=2,
            )
            return self._decorate_function(function)
        if inspect.isgeneratorfunction(function):
            return self._decorate_generator(function)
        return self._decorate_function(function)

    def _decorate_function(self, function):
        @functools.wraps(function)
        def run_in_mode(*args, **kwargs):
            with self.clone():
                return function(*args, **kwargs)

        return run_in_mode

    def _decorate_generator(self, function):
        """The mode holds while the generator's own code runs, not while its caller runs between
        `yield`s (as PyTorch): every resume re-enters the mode."""

        @functools.wraps(function)
        def run_generator_in_mode(*args, **kwargs):
            generator = function(*args, **kwargs)
            try:
                with self.clone():
                    response = generator.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            generator.close()
                        raise
                    except BaseException:
                        with self.clone():
                            response = generator.throw(*sys.exc_info())
                    else:
                        with self.clone():
                            response = generator.send(request)
            except StopIteration as stop:
                return stop.value

        return run_generator_in_mode

    def clone(self):
        return type(self)()


class no_grad(_GradModeSwitch):
    """Context manager and decorator that stops recording operations.

    Example::

        with ember.no_grad():
            y = x * 2          # y.requires_grad is False
    """

    enabled = False

    def __new__(cls, orig_func=None):
        self = super().__new__(cls)
        # `@no_grad` without parentheses hands us the function itself.
        return self(orig_func) if callable(orig_func) else self


class enable_grad(no_grad):
    """Context manager and decorator that turns recording back on inside a `no_grad` block."""

    enabled = True


class _SetWhenCalled(_GradModeSwitch):
    """A switch that takes effect as soon as it is called (`set_grad_enabled(False)` as a statement);
    as a block it restores the mode it found, and as a decorator it leaves the caller's mode alone."""

    _flags: Any = state  # the object whose `enabled` the switch sets (thread-local or process-wide)

    def __init__(self, mode):
        self.enabled = bool(mode)
        self._previous = self._flags.enabled
        self._flags.enabled = self.enabled

    def __enter__(self):
        pass

    def __exit__(self, *exc_info):
        self._flags.enabled = self._previous
        return False

    def __call__(self, function):
        self._flags.enabled = self._previous
        return super().__call__(function)

    def clone(self):
        """A new switch with the same mode: each call of a decorated function enters its own, so calls can nest."""
        return type(self)(self.enabled)


class set_grad_enabled(_SetWhenCalled):
    """Turn recording on or off: `with set_grad_enabled(is_train): ...`.

    Like PyTorch, the mode also changes when it is called as a plain function.
    """

    def __repr__(self):
        return f"{_naming.package}.autograd.grad_mode.set_grad_enabled(mode={self.enabled})"


class inference_mode(_GradModeSwitch):
    """Like `no_grad`, and the tensors made inside are inference tensors (`is_inference()`), as in PyTorch:
    outside the block they cannot be changed in place or saved for backward, and views of them are
    ordinary tensors that do not require grad. Views of normal tensors made inside keep `requires_grad`
    but may not be changed in place once grad mode is back on."""

    def __init__(self, mode=True):
        self.mode = bool(mode)
        self.enabled = not self.mode

    def __new__(cls, mode=True):
        self = super().__new__(cls)
        if callable(mode):
            self.__init__(True)
            return self(mode)
        return self

    def __enter__(self):
        self._previous_inference = state.inference
        self._previous_counter = _tensor.creation.version_counter
        state.inference = self.mode
        _tensor.creation.version_counter = _tensor.INFERENCE_COUNTER if self.mode else None
        with _blocks_lock:
            _tensor.inference_blocks_open += 1
        super().__enter__()

    def __exit__(self, *exc_info):
        state.inference = self._previous_inference
        _tensor.creation.version_counter = self._previous_counter
        with _blocks_lock:
            _tensor.inference_blocks_open -= 1
        return super().__exit__(*exc_info)

    def clone(self):
        """A new switch with the same mode: each call of a decorated function enters its own, so calls can nest."""
        return inference_mode(self.mode)


class _MultithreadingState:
    enabled = True  # process-wide, as PyTorch's


_multithreading = _MultithreadingState()


def is_multithreading_enabled():
    """Whether backward may use PyTorch's per-device worker threads. ember's engine runs every
    backward on the calling thread either way; the switch exists so code that sets it runs."""
    return _multithreading.enabled


class set_multithreading_enabled(_SetWhenCalled):
    """Set `is_multithreading_enabled()`: as a call, a context manager or a decorator (PyTorch's
    switch for its autograd worker threads; it changes nothing else in ember)."""

    _flags = _multithreading
