"""Batch memory: how large tensors get from a DataLoader worker to the main process without the pipe.

A worker writes each large batch tensor into a block of shared memory (a file in the loader's own
directory under /dev/shm): `default_collate` stacks samples straight into one, and any other large
tensor it sends is copied into one. The pickled batch carries only the block's name and the tensor's
layout; the main process maps the block, and the tensor's array lives there.

Fresh shared pages are slow to come by (the kernel allocates and zeroes each on first touch), so blocks
are reused: when every array over a block has been freed in the main process, the block's name goes
back to its worker with its next task, and the worker writes a later batch into it. The loader removes
its directory, and so every name, when it shuts down; memory still mapped stays valid until dropped.
"""

import collections
import os
import threading
import weakref

from ..._backend import np
from ..._storage import _owner
from ...multiprocessing import _shared_blocks, reductions

__all__ = ["MIN_BYTES", "WorkerMemory", "install", "empty", "watch", "unwatch", "take_released"]

# Below this a tensor travels in the pickle: mapping a block costs more than copying a few pages.
MIN_BYTES = 64 * 1024


# ---------------------------------------------------------------- worker side
class _Block:
    __slots__ = ("mapping", "flat", "in_main")

    def __init__(self, mapping):
        self.mapping = mapping
        self.flat = lambda: None  # weak reference to the uint8 array handed out over the block
        self.in_main = False  # sent, and not yet released by the main process


class WorkerMemory:
    """One worker's blocks. A block is free when the main process has released it and no array of this
    worker still uses it."""

    def __init__(self, directory, worker_id):
        self.directory = directory
        self.worker_id = worker_id
        self.blocks = {}  # path -> _Block
        self.sending = []  # blocks referenced by the message being pickled

    def empty(self, shape, dtype):
        """An uninitialized array in a free block, or None when it is too small to be worth one."""
        dtype = np.dtype(dtype)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if nbytes < MIN_BYTES:
            return None
        block = self._free_block(nbytes)
        flat = np.frombuffer(block.mapping, np.uint8, count=nbytes)
        block.flat = weakref.ref(flat)
        return flat.view(dtype).reshape(shape)

    def _free_block(self, nbytes):
        free = [block for block in self.blocks.values() if not block.in_main and block.flat() is None]
        fitting = [block for block in free if len(block.mapping) >= nbytes]
        if fitting:
            return min(fitting, key=lambda block: len(block.mapping))
        for block in free:  # smaller than the batches now asked for: give their memory back
            del self.blocks[block.mapping.path]
            os.unlink(block.mapping.path)
        mapping = _shared_blocks.create(nbytes, self.directory, prefix=f"w{self.worker_id}-", kind="batch")
        block = self.blocks[mapping.path] = _Block(mapping)
        return block

    def reduce(self, tensor):
        """`reductions.large_tensor_hook`: send a large tensor as a reference to a block."""
        array = tensor._data
        if array.nbytes < MIN_BYTES:
            return None
        mapping = _shared_blocks.mapping_of(array)
        block = None if mapping is None else self.blocks.get(mapping.path)
        if block is None or block.mapping is not mapping or (block.in_main and block not in self.sending):
            copy = self.empty(array.shape, array.dtype)
            np.copyto(copy, array)
            array, block = copy, self.blocks[_shared_blocks.mapping_of(copy).path]
        block.in_main = True  # from now on: not to be reused, even once this worker's arrays over it are freed
        self.sending.append(block)
        flat = _owner(array)
        return (
            rebuild_batch_tensor,
            (
                self.worker_id,
                block.mapping.path,
                _shared_blocks.byte_offset(array, flat),
                array.shape,
                array.dtype,
                array.strides,
                tensor._requires_grad,
                type(tensor),
            ),
        )

    def sent(self):
        """The message referencing the blocks of `reduce` was pickled: they are the main process's now."""
        self.sending.clear()

    def sent_failed(self):
        """The message could not be pickled: its blocks never reach the main process."""
        for block in self.sending:
            block.in_main = False
        self.sending.clear()

    def release(self, paths):
        for path in paths:
            block = self.blocks.get(path)
            if block is not None:
                block.in_main = False


_memory = None  # this worker's WorkerMemory


def install(memory):
    """Make `memory` the worker's batch memory: collation and pickling use it from now on."""
    global _memory
    _memory = memory
    reductions.large_tensor_hook = memory.reduce


def empty(shape, dtype):
    """In a worker, an uninitialized array in batch memory (None for small arrays); None elsewhere."""
    return None if _memory is None else _memory.empty(shape, dtype)


# ---------------------------------------------------------------- main side
_mapped = weakref.WeakValueDictionary()  # path -> uint8 array over the block while arrays use it
_released = {}  # watched directory -> {worker id: [paths whose arrays were all freed]}
_lock = threading.Lock()  # arrays may be freed on any thread


def watch(directory):
    """Start collecting released blocks of the loader that owns `directory`."""
    with _lock:
        _released[directory] = collections.defaultdict(list)


def unwatch(directory):
    with _lock:
        _released.pop(directory, None)


def take_released(directory, worker_id):
    """The names of `worker_id`'s blocks freed since the last call."""
    with _lock:
        released = _released.get(directory)
        return released.pop(worker_id, []) if released is not None else []


def _release(directory, worker_id, path):
    with _lock:
        released = _released.get(directory)
        if released is not None:
            released[worker_id].append(path)


def rebuild_batch_tensor(worker_id, path, offset, shape, dtype, strides, requires_grad, cls):
    """The main process's tensor over a worker's block (mapped once however many tensors use it)."""
    flat = _mapped.get(path)
    if flat is None:
        flat = np.frombuffer(_shared_blocks.attach(path, "batch"), np.uint8)
        _mapped[path] = flat
        weakref.finalize(flat, _release, os.path.dirname(path), worker_id, path)
    array = _shared_blocks.array_in(flat, offset, shape, dtype, strides)
    return reductions.rebuild_tensor(array, requires_grad, cls)
