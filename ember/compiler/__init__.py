"""`ember.compile` and `torch.compiler`: record a call's NumPy work once, replay it afterwards.

The eager path stays the reference; this package sits beside it and changes nothing while no recording
runs. How it works, in four modules:

- `_trace`: while recording, tensors hold `Traced` arrays (an ndarray subclass) that log every NumPy
  call made on them; numbers read from them are `TracedScalar`s whose arithmetic is logged too.
- `_capture`: the switches installed for one recorded run (tensor array reads and writes, array
  creation, random draws, modules, optimizers, hooks), removed afterwards.
- `_program`: the flat replay function generated from a recording: every guard first, then the calls.
- `_api`: `compile`, the cache of variants, graph-break fall-back, `verify=`, `explain`.

See docs/compile.md for what is a guard and what is a graph break.
"""

from ._api import (
    CompiledFunction,
    CompileVerificationError,
    CompileWarning,
    ExplainOutput,
    compile,
    explain,
    is_disabled,
)
from ._module import OptimizedModule
from ._trace import GraphBreak, active as _active

__all__ = [
    "compile",
    "explain",
    "disable",
    "reset",
    "is_compiling",
    "CompiledFunction",
    "OptimizedModule",
    "GraphBreak",
    "CompileWarning",
    "CompileVerificationError",
    "ExplainOutput",
    "is_disabled",
    "allow_in_graph",
    "assume_constant_result",
]

compile.explain = explain  # `ember.compile.explain(fn)(*args)`


def disable(fn=None, recursive=True):
    """`torch.compiler.disable`: ember never compiles inside another compiled call, so this returns `fn`."""
    return (lambda inner: inner) if fn is None else fn


def allow_in_graph(fn):
    """`torch.compiler.allow_in_graph`: `fn` itself, since ember records the NumPy calls any Python function makes."""
    return fn


def assume_constant_result(fn):
    """`torch.compiler.assume_constant_result`: `fn` itself; ember calls it each time, as eager mode does."""
    return fn


def reset():
    """`torch.compiler.reset`: recordings live on each compiled function; dropping it drops them."""


def is_compiling():
    """True while a call is being recorded (`torch.compiler.is_compiling`)."""
    return _active() is not None
