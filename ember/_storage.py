"""`TypedStorage`: the flat memory under a tensor and all its views (the book's "header and storage").

A tensor is a header (shape, strides, offset) over a storage; views share the storage, so
`a.storage().data_ptr() == a.view(2, 3).storage().data_ptr()`. In ember the storage is the NumPy
array that owns the memory, seen as one flat array.
"""

import numpy as np

from . import _dtype
from ._backend import CPU
from ._warn import warn as _warn

__all__ = [
    "TypedStorage",
    "UntypedStorage",
    "storage_of",
    "untyped_storage_of",
    "resize_",
    "warn_typed_storage_removal",
]


class TypedStorage:
    """A flat, typed view of the memory a tensor lives in (PyTorch's `torch.storage.TypedStorage`).

    Indexing reads and writes single elements as Python numbers; `ember.Tensor(storage)` makes a
    1-D tensor over the same memory.
    """

    __slots__ = ("_array",)

    def __init__(self, array):
        self._array = array  # 1-D ndarray over the whole owning buffer

    @property
    def dtype(self):
        """The element type of the storage (the tensor's dtype)."""
        return _dtype.from_numpy_dtype(self._array.dtype)

    @property
    def device(self):
        """Always the CPU."""
        return CPU

    def size(self):
        """The number of elements in the storage (of the whole owning buffer, not only one view's)."""
        return self._array.size

    def __len__(self):
        return self._array.size

    def data_ptr(self):
        """The address of the storage's first element."""
        return self._array.__array_interface__["data"][0]

    def element_size(self):
        """The size of one element in bytes."""
        return self._array.itemsize

    def nbytes(self):
        """The size of the storage in bytes."""
        return self._array.nbytes

    def tolist(self):
        """The elements as a list of Python numbers."""
        return self._array.tolist()

    def untyped(self):
        """The same memory as bytes (`UntypedStorage`)."""
        return UntypedStorage(self._array.view(np.uint8))

    @property
    def _untyped_storage(self):
        return self.untyped()

    def __iter__(self):
        return iter(self._array.tolist())

    def __getitem__(self, index):
        if not isinstance(index, (int, np.integer)):
            raise RuntimeError(
                "slices are only supported in UntypedStorage.__getitem__; index a storage "
                f"with one integer, got {type(index).__name__}"
            )
        return self._array[index].item()

    def __setitem__(self, index, value):
        self._array[index] = value

    def __repr__(self):
        info = f"[torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of size {len(self)}]"
        return " " + "\n ".join(str(value) for value in self._array.tolist()) + "\n" + info

    __str__ = __repr__


class UntypedStorage:
    """The bytes under a tensor and its views (`tensor.untyped_storage()`), PyTorch's storage since 2.0:
    indexing reads and writes single bytes; a slice is a storage over part of the same memory."""

    __slots__ = ("_bytes",)

    def __init__(self, data=0):
        if isinstance(data, int):
            data = np.zeros(data, np.uint8)  # `UntypedStorage(n)`: n zero bytes
        self._bytes = data  # 1-D uint8 ndarray

    device = TypedStorage.device
    is_cuda = False

    def nbytes(self):
        """The size of the storage in bytes (also `size()` and `len()`)."""
        return self._bytes.size

    size = nbytes
    __len__ = nbytes

    def element_size(self):
        """1: an untyped storage counts bytes."""
        return 1

    def data_ptr(self):
        """The address of the first byte."""
        return self._bytes.__array_interface__["data"][0]

    def tolist(self):
        """The bytes as a list of ints."""
        return self._bytes.tolist()

    def __iter__(self):
        return iter(self._bytes.tolist())

    def __getitem__(self, index):
        if isinstance(index, slice):
            return UntypedStorage(self._bytes[index])
        return int(self._bytes[index])

    def __setitem__(self, index, value):
        self._bytes[index] = value

    def fill_(self, value):
        """Set every byte to `value`, in place. Returns self."""
        self._bytes.fill(value)
        return self

    def copy_(self, source, non_blocking=None):
        """Copy the bytes of `source` (a storage of the same size) into this one. Returns self."""
        if source.nbytes() != self.nbytes():
            raise RuntimeError(f"size mismatch: copying {source.nbytes()} bytes into a storage of {self.nbytes()}")
        self._bytes[...] = source._bytes
        return self

    def clone(self):
        """A storage over a copy of the bytes."""
        return UntypedStorage(self._bytes.copy())

    def cpu(self):
        """The storage itself: it is on the CPU already."""
        return self

    def untyped(self):
        """The storage itself (already untyped)."""
        return self

    def __repr__(self):
        info = f"[torch.storage.UntypedStorage(device={self.device}) of size {self.nbytes()}]"
        return " " + "\n ".join(str(value) for value in self._bytes.tolist()) + "\n" + info

    __str__ = __repr__


def untyped_storage_of(array):
    """The storage of a tensor's ndarray as bytes."""
    return storage_of(array).untyped()


class _TypedStorageWarning:
    warned = False


def warn_typed_storage_removal():
    """PyTorch warns once per process that `tensor.storage()` (a TypedStorage) is deprecated."""
    if not _TypedStorageWarning.warned:
        _TypedStorageWarning.warned = True
        _warn(
            "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only "
            "storage class. This should only matter to you if you are using storages directly.  To access "
            "UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
            UserWarning,
            stacklevel=3,
        )


def _owner(array):
    """The array that owns `array`'s memory (following `.base` through views)."""
    while getattr(array, "base", None) is not None and hasattr(array.base, "__array_interface__"):
        array = array.base
    return array


def storage_of(array):
    """The storage of a tensor's ndarray: its owner's memory as one flat array of the same dtype."""
    owner = _owner(array)
    if owner.flags.c_contiguous or owner.flags.f_contiguous:
        flat = owner.reshape(-1, order="A")  # a view, in memory order
    else:  # an owner without a flat layout (rare: memory from a foreign buffer): a copy
        flat = owner.reshape(-1)
    if flat.dtype != array.dtype:
        flat = flat.view(array.dtype)
    return TypedStorage(flat)


def resize_(tensor, sizes):
    """`tensor.resize_(*sizes)`: reshape the header over the same storage from the same offset.

    Shrinking (or keeping within the storage) keeps sharing memory with the other views, as in
    PyTorch. Growing past the storage's end moves this tensor to new memory (the old elements are
    copied, the new ones are zero); unlike PyTorch, tensors that shared the old storage keep it.
    """
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    shape = tuple(int(size) for size in sizes)
    if any(size < 0 for size in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {list(shape)}")
    if tensor.requires_grad:
        from ._tensor import creation

        if creation.version_counter is None:  # inference mode does no autograd bookkeeping: allowed there
            raise RuntimeError("cannot resize variables that require grad")
    numel = int(np.prod(shape, dtype=np.int64))
    data = tensor._data
    if shape == data.shape:
        return tensor
    flat = storage_of(data)._array
    offset = tensor.storage_offset()
    if offset + numel > flat.size:
        grown = np.zeros(offset + numel, dtype=data.dtype)
        grown[: flat.size] = flat
        flat = grown
    tensor._data = flat[offset : offset + numel].reshape(shape)
    tensor._bump_version()
    return tensor
