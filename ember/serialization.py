"""`ember.save` / `ember.load`: checkpoints whose loading cannot run code.

A checkpoint is a zip archive (stored, not compressed) holding
  - `ember/structure.json`: the saved object as tagged JSON nodes (dicts, lists, tuples, numbers,
    strings, None, dtypes and references to arrays), and
  - `ember/data/<n>`: the raw little-endian bytes of each array.
Loading reads JSON and `np.frombuffer` only, never pickle, so a checkpoint from an untrusted source
cannot execute anything. The zip's CRC-32 of every member is checked on reading, so a flipped bit or a
truncated file is reported as an error instead of loading wrong weights. Writes go to a temporary
file in the target's directory, which is renamed over the target only once complete.
"""
import io
import json
import os
import tempfile
import zipfile
from collections import Counter, OrderedDict

from ._backend import np, to_device
from . import _dtype
from ._size import Size
from ._tensor import Tensor, new_tensor

__all__ = ["save", "load"]

_FORMAT = "ember.save"
_VERSION = 1
_STRUCTURE = "ember/structure.json"
_DATA = "ember/data/"
_DICT_CLASSES = {"dict": dict, "OrderedDict": OrderedDict, "Counter": Counter}
_ALLOWED_KINDS = "biufc"  # bool, integers, floats, complex: never object arrays


# ---------------------------------------------------------------- saving
class _Writer:
    """Turns an object into JSON nodes, collecting array payloads; a tensor seen twice is stored once."""

    def __init__(self):
        self.arrays = []
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
        raise TypeError(
            f"ember.save cannot store an object of type {type(value).__module__}.{type(value).__qualname__}: "
            "checkpoints hold tensors, NumPy arrays, numbers, strings, None, dtypes and "
            "dicts/lists/tuples of them (no pickle, so that loading can never run code). "
            "Save the object's state_dict() or convert it to one of these types.")

    def _dict(self, value):
        class_name = type(value).__name__
        if _DICT_CLASSES.get(class_name) is not type(value):
            class_name = "OrderedDict" if isinstance(value, OrderedDict) else "dict"
        node = {"type": "dict", "class": class_name,
                "items": [[self.encode(key), self.encode(item)] for key, item in value.items()]}
        metadata = getattr(value, "_metadata", None)  # what Module.state_dict() attaches
        if isinstance(metadata, dict):
            node["metadata"] = self.encode(metadata)
        return node

    def _tensor(self, tensor):
        node = self.key_of_tensor.get(id(tensor))
        if node is None:
            node = {"type": "tensor", **self._array(tensor._data), "requires_grad": tensor._requires_grad,
                    "parameter": type(tensor).__name__ == "Parameter"}
            self.key_of_tensor[id(tensor)] = node
        return node

    def _array(self, array):
        if array.dtype.kind not in _ALLOWED_KINDS:
            raise TypeError(f"ember.save cannot store a NumPy array of dtype {array.dtype}: only bool, integer, "
                            "floating and complex arrays can be stored without pickle")
        self.arrays.append(np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")))
        return {"key": str(len(self.arrays) - 1), "dtype": array.dtype.newbyteorder("<").str,
                "shape": list(array.shape)}


def _write_archive(file, obj):
    writer = _Writer()
    structure = {"format": _FORMAT, "version": _VERSION, "root": writer.encode(obj)}
    with zipfile.ZipFile(file, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
        archive.writestr(_STRUCTURE, json.dumps(structure))
        for key, array in enumerate(writer.arrays):
            with archive.open(f"{_DATA}{key}", "w", force_zip64=array.nbytes >= 1 << 31) as member:
                member.write(array.reshape(-1).view(np.uint8).data)


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True):
    """Save `obj` (tensors, state_dicts, and nested dicts/lists/tuples of them) to `f`.

    Args:
        obj: what to save. Tensors (and Parameters), NumPy arrays, int/float/bool/str/None, dtypes,
            and dict/OrderedDict/list/tuple nesting of these. Anything else raises TypeError, because
            storing arbitrary objects would need pickle.
        f: a path (str or os.PathLike) or a writable binary file object.

    A path is written atomically: into a temporary file next to it, flushed to disk, then renamed over
    `f`, so a crash mid-write leaves the old checkpoint (or none), never half of a new one.
    `pickle_module` and `pickle_protocol` are accepted for compatibility and ignored.

    Example: `ember.save(model.state_dict(), "model.pt")`.
    Difference from PyTorch: not pickle-based; views sharing memory are saved as separate tensors
    (the same tensor object saved twice is stored once and loaded as one object).
    """
    if not isinstance(f, (str, bytes, os.PathLike)):
        _write_archive(f, obj)
        return
    path = os.fspath(f)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(handle, "wb") as file:
            _write_archive(file, obj)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, _file_mode(path))
        os.replace(temporary, path)
        _fsync_directory(directory)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise


def _fsync_directory(directory):
    """Make the rename itself durable (POSIX); platforms that cannot open a directory skip it."""
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def _file_mode(path):
    """The permissions a plain `open(path, "w")` would give (mkstemp makes files private)."""
    try:
        return os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


# ---------------------------------------------------------------- loading
class _CheckpointError(RuntimeError):
    """ember.load's own diagnosis (any other failure while decoding means the bytes are damaged)."""


class _Reader:
    """Rebuilds the object from JSON nodes, reading each array's bytes once."""

    def __init__(self, archive, source, relocate):
        self.archive = archive
        self.source = source
        self.relocate = relocate
        self.tensors = {}
        self.parameter_class = _parameter_class()

    def decode(self, node):
        if not isinstance(node, dict):
            if isinstance(node, list):
                raise self.corrupt("a bare list where a tagged node was expected")
            return node
        kind = node.get("type")
        if kind == "tensor":
            return self._tensor(node)
        if kind in ("list", "tuple", "size"):
            items = [self.decode(item) for item in node["items"]]
            return {"list": list, "tuple": tuple, "size": Size}[kind](items)
        if kind == "dict":
            result = _DICT_CLASSES.get(node.get("class"), dict)()
            for key, item in node["items"]:
                result[self.decode(key)] = self.decode(item)
            if "metadata" in node:
                result._metadata = self.decode(node["metadata"])
            return result
        if kind == "ndarray":
            return self._array(node)
        if kind == "bytes":
            return self._array(node).tobytes()
        if kind == "dtype":
            return _dtype.to_dtype(node["name"])
        raise self.corrupt(f"an unknown node type {kind!r}")

    def _tensor(self, node):
        key = node["key"]
        tensor = self.tensors.get(key)
        if tensor is None:
            array = self._array(node)
            if node.get("parameter") and self.parameter_class is not None:
                tensor = self.parameter_class(new_tensor(array), requires_grad=node["requires_grad"])
            else:
                tensor = new_tensor(array)
                if node["requires_grad"]:
                    tensor.requires_grad_(True)
            if self.relocate is not None:
                try:
                    tensor = self.relocate(tensor, "cpu")
                except Exception as error:  # noqa: BLE001  (the caller's own error, passed through below)
                    raise _CallerError(error) from error
            self.tensors[key] = tensor
        return tensor

    def _array(self, node):
        dtype = np.dtype(node["dtype"])
        shape = tuple(int(size) for size in node["shape"])
        if dtype.kind not in _ALLOWED_KINDS or dtype.byteorder == ">":
            raise self.corrupt(f"an array of unsupported dtype {dtype}")
        name = _DATA + str(node["key"])
        try:
            payload = self.archive.read(name)
        except KeyError:
            raise self.corrupt(f"the data of array {node['key']} is missing") from None
        expected = dtype.itemsize * int(np.prod(shape, dtype=np.int64))
        if len(payload) != expected:
            raise self.corrupt(f"array {node['key']} has {len(payload)} bytes, expected {expected} for shape "
                               f"{list(shape)} and dtype {dtype}")
        return np.frombuffer(payload, dtype=dtype).reshape(shape).astype(dtype.newbyteorder("="))

    def corrupt(self, what):
        return _CheckpointError(f"ember.load: {self.source} is corrupt ({what}); it was not written by a "
                            "completed ember.save. Re-create the checkpoint or use a backup copy.")


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
    return repr(os.fspath(f)) if isinstance(f, (str, os.PathLike)) else "the file object"


def _read_bytes(f):
    if isinstance(f, (str, bytes, os.PathLike)):
        with open(f, "rb") as file:
            return file.read()
    return f.read()


def _not_ember_message(source, what):
    return (f"ember.load: {source} is {what}, not an ember checkpoint. ember never unpickles (that could run "
            "code), so it cannot read torch.save files. To bring PyTorch weights over, in PyTorch run "
            "`numpy.savez('weights.npz', **{k: v.numpy() for k, v in state_dict.items()})` and load that "
            "file with ember.load (it gives a dict of tensors).")


def _is_pytorch_zip(names):
    return any(name.endswith("data.pkl") for name in names)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Load an object saved by `ember.save` (also reads NumPy `.npz` files, as a dict of tensors).

    Args:
        f: a path or a readable binary file object.
        map_location: 'cpu', a device, a dict or a callable `(tensor, 'cpu') -> tensor`; ember has only
            the CPU, so other devices raise RuntimeError.
        weights_only, mmap, pickle_module: accepted for compatibility; loading is always weights-only
            in PyTorch's sense (no code runs), and reads the file into memory.

    Raises RuntimeError, naming the file, when it is truncated, corrupt, or a PyTorch pickle checkpoint.
    """
    source = _describe(f)
    relocate = _relocation(map_location)
    data = _read_bytes(f)
    if data[:2] != b"PK":
        if data[:1] == b"\x80":
            raise RuntimeError(_not_ember_message(source, "a pickle file (the legacy torch.save format)"))
        if not data:
            raise RuntimeError(f"ember.load: {source} is empty: it was not written by a completed ember.save")
        raise RuntimeError(f"ember.load: {source} is not an ember checkpoint (it does not start like one); "
                           "it may be another kind of file or damaged")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except Exception as error:  # noqa: BLE001  (whatever zipfile makes of damaged bytes)
        raise RuntimeError(f"ember.load: {source} is truncated or corrupt ({error}): the end of the archive is "
                           "missing or damaged, so it was not written completely. Re-create the checkpoint "
                           "or use a backup copy.") from None
    with archive:
        names = archive.namelist()
        if _STRUCTURE not in names:
            if _is_pytorch_zip(names):
                raise RuntimeError(_not_ember_message(source, "a PyTorch checkpoint (torch.save's zip+pickle format)"))
            if names and all(name.endswith(".npy") for name in names):
                return _load_npz(data, source)
            raise RuntimeError(f"ember.load: {source} is a zip archive but not an ember checkpoint "
                               f"(no {_STRUCTURE} inside)")
        reader = _Reader(archive, source, relocate)
        try:
            structure = json.loads(archive.read(_STRUCTURE).decode("utf-8"))
            if not isinstance(structure, dict) or structure.get("format") != _FORMAT:
                raise reader.corrupt("its header is not an ember.save header")
            if structure.get("version", 0) > _VERSION:
                raise _CheckpointError(f"ember.load: {source} was written by a newer ember (format version "
                                   f"{structure['version']}); upgrade ember to read it")
            return reader.decode(structure["root"])
        except _CheckpointError:
            raise
        except _CallerError as wrapper:
            raise wrapper.error from None
        except Exception as error:  # noqa: BLE001  (zipfile, JSON or NumPy rejecting damaged bytes)
            raise reader.corrupt(f"{type(error).__name__}: {error}") from None


def _load_npz(data, source):
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
            return {name: new_tensor(np.array(arrays[name])) for name in arrays.files}
    except (ValueError, OSError, zipfile.BadZipFile) as error:
        raise RuntimeError(f"ember.load: {source} is a damaged .npz file ({error})") from None
