"""`make_tensor`: a random tensor of a given shape and dtype for tests, as PyTorch's."""

import math

import numpy as np

__all__ = ["make_tensor"]


def make_tensor(
    *shape,
    dtype,
    device,
    low=None,
    high=None,
    requires_grad=False,
    noncontiguous=False,
    exclude_zero=False,
    memory_format=None,
):
    """A tensor filled with random values from `[low, high)`.

    Args:
        shape: the sizes, as separate ints or one sequence.
        dtype, device: required, as in PyTorch.
        low, high: the range; defaults per kind as PyTorch's: bool [0, 1], uint8 [0, 9], other integers
            [-9, 9], floating and complex [-9, 9) (real and imaginary parts alike). Integer bounds are
            rounded up (`high` exclusive), and both are clamped to the dtype's range.
        requires_grad: make a leaf that requires grad (floating and complex dtypes only).
        noncontiguous: return a tensor with the same values that is not contiguous in memory.
        exclude_zero: replace zeros with the smallest positive value of the dtype (1 for integers).
        memory_format: accepted (ember has one memory format).

    Example::

        x = make_tensor(2, 3, dtype=ember.float32, device="cpu", low=-1, high=1)
    """
    from .. import bool as bool_dtype, uint8

    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    shape = tuple(int(size) for size in shape)
    kind = (
        "bool"
        if dtype is bool_dtype
        else "complex"
        if dtype.is_complex
        else "float"
        if dtype.is_floating_point
        else "int"
    )
    low, high = _range(kind, dtype, low, high, is_uint8=dtype is uint8)
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:  # as PyTorch: twice as wide, then every other column from the second
        shape = shape[:-1] + (2 * shape[-1],)
    result = _draw(kind, dtype, shape, low, high).to(device)
    if noncontiguous:
        result = result[..., 1::2]
    if exclude_zero:
        replacement = 1 if kind in ("int", "bool") else float(np.finfo(result.numpy().dtype).tiny)
        result[result == 0] = replacement
    if requires_grad:
        result.requires_grad_(True)
    return result


def _draw(kind, dtype, shape, low, high):
    """PyTorch's draws for `make_tensor` (`randint`, or `uniform_` on the real view), so a seeded test
    gets PyTorch's tensor."""
    from .. import empty, full, randint, tensor

    if kind in ("bool", "int"):
        low, high = math.ceil(low), math.ceil(high)
        if high <= low:
            return full(shape, low, dtype=dtype)
        return randint(low, high, shape, dtype=dtype)
    component = dtype.to_real() if kind == "complex" else dtype
    parts = empty(shape + ((2,) if kind == "complex" else ()), dtype=component)
    if high - low >= float(np.finfo(parts.numpy().dtype).max):
        parts.uniform_(low / 2, high / 2).mul_(2)
    else:
        parts.uniform_(low, high)
    if kind == "complex":
        pairs = parts.numpy()
        return tensor(pairs[..., 0] + 1j * pairs[..., 1], dtype=dtype)
    return parts


def _range(kind, dtype, low, high, is_uint8):
    defaults = {"bool": (0, 2), "int": (0 if is_uint8 else -9, 10), "float": (-9, 9), "complex": (-9, 9)}
    default_low, default_high = defaults[kind]
    for name, value in (("low", low), ("high", high)):
        if value is not None and isinstance(value, float) and math.isnan(value):
            raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    low = default_low if low is None else low
    high = default_high if high is None else high
    if low > high:
        raise ValueError(f"`low` must be less than or equal to `high`, but got {low} > {high}")
    if kind == "int":
        info = np.iinfo(np.dtype(str(dtype).replace("torch.", "")))
        low, high = max(low, info.min), min(high, info.max)
    elif kind in ("float", "complex"):
        info = np.finfo(np.dtype(str(dtype).replace("torch.", "")))
        low, high = max(low, float(info.min)), min(high, float(info.max))
    return low, high
