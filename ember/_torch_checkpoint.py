"""Reading `torch.save` files without PyTorch and without running code.

A PyTorch checkpoint (PyTorch >= 1.6) is a zip archive: `<name>/data.pkl` pickles the object, naming
each tensor's storage by a key whose raw bytes are `<name>/data/<key>`. The legacy format (older
PyTorch, and `_use_new_zipfile_serialization=False`, which many published weights still use) is one
stream: a magic number, a version and system info, the object's pickle, the list of storage keys,
then each storage as its element count (int64) and raw bytes. Loading it as PyTorch's `weights_only=True`
does, the unpickler here resolves only an allow-list of names (tensor and Parameter rebuilders,
storage types, dtypes, `torch.Size`, `torch.device`, OrderedDict, plain builtins) to ember's own
callables, so a crafted file cannot reach any other function. Whole pickled modules
(`torch.save(model)`) need PyTorch's classes and are refused with a clear message.
"""

import collections
import io
import pickle

from ._backend import np, device
from . import _dtype
from ._size import Size
from ._tensor import new_tensor
from ._warn import warn as _warn

__all__ = ["is_torch_checkpoint", "load_torch_checkpoint", "load_legacy_torch_checkpoint", "LEGACY_MAGIC"]

LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
_LEGACY_VERSION = 1001

# torch's typed storage classes (as pickled) -> NumPy dtype of their elements
_STORAGE_DTYPES = {
    "FloatStorage": np.float32,
    "DoubleStorage": np.float64,
    "HalfStorage": np.float16,
    "BFloat16Storage": "bfloat16",  # no NumPy dtype: ml_dtypes' when installed, else widened to float32
    "LongStorage": np.int64,
    "IntStorage": np.int32,
    "ShortStorage": np.int16,
    "CharStorage": np.int8,
    "ByteStorage": np.uint8,
    "BoolStorage": np.bool_,
    "ComplexFloatStorage": np.complex64,
    "ComplexDoubleStorage": np.complex128,
}


def is_torch_checkpoint(names):
    return any(name.endswith("/data.pkl") for name in names)


class _Storage:
    """A storage type as the pickle names it (`torch.FloatStorage`)."""

    def __init__(self, name):
        self.name = name
        self.dtype = _STORAGE_DTYPES[name]


def _dtype_named(name):
    """`torch.float16` in a pickle: ember's dtype of that name."""
    if name in _dtype._BY_NAME:
        return _dtype._BY_NAME[name]
    if name in _dtype.ALIASES:
        return _dtype.ALIASES[name]
    raise pickle.UnpicklingError(f"ember.load: the checkpoint names torch.{name}, a dtype ember does not have")


def _latin1_bytes(text, encoding="latin1"):
    """`_codecs.encode`, as protocol-2 pickles spell a bytes object."""
    if encoding not in ("latin1", "latin-1"):
        raise pickle.UnpicklingError(f"ember.load: unexpected encoding {encoding!r} for a bytes object")
    return text.encode("latin1")


_PLAIN = {
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("torch", "Size"): Size,
    ("torch", "device"): device,
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
    ("builtins", "slice"): slice,
    ("builtins", "complex"): complex,
    ("__builtin__", "set"): set,
    ("__builtin__", "frozenset"): frozenset,
    ("_codecs", "encode"): _latin1_bytes,
}


class _WeightsUnpickler(pickle.Unpickler):
    """Resolves only allow-listed names; storages are read from the archive by key."""

    def __init__(self, file, read_storage, source, relocate):
        super().__init__(file)
        self.read_storage = read_storage
        self.source = source
        self.relocate = relocate
        self.storages = {}

    def find_class(self, module, name):
        if (module, name) in _PLAIN:
            return _PLAIN[(module, name)]
        if module == "torch._utils" and name == "_rebuild_tensor_v2":
            return self.rebuild_tensor
        if module == "torch._utils" and name in ("_rebuild_parameter", "_rebuild_parameter_with_state"):
            return _rebuild_parameter
        if module == "torch" and name in _STORAGE_DTYPES:
            return _Storage(name)
        if module == "torch" and (name in _dtype._BY_NAME or name in _dtype.ALIASES):
            return _dtype_named(name)
        raise pickle.UnpicklingError(
            f"ember.load: weights only load failed: {self.source} refers to {module}.{name}, which a "
            "checkpoint of tensors and containers never needs (a whole pickled model needs PyTorch's "
            "own classes). Save the model's state_dict() in PyTorch and load that."
        )

    def persistent_load(self, reference):
        if not (isinstance(reference, tuple) and len(reference) >= 5 and reference[0] == "storage"):
            raise pickle.UnpicklingError(f"ember.load: {self.source} has an unknown storage reference")
        storage_type, key, _location, numel = reference[1:5]
        if not isinstance(storage_type, _Storage) or not isinstance(key, str) or type(numel) is not int or numel < 0:
            raise pickle.UnpicklingError(f"ember.load: {self.source} has a malformed storage reference")
        if key not in self.storages:
            self.storages[key] = self.read_storage(key, storage_type.dtype, numel)
        storage = self.storages[key]
        view = reference[5] if len(reference) > 5 else None
        if view is not None:  # the legacy format's storage views: (key, offset, size)
            _view_key, offset, size = view
            if not (type(offset) is int and type(size) is int and 0 <= offset and offset + size <= storage.size):
                raise pickle.UnpicklingError(f"ember.load: {self.source} has a storage view outside its storage")
            storage = storage[offset : offset + size]
        return storage

    def rebuild_tensor(self, storage, offset, size, stride, requires_grad=False, backward_hooks=(), metadata=None):
        """`torch._utils._rebuild_tensor_v2`: a tensor viewing its storage at `offset` with `stride`.
        Tensors sharing a storage share memory, as in PyTorch."""
        size, stride = tuple(size), tuple(stride)
        if not all(type(n) is int and n >= 0 for n in size + stride + (offset,)) or len(size) != len(stride):
            raise pickle.UnpicklingError(
                f"ember.load: {self.source} has a malformed tensor (size {size}, stride {stride})"
            )
        last = offset + sum((extent - 1) * step for extent, step in zip(size, stride))
        if 0 not in size and last >= storage.size:
            raise pickle.UnpicklingError(
                f"ember.load: {self.source} is damaged: a tensor of size {size} and stride {stride} at offset "
                f"{offset} runs past its storage of {storage.size} elements"
            )
        itemsize = storage.dtype.itemsize
        view = np.lib.stride_tricks.as_strided(
            storage[offset:], shape=size, strides=tuple(step * itemsize for step in stride)
        )
        tensor = new_tensor(view)
        if requires_grad:
            tensor.requires_grad_(True)
        return tensor if self.relocate is None else self.relocate(tensor, "cpu")


def _rebuild_parameter(data, requires_grad, backward_hooks, state=None):
    from .nn import Parameter

    return Parameter(data, requires_grad=requires_grad)


def load_torch_checkpoint(archive, source, relocate, check_member):
    """The object a `torch.save` zip archive holds. `check_member(info, nbytes)` vets each storage's
    zip entry (stored, of the declared size) before it is read."""
    names = set(archive.namelist())
    pickle_name = next(name for name in archive.namelist() if name.endswith("/data.pkl"))
    prefix = pickle_name[: -len("data.pkl")]
    big_endian = prefix + "byteorder" in names and archive.read(prefix + "byteorder").strip() == b"big"
    widened = []

    def read_storage(key, dtype, numel):
        name = prefix + "data/" + key
        if name not in names:
            raise pickle.UnpicklingError(f"ember.load: {source} lacks the data of storage {key}")
        raw = np.dtype(np.uint16 if dtype == "bfloat16" else dtype).newbyteorder(">" if big_endian else "<")
        info = archive.getinfo(name)
        check_member(info, raw.itemsize * numel)
        array = np.empty(numel, raw)
        with archive.open(info) as member:  # read straight into the array; zipfile checks the CRC at the end
            member.readinto(array.view(np.uint8))
            member.read()
        if not raw.isnative:
            array = array.astype(raw.newbyteorder("="))
        if dtype == "bfloat16":
            if _dtype.ml_dtypes_available():
                return array.view(_dtype.bfloat16.numpy_dtype)
            widened.append(key)
            return (array.astype(np.uint32) << 16).view(np.float32)  # the bits of bfloat16 are float32's top half
        return array

    result = _WeightsUnpickler(io.BytesIO(archive.read(pickle_name)), read_storage, source, relocate).load()
    _warn_if_widened(widened, source)
    return result


def load_legacy_torch_checkpoint(file, source, relocate):
    """The object a legacy-format `torch.save` stream holds. Storages are allocated while the object is
    unpickled and filled afterwards, from the records that follow it (its tensors view them)."""

    def no_storage(key, dtype, numel):
        raise RuntimeError(f"ember.load: {source} is damaged: a tensor outside the object's pickle")

    def plain_pickle():
        return _WeightsUnpickler(file, no_storage, source, None).load()

    if plain_pickle() != LEGACY_MAGIC:
        raise RuntimeError(f"ember.load: {source} is a pickle file, not a checkpoint")
    version, system = plain_pickle(), plain_pickle()
    if version != _LEGACY_VERSION or not isinstance(system, dict) or not system.get("little_endian", True):
        raise RuntimeError(f"ember.load: {source} is a legacy PyTorch checkpoint of an unsupported kind ({version})")
    empty = {}  # key -> array to fill

    def allocate(key, dtype, numel):
        if dtype == "bfloat16":  # the tensors view the storage before it is filled: no widening afterwards
            if not _dtype.ml_dtypes_available():
                raise RuntimeError(
                    f"ember.load: {source} holds bfloat16 tensors in the legacy format, which needs the "
                    f"ml_dtypes package ({_dtype.ML_DTYPES_HINT}); or re-save the checkpoint in PyTorch's "
                    "zip format (ember widens bfloat16 to float32 there without ml_dtypes)."
                )
            dtype = _dtype.bfloat16.numpy_dtype
        empty[key] = np.empty(numel, dtype)
        return empty[key]

    result = _WeightsUnpickler(file, allocate, source, relocate).load()
    keys = plain_pickle()
    if not isinstance(keys, list) or set(keys) != set(empty):
        raise RuntimeError(f"ember.load: {source} is damaged: its storage list does not match its tensors")
    for key in keys:
        array = empty[key]
        count = np.frombuffer(_read_exactly(file, 8, source), "<i8")[0]
        if count != array.size:
            raise RuntimeError(f"ember.load: {source} is damaged: storage {key} has {count} elements, not {array.size}")
        if file.readinto(array.view(np.uint8)) != array.nbytes:
            _truncated(source)
    return result


def _read_exactly(file, count, source):
    data = file.read(count)
    if len(data) != count:
        _truncated(source)
    return data


def _truncated(source):
    raise RuntimeError(f"ember.load: {source} is truncated: it ends inside a tensor's data")


def _warn_if_widened(widened, source):
    if widened:
        _warn(
            f"ember.load: {source} holds bfloat16 tensors; without the ml_dtypes package they load as float32 "
            f"(exactly: every bfloat16 value is a float32 value). To keep them bfloat16: {_dtype.ML_DTYPES_HINT}",
            stacklevel=5,  # the caller of ember.load
        )
