"""Reading pickled dataset files (CIFAR's batches) without letting them run code.

A pickle names the callables that rebuild it; an ordinary `pickle.load` imports and calls whatever it
names (`os.system` included). This unpickler resolves only the few names that NumPy arrays and plain
containers need, so a file can rebuild dicts, lists, strings, numbers and NumPy arrays of numbers,
and nothing else.
"""

import codecs
import collections
import pickle

from ..._backend import np


def _numpy_rebuilders():
    """The functions NumPy's own pickles name, taken from NumPy itself (their module moved in NumPy 2)."""
    reconstruct = np.zeros(1).__reduce__()[0]  # protocols 0-4: _reconstruct + ndarray.__setstate__
    from_buffer = np.zeros(1).__reduce_ex__(5)[0]  # protocol 5: _frombuffer
    allowed = {
        ("numpy", "ndarray"): np.ndarray,
        ("numpy", "dtype"): np.dtype,
        ("_codecs", "encode"): codecs.encode,  # how protocol 2 stores bytes written by Python 3
        ("collections", "OrderedDict"): collections.OrderedDict,
    }
    for package in ("numpy.core", "numpy._core"):
        allowed[(f"{package}.multiarray", "_reconstruct")] = reconstruct
        allowed[(f"{package}.numeric", "_frombuffer")] = from_buffer
    return allowed


_ALLOWED = _numpy_rebuilders()


class RefusedGlobal(pickle.UnpicklingError):
    """The pickle names a callable outside the allowed set."""


class RestrictedUnpickler(pickle.Unpickler):
    """An Unpickler that refuses every global except those NumPy arrays and plain containers need."""

    def find_class(self, module, name):
        try:
            return _ALLOWED[(module, name)]
        except KeyError:
            raise RefusedGlobal(
                f"refusing to load {module}.{name}: this file may only hold plain containers and NumPy arrays "
                "(a dataset file that names other objects is damaged or not what it claims to be)"
            ) from None


def _check_no_objects(value, path):
    """Object arrays could hide arbitrary values: a dataset file never needs them."""
    if isinstance(value, np.ndarray) and value.dtype.hasobject:
        raise RefusedGlobal(f"{path}: holds a NumPy array of Python objects, which datasets never need")
    if isinstance(value, dict):
        for item in value.values():
            _check_no_objects(item, path)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _check_no_objects(item, path)


def load(path, encoding="latin1"):
    """Unpickle `path` with RestrictedUnpickler; RuntimeError naming the file when it is damaged or refused."""
    try:
        with open(path, "rb") as file:
            value = RestrictedUnpickler(file, encoding=encoding).load()
        _check_no_objects(value, path)
    except RefusedGlobal as error:
        raise RuntimeError(f"could not load {path}: {error}") from None
    except (
        pickle.UnpicklingError,
        EOFError,
        ValueError,
        TypeError,
        IndexError,
        KeyError,
        AttributeError,
        UnicodeDecodeError,
    ) as error:
        raise RuntimeError(
            f"could not load {path}: the file is truncated or damaged ({type(error).__name__}: "
            f"{error}); delete it and download it again"
        ) from None
    return value
