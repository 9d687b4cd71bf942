"""Undoing broadcasting: the one place where a gradient is summed back to an input's shape."""

from .._backend import np, broadcast_view
from .. import _precision
from .._size import Size
from ..autograd.function import Primitive
from ._tangents import linear_jvp
from ._declare import op

__all__ = ["sum_to_shape", "is_expandable_to", "broadcast_shapes"]


def is_expandable_to(shape, target):
    """True when `shape` broadcasts to `target` (NumPy's rules, trailing dimensions first)."""
    if len(shape) > len(target):
        return False
    for size, target_size in zip(reversed(shape), reversed(target)):
        if size != 1 and size != target_size:
            return False
    return True


def broadcast_shapes(*shapes):
    """The shape that tensors of the given shapes broadcast to (RuntimeError naming them if they do not)."""
    try:
        return Size(np.broadcast_shapes(*[tuple(shape) for shape in shapes]))
    except ValueError:
        raise RuntimeError(
            f"shape mismatch: objects cannot be broadcast to a single shape: "
            f"{', '.join(str(list(shape)) for shape in shapes)}"
        ) from None


def _sum_array_to_shape(array, shape):
    extra = array.ndim - len(shape)
    axes = tuple(range(extra)) + tuple(
        extra + index for index, size in enumerate(shape) if size == 1 and array.shape[extra + index] != 1
    )
    if axes:
        array = _precision.add_reduce(array, axes, keepdims=True)
    if extra:
        array = array.reshape(shape)
    return array


class SumToSize(Primitive, node="SumToSizeBackward0", backward_on_arrays=True):
    """Sum a broadcast gradient back to `shape`; its own backward broadcasts again."""

    @staticmethod
    def forward(ctx, array, shape):
        ctx.input_shape = array.shape
        return _sum_array_to_shape(array, shape)

    @staticmethod
    def backward(ctx, grad):
        if isinstance(grad, np.ndarray):  # a first-order backward on arrays (see autograd.function)
            return broadcast_view(grad, ctx.input_shape), None
        from .shape import expand

        return expand(grad, ctx.input_shape), None

    jvp = linear_jvp


def sum_to_shape(tensor, shape):
    """Sum `tensor` over the dimensions that broadcasting added or stretched, giving `shape`.

    An array (a first-order backward running on arrays, see autograd.function) is summed directly."""
    shape = tuple(shape)
    if isinstance(tensor, np.ndarray):
        return tensor if tensor.shape == shape else _sum_array_to_shape(tensor, shape)
    if isinstance(tensor, np.generic):  # 0-d array arithmetic gives NumPy scalars: still an array result
        return tensor if shape == () else _sum_array_to_shape(np.asarray(tensor), shape)
    if tensor._data.shape == shape:
        return tensor
    return SumToSize.apply(tensor, shape)


@op(method=True)
def sum_to_size(tensor, *size):
    """`Tensor.sum_to_size`: as PyTorch's."""
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    if not is_expandable_to(shape, tensor._data.shape):
        raise RuntimeError(f"size {list(shape)} is not expandable to size {list(tensor.shape)}")
    return sum_to_shape(tensor, shape)
