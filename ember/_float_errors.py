"""NumPy warns when a kernel meets log(0), 0/0 or an overflow; PyTorch returns inf or nan quietly.
ember's primitives run their array kernels with NumPy's floating-point warnings off, so `ember.log(x)`
is as silent as `torch.log(x)` (anomaly mode is the tool that looks for nan).

`np.errstate(all="ignore")` costs about 2 us a call, more than many ops. NumPy 2 keeps the error
state in one context variable, so `quiet()` sets that variable directly and `restore(token)` puts
it back: both are C callables (about 0.3 us together, no Python bytecode); where that variable is
missing (NumPy 1.x) the two fall back to `np.errstate`. The user's own NumPy calls keep their
settings, except inside a backward pass: the engine turns the warnings off once for the whole pass
(not around each node's kernels), so hooks and custom backwards run without them too.
"""

import functools

from ._backend import np

__all__ = ["quiet", "restore"]

try:
    from numpy._core._ufunc_config import _extobj_contextvar as _state
except ImportError:  # NumPy 1.x
    _state = None

if _state is not None:
    with np.errstate(all="ignore"):
        _IGNORE_ALL = _state.get()
    # C callables, so the two calls on the path of every op execute no Python bytecode
    quiet = functools.partial(_state.set, _IGNORE_ALL)
    restore = _state.reset
else:

    def quiet():
        errors = np.errstate(all="ignore")
        errors.__enter__()
        return errors

    def restore(token):
        token.__exit__(None, None, None)
