"""Anomaly detection: remember where each node was made, and stop at the first NaN.

When on, every node records the user's source lines of the forward call that made it; an error in
backward then names that line, and (with `check_nan`) a NaN or inf produced in forward or backward
raises naming the op. When off, the only cost is one attribute read per op.
"""
import threading
import traceback
import warnings

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]


class _AnomalyState(threading.local):
    enabled = False
    check_nan = True


state = _AnomalyState()


def is_anomaly_enabled():
    return state.enabled


def is_anomaly_check_nan_enabled():
    return state.check_nan


class set_detect_anomaly:
    """Turn anomaly detection on or off; works as a function call and as a context manager."""

    def __init__(self, mode, check_nan=True):
        self._previous = (state.enabled, state.check_nan)
        state.enabled, state.check_nan = bool(mode), bool(check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        state.enabled, state.check_nan = self._previous
        return False


class detect_anomaly:
    """Context manager and decorator that turns anomaly detection on inside its block."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan

    def __enter__(self):
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and "
                      "should only be enabled for debugging.", UserWarning, stacklevel=2)
        self._previous = (state.enabled, state.check_nan)
        state.enabled, state.check_nan = True, self.check_nan
        return self

    def __exit__(self, *exc_info):
        state.enabled, state.check_nan = self._previous
        return False

    def __call__(self, function):
        import functools

        @functools.wraps(function)
        def run_with_anomaly_detection(*args, **kwargs):
            with detect_anomaly(self.check_nan):
                return function(*args, **kwargs)
        return run_with_anomaly_detection


def _user_frames():
    """The stack without ember's own frames: the lines a user wrote."""
    import os
    package_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frames = traceback.extract_stack()[:-1]
    return [frame for frame in frames if not os.path.abspath(frame.filename).startswith(package_dir)]


def record_forward(node, outputs):
    node._trace = _user_frames()
    if state.check_nan:
        for output in outputs if isinstance(outputs, (tuple, list)) else (outputs,):
            _check_finite(output, f"Function '{node.name()[:-len('Backward')] if node.name().endswith('Backward') else node.name()}' "
                                  "returned nan or inf values in its forward output", node)


def _check_finite(tensor, message, node):
    import numpy as np
    data = getattr(tensor, "_data", None)
    if data is not None and data.dtype.kind in "fc" and not np.isfinite(data).all():
        raise RuntimeError(message + where_created(node))


def check_backward_outputs(node, grads):
    if not state.check_nan:
        return
    for index, grad in enumerate(grads):
        if grad is not None:
            _check_finite(grad, f"Function '{node.name()}' returned nan values in its {index}th output.", node)


def where_created(node):
    frames = node._trace
    if not frames:
        return ""
    lines = "".join(traceback.format_list(frames[-3:]))
    return f"\nThe forward call that created {node.name()} was:\n{lines}"
