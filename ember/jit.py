"""`ember.jit` (torch.jit): TorchScript's Python surface, so that code written for it runs eagerly.

TorchScript compiles a module or function into a graph for a C++ runtime; ember has no such runtime,
and running the Python code itself gives the same results. So `script` and `trace` return what they
are given (after PyTorch 2.13's DeprecationWarning; `trace` also runs it once on the example inputs,
as tracing does), the decorators (`ignore`, `unused`, `export`, `interface`) leave functions as
they are, `is_scripting()` and `is_tracing()` are False, and `save`/`load` keep the whole object
through `ember.save`. A TorchScript archive written by PyTorch cannot be loaded: it holds TorchScript
code, not Python, and the error says to save a state_dict instead.
"""

import contextlib
import typing
import zipfile
from ._warn import warn as _warn

__all__ = [
    "script",
    "trace",
    "trace_module",
    "script_if_tracing",
    "save",
    "load",
    "freeze",
    "optimize_for_inference",
    "is_scripting",
    "is_tracing",
    "ignore",
    "unused",
    "export",
    "interface",
    "annotate",
    "Attribute",
    "Final",
    "isinstance",
    "fork",
    "wait",
    "Future",
    "ScriptModule",
    "ScriptFunction",
    "optimized_execution",
    "enable_onednn_fusion",
    "onednn_fusion_enabled",
    "set_fusion_strategy",
]

Final = typing.Final
_builtin_isinstance = isinstance


def _deprecated(name, instead="`torch.compile` or `torch.export`"):
    _warn(f"`torch.jit.{name}` is deprecated. Please switch to {instead}.", DeprecationWarning, stacklevel=3)


class ScriptModule:
    """TorchScript's compiled module type: `script` returns the module itself, so no object is one."""


class ScriptFunction:
    """TorchScript's compiled function type: `script` returns the function itself, so no object is one."""


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """The module or function itself, run eagerly (its results are what the scripted one gives)."""
    _deprecated("script")
    return obj


def trace(
    func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5, **kwargs
):
    """`func` itself, after one call on `example_inputs` as tracing makes (its side effects happen)."""
    _deprecated("trace")
    if example_inputs is not None:
        inputs = example_inputs if _builtin_isinstance(example_inputs, tuple) else (example_inputs,)
        func(*inputs)
    return func


def trace_module(mod, inputs, **kwargs):
    """`mod` itself, after calling each named method once on its example inputs."""
    _deprecated("trace_module")
    for method, example in inputs.items():
        getattr(mod, method)(*(example if _builtin_isinstance(example, tuple) else (example,)))
    return mod


def script_if_tracing(fn):
    """`fn` itself (nothing is ever traced)."""
    return fn


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """The module itself: there is no graph to fold constants into."""
    return mod


def optimize_for_inference(mod, other_methods=None):
    """The module itself: there is no graph to optimize."""
    return mod


def save(m, f, _extra_files=None):
    """Save the whole module (or function's module) with `ember.save`; `load` gives it back."""
    from .serialization import save as save_object

    _deprecated("save", "`torch.export`")
    save_object(m, f)


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    """Load what `ember.jit.save` wrote (a whole pickled object: only load files you trust)."""
    from .serialization import load as load_object

    _deprecated("load", "`torch.export`")
    if _is_torchscript_archive(f):
        raise RuntimeError(
            "ember.jit.load: this is a TorchScript archive written by PyTorch; it holds TorchScript code, which "
            "ember cannot run. Save the model's state_dict() with torch.save instead, build the model in Python "
            "and load_state_dict() it."
        )
    return load_object(f, map_location=map_location, weights_only=False)


def _is_torchscript_archive(f):
    try:
        if not zipfile.is_zipfile(f):
            return False
        with zipfile.ZipFile(f) as archive:
            return any(name.split("/", 1)[-1].startswith("code/") for name in archive.namelist())
    finally:
        if hasattr(f, "seek"):
            f.seek(0)


def is_scripting():
    """False: code never runs under TorchScript's compiler in ember."""
    return False


def is_tracing():
    """False: nothing is traced in ember."""
    return False


def ignore(drop=False, **kwargs):
    """Leave a function to Python (it always is): usable as `@ignore` and `@ignore(drop=True)`."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    """Mark a method TorchScript should not compile: it stays as it is."""
    return fn


def export(fn):
    """Mark a method TorchScript should compile as an entry point: it stays as it is."""
    return fn


def interface(obj):
    """Declare a TorchScript interface class: the class itself."""
    return obj


def annotate(the_type, the_value):
    """Give TorchScript a value's type: returns the value."""
    return the_value


def Attribute(value, type):  # noqa: N802  (PyTorch's name)
    """Give TorchScript an attribute's type: returns the value."""
    return value


def isinstance(obj, target_type):
    """TorchScript's container-aware isinstance; in Python, the subscripted generic's origin is checked."""
    origin = typing.get_origin(target_type)
    return _builtin_isinstance(obj, origin if origin is not None else target_type)


class Future:
    """The result of `fork`: the call already ran, `wait()` returns its value."""

    def __init__(self, value):
        self._value = value

    def wait(self):
        """The call's result."""
        return self._value


def fork(func, *args, **kwargs):
    """Run `func` now (TorchScript would run it asynchronously) and return a `Future` holding the result."""
    return Future(func(*args, **kwargs))


def wait(future):
    """The value of a `fork`ed call."""
    return future.wait()


@contextlib.contextmanager
def optimized_execution(should_optimize):
    """TorchScript's optimization switch: nothing to switch in ember."""
    yield


def enable_onednn_fusion(enabled):
    """Accepted: there is no TorchScript fuser in ember."""


def onednn_fusion_enabled():
    """False: there is no TorchScript fuser in ember."""
    return False


def set_fusion_strategy(strategy):
    """Accepted and returned as the previous strategy: there is no TorchScript fuser in ember."""
    return strategy
