"""What runs in a DataLoader worker process: seeding, `get_worker_info()`, and the loop that turns
the indices it is sent into batches for the main process."""

import dataclasses
import os
import pickle
import queue
import random
import sys
import traceback
from multiprocessing.reduction import ForkingPickler

from ..._backend import np
from ...ops.creation import default_generator
from . import _batch_memory
from ._fetch import IterableFetcher, MapFetcher

__all__ = ["WorkerInfo", "get_worker_info", "WorkerError", "StreamEnd", "RESUME", "STATUS_INTERVAL", "worker_loop"]

STATUS_INTERVAL = 1.0  # seconds between a waiting process's checks that the other side is still alive
RESUME = "resume"  # persistent workers: start a new pass (iterable datasets restart their stream)


@dataclasses.dataclass(frozen=True)
class WorkerInfo:
    """What `get_worker_info()` returns inside a worker: its `id`, the `num_workers`, its `seed` and its
    copy of the `dataset` (an IterableDataset uses them to give each worker its own share)."""

    id: int
    num_workers: int
    seed: int
    dataset: object


_worker_info = None


def get_worker_info():
    """This worker's WorkerInfo inside a DataLoader worker process; None in the main process.

    Example (sharding a stream)::

        def __iter__(self):
            info = get_worker_info()
            start, step = (0, 1) if info is None else (info.id, info.num_workers)
            return iter(self.items[start::step])
    """
    return _worker_info


@dataclasses.dataclass(frozen=True)
class StreamEnd:
    """A worker's answer once its copy of an IterableDataset is exhausted."""

    worker_id: int


class _KeyErrorMessage(str):
    """KeyError shows repr() of its message; this keeps the traceback readable."""

    def __repr__(self):
        return str(self)


class WorkerError:
    """An exception caught in a worker, re-raised in the main process with the same class (RuntimeError
    where that class cannot be rebuilt), naming the worker and the sample and holding its traceback."""

    def __init__(self, worker_id, doing):
        error_type = sys.exc_info()[0]
        self.message = (
            f"Caught {error_type.__name__} in DataLoader worker process {worker_id}.\n"
            + (f"The worker was {doing}.\n" if doing else "")
            + "Original "
            + traceback.format_exc()
        )
        try:
            pickle.dumps(error_type)
            self.error_type = error_type
        except Exception:  # a class the main process cannot import (e.g. defined in a function)
            self.error_type = RuntimeError

    def reraise(self):
        message = _KeyErrorMessage(self.message) if self.error_type is KeyError else self.message
        try:
            error = self.error_type(message)
        except Exception:  # an exception class that needs other arguments
            raise RuntimeError(message) from None
        raise error


def seed_worker(seed):
    """Seed every generator a worker may draw from, as PyTorch seeds its own and Python's: ember's
    default generator, Python's `random` and NumPy's global generator (forked workers would all inherit
    the same NumPy state otherwise)."""
    default_generator.manual_seed(seed)
    random.seed(seed)
    np.random.seed([seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF])


@dataclasses.dataclass
class WorkerSpec:
    """Everything a worker needs, sent once when it starts."""

    dataset: object
    is_iterable: bool
    auto_collation: bool
    collate_fn: object
    drop_last: bool
    batch_size: object
    worker_init_fn: object
    num_workers: int
    base_seed: int
    memory_directory: str


def _make_fetcher(spec):
    if spec.is_iterable:
        return IterableFetcher(spec.dataset, spec.auto_collation, spec.collate_fn, spec.drop_last, spec.batch_size)
    return MapFetcher(spec.dataset, spec.auto_collation, spec.collate_fn)


def worker_loop(spec, worker_id, index_queue, result_queue, done_event, parent_pid):
    """A worker's life: seed, set up, then answer each (task id, index, released blocks) message with a
    pickled (task id, batch | WorkerError | StreamEnd) until told to stop (None) or orphaned."""
    global _worker_info
    try:
        seed = spec.base_seed + worker_id
        seed_worker(seed)
        _worker_info = WorkerInfo(id=worker_id, num_workers=spec.num_workers, seed=seed, dataset=spec.dataset)
        memory = _batch_memory.WorkerMemory(spec.memory_directory, worker_id)
        _batch_memory.install(memory)
        fetcher, setup_error = _set_up(spec, worker_id, call_init_fn=True)
        stream_ended = False
        while True:
            try:
                message = index_queue.get(timeout=STATUS_INTERVAL)
            except queue.Empty:
                if os.getppid() != parent_pid:  # the main process is gone
                    break
                continue
            if message is None:
                break
            if message == RESUME:
                stream_ended = False
                if setup_error is None:
                    fetcher, setup_error = _set_up(spec, worker_id, call_init_fn=False)
                result_queue.put(ForkingPickler.dumps((RESUME, None)).tobytes())
                continue
            task_id, index, released = message
            memory.release(released)
            if done_event.is_set() or stream_ended:
                continue
            if setup_error is not None:
                data = setup_error
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as error:
                    if isinstance(error, StopIteration) and spec.is_iterable:
                        data, stream_ended = StreamEnd(worker_id), True
                    else:
                        data = WorkerError(worker_id, fetcher.describe())
            result_queue.put(_pickled(task_id, data, memory, worker_id))
            del data  # the batch's blocks are reusable once the main process frees them
    except KeyboardInterrupt:
        pass  # the main process was interrupted; it stops the workers
    if done_event.is_set():
        result_queue.cancel_join_thread()  # nobody reads any more: do not wait to flush at exit
    result_queue.close()


def _set_up(spec, worker_id, call_init_fn):
    """(fetcher, None), or (None, the WorkerError every task of this worker will answer with)."""
    try:
        if call_init_fn and spec.worker_init_fn is not None:
            spec.worker_init_fn(worker_id)
        return _make_fetcher(spec), None
    except Exception:
        return None, WorkerError(worker_id, "setting up (worker_init_fn, then iter() of an IterableDataset)")


def _pickled(task_id, data, memory, worker_id):
    """The message as bytes, pickled here so that a batch that cannot be pickled becomes an error the main
    process sees (multiprocessing's queue thread would only print it)."""
    try:
        payload = ForkingPickler.dumps((task_id, data))
    except Exception:
        memory.sent_failed()
        payload = ForkingPickler.dumps(
            (task_id, WorkerError(worker_id, "pickling the batch to send it to the main process"))
        )
    else:
        memory.sent()
    return payload.tobytes()
