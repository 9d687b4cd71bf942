"""Argument checks shared by the neural-network op families (conv, pooling, losses, ...)."""

from .. import _dtype
from .._backend import np
from .._tensor import Tensor

__all__ = []


# ================================================================ argument handling
def _ntuple(value, count, name, op_name):
    """An int or a sequence of `count` ints (PyTorch's `_pair`, `_triple`) as a tuple."""
    if isinstance(value, Tensor):
        value = value.tolist()
    if isinstance(value, (int, np.integer)):
        return (int(value),) * count
    try:
        values = tuple(int(v) for v in value)
    except TypeError:
        raise TypeError(
            f"{op_name}(): argument '{name}' must be an int or a tuple of {count} ints, got {value!r}"
        ) from None
    if len(values) == 1:
        return values * count
    if len(values) != count:
        raise RuntimeError(
            f"{op_name}(): expected {name} to be a single integer value or a list of {count} "
            f"values to match the convolution dimensions, but got {name}={list(values)}"
        )
    return values


def _check_tensor(value, name, op_name):
    if not isinstance(value, Tensor):
        raise TypeError(f"{op_name}(): argument '{name}' must be Tensor, not {type(value).__name__}")


def _check_same_dtype(input, other, other_name, op_name):
    if other is not None and other._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"{op_name}: Input type ({input.dtype}) and {other_name} type ({other.dtype}) should be "
            f"the same; convert one of them, e.g. input.to({other_name}.dtype)"
        )


def _check_floating(input, op_name):
    if input._data.dtype.kind not in "fV":
        raise NotImplementedError(
            f"\"{op_name}\" not implemented for '{_dtype.kernel_name(input.dtype)}': it needs "
            "a floating point input; convert it first, e.g. x.float()"
        )


def _batched(input, n, op_name):
    """(input with a batch dim, whether one was added): unbatched (C, *spatial) inputs are allowed."""
    ndim = input._data.ndim
    if ndim == n + 2:
        return input, False
    if ndim == n + 1:
        return input.unsqueeze(0), True
    raise RuntimeError(
        f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {op_name}, but got input of "
        f"size: {list(input.shape)}"
    )
