"""The main process's side of multi-process loading: start the workers, hand out indices, put the
batches back in order, notice dead or silent workers, and shut everything down.

Tasks go to the workers round robin, at most `prefetch_factor * num_workers` ahead of the batch the
user is given. Workers are stopped when the pass ends (unless `persistent_workers`), and in any case
when the iterator is garbage collected or the interpreter exits, so no process is left behind.
"""

import itertools
import multiprocessing
import os
import pickle
import queue
import shutil
import signal
import tempfile
import time
import weakref

from ...multiprocessing._shared_blocks import SHARED_DIRECTORY
from . import _batch_memory
from ._worker import RESUME, STATUS_INTERVAL, StreamEnd, WorkerError, WorkerSpec, worker_loop

__all__ = ["_MultiProcessingDataLoaderIter"]

_JOIN_SECONDS = 5.0  # how long stopping workers get to leave on their own before they are terminated


class _Workers:
    """The worker processes, their queues and their batch-memory directory. `shutdown()` can be called any
    number of times and acts only in the process that started the workers (forked children inherit it)."""

    def __init__(self, context, spec, num_workers):
        self.creator = os.getpid()
        self.closed = False
        self.processes, self.index_queues = [], []
        self.directory = tempfile.mkdtemp(prefix="ember-loader-", dir=SHARED_DIRECTORY)
        _batch_memory.watch(self.directory)
        spec.memory_directory = self.directory
        try:
            self.done = context.Event()
            self.results = context.Queue()
            for worker_id in range(num_workers):
                index_queue = context.Queue()
                index_queue.cancel_join_thread()  # a dead worker must not make the main process hang at exit
                process = context.Process(
                    target=worker_loop,
                    daemon=True,
                    args=(spec, worker_id, index_queue, self.results, self.done, os.getpid()),
                )
                process.start()
                self.index_queues.append(index_queue)
                self.processes.append(process)
        except BaseException:
            self.shutdown()
            raise

    def check_alive(self):
        """Raise (after shutting down) if a worker died: waiting for its batch would take forever."""
        dead = [(worker_id, process) for worker_id, process in enumerate(self.processes) if not process.is_alive()]
        if dead:
            details = ", ".join(
                f"worker {worker_id} {_exit_description(process.exitcode)}" for worker_id, process in dead
            )
            pids = ", ".join(str(process.pid) for _, process in dead)
            self.shutdown()
            raise RuntimeError(
                f"DataLoader worker (pid(s) {pids}) exited unexpectedly ({details}). A worker "
                "killed by the system often ran out of memory: try fewer workers, a smaller "
                "batch_size or prefetch_factor."
            )

    def shutdown(self):
        if self.closed or os.getpid() != self.creator:
            return
        self.closed = True
        if self.processes:
            self.done.set()
        for index_queue in self.index_queues:
            index_queue.put(None)
        deadline = time.monotonic() + _JOIN_SECONDS
        for process in self.processes:
            process.join(max(0.0, deadline - time.monotonic()))
        for process in self.processes:
            if process.is_alive():
                process.terminate()
                process.join()
        for index_queue in self.index_queues:
            index_queue.close()
        if self.processes:
            self.results.cancel_join_thread()
            self.results.close()
        _batch_memory.unwatch(self.directory)
        shutil.rmtree(self.directory, ignore_errors=True)


def _exit_description(code):
    if code is not None and code < 0:
        try:
            return f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


class _MultiProcessingDataLoaderIter:
    """Iterator over a DataLoader's batches, loaded by `loader.num_workers` worker processes."""

    def __init__(self, loader, base_seed):
        self._num_workers = loader.num_workers
        self._prefetch = max(loader.prefetch_factor, 1) * loader.num_workers
        self._timeout = loader.timeout
        self._persistent = loader.persistent_workers
        self._in_order = loader.in_order
        self._loader_length = loader.__len__
        spec = WorkerSpec(
            dataset=loader.dataset,
            is_iterable=loader._is_iterable,
            auto_collation=loader._auto_collation,
            collate_fn=loader.collate_fn,
            drop_last=loader.drop_last,
            batch_size=loader.batch_size,
            worker_init_fn=loader.worker_init_fn,
            num_workers=loader.num_workers,
            base_seed=base_seed,
            memory_directory="",
        )
        context = loader.multiprocessing_context or multiprocessing.get_context()  # the platform's default
        self._workers = _Workers(context, spec, loader.num_workers)
        self._shutdown = weakref.finalize(self, self._workers.shutdown)
        self._start_pass(loader._index_iterator(), resume=False)

    def __iter__(self):
        return self

    def __len__(self):
        return self._loader_length()

    def _start_pass(self, indices, resume=True):
        self._indices = indices
        self._outstanding = {}  # task id -> worker id, in the order sent; removed when given to the user
        self._results = {}  # task id -> data that arrived before its turn
        self._next_task = 0
        self._active = [True] * self._num_workers  # False once a worker's IterableDataset stream ended
        self._cycle = itertools.cycle(range(self._num_workers))
        if resume:
            self._resume_workers()
        for _ in range(self._prefetch):
            self._dispatch()

    def _resume_workers(self):
        """Persistent workers: each answers RESUME after the tasks of the previous pass, so everything received
        up to the last answer is stale."""
        for index_queue in self._workers.index_queues:
            index_queue.put(RESUME)
        resumed = 0
        while resumed < self._num_workers:
            task_id, _ = self._receive()
            resumed += task_id == RESUME

    def _dispatch(self):
        """Send the next index to the next worker whose stream has not ended."""
        if len(self._outstanding) >= self._prefetch:
            return
        for _ in range(self._num_workers):
            worker_id = next(self._cycle)
            if self._active[worker_id]:
                break
        else:
            return
        try:
            index = next(self._indices)
        except StopIteration:
            return
        released = _batch_memory.take_released(self._workers.directory, worker_id)
        self._workers.index_queues[worker_id].put((self._next_task, index, released))
        self._outstanding[self._next_task] = worker_id
        self._next_task += 1

    def _receive(self):
        """The next message from any worker, checking on the workers while waiting."""
        if self._workers.closed:
            raise RuntimeError(
                "this DataLoader iterator's workers were shut down after an error; start a new pass with iter(loader)"
            )
        start = time.monotonic()
        while True:
            wait = STATUS_INTERVAL
            if self._timeout > 0:
                wait = min(wait, self._timeout - (time.monotonic() - start))
            try:
                return pickle.loads(self._workers.results.get(timeout=max(wait, 0.0)))
            except queue.Empty:
                if self._timeout > 0 and time.monotonic() - start >= self._timeout:
                    raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds") from None
                self._workers.check_alive()

    def _ready_task(self):
        if self._in_order:
            first = next(iter(self._outstanding), None)
            return first if first in self._results else None
        return next(iter(self._results), None)

    def _retire(self, worker_id):
        """A worker's stream ended: it gets no more tasks, and the ones it will not answer are dropped."""
        self._active[worker_id] = False
        for task_id in [
            task for task, worker in self._outstanding.items() if worker == worker_id and task not in self._results
        ]:
            del self._outstanding[task_id]
        self._dispatch()

    def __next__(self):
        while True:
            task_id = self._ready_task()
            if task_id is not None:
                data = self._results.pop(task_id)
                del self._outstanding[task_id]
                self._dispatch()
                if isinstance(data, WorkerError):
                    # The traceback keeps this frame's locals alive: without `self` in them, the iterator
                    # (and so its workers) can be collected while the user still holds the exception.
                    del self
                    data.reraise()
                return data
            if not self._outstanding:
                if not self._persistent:
                    self._shutdown()
                raise StopIteration
            task_id, data = self._receive()
            if task_id not in self._outstanding:
                continue
            if isinstance(data, StreamEnd):
                self._retire(data.worker_id)
            else:
                self._results[task_id] = data

    def _reset(self, loader):
        """Persistent workers: start a new pass over the dataset with the same processes."""
        self._start_pass(loader._index_iterator())
