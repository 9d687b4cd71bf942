"""`spawn`: run `fn(i, *args)` in `nprocs` fresh processes and report the first failure, as torch.multiprocessing."""

import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import tempfile
import time
import traceback
from .._warn import warn as _warn

__all__ = [
    "ProcessContext",
    "ProcessException",
    "ProcessRaisedException",
    "ProcessExitedException",
    "spawn",
    "start_processes",
]


class ProcessException(Exception):
    """A spawned process failed; `error_index` is its index, `error_pid` its pid."""

    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.error_pid = error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A spawned process raised an exception; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A spawned process exited with a non-zero code or was killed by a signal (`signal_name`)."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)


def _run(fn, index, args, error_path):
    """The spawned process's entry point: the traceback of an exception goes to `error_path`."""
    try:
        fn(index, *args)
    except KeyboardInterrupt:
        pass  # the parent is stopping the processes
    except Exception:
        with open(error_path, "w", encoding="utf-8") as file:
            file.write(traceback.format_exc())
        sys.exit(1)


def _error_path():
    """A fresh file name that only a failing process creates (so nothing is left behind on success)."""
    fd, path = tempfile.mkstemp(prefix="ember-spawn-error-", suffix=".txt")
    os.close(fd)
    os.unlink(path)
    return path


class ProcessContext:
    """The processes started by `start_processes`/`spawn(join=False)`; `join()` waits and reports failures."""

    def __init__(self, processes, error_paths):
        self.processes = processes
        self.error_paths = error_paths
        self.sentinels = {process.sentinel: index for index, process in enumerate(processes)}

    def pids(self):
        return [int(process.pid) for process in self.processes]

    def _join_all(self, timeout):
        deadline = None if timeout is None else timeout + time.monotonic()
        for process in self.processes:
            process.join(None if deadline is None else max(0.0, deadline - time.monotonic()))

    def join(self, timeout=None, grace_period=None):
        """Wait up to `timeout` seconds for processes to end. Returns True once all have ended.

        When one fails, the others are stopped (SIGTERM, after `grace_period` seconds if given; SIGKILL
        if they linger) and ProcessRaisedException (with the child's traceback) or
        ProcessExitedException (exit code or signal) is raised for the first failure.
        """
        if not self.sentinels:
            return True
        failed = None
        for sentinel in multiprocessing.connection.wait(list(self.sentinels), timeout=timeout):
            index = self.sentinels.pop(sentinel)
            self.processes[index].join()
            if self.processes[index].exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels
        self._stop_others(grace_period)
        raise self._failure(failed)

    def _stop_others(self, grace_period):
        if grace_period is not None:
            self._join_all(grace_period)
        for process in self.processes:
            if process.is_alive():
                process.terminate()
        self._join_all(30 if grace_period is None else grace_period)
        for process in self.processes:
            if process.is_alive():
                process.kill()
            process.join()

    def _failure(self, index):
        process, path = self.processes[index], self.error_paths[index]
        try:
            with open(path, encoding="utf-8") as file:
                trace = file.read()
            os.unlink(path)
        except FileNotFoundError:
            code = process.exitcode
            if code < 0:
                try:
                    name = signal.Signals(-code).name
                except ValueError:
                    name = f"<Unknown signal {-code}>"
                return ProcessExitedException(
                    f"process {index} terminated with signal {name}", index, process.pid, code, name
                )
            return ProcessExitedException(f"process {index} terminated with exit code {code}", index, process.pid, code)
        return ProcessRaisedException(
            f"\n\n-- Process {index} terminated with the following error:\n{trace}", index, process.pid
        )


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start `nprocs` processes running `fn(i, *args)` with the given start method.

    Returns None after joining them (`join=True`), else their ProcessContext.
    """
    context = multiprocessing.get_context(start_method)
    error_paths = [_error_path() for _ in range(nprocs)]
    processes = []
    for index in range(nprocs):
        process = context.Process(target=_run, args=(fn, index, args, error_paths[index]), daemon=daemon)
        process.start()
        processes.append(process)
    process_context = ProcessContext(processes, error_paths)
    if not join:
        return process_context
    while not process_context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Run `fn(i, *args)` for i in range(nprocs), each in a fresh ('spawn') process.

    `fn` must be defined at the top level of a module (it is pickled). If a process raises, the others
    are stopped and ProcessRaisedException carries its traceback; a process that exits with a non-zero
    code or a signal gives ProcessExitedException. Returns None when `join`, else a ProcessContext.
    As in PyTorch, other start methods are refused with a FutureWarning: use `start_processes`.

    Example::

        def train(rank, model): ...
        ember.multiprocessing.spawn(train, args=(model,), nprocs=2)
    """
    if start_method != "spawn":
        _warn(
            f"spawn() only uses start_method='spawn' (got {start_method!r}); for another start method "
            "use ember.multiprocessing.start_processes(...)",
            FutureWarning,
            stacklevel=2,
        )
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
