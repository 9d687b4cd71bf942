"""Anomaly detection: remember where each node was made, and stop at the first NaN a backward returns.

    with ember.autograd.detect_anomaly():
        loss = model(x)
        loss.backward()

When on, every node records the user's source lines of the forward call that made it. An error
raised in backward then carries, in its message, the line of the forward op whose backward failed;
with `check_nan` (the default), a NaN returned by a backward raises at once, naming the node and
that line. As in PyTorch, forward values are not checked, and neither are infinities: -inf in masked
attention scores, or an infinite gradient that a later node turns back into a finite one, are legitimate.

When off, the cost is one thread-local attribute read per op in `Function.apply` and per node in
the engine (`benchmarks/anomaly_overhead.py` measures it).
"""

import functools
import linecache
import os
import sys
import threading
from .._warn import warn as _warn

__all__ = [
    "detect_anomaly",
    "set_detect_anomaly",
    "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled",
    "set_anomaly_enabled",
]


class _AnomalyState(threading.local):
    enabled = False
    check_nan = True
    running = None  # the node whose backward is running (anomaly mode, create_graph): new nodes' parent


state = _AnomalyState()

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_FRAMES_KEPT = 6


def is_anomaly_enabled():
    """True inside `detect_anomaly()` / after `set_detect_anomaly(True)`."""
    return state.enabled


def is_anomaly_check_nan_enabled():
    """Whether anomaly mode also raises on a NaN returned by a backward (`check_nan`, on by default)."""
    return state.check_nan


def set_anomaly_enabled(enabled, check_nan=True):
    """`torch.set_anomaly_enabled`: the plain switch under `set_detect_anomaly` (no context, no warning)."""
    state.enabled, state.check_nan = bool(enabled), bool(check_nan)


class set_detect_anomaly:
    """Turn anomaly detection on or off: as a call (`set_detect_anomaly(True)`) it stays so; as a
    context manager (`with set_detect_anomaly(False):`) the previous setting comes back after."""

    def __init__(self, mode, check_nan=True):
        self._previous = (state.enabled, state.check_nan)
        state.enabled, state.check_nan = bool(mode), bool(check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        state.enabled, state.check_nan = self._previous
        return False


class detect_anomaly:
    """Context manager and decorator that turns anomaly detection on inside its block.

    Example::

        with ember.autograd.detect_anomaly():
            x.abs().sqrt().sum().backward()   # at x = 0: RuntimeError: Function 'AbsBackward0'
                                              # returned nan values in its 0th output. ...
    """

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        _warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
            "enabled for debugging.",
            UserWarning,
            stacklevel=2,
        )

    def __enter__(self):
        self._previous = (state.enabled, state.check_nan)
        state.enabled, state.check_nan = True, self.check_nan
        return self

    def __exit__(self, *exc_info):
        state.enabled, state.check_nan = self._previous
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def run_with_anomaly_detection(*args, **kwargs):
            with self:
                return function(*args, **kwargs)

        return run_with_anomaly_detection


# ---------------------------------------------------------------- called by Function.apply and the engine
def _user_frames():
    """(filename, line number, function) of the innermost frames outside ember, outermost first.
    Lines are looked up only if an error needs them."""
    frames = []
    frame = sys._getframe(2)
    while frame is not None and len(frames) < _FRAMES_KEPT:
        code = frame.f_code
        if not code.co_filename.startswith(_PACKAGE_DIR):
            frames.append((code.co_filename, frame.f_lineno, code.co_name))
        frame = frame.f_back
    frames.reverse()
    return frames


def record_forward(node):
    """Remember where `node` was made (and, made by a backward, which node's backward made it)."""
    node._trace = _user_frames()
    node._anomaly_parent = state.running


def _has_nan(tensor):
    import numpy as np

    data = getattr(tensor, "_data", None)
    return data is not None and data.dtype.kind in "fcV" and bool(np.isnan(data).any())


def check_backward_outputs(node, grads):
    """With check_nan, a backward that returns NaN raises, naming the node (PyTorch's message)."""
    if not state.check_nan:
        return
    for index, grad in enumerate(grads):
        if grad is not None and _has_nan(grad):
            raise RuntimeError(
                f"Function '{node.name()}' returned nan values in its {index}th output." + where_created(node)
            )


def where_created(node):
    """The text appended to errors: the user's lines of the forward call that made `node`."""
    if not node._trace:
        return ""
    return (
        f"\n\nError detected in {node.name()}. Traceback of forward call that caused the error "
        "(most recent call last):\n" + _format_frames(node._trace)
    )


def _format_frames(frames):
    lines = []
    for filename, line_number, function in frames:
        lines.append(f'  File "{filename}", line {line_number}, in {function}')
        source = linecache.getline(filename, line_number).strip()
        if source:
            lines.append(f"    {source}")
    return "\n".join(lines)


def warn_backward_error(node):
    """PyTorch's warnings when a backward fails in anomaly mode: where the failing node's forward ran,
    then, for a node made by another's backward (double backward), where that one's forward ran, and
    so on. A warning filter that makes them errors gets them on stderr instead, as in PyTorch: an
    error is already on its way."""
    messages = [f"Error detected in {node.name()}. " + _origin(node, "caused the error")]
    parent = node._anomaly_parent
    while parent is not None:
        messages.append(
            f"\n\nPrevious calculation was induced by {parent.name()}. "
            + _origin(parent, "induced the previous calculation")
        )
        parent = parent._anomaly_parent
    for message in messages:
        try:
            _warn(message, UserWarning)
        except Warning:
            print(f"UserWarning: {message}", file=sys.stderr)


def _origin(node, what):
    if not node._trace:
        return "No forward pass information available. Enable detect anomaly during forward pass for more information."
    return f"Traceback of forward call that {what}:\n" + _format_frames(node._trace)
