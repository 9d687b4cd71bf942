"""`assert_close`: PyTorch's test assertion, with its default tolerances and its messages.

Tensors (and NumPy arrays, compared with each other) are checked attribute by attribute (shape,
device, dtype, layout, optionally stride) and then element by element with
`|actual - expected| <= atol + rtol * |expected|`; Python numbers likewise; sequences and mappings
are compared item by item, and a failure names the item.
"""

from collections.abc import Mapping, Sequence

import numpy as np

from .._tensor import Tensor
from .._warn import warn as _warn

__all__ = ["assert_close", "assert_allclose"]

# (rtol, atol) per dtype when neither is given, as PyTorch's; other dtypes compare exactly.
_DEFAULT_TOLERANCES = {
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
    "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
    "complex32": (1e-3, 1e-5),
    "complex64": (1.3e-6, 1e-5),
    "complex128": (1e-7, 1e-7),
}


class _Mismatch(Exception):
    """A failed comparison, raised as `kind` with `message` once the item's place is known."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind, self.message = kind, message


def assert_close(
    actual,
    expected,
    *,
    allow_subclasses=True,
    rtol=None,
    atol=None,
    equal_nan=False,
    check_device=True,
    check_dtype=True,
    check_layout=True,
    check_stride=False,
    msg=None,
):
    """Assert that `actual` and `expected` are close: tensors, NumPy arrays, Python numbers, or
    sequences / mappings of them (compared item by item).

    Args:
        rtol, atol: relative and absolute tolerance; give both or neither. When omitted they depend on
            the dtype: float16 1e-3 / 1e-5, bfloat16 1.6e-2 / 1e-5, float32 1.3e-6 / 1e-5,
            float64 1e-7 / 1e-7 (complex alike), and 0 / 0 (exact) for integers and bool.
        equal_nan: treat two NaNs as equal.
        allow_subclasses: a Parameter may be compared with a Tensor (with False, the types must match).
        check_device, check_dtype, check_layout, check_stride: which attributes must match first. With
            `check_dtype=False` both sides are promoted to a common dtype and the looser tolerance is used.
        msg: a message to raise instead of the generated one, or a callable mapping the generated
            message to the one raised.

    Raises:
        AssertionError: with PyTorch's message ("Tensor-likes are not close!", the number of mismatched
            elements and the greatest absolute and relative differences with their indices).
        TypeError: for inputs that cannot be compared (a tensor with a list, strings ...).
        ValueError: when only one of rtol / atol is given.

    Example::

        assert_close(model(x), expected)                   # float32: rtol 1.3e-6, atol 1e-5
        assert_close(loss, ember.tensor(0.25), rtol=0, atol=1e-4)
    """
    if (rtol is None) != (atol is None):
        raise ValueError(
            f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
            f"{'rtol' if rtol is None else 'atol'}."
        )
    options = {
        "allow_subclasses": allow_subclasses,
        "rtol": rtol,
        "atol": atol,
        "equal_nan": equal_nan,
        "check_device": check_device,
        "check_dtype": check_dtype,
        "check_layout": check_layout,
        "check_stride": check_stride,
    }
    try:
        _compare(actual, expected, options, "")
    except _Mismatch as mismatch:
        message = mismatch.message
        if msg is not None and mismatch.kind is AssertionError:
            message = msg(message) if callable(msg) else msg
        raise mismatch.kind(message) from None


def _compare(actual, expected, options, path):
    if actual is None or expected is None:
        if actual is None and expected is None:
            return
        raise _Mismatch(
            AssertionError,
            f"None mismatch: {actual} is not None" if expected is None else f"None mismatch: {expected} is not None",
        )
    if _is_tensor_like(actual) or _is_tensor_like(expected) or _is_number(actual) or _is_number(expected):
        try:
            _compare_leaf(actual, expected, options)
        except _Mismatch as mismatch:
            if path and mismatch.kind is AssertionError:
                mismatch.message += f"\n\nThe failure occurred for item {path}"
            raise
        return
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        missing, extra = set(expected) - set(actual), set(actual) - set(expected)
        if missing or extra:
            raise _Mismatch(
                AssertionError,
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(missing, key=repr)}\n"
                f"Additional keys in the actual mapping: {sorted(extra, key=repr)}",
            )
        for key in expected:
            _compare(actual[key], expected[key], options, f"{path}[{key!r}]")
        return
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Mismatch(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}")
        for index, (first, second) in enumerate(zip(actual, expected)):
            _compare(first, second, options, f"{path}[{index}]")
        return
    raise _unsupported(actual, expected)


def _is_sequence(value):
    return isinstance(value, Sequence) and not isinstance(value, str)


def _is_number(value):
    return isinstance(value, (bool, int, float, complex, np.number, np.bool_))


def _is_tensor_like(value):
    return isinstance(value, (Tensor, np.ndarray))


def _unsupported(actual, expected):
    return _Mismatch(
        TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}."
    )


def _compare_leaf(actual, expected, options):
    if _is_number(actual) and _is_number(expected):
        if type(actual) is not type(expected) and options["check_dtype"]:
            raise _Mismatch(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.")
        _compare_values(
            np.asarray(actual),
            np.asarray(expected),
            _number_dtype_name(actual),
            _number_dtype_name(expected),
            options,
            scalar=True,
        )
        return
    if not (_is_tensor_like(actual) and _is_tensor_like(expected)):
        raise _unsupported(actual, expected)
    same_type = type(actual) is type(expected)
    related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
    if not (same_type or options["allow_subclasses"] and related):
        raise _unsupported(actual, expected)
    _check_attributes(actual, expected, options)
    actual_array, expected_array = _array_of(actual), _array_of(expected)
    _compare_values(
        actual_array, expected_array, _dtype_name(actual), _dtype_name(expected), options, scalar=actual_array.ndim == 0
    )


def _array_of(value):
    if not isinstance(value, Tensor):
        return value
    array = value.detach()._data
    # bfloat16 and float8 (ml_dtypes) widen exactly to float32, where NumPy's maths is complete
    return array.astype(np.float32) if array.dtype.kind == "V" else array


def _dtype_name(value):
    return str(value.dtype).replace("torch.", "")


def _number_dtype_name(value):
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, np.integer)):
        return "int64"
    return "complex128" if isinstance(value, complex) else "float64"


def _check_attributes(actual, expected, options):
    checks = [("shape", lambda value: value.shape)]
    if isinstance(actual, Tensor):
        if options["check_device"]:
            checks.append(("device", lambda value: value.device))
        if options["check_dtype"]:
            checks.append(("dtype", lambda value: value.dtype))
        if options["check_layout"]:
            checks.append(("layout", lambda value: value.layout))
        if options["check_stride"]:
            checks.append(("stride()", lambda value: value.stride()))
    elif options["check_dtype"]:
        checks.append(("dtype", lambda value: value.dtype))
    for name, get in checks:
        first, second = get(actual), get(expected)
        if first != second:
            raise _Mismatch(AssertionError, f"The values for attribute '{name}' do not match: {first} != {second}.")


def _tolerances(first_dtype, second_dtype, options):
    if options["rtol"] is not None:
        return options["rtol"], options["atol"]
    first = _DEFAULT_TOLERANCES.get(first_dtype, (0.0, 0.0))
    second = _DEFAULT_TOLERANCES.get(second_dtype, (0.0, 0.0))
    return max(first[0], second[0]), max(first[1], second[1])


def _compare_values(actual, expected, actual_dtype, expected_dtype, options, scalar):
    rtol, atol = _tolerances(actual_dtype, expected_dtype, options)
    if actual.dtype != expected.dtype:
        common = np.result_type(actual, expected)
        actual, expected = actual.astype(common), expected.astype(common)
    if actual.dtype == np.bool_:
        matches = actual == expected
    else:
        matches = _isclose(actual, expected, rtol, atol, options["equal_nan"])
    if matches.all():
        return
    equality = rtol == 0 and atol == 0
    if scalar:
        raise _Mismatch(AssertionError, _scalar_message(actual, expected, rtol, atol, equality))
    raise _Mismatch(AssertionError, _tensor_message(actual, expected, matches, rtol, atol, equality))


def _isclose(actual, expected, rtol, atol, equal_nan):
    kind = actual.dtype.kind
    if kind not in "fc":
        difference = np.abs(actual.astype(np.int64) - expected.astype(np.int64))
        return difference <= atol + rtol * np.abs(expected.astype(np.int64))
    with np.errstate(invalid="ignore", over="ignore"):
        close = actual == expected  # also equal infinities
        finite = np.isfinite(actual) & np.isfinite(expected)
        close |= finite & (np.abs(actual - expected) <= atol + rtol * np.abs(expected))
    if equal_nan:
        close |= np.isnan(actual) & np.isnan(expected)
    return close


def _difference_message(kind, difference, index, tolerance, equality):
    text = (
        f"{kind.title()} difference: {difference}"
        if index is None
        else f"Greatest {kind} difference: {difference} at index {index}"
    )
    return text if equality else text + f" (up to {tolerance} allowed)"


def _scalar_message(actual, expected, rtol, atol, equality):
    actual, expected = actual.item(), expected.item()
    absolute = abs(actual - expected)
    relative = absolute / abs(expected) if expected != 0 else float("inf")
    return "\n".join(
        [
            f"Scalars are not {'equal' if equality else 'close'}!",
            "",
            f"Expected {expected} but got {actual}.",
            _difference_message("absolute", absolute, None, atol, equality),
            _difference_message("relative", relative, None, rtol, equality),
        ]
    )


def _tensor_message(actual, expected, matches, rtol, atol, equality):
    total, mismatched = matches.size, int(matches.size - matches.sum())
    actual_flat, expected_flat, matches_flat = actual.reshape(-1), expected.reshape(-1), matches.reshape(-1)
    if actual.dtype.kind not in "fcV":
        actual_flat, expected_flat = actual_flat.astype(np.int64), expected_flat.astype(np.int64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        absolute = np.abs(actual_flat - expected_flat)
        absolute[matches_flat] = 0
        if absolute.dtype.kind == "i":  # PyTorch divides integers into the default float dtype
            relative = absolute.astype(np.float32) / np.abs(expected_flat).astype(np.float32)
        else:
            relative = absolute / np.abs(expected_flat)
        relative[matches_flat] = 0
    absolute_index, relative_index = _argmax(absolute), _argmax(relative)
    return "\n".join(
        [
            f"Tensor-likes are not {'equal' if equality else 'close'}!",
            "",
            f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})",
            _difference_message(
                "absolute", absolute[absolute_index].item(), _unravel(absolute_index, actual.shape), atol, equality
            ),
            _difference_message(
                "relative", relative[relative_index].item(), _unravel(relative_index, actual.shape), rtol, equality
            ),
        ]
    )


def _argmax(values):
    """Where the maximum is, NaN counting as the largest (as torch.max does)."""
    if values.dtype.kind in "fV":
        nan = np.flatnonzero(np.isnan(values))
        if nan.size:
            return int(nan[0])
    return int(np.argmax(values))


def _unravel(flat_index, shape):
    return tuple(int(item) for item in np.unravel_index(flat_index, shape)) if shape else ()


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated PyTorch spelling: use `assert_close`. Non-tensor inputs are turned into tensors first."""
    _warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
        "release. Please use `torch.testing.assert_close()` instead. You can find detailed upgrade "
        "instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning,
        stacklevel=2,
    )
    from .. import as_tensor

    actual = actual if isinstance(actual, Tensor) else as_tensor(actual)
    expected = expected if isinstance(expected, Tensor) else as_tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = _tolerances(_dtype_name(actual), _dtype_name(expected), {"rtol": None})
    assert_close(
        actual,
        expected,
        rtol=rtol,
        atol=atol,
        equal_nan=equal_nan,
        check_device=True,
        check_dtype=False,
        check_stride=False,
        msg=msg or None,
    )
