"""Copies and dtype conversions: `to`, `clone`."""

from .._backend import device as Device, to_device
from .._validation import allocate
from .._tensor import Tensor
from .. import _dtype
from ..autograd.function import Primitive
from ._tangents import linear_jvp
from ._declare import op
from .._warn import warn as _warn

__all__ = ["to", "clone"]


class ToCopy(Primitive, node="ToCopyBackward0"):
    @staticmethod
    def forward(ctx, a, numpy_dtype):
        ctx.input_dtype = _dtype.from_numpy_dtype(a.dtype)
        if a.dtype.kind == "c" and numpy_dtype.kind not in "cb":
            a = a.real  # the real part, as PyTorch keeps (`to` warns the user; see below); bool: nonzero
        return a.astype(numpy_dtype)

    @staticmethod
    def backward(ctx, grad):
        if grad.dtype == ctx.input_dtype:
            return grad, None
        return ToCopy.apply(grad, ctx.input_dtype.numpy_dtype), None  # a real input takes the real part, silently

    jvp = linear_jvp


@op(ToCopy, method=True)
def to(input, *args, dtype=None, device=None, copy=False, non_blocking=False, memory_format=None):
    """Convert to a dtype (`x.to(ember.float64)`, `x.to(other)`); devices other than 'cpu' raise.

    Returns the tensor itself when nothing changes and `copy` is False, as PyTorch does. Trailing
    positional bools are `non_blocking` and `copy` (`x.to(ember.float64, False, True)`).
    """
    count = len(args)
    while count and isinstance(args[count - 1], bool):
        count -= 1
    leading, flags = args[:count], args[count:]
    if len(flags) > 2 or len(leading) > 2 or any(isinstance(arg, bool) for arg in leading):
        raise TypeError(
            f"to() received an invalid combination of arguments {args}; expected (device=None, "
            "dtype=None, non_blocking=False, copy=False) or (dtype or tensor, non_blocking=False, "
            "copy=False)"
        )
    if len(flags) == 2:
        copy = flags[1]
    for arg in leading:
        if isinstance(arg, Tensor):
            dtype = arg.dtype
        elif isinstance(arg, (str, Device, int)) and not (isinstance(arg, str) and arg.startswith("torch.")):
            device = arg  # an int is a device index, as in PyTorch
        elif arg is not None:
            dtype = arg
    to_device(device)
    if dtype is None:
        return clone(input) if copy else input
    target = _dtype.to_dtype(dtype)
    if input._data.dtype == target.numpy_dtype:
        return clone(input) if copy else input
    if input._data.dtype.kind == "c" and not target.is_complex and target.numpy_dtype.kind != "b":
        _warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=3)
    return ToCopy.apply(input, target.numpy_dtype)


class Clone(Primitive, node="CloneBackward0"):
    @staticmethod
    def forward(ctx, a):
        return allocate(lambda _: a.copy(), a.shape, a.dtype)

    @staticmethod
    def backward(ctx, grad):
        return grad

    jvp = linear_jvp


@op(Clone, method=True)
def clone(input, *, memory_format=None):
    """A copy with its own memory, still in the graph (gradients flow back to `input`)."""
    return Clone.apply(input)
