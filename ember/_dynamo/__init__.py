"""`ember._dynamo` (torch._dynamo): the switches scripts set around `torch.compile`, mapped onto
ember.compile (see ember/compiler). ember records NumPy calls rather than Python bytecode, so
dynamo's knobs that tune bytecode tracing (`config.*`, `mark_dynamic`, `allow_in_graph`) are
accepted and have nothing to act on; `reset`, `explain`, `disable`, `is_compiling` and
`graph_break` do what PyTorch's do."""

import types

from .. import compiler
from ..compiler import _trace

__all__ = [
    "config",
    "reset",
    "explain",
    "disable",
    "is_compiling",
    "graph_break",
    "mark_dynamic",
    "maybe_mark_dynamic",
    "mark_static",
    "allow_in_graph",
    "disallow_in_graph",
    "assume_constant_result",
    "list_backends",
]

# PyTorch's defaults for the settings scripts commonly change; any other name may be set too.
config = types.SimpleNamespace(
    suppress_errors=False,
    verbose=False,
    cache_size_limit=8,
    accumulated_cache_size_limit=256,
    capture_scalar_outputs=False,
    capture_dynamic_output_shape_ops=False,
    optimize_ddp=True,
    automatic_dynamic_shapes=True,
    assume_static_by_default=True,
)

reset = compiler.reset
explain = compiler.explain
disable = compiler.disable
is_compiling = compiler.is_compiling


def graph_break():
    """Inside a compiled call, end what can be replayed here: the call falls back to eager (with
    `fullgraph=True` it raises, naming this line); outside one, nothing happens."""
    recording = _trace.active()
    if recording is not None:
        recording.broken("torch._dynamo.graph_break() called")


def mark_dynamic(t, index, min=None, max=None):  # noqa: A002 (PyTorch's names)
    """Accepted: ember records one variant per shape (a new shape records again)."""


maybe_mark_dynamic = mark_dynamic


def mark_static(t, index=None):
    """Accepted: every shape is static in a recording."""


def allow_in_graph(fn):
    """`fn` itself: ember records the NumPy calls any Python function makes."""
    return fn


def assume_constant_result(fn):
    """`fn` itself: dynamo would bake its result into a trace; ember calls it every time, as eager mode does."""
    return fn


def disallow_in_graph(fn):
    """`fn` itself: ember records the NumPy calls any Python function makes."""
    return fn


def list_backends(exclude_tags=("debug", "experimental")):
    """The backends `torch.compile(backend=...)` accepts in ember."""
    return ["inductor"]
