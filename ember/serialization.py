"""`ember.save` / `ember.load`: checkpoints whose loading cannot run code.

A checkpoint is a zip archive (stored, not compressed) holding
  - `ember/structure.json`: the saved object as tagged JSON nodes (dicts, lists, tuples, numbers,
    strings, None, dtypes and references to arrays), and
  - `ember/data/<n>`: the raw little-endian bytes of each array.
Loading reads JSON and raw array bytes only, never pickle, so a checkpoint from an untrusted source
cannot execute anything. The one exception is PyTorch's: an object that is none of these (a whole
module, say) is saved pickled as `ember/objects/<n>` (its tensors still stored as raw arrays), and
loading it unpickles only when the caller passes `weights_only=False`, trusting the file. Every field is validated and each array's stored size is checked against its
dtype x shape before memory is allocated (compressed members are refused, so a small file cannot
inflate into a huge one); the zip's CRC-32 of every member is checked, so a flipped bit or a truncated
file is reported as an error instead of loading wrong weights. Where the bytes go when saving to a
path (atomically for regular files, through symlinks, hard links, pipes and devices) is
`ember._save_target`'s job.
"""

import io
import json
import os
import pickle
import struct
import zipfile
import zlib
from collections import Counter, OrderedDict

from ._backend import device, np, to_device
from . import _dtype
from ._size import Size
from ._tensor import Tensor, new_tensor
from ._save_target import write_to_path
from ._torch_checkpoint import is_torch_checkpoint, load_torch_checkpoint, load_legacy_torch_checkpoint

__all__ = ["save", "load"]

_FORMAT = "ember.save"
_VERSION = 1
_OBJECTS_VERSION = 2  # the version that added pickled objects: written only when a checkpoint has one
_STRUCTURE = "ember/structure.json"
_DATA = "ember/data/"
_OBJECTS = "ember/objects/"
_DICT_CLASSES = {"dict": dict, "OrderedDict": OrderedDict, "Counter": Counter}
_ALLOWED_KINDS = "biufc"  # bool, integers, floats, complex: never object arrays


# ---------------------------------------------------------------- saving
class _Writer:
    """Turns an object into JSON nodes, collecting array payloads; a tensor seen twice is stored once."""

    def __init__(self):
        self.arrays = []
        self.objects = []  # pickled bytes of the objects that are none of the types below
        self.key_of_tensor = {}

    def encode(self, value):
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, (int, float)) and type(value) in (int, float):
            return value
        if isinstance(value, Tensor):
            return self._tensor(value)
        if isinstance(value, np.ndarray):
            return {"type": "ndarray", **self._array(value)}
        if isinstance(value, np.generic):
            return value.item() if value.dtype.kind in "biuf" else self.encode(np.asarray(value))
        if isinstance(value, (int, float)):  # subclasses such as IntEnum become plain numbers
            return int(value) if isinstance(value, int) else float(value)
        if isinstance(value, _dtype.dtype):
            return {"type": "dtype", "name": value.name}
        if isinstance(value, Size):
            return {"type": "size", "items": list(value)}
        if isinstance(value, dict):
            return self._dict(value)
        if isinstance(value, tuple) and not hasattr(value, "_fields"):
            return {"type": "tuple", "items": [self.encode(item) for item in value]}
        if isinstance(value, list):
            return {"type": "list", "items": [self.encode(item) for item in value]}
        if isinstance(value, (bytes, bytearray)):
            return {"type": "bytes", **self._array(np.frombuffer(bytes(value), dtype=np.uint8))}
        return self._object(value)

    def _object(self, value):
        """Pickle what JSON cannot hold (`torch.save(model, path)`), its tensors and arrays kept out of
        the pickle as references to raw arrays; loading it needs `weights_only=False`."""
        buffer = io.BytesIO()
        pickler = _ReferencingPickler(buffer, self._reference)
        try:
            pickler.dump(value)
        except Exception as error:  # noqa: BLE001  (whatever pickle refuses: a lambda, an open file ...)
            # pickle's own exception class, as PyTorch raises it (code may catch it), saying what to do
            error.args = (
                f"ember.save cannot store an object of type {_class_name(value)}: it is not a tensor, "
                f"array, number, string, dtype or container of them, and pickling it failed ({error}). "
                "Save its state_dict() instead.",
            )
            raise
        self.objects.append(buffer.getvalue())
        return {"type": "object", "key": str(len(self.objects) - 1), "class": _class_name(value)}

    def _reference(self, value):
        if isinstance(value, Tensor):
            return self._tensor(value)
        if type(value) is np.ndarray and value.dtype.kind in _ALLOWED_KINDS:
            return {"type": "ndarray", **self._array(value)}
        return None

    def _dict(self, value):
        class_name = type(value).__name__
        if _DICT_CLASSES.get(class_name) is not type(value):
            class_name = "OrderedDict" if isinstance(value, OrderedDict) else "dict"
        node = {
            "type": "dict",
            "class": class_name,
            "items": [[self.encode(key), self.encode(item)] for key, item in value.items()],
        }
        metadata = getattr(value, "_metadata", None)  # what Module.state_dict() attaches
        if isinstance(metadata, dict):
            node["metadata"] = self.encode(metadata)
        return node

    def _tensor(self, tensor):
        node = self.key_of_tensor.get(id(tensor))
        if node is None:
            node = {
                "type": "tensor",
                **self._array(tensor._data),
                "requires_grad": tensor._requires_grad,
                "parameter": type(tensor).__name__ == "Parameter",
            }
            self.key_of_tensor[id(tensor)] = node
        return node

    def _array(self, array):
        if array.dtype.kind not in _ALLOWED_KINDS and not _is_ml_dtype(array.dtype):
            raise TypeError(
                f"ember.save cannot store a NumPy array of dtype {array.dtype}: only bool, integer, "
                "floating and complex arrays can be stored without pickle"
            )
        self.arrays.append(np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")))
        return {"key": str(len(self.arrays) - 1), "dtype": _dtype_field(array.dtype), "shape": list(array.shape)}


def _is_ml_dtype(numpy_dtype):
    """Whether an array's dtype is ml_dtypes' bfloat16 or float8 (loaded, since such an array exists)."""
    return numpy_dtype.kind in "Vf" and _dtype.from_numpy_dtype_or_none(numpy_dtype) in _dtype.ML_DTYPES


def _dtype_field(numpy_dtype):
    """How a checkpoint names an array's dtype: NumPy's little-endian code ('<f4'), or for ml_dtypes'
    types, whose code is an anonymous '<V2', the dtype's name ('bfloat16')."""
    if _is_ml_dtype(numpy_dtype):
        return _dtype.from_numpy_dtype(numpy_dtype).name
    return numpy_dtype.newbyteorder("<").str


class _ReferencingPickler(pickle.Pickler):
    """A pickler that stores what `reference(obj)` names (tensors, arrays) as persistent ids."""

    def __init__(self, file, reference):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.reference = reference

    def persistent_id(self, obj):
        return self.reference(obj)


class _ReferencingUnpickler(pickle.Unpickler):
    """The matching unpickler: `load_reference(id)` rebuilds what a persistent id names."""

    def __init__(self, file, load_reference):
        super().__init__(file)
        self.load_reference = load_reference

    def persistent_load(self, reference):
        return self.load_reference(reference)


class _Encoded:
    """An object already turned into JSON nodes and arrays: unsupported types fail before any write."""

    def __init__(self, obj):
        writer = _Writer()
        root = writer.encode(obj)
        version = _OBJECTS_VERSION if writer.objects else _VERSION
        self.structure = {"format": _FORMAT, "version": version, "root": root}
        self.arrays = writer.arrays
        self.objects = writer.objects


def _class_name(value):
    return f"{type(value).__module__}.{type(value).__qualname__}"


def _write_archive(file, encoded):
    with zipfile.ZipFile(file, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        archive.writestr(_STRUCTURE, json.dumps(encoded.structure))
        for key, array in enumerate(encoded.arrays):
            with archive.open(f"{_DATA}{key}", "w", force_zip64=array.nbytes >= 1 << 31) as member:
                member.write(array.reshape(-1).view(np.uint8).data)
        for key, pickled in enumerate(encoded.objects):
            archive.writestr(f"{_OBJECTS}{key}", pickled)


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True):
    """Save `obj` (tensors, state_dicts, and nested dicts/lists/tuples of them) to `f`.

    Args:
        obj: what to save. Tensors (and Parameters), NumPy arrays, int/float/bool/str/None, dtypes,
            and dict/OrderedDict/list/tuple nesting of these are stored without pickle. Any other object
            (a whole model) is pickled, its tensors kept as raw arrays, and loads only with
            `weights_only=False`, as in PyTorch; an object pickle refuses raises TypeError before anything
            is written.
        f: a path (str, bytes or os.PathLike) or a writable binary file object (BytesIO, an open file).

    A path is written as PyTorch writes it (through symlinks, to every name of a hard-linked file, into
    pipes and devices) but safely: a regular file is replaced atomically (a crash or a full disk leaves
    the old checkpoint whole) and keeps its permissions; see `ember._save_target`. Failures raise an
    error that is both OSError and RuntimeError, naming `f`.
    `pickle_module` and `pickle_protocol` are accepted for compatibility and ignored.

    Example: `ember.save(model.state_dict(), "model.pt")`.
    Difference from PyTorch: pickle only for objects JSON cannot hold; views sharing memory are saved as separate tensors
    (the same tensor object saved twice is stored once and loaded as one object).
    """
    encoded = _Encoded(obj)
    if isinstance(f, (str, bytes, os.PathLike)):
        write_to_path(os.fsdecode(os.fspath(f)), lambda file: _write_archive(file, encoded))
        return
    if not callable(getattr(f, "write", None)):
        raise AttributeError(
            f"ember.save: f must be a path or a file object with a write() method, got {type(f).__name__}"
        )
    _write_archive(f, encoded)


# ---------------------------------------------------------------- loading
class _CheckpointError(RuntimeError):
    """ember.load's own diagnosis (any other failure while decoding means the bytes are damaged)."""


# The dtypes ember.save writes, little-endian: a checkpoint naming any other is refused.
_ARRAY_DTYPES = frozenset(
    np.dtype(name).newbyteorder("<").str
    for name in (
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
        "complex64",
        "complex128",
    )
)
_TENSOR_DTYPES = frozenset(d.numpy_dtype.newbyteorder("<").str for d in _dtype.NUMPY_DTYPES) | frozenset(
    d.name for d in _dtype.ML_DTYPES
)
_ML_NAMES = frozenset(d.name for d in _dtype.ML_DTYPES)
_NODE_FIELDS = {
    "tensor": ({"type", "key", "dtype", "shape", "requires_grad", "parameter"}, set()),
    "ndarray": ({"type", "key", "dtype", "shape"}, set()),
    "bytes": ({"type", "key", "dtype", "shape"}, set()),
    "list": ({"type", "items"}, set()),
    "tuple": ({"type", "items"}, set()),
    "size": ({"type", "items"}, set()),
    "dict": ({"type", "class", "items"}, {"metadata"}),
    "dtype": ({"type", "name"}, set()),
    "object": ({"type", "key", "class"}, set()),
}
_HEADER_FIELDS = {"format", "version", "root"}
_STRUCTURE_INFLATION = 32  # the most a (re-zipped) structure may inflate: JSON text compresses about 10x
_LOCAL_HEADER = struct.Struct("<4s22xHH")  # a zip local file header: signature ... name and extra lengths


class _Reader:
    """Rebuilds the object from JSON nodes, checking every field before it allocates anything.

    Arrays are read straight from the file into their final NumPy arrays (one copy, no temporary
    bytes object, no dtype conversion), after their declared zip sizes were checked against
    dtype x shape; each array member may be read once only, so memory stays within the file's size.
    """

    def __init__(self, archive, file, source, relocate, mapped, weights_only=True):
        self.archive = archive
        self.weights_only = weights_only
        self.file = file
        self.source = source
        self.relocate = relocate
        self.mapped = mapped
        self.members = {info.filename: info for info in archive.infolist()}
        self.tensors = {}
        self.read_keys = set()
        self.checksums = _Checksums(self)
        self.parameter_class = _parameter_class()
        file.seek(0, os.SEEK_END)
        self.file_size = file.tell()

    def decode(self, node, where="root"):
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if not isinstance(node, dict):
            raise self.corrupt(f"{where} is a bare {type(node).__name__} where a tagged node was expected")
        kind = node.get("type")
        if kind not in _NODE_FIELDS:
            raise self.corrupt(f"{where} has an unknown node type {kind!r}")
        required, optional = _NODE_FIELDS[kind]
        missing, unexpected = required - node.keys(), node.keys() - required - optional
        if missing or unexpected:
            raise self.corrupt(
                f"the {kind} node at {where} has "
                + (f"no field {min(missing)!r}" if missing else f"an unexpected field {min(unexpected)!r}")
            )
        if kind == "tensor":
            return self._tensor(node, where)
        if kind in ("list", "tuple", "size"):
            items = self._list_field(node, "items", where)
            if kind == "size":
                return Size(self._ints(items, f"{where}.items", "a size"))
            values = [self.decode(item, f"{where}[{index}]") for index, item in enumerate(items)]
            return values if kind == "list" else tuple(values)
        if kind == "dict":
            return self._dict(node, where)
        if kind == "object":
            return self._object(node, where)
        if kind == "ndarray":
            return self._array(node, where, _ARRAY_DTYPES)
        if kind == "bytes":
            array = self._array(node, where, _ARRAY_DTYPES)
            if array.dtype != np.uint8 or array.ndim != 1:
                raise self.corrupt(f"field 'dtype'/'shape' of the bytes node at {where} must be uint8 and 1-d")
            return array.tobytes()
        name = node["name"]
        if not isinstance(name, str) or name not in {d.name for d in _dtype.ALL_DTYPES}:
            raise self.corrupt(f"field 'name' of the dtype node at {where} is not an ember dtype: {name!r}")
        return _dtype.to_dtype(name)

    def _dict(self, node, where):
        class_name = node["class"]
        if not isinstance(class_name, str) or class_name not in _DICT_CLASSES:
            raise self.corrupt(
                f"field 'class' of the dict at {where} must be one of {sorted(_DICT_CLASSES)}, got {class_name!r}"
            )
        result = _DICT_CLASSES[class_name]()
        for index, pair in enumerate(self._list_field(node, "items", where)):
            if not isinstance(pair, list) or len(pair) != 2:
                raise self.corrupt(f"item {index} of the dict at {where} is not a [key, value] pair")
            key = self.decode(pair[0], f"{where}.key[{index}]")
            try:
                duplicate = key in result
            except TypeError:
                raise self.corrupt(f"key {index} of the dict at {where} is unhashable ({type(key).__name__})") from None
            if duplicate:
                raise self.corrupt(f"the dict at {where} holds the key {key!r} twice")
            result[key] = self.decode(pair[1], f"{where}[{key!r}]")
        if "metadata" in node:
            result._metadata = self.decode(node["metadata"], f"{where}.metadata")
        return result

    def _object(self, node, where):
        """Unpickle a saved object, only if the caller trusts the file (`weights_only=False`)."""
        key, class_name = node["key"], node["class"]
        if not isinstance(key, str) or not (key.isascii() and key.isdigit()) or not isinstance(class_name, str):
            raise self.corrupt(f"the object node at {where} has a malformed 'key' or 'class'")
        if self.weights_only:
            raise pickle.UnpicklingError(
                f"ember.load: weights only load failed: {self.source} holds a pickled object of type "
                f"{class_name[:200]} (at {where}), and unpickling can run code. If you trust the file, load it "
                "with weights_only=False; better, save the object's state_dict() and load that."
            )
        info = self.members.get(_OBJECTS + key)
        if info is None:
            raise self.corrupt(f"the pickled object {key} is missing")
        if info.compress_type != zipfile.ZIP_STORED or info.file_size > self.file_size:
            raise self.corrupt(f"the pickled object {key} is compressed or larger than the file")
        unpickler = _ReferencingUnpickler(
            io.BytesIO(self.archive.read(info)), lambda reference: self.decode(reference, f"{where} (pickled)")
        )
        try:
            return unpickler.load()
        except (_CheckpointError, _CallerError):
            raise
        except Exception as error:  # noqa: BLE001  (the object's own: a class the program no longer defines ...)
            raise _CallerError(error) from error

    def _list_field(self, node, field, where):
        value = node[field]
        if not isinstance(value, list):
            raise self.corrupt(
                f"field {field!r} of the {node['type']} node at {where} must be a list, got {type(value).__name__}"
            )
        return value

    def _ints(self, values, where, what):
        if not all(type(value) is int and value >= 0 for value in values):
            raise self.corrupt(f"{where} must be {what}: a list of non-negative ints, got {values!r}"[:300])
        return values

    def _flag(self, node, field, where):
        value = node[field]
        if type(value) is not bool:
            raise self.corrupt(f"field {field!r} of the tensor at {where} must be true or false, got {value!r}")
        return value

    def _tensor(self, node, where):
        key = node["key"]
        requires_grad = self._flag(node, "requires_grad", where)
        parameter = self._flag(node, "parameter", where)
        tensor = self.tensors.get(key) if isinstance(key, str) else None
        if tensor is not None:
            if list(tensor.shape) != node["shape"] or _dtype_field(tensor._data.dtype) != node["dtype"]:
                raise self.corrupt(f"the tensor at {where} reuses array {key} with another dtype or shape")
            return tensor
        array = self._array(node, where, _TENSOR_DTYPES)
        if parameter and self.parameter_class is not None:
            tensor = self.parameter_class(new_tensor(array), requires_grad=requires_grad)
        else:
            tensor = new_tensor(array)
            if requires_grad:
                if array.dtype.kind not in "fcV":
                    raise self.corrupt(f"the {array.dtype} tensor at {where} is marked requires_grad")
                tensor.requires_grad_(True)
        if self.relocate is not None:
            try:
                tensor = self.relocate(tensor, "cpu")
            except Exception as error:  # noqa: BLE001  (the caller's own error, passed through below)
                raise _CallerError(error) from error
        self.tensors[key] = tensor
        return tensor

    def _array(self, node, where, dtypes):
        key, dtype_name, shape = node["key"], node["dtype"], node["shape"]
        if not isinstance(key, str) or not (key.isascii() and key.isdigit()):
            raise self.corrupt(f"field 'key' at {where} must be a string of digits, got {key!r}")
        if not isinstance(dtype_name, str) or dtype_name not in dtypes:
            raise self.corrupt(f"field 'dtype' at {where} is {dtype_name!r}, not one of the supported dtypes")
        if not isinstance(shape, list):
            raise self.corrupt(f"field 'shape' at {where} must be a list, got {type(shape).__name__}")
        shape = tuple(self._ints(shape, f"field 'shape' at {where}", "a shape"))
        if key in self.read_keys:
            raise self.corrupt(f"array {key} is referenced twice (at {where})")
        self.read_keys.add(key)
        # bfloat16 and float8 are named (see _dtype_field); reading them needs ml_dtypes, as making them does
        dtype = _dtype._BY_NAME[dtype_name].numpy_dtype if dtype_name in _ML_NAMES else np.dtype(dtype_name)
        expected = dtype.itemsize * _product(shape)
        info = self.members.get(_DATA + key)
        if info is None:
            raise self.corrupt(f"the data of array {key} is missing")
        if info.compress_type != zipfile.ZIP_STORED:
            raise self.corrupt(
                f"array {key} is compressed (zip method {info.compress_type}); ember.save never "
                "compresses, so it was not written by ember.save (refused before inflating)"
            )
        if info.file_size != expected or info.compress_size != expected:
            raise self.corrupt(
                f"array {key} has {info.file_size} bytes, expected {expected} for shape {list(shape)} and dtype {dtype}"
            )
        offset = self._data_offset(info)
        if offset + expected > self.file_size:
            raise self.corrupt(f"array {key} runs past the end of the file (truncated)")
        return self._read_payload(info, offset, dtype, shape)

    def _data_offset(self, info):
        self.file.seek(info.header_offset)
        header = self.file.read(_LOCAL_HEADER.size)
        if len(header) != _LOCAL_HEADER.size:
            raise self.corrupt(f"the zip entry of {info.filename} is cut off")
        signature, name_length, extra_length = _LOCAL_HEADER.unpack(header)
        if signature != b"PK\x03\x04":
            raise self.corrupt(f"the zip entry of {info.filename} is damaged")
        return info.header_offset + _LOCAL_HEADER.size + name_length + extra_length

    def _read_payload(self, info, offset, dtype, shape):
        if self.mapped is not None:  # mmap=True: the pages are read when used; CRC not checked (as PyTorch)
            return np.ndarray(shape, dtype, buffer=self.mapped, offset=offset)
        array = np.empty(shape, dtype)
        buffer = array.reshape(-1).view(np.uint8)
        self.file.seek(offset)
        _read_exactly(self.file, buffer)
        self.checksums.check(buffer, info.CRC, info.filename)
        return array if dtype.isnative else array.astype(dtype.newbyteorder("="))

    def corrupt(self, what):
        return _CheckpointError(
            f"ember.load: {self.source} is corrupt ({what}); it was not written by a "
            "completed ember.save. Re-create the checkpoint or use a backup copy."
        )


class _Checksums:
    """CRC-32 checks of the arrays read, large ones in a second thread (zlib releases the GIL) while
    the next array is read: checking costs as much as reading, and this hides most of it. `finish`
    waits for them all, so `load` never returns data that failed its check."""

    _INLINE_BYTES = 1 << 20

    def __init__(self, reader):
        self.reader = reader
        self.pool = None
        self.pending = []

    def check(self, buffer, expected, name):
        if len(buffer) < self._INLINE_BYTES:
            self._compare(zlib.crc32(buffer), expected, name)
            return
        if self.pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ember.load-crc")
        self.pending.append((self.pool.submit(zlib.crc32, buffer), expected, name))

    def finish(self):
        try:
            for future, expected, name in self.pending:
                self._compare(future.result(), expected, name)
        finally:
            self.close()

    def close(self):
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None
        self.pending = []

    def _compare(self, crc, expected, name):
        if crc != expected:
            raise self.reader.corrupt(f"the data of {name} fails its CRC-32 check")


def _product(shape):
    total = 1
    for size in shape:
        total *= size
    return total


def _read_exactly(file, buffer):
    """Fill `buffer` from `file` with `readinto` (no intermediate bytes) where the file supports it."""
    view, filled = memoryview(buffer), 0
    readinto = getattr(file, "readinto", None)
    while filled < len(view):
        if readinto is not None:
            count = readinto(view[filled:])
        else:
            chunk = file.read(min(len(view) - filled, 1 << 24))
            count = len(chunk)
            view[filled : filled + count] = chunk
        if not count:
            raise EOFError("the file ended early")
        filled += count


def _parameter_class():
    """`ember.nn.Parameter` when the nn package provides one (loading must not depend on it)."""
    try:
        from .nn import Parameter
    except ImportError:
        return None
    return Parameter


def _relocation(map_location):
    """The callable form of `map_location`; device names are checked now (ember has only the CPU)."""
    if callable(map_location):
        return lambda tensor, location: _first_not_none(map_location(tensor, location), tensor)
    if isinstance(map_location, dict):
        map_location = map_location.get("cpu", "cpu")
    if map_location is not None and device(map_location).type == "cuda":
        raise RuntimeError(
            "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False "
            "(ember computes on the CPU): load with map_location='cpu' or without map_location."
        )
    to_device(map_location)
    return None


def _first_not_none(value, default):
    return default if value is None else value


class _CallerError(Exception):
    """Carries an exception raised by the caller's `map_location` out of the decoding guard."""

    def __init__(self, error):
        super().__init__(error)
        self.error = error


def _describe(f):
    return repr(os.fsdecode(os.fspath(f))) if isinstance(f, (str, bytes, os.PathLike)) else "the file object"


def _open_for_reading(f):
    """A seekable binary file for `f`: the opened path, the caller's file, or (for pipes) its bytes."""
    if isinstance(f, (str, bytes, os.PathLike)):
        file = open(f, "rb")
        if file.seekable():
            return file, True
        with file:
            return io.BytesIO(file.read()), True
    if not callable(getattr(f, "read", None)):
        raise AttributeError(
            f"ember.load: f must be a path or a file object with a read() method, got {type(f).__name__}"
        )
    seekable = getattr(f, "seekable", None)
    if seekable is not None and seekable() and callable(getattr(f, "seek", None)):
        return f, False
    return io.BytesIO(f.read()), True


def _load_legacy_torch(file, source, relocate):
    """A pickle stream: torch.save's legacy format is read as weights only; any other pickle is refused."""
    return _torch_reading(lambda relocate: load_legacy_torch_checkpoint(file, source, relocate), source, relocate)


def _load_torch_zip(archive, source, relocate):
    """A torch.save archive, read as PyTorch's weights_only=True reads it (see ember._torch_checkpoint)."""

    def check_member(info, nbytes):
        if info.compress_type != zipfile.ZIP_STORED or info.file_size != nbytes or info.compress_size != nbytes:
            raise RuntimeError(
                f"ember.load: {source} is corrupt: {info.filename} has {info.file_size} bytes "
                f"(zip method {info.compress_type}), expected {nbytes} stored bytes"
            )

    return _torch_reading(
        lambda relocate: load_torch_checkpoint(archive, source, relocate, check_member), source, relocate
    )


def _torch_reading(read, source, relocate):
    """Run `read(relocate)` on a PyTorch checkpoint: the caller's map_location errors and the reader's
    own diagnoses pass through; anything else means damaged bytes."""

    def relocate_keeping_errors(tensor, location):
        try:
            return relocate(tensor, location)
        except Exception as error:  # noqa: BLE001  (the caller's own error, passed through below)
            raise _CallerError(error) from error

    try:
        return read(relocate and relocate_keeping_errors)
    except (pickle.UnpicklingError, RuntimeError):
        raise
    except _CallerError as wrapper:
        raise wrapper.error from None
    except Exception as error:  # noqa: BLE001  (zipfile or pickle rejecting damaged bytes)
        raise RuntimeError(
            f"ember.load: {source} is a damaged PyTorch checkpoint ({type(error).__name__}: {error})"
        ) from None


def _refuse_duplicates(pairs):
    """JSON object hook: a field given twice is damage (json would silently keep the last one)."""
    result = {}
    for key, value in pairs:
        if key in result:
            raise _CheckpointError(f"the field {key!r} appears twice in one node")
        result[key] = value
    return result


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Load an object saved by `ember.save`; also reads `torch.save` files (PyTorch's zip format, as its
    weights_only=True reads them: tensors, Parameters and containers, never arbitrary objects) and
    NumPy `.npz` files (a dict of tensors).

    Args:
        f: a path or a readable binary file object.
        map_location: 'cpu', a device, a dict or a callable `(tensor, 'cpu') -> tensor`; ember has only
            the CPU, so other devices raise RuntimeError.
        mmap: with a path, map the file instead of reading it: tensors share the file's pages,
            copy-on-write (writing to a tensor never changes the file), and CRCs are not checked.
        weights_only: None or True (the default, as in PyTorch 2.6+): nothing but tensors, arrays, numbers,
            strings, dtypes and containers is rebuilt, so no code runs; a checkpoint holding a pickled
            object (`ember.save(model, f)`) raises pickle.UnpicklingError. False: such objects are
            unpickled, which runs whatever code the file names; only for files you trust.
        pickle_module: accepted for compatibility.

    Every field of the checkpoint is validated and each array's stored size is checked against its
    dtype x shape before anything is allocated; arrays are read straight into their final memory.
    Raises RuntimeError, naming the file, when it is truncated, corrupt, or a PyTorch pickle checkpoint.

    Example: `model.load_state_dict(ember.load("model.pt"))`.
    """
    source = _describe(f)
    relocate = _relocation(map_location)
    file, owned = _open_for_reading(f)
    try:
        use_mmap = mmap and owned and isinstance(f, (str, bytes, os.PathLike))
        return _load_from(file, source, relocate, use_mmap, weights_only is not False)
    finally:
        if owned:
            file.close()


def _load_from(file, source, relocate, use_mmap, weights_only):
    start = file.tell()
    head = file.read(4)
    file.seek(start)
    if head[:2] != b"PK":
        if head[:1] == b"\x80":
            return _load_legacy_torch(file, source, relocate)
        if not head:
            raise RuntimeError(f"ember.load: {source} is empty: it was not written by a completed ember.save")
        raise RuntimeError(
            f"ember.load: {source} is not an ember checkpoint (it does not start like one); "
            "it may be another kind of file or damaged"
        )
    try:
        archive = zipfile.ZipFile(file)
    except Exception as error:  # noqa: BLE001  (whatever zipfile makes of damaged bytes)
        raise RuntimeError(
            f"ember.load: {source} is truncated or corrupt ({error}): the end of the archive is "
            "missing or damaged, so it was not written completely. Re-create the checkpoint "
            "or use a backup copy."
        ) from None
    names = archive.namelist()
    if _STRUCTURE not in names:
        if is_torch_checkpoint(names):
            return _load_torch_zip(archive, source, relocate)
        if names and all(name.endswith(".npy") for name in names):
            file.seek(start)
            return _load_npz(file, source)
        raise RuntimeError(
            f"ember.load: {source} is a zip archive but not an ember checkpoint (no {_STRUCTURE} inside)"
        )
    mapped = _map(file) if use_mmap else None
    reader = _Reader(archive, file, source, relocate, mapped, weights_only)
    try:
        structure = _read_structure(archive, reader)
        result = reader.decode(structure["root"])
        reader.checksums.finish()
        return result
    except _CheckpointError as error:
        if str(error).startswith("ember.load"):
            raise
        raise reader.corrupt(str(error)) from None
    except _CallerError as wrapper:
        raise wrapper.error from None
    except pickle.UnpicklingError:
        raise
    except Exception as error:  # noqa: BLE001  (zipfile, JSON or NumPy rejecting damaged bytes)
        raise reader.corrupt(f"{type(error).__name__}: {error}") from None
    finally:
        reader.checksums.close()


def _read_structure(archive, reader):
    info = archive.getinfo(_STRUCTURE)
    if info.file_size > _STRUCTURE_INFLATION * reader.file_size:  # zipfile stops at the declared size
        raise reader.corrupt(f"{_STRUCTURE} declares {info.file_size} bytes, more than its file could hold")
    structure = json.loads(archive.read(_STRUCTURE).decode("utf-8"), object_pairs_hook=_refuse_duplicates)
    if not isinstance(structure, dict) or structure.get("format") != _FORMAT:
        raise reader.corrupt("its header is not an ember.save header")
    if structure.keys() != _HEADER_FIELDS:
        raise reader.corrupt(f"its header has the fields {sorted(structure)}, expected {sorted(_HEADER_FIELDS)}")
    version = structure["version"]
    if type(version) is not int or version < 1:
        raise reader.corrupt(f"field 'version' must be a positive int, got {version!r}")
    if version > _OBJECTS_VERSION:
        raise _CheckpointError(
            f"ember.load: {reader.source} was written by a newer ember (format version "
            f"{version}); upgrade ember to read it"
        )
    return structure


def _map(file):
    import mmap

    return mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_COPY)


def _load_npz(file, source):
    try:
        with np.load(file, allow_pickle=False) as arrays:
            return {name: new_tensor(arrays[name]) for name in arrays.files}
    except (ValueError, OSError, zipfile.BadZipFile) as error:
        raise RuntimeError(f"ember.load: {source} is a damaged .npz file ({error})") from None
