"""Shared memory for tensors: memory-mapped files that several processes map at once.

A block is a file in /dev/shm (the system's temporary directory where there is none) mapped with
`mmap`. `Tensor.share_memory_()` moves a tensor's memory into a new block. Processes forked later
inherit the mapping; processes sent the tensor through a multiprocessing queue, or as an argument of
a spawned process, map the same file by name (see `reductions`). The creating process removes the
file name when its last array over the block is freed, or at exit; processes that mapped the block
keep their memory until they drop it.

`Mapping.kind` says who manages a block: "shared" (`share_memory_`) or "batch" (a DataLoader
worker's batch memory, see ember.utils.data._batch_memory).
"""

import mmap
import os
import tempfile
import weakref

import numpy as np

from .._storage import _owner

__all__ = [
    "SHARED_DIRECTORY",
    "Mapping",
    "create",
    "attach",
    "mapping_of",
    "byte_offset",
    "array_in",
    "share",
    "shared_array",
]


def _shared_directory():
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        return "/dev/shm"
    return tempfile.gettempdir()


SHARED_DIRECTORY = _shared_directory()
# Map every page at once when attaching: one call is much cheaper than a page fault per page.
_POPULATE = getattr(mmap, "MAP_POPULATE", 0)


class Mapping(mmap.mmap):
    """A mapped block that knows its file `path` and its `kind` ("shared" or "batch")."""


def create(nbytes, directory=SHARED_DIRECTORY, prefix="ember-", kind="shared"):
    """A new block of `nbytes` (at least 1) in a fresh file of `directory`."""
    fd, path = tempfile.mkstemp(prefix=prefix, dir=directory)
    try:
        os.ftruncate(fd, max(nbytes, 1))
        mapping = Mapping(fd, max(nbytes, 1))
    except BaseException:
        os.unlink(path)
        raise
    finally:
        os.close(fd)
    mapping.path, mapping.kind = path, kind
    return mapping


def attach(path, kind):
    """Map the existing block at `path`."""
    fd = os.open(path, os.O_RDWR)
    try:
        size = os.fstat(fd).st_size
        mapping = Mapping(fd, size, flags=mmap.MAP_SHARED | _POPULATE) if _POPULATE else Mapping(fd, size)
    finally:
        os.close(fd)
    mapping.path, mapping.kind = path, kind
    return mapping


def mapping_of(array):
    """The block `array` lives in, or None."""
    base = _owner(array).base
    if isinstance(base, memoryview) and isinstance(base.obj, Mapping):
        return base.obj
    return None


def byte_offset(array, flat):
    return array.__array_interface__["data"][0] - flat.__array_interface__["data"][0]


def array_in(flat, offset, shape, dtype, strides):
    """An array over the bytes `flat` (a block's uint8 array) at `offset`."""
    return np.ndarray(shape, dtype, buffer=flat, offset=offset, strides=strides)


# path -> the block's uint8 array in this process, so that a process maps each block once
_mapped = weakref.WeakValueDictionary()


def _remove_name(path, creator_pid):
    if os.getpid() == creator_pid:  # forked children inherit this finalizer; the name is not theirs
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


def share(tensor):
    """Move `tensor`'s memory into a new "shared" block, in place (a no-op if it is in one).

    The whole storage moves, and `tensor._base` (the tensor it views, if any) is moved with it;
    other views made before keep the old memory.
    """
    array = tensor._data
    mapping = mapping_of(array)
    if mapping is not None and mapping.kind == "shared":
        return
    owner = _owner(array)
    if not (owner.flags.c_contiguous or owner.flags.f_contiguous):
        owner = array = np.ascontiguousarray(array)  # memory without a flat layout: move the elements only
    mapping = create(owner.nbytes, prefix=f"ember-{os.getpid()}-")
    weakref.finalize(mapping, _remove_name, mapping.path, os.getpid())
    flat = np.frombuffer(mapping, np.uint8, count=owner.nbytes)
    flat[:] = owner.reshape(-1, order="A").view(np.uint8)
    _mapped[mapping.path] = flat
    old_owner_address = owner.__array_interface__["data"][0]
    for moved in (tensor, tensor._base):
        if moved is None:
            continue
        data = array if moved is tensor else moved._data
        if moved is not tensor and _owner(data) is not owner:
            continue
        offset = data.__array_interface__["data"][0] - old_owner_address
        moved._data = array_in(flat, offset, data.shape, data.dtype, data.strides)


def shared_array(path, nbytes, offset, shape, dtype, strides):
    """An array over the "shared" block at `path`, mapped once per process."""
    flat = _mapped.get(path)
    if flat is None:
        flat = np.frombuffer(attach(path, "shared"), np.uint8, count=nbytes)
        _mapped[path] = flat
    return array_in(flat, offset, shape, dtype, strides)
