"""`Tensor.apply_` and `Tensor.map_`: a Python callable run on every element, in place. Slow by
nature and outside autograd, as in PyTorch (CPU tensors only; refused on tensors that require grad)."""

from .._backend import np
from .._tensor import Tensor
from ._declare import op

__all__ = []  # Tensor methods only


def _check(tensor, op_name):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{op_name}: expected a Tensor, got {type(tensor).__name__}")
    if tensor._requires_grad:
        raise RuntimeError(
            f"Can't call {op_name}() on Variable that requires grad. Use var.detach().{op_name}() instead."
        )


def _store(tensor, values):
    tensor._data[...] = np.asarray(values, dtype=object).astype(tensor._data.dtype).reshape(tensor._data.shape)
    tensor._bump_version()
    return tensor


@op(method=True)
def apply_(input, callable):  # noqa: A002 - PyTorch's name
    """Replace each element `v` by `callable(v)` (a Python number in, a number out)."""
    _check(input, "apply_")
    return _store(input, [callable(value) for value in input._data.reshape(-1).tolist()])


@op(method=True)
def map_(input, tensor, callable):  # noqa: A002 - PyTorch's name
    """Replace each element `v` by `callable(v, w)`, `w` the element of `tensor` (broadcast) there."""
    _check(input, "map_")
    if not isinstance(tensor, Tensor):
        raise TypeError(f"map_(): argument 'tensor' must be Tensor, not {type(tensor).__name__}")
    others = np.broadcast_to(tensor._data, input._data.shape).reshape(-1).tolist()
    return _store(input, [callable(a, b) for a, b in zip(input._data.reshape(-1).tolist(), others)])
