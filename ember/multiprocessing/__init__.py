"""ember.multiprocessing: the standard library's multiprocessing, plus what torch.multiprocessing adds.

Everything of `multiprocessing` is here (Process, Queue, Pool, `set_start_method(method, force=)`,
`get_start_method`, `get_context`, ...), and importing this module teaches multiprocessing's pickler
to send tensors by reference when they are in shared memory (see `reductions`): after
`model.share_memory()`, processes given the model (forked, or spawned and sent it as an argument or
through a queue) update the very same parameters, as in PyTorch's Hogwild example::

    import ember.multiprocessing as mp

    model.share_memory()
    processes = [mp.Process(target=train, args=(model,)) for _ in range(4)]

`spawn(fn, args, nprocs)` runs `fn(i, *args)` in fresh processes and re-raises a child's failure as
ProcessRaisedException / ProcessExitedException.

Difference from PyTorch: there is one sharing strategy, a named file in /dev/shm per shared tensor
("file_system"); "file_descriptor" is accepted as a name and behaves the same. Tensors that are not
in shared memory are copied when sent, not moved to shared memory.
"""

import multiprocessing as _stdlib
from multiprocessing import *  # noqa: F401,F403  (the whole standard module, as torch.multiprocessing)

from . import reductions
from ._spawn import (
    ProcessContext,
    ProcessException,
    ProcessExitedException,
    ProcessRaisedException,
    spawn,
    start_processes,
)

__all__ = list(_stdlib.__all__) + [
    "get_all_sharing_strategies",
    "get_sharing_strategy",
    "set_sharing_strategy",
    "spawn",
    "start_processes",
    "ProcessContext",
    "ProcessException",
    "ProcessRaisedException",
    "ProcessExitedException",
]

_SHARING_STRATEGIES = ("file_descriptor", "file_system")
_sharing_strategy = "file_system"


def get_all_sharing_strategies():
    return set(_SHARING_STRATEGIES)


def get_sharing_strategy():
    return _sharing_strategy


def set_sharing_strategy(new_strategy):
    """Accepted for PyTorch scripts; both strategies share through named files (see the module docstring)."""
    global _sharing_strategy
    if new_strategy not in _SHARING_STRATEGIES:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, expected one of {set(_SHARING_STRATEGIES)}")
    _sharing_strategy = new_strategy


reductions.init_reductions()
