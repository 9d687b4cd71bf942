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
    from .. import tensor as make, bool as bool_dtype, uint8

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
    rng = _generator()
    if kind == "bool":
        values = rng.integers(0, 2, size=shape).astype(bool)
    elif kind == "int":
        values = (
            rng.integers(math.ceil(low), math.ceil(high), size=shape, endpoint=False)
            if math.ceil(high) > math.ceil(low)
            else np.full(shape, math.ceil(low))
        )
    else:
        values = rng.uniform(low, high, size=shape)
        if kind == "complex":
            values = values + 1j * rng.uniform(low, high, size=shape)
    result = make(values, dtype=dtype, device=device)
    if exclude_zero:
        replacement = 1 if kind in ("int", "bool") else float(np.finfo(result.numpy().dtype).tiny)
        result[result == 0] = replacement
    if noncontiguous and result.numel() > 1:
        doubled = result.repeat_interleave(2, dim=-1)
        result = doubled[..., ::2]
    if requires_grad:
        result.requires_grad_(True)
    return result


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


def _generator():
    """NumPy's generator behind ember's default one, so `manual_seed` makes tests repeatable."""
    from ..ops.creation import default_generator

    return default_generator.rng
