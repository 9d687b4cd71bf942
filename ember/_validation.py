"""Argument checks shared by every creation op, shape op and layer, so none silently does the wrong thing.

One helper per kind of fault, each raising PyTorch's exception class with a message that names the
op and argument:
- sizes must be ints (`ones(2.5)`, `nn.Linear(2.5, 2)`: TypeError, never a truncated size);
- Python numbers must fit the integer dtype they go into (`tensor([2**63])`, `full((1,), 300,
  dtype=int8)`: ValueError / RuntimeError, never a wrapped value);
- nested lists must be rectangular (`tensor([[1, 2, 3], [4]])`: PyTorch's "expected sequence of
  length 3 at dim 1 (got 1)");
- an allocation that cannot succeed raises RuntimeError naming the bytes requested (a user's
  `except RuntimeError` catches it, as with PyTorch), not NumPy's MemoryError or ValueError.
"""

import operator

import numpy as np

__all__ = [
    "int_argument",
    "check_int_arguments",
    "size_argument",
    "check_python_ints",
    "check_fits",
    "rectangular_shape",
    "allocate",
    "allocation_error",
]

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_MAX_BYTES = np.iinfo(np.intp).max


# ---------------------------------------------------------------- integer arguments and sizes
def int_argument(value, op_name, argument, position=None):
    """`value` as an int: Python ints, NumPy integers and one-element integer tensors (`__index__`);
    bools, floats and everything else raise TypeError naming `op_name` and `argument`."""
    if type(value) is int:
        return value
    if not isinstance(value, bool) and not isinstance(value, (float, complex, str)):
        try:
            return operator.index(value)
        except TypeError:
            pass
    where = "" if position is None else f" (position {position})"
    raise TypeError(f"{op_name}(): argument '{argument}'{where} must be int, not {type(value).__name__}")


def check_int_arguments(owner, **arguments):
    """TypeError naming `owner` (a layer or op) for the first argument that is not an int, or a tuple
    of ints: `nn.Linear(2.5, 2)` must not build a layer whose sizes were silently truncated. Strings
    (padding='same') and None pass: their meaning is the owner's to check."""
    for argument, value in arguments.items():
        for item in value if isinstance(value, (tuple, list)) else (value,):
            if item is not None and not isinstance(item, str) and not _is_int_like(item):
                raise TypeError(
                    f"{owner}: argument '{argument}' must be int"
                    + (" or a tuple of ints" if isinstance(value, (tuple, list)) else "")
                    + f", not {type(item).__name__} ({value!r})"
                )


def size_argument(size, op_name, argument="size"):
    """The shape meant by `f(2, 3)`, `f((2, 3))`, `f([2, 3])` or `f(Size([2, 3]))` as a tuple of ints.

    `size` is the tuple of positional arguments. Floats are refused (a size of 2.5 is a bug, not 2),
    as are bools, with PyTorch's TypeError wording. Negative entries are left to the caller (-1
    means "infer" for reshape and "keep" for expand).
    """
    if len(size) == 1 and not _is_int_like(size[0]):
        sequence = size[0]
        if not isinstance(sequence, (tuple, list)):
            raise TypeError(
                f"{op_name}(): argument '{argument}' (position 1) must be tuple of ints, not {type(sequence).__name__}"
            )
        size = sequence
    result = []
    for position, item in enumerate(size):
        if type(item) is not int:
            if not _is_int_like(item):
                raise TypeError(
                    f"{op_name}(): argument '{argument}' must be tuple of ints, but found element of "
                    f"type {type(item).__name__} at pos {position}"
                )
            item = operator.index(item)
        result.append(item)
    return tuple(result)


def _is_int_like(value):
    if type(value) is int:
        return True
    if isinstance(value, (bool, float, complex, str, tuple, list)):
        return False
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


# ---------------------------------------------------------------- numbers that must fit their dtype
def check_python_ints(data, limit=_INT64_MAX):
    """For nested lists `data` of Python numbers: True if they hold a float or complex (then PyTorch
    makes a floating tensor and any int fits); otherwise ValueError, as PyTorch's, for an int outside
    int64 (or below `limit`+1), and False.

    PyTorch unpacks every Python int as a C long long; NumPy instead picks uint64, float64 or object
    arrays (or wraps), which is how `tensor([2**63])` became -9223372036854775808.
    """
    stack, too_big = [data], None
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, (float, complex)):
            return True
        elif too_big is None and isinstance(item, int) and not _INT64_MIN <= item <= limit:
            too_big = item
    if too_big is not None:
        raise ValueError(
            f"Overflow when unpacking long long: {too_big} does not fit in int64, the type "
            "Python ints are stored in (a floating dtype, e.g. dtype=ember.float64, takes it)"
        )
    return False


def check_fits(values, numpy_dtype, op_name):
    """RuntimeError, as PyTorch's, when a number in `values` (a Python number, a list of them or an
    array) cannot be stored in the integer dtype `numpy_dtype` without wrapping. Unsigned targets
    accept -max..max, as PyTorch (-1 becomes 255 in uint8). Float, complex and bool targets take any
    value (a float16 overflow is inf in PyTorch too)."""
    numpy_dtype = np.dtype(numpy_dtype)
    if numpy_dtype.kind not in "iu":
        return
    info = np.iinfo(numpy_dtype)
    low, high = (-int(info.max) if numpy_dtype.kind == "u" else int(info.min)), int(info.max)
    numbers = values if isinstance(values, (list, tuple)) else [values]
    for value in numbers:
        if isinstance(value, np.ndarray):
            _check_array_fits(value, numpy_dtype, low, high, op_name)
            continue
        if isinstance(value, np.generic):
            value = value.item()
        if isinstance(value, complex):
            value = value.real
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        # Exact for Python ints; floats compare with the bounds as floats (2**63 is exact, 2**63-1 is not).
        if (
            isinstance(value, float)
            and not (float(low) <= value < float(high + 1))
            or isinstance(value, int)
            and not low <= value <= high
        ):
            _raise_overflow(value, numpy_dtype, low, high, op_name)


def _check_array_fits(array, numpy_dtype, low, high, op_name):
    if (
        array.size == 0
        or array.dtype.kind not in "iufcO"
        or array.dtype.kind in "iu"
        and np.can_cast(array.dtype, numpy_dtype)
    ):
        return
    if array.dtype.kind == "c":
        array = array.real
    smallest, largest = array.min(), array.max()
    if array.dtype.kind in "fV":
        if not np.isfinite(smallest) or smallest < float(low):
            _raise_overflow(smallest, numpy_dtype, low, high, op_name)
        if not np.isfinite(largest) or largest >= float(high + 1):
            _raise_overflow(largest, numpy_dtype, low, high, op_name)
        return
    for value in (smallest, largest):
        if not low <= int(value) <= high:
            _raise_overflow(value, numpy_dtype, low, high, op_name)


def _raise_overflow(value, numpy_dtype, low, high, op_name):
    raise RuntimeError(
        f"value cannot be converted to type {numpy_dtype.name} without overflow "
        f"({op_name}: {_number(value)} is outside [{low}, {high}])"
    )


def _number(value):
    return value.item() if hasattr(value, "item") else value


# ---------------------------------------------------------------- nested sequences
def rectangular_shape(data):
    """Raise PyTorch's error for the first place where nested sequences `data` are not rectangular.

    The expected length at each depth is that of the first sequence found there, as in PyTorch:
    `[[1, 2, 3], [4]]` gives "expected sequence of length 3 at dim 1 (got 1)".
    """
    expected = []
    item = data
    while _is_sequence(item):
        expected.append(len(item))
        if not len(item):
            break
        item = item[0]
    _check_level(data, 0, expected)


def _check_level(sequence, dim, expected):
    if dim >= len(expected):
        if _is_sequence(sequence):
            raise TypeError(
                f"expected a number at dim {dim} (got a {type(sequence).__name__} of length "
                f"{len(sequence)}): the nested lists are deeper here than in their first element"
            )
        return
    if not _is_sequence(sequence):
        raise TypeError(
            f"not a sequence: expected a sequence of length {expected[dim]} at dim {dim} (got "
            f"{type(sequence).__name__})"
        )
    if len(sequence) != expected[dim]:
        raise ValueError(f"expected sequence of length {expected[dim]} at dim {dim} (got {len(sequence)})")
    for item in sequence:
        _check_level(item, dim + 1, expected)


def _is_sequence(value):
    return isinstance(value, (list, tuple)) or (hasattr(value, "shape") and len(value.shape) > 0)


# ---------------------------------------------------------------- allocations
def allocate(make, shape, numpy_dtype, *args, **kwargs):
    """`make(shape, *args, **kwargs)` (np.zeros, np.empty, a random generator ...), with a failed
    allocation reported as PyTorch's RuntimeError naming the bytes requested."""
    try:
        return make(shape, *args, **kwargs)
    except (MemoryError, ValueError) as error:
        if isinstance(error, ValueError) and not _too_big(shape, numpy_dtype):
            raise
        raise allocation_error(shape, numpy_dtype) from None


def _too_big(shape, numpy_dtype):
    return _nbytes(shape, numpy_dtype) > _MAX_BYTES


def _nbytes(shape, numpy_dtype):
    count = 1
    for size in shape if isinstance(shape, (tuple, list)) else (shape,):
        count *= int(size)
    return count * np.dtype(numpy_dtype).itemsize


def allocation_error(shape, numpy_dtype):
    """PyTorch's RuntimeError for an allocation of `shape` x `numpy_dtype` that cannot be made."""
    shape = list(shape) if isinstance(shape, (tuple, list)) else [shape]
    nbytes = _nbytes(shape, numpy_dtype)
    what = f"a tensor of shape {shape} and dtype {np.dtype(numpy_dtype).name}"
    if nbytes > _MAX_BYTES:
        return RuntimeError(
            f"Storage size calculation overflowed with sizes={shape}: {what} would need "
            f"{nbytes} bytes, more than any machine can address"
        )
    return RuntimeError(
        f"[enforce fail at alloc_cpu.cpp] err == 0. DefaultCPUAllocator: can't allocate memory: "
        f"you tried to allocate {nbytes} bytes ({_human(nbytes)} for {what}). Error code 12 "
        "(Cannot allocate memory)"
    )


def _human(nbytes):
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if nbytes < 1024 or unit == "PiB":
            return f"{nbytes:.1f} {unit}" if unit != "bytes" else f"{nbytes} bytes"
        nbytes /= 1024
