"""Discrete calculus along a dim: finite differences (`diff`) and the trapezoidal rule (`trapezoid`,
`trapz`, `cumulative_trapezoid`). Composites of slicing, subtraction and sums."""

from .._tensor import Tensor
from .. import _dtype
from ._common import normalize_dim
from ._declare import op
from .joining import cat, narrow

__all__ = ["diff", "trapezoid", "trapz", "cumulative_trapezoid"]


def _edge(tensor, name, input, dim):
    if tensor is None:
        return None
    if not isinstance(tensor, Tensor):
        raise TypeError(f"diff(): argument '{name}' must be Tensor, not {type(tensor).__name__}")
    if tensor._data.ndim != input._data.ndim:
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    return tensor


@op(method=True)
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The `n`-th forward difference along `dim` (`out[i] = x[i + 1] - x[i]`, applied `n` times;
    `logical_xor` for bool), after `prepend` and `append` are joined on at the ends."""
    if input._data.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    dim = normalize_dim(dim, input._data.ndim, "diff")
    prepend, append = _edge(prepend, "prepend", input, dim), _edge(append, "append", input, dim)
    if prepend is not None or append is not None:
        input = cat([t for t in (prepend, input, append) if t is not None], dim)
    for _ in range(n):
        length = input._data.shape[dim]
        if length == 0:
            break
        later, earlier = narrow(input, dim, 1, length - 1), narrow(input, dim, 0, length - 1)
        input = later.logical_xor(earlier) if input.dtype is _dtype.bool_ else later - earlier
    return input


def _floating(y):
    return y if y._data.dtype.kind in "fcV" else y.to(_dtype.get_default_dtype())


def _spacing(x, y, dim, op_name):
    """The widths between sample points: a number, or a tensor broadcastable against `y`'s pieces."""
    if not isinstance(x, Tensor):
        return x
    if x._data.ndim == 1:
        if x._data.shape[0] != y._data.shape[dim]:
            raise RuntimeError(f"{op_name}: There must be one `x` value for each sample point")
        widths = diff(x)
        shape = [1] * y._data.ndim
        shape[dim] = widths._data.shape[0]
        return widths.reshape(shape)
    return diff(x, dim=dim if x._data.ndim == y._data.ndim else -1)


def _check_arguments(y, x, dx, op_name):
    if x is not None and dx is not None:
        raise TypeError(f"{op_name}(): give the sample points `x` or the spacing `dx`, not both")
    if not isinstance(y, Tensor):
        raise TypeError(f"{op_name}(): argument 'y' (position 1) must be Tensor, not {type(y).__name__}")


@op()
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The integral of `y` along `dim` by the trapezoidal rule, with sample points `x` (a 1-d tensor
    or one broadcastable with `y`) or a constant spacing `dx` (default 1)."""
    _check_arguments(y, x, dx, "trapezoid")
    y = _floating(y)
    dim = normalize_dim(dim, y._data.ndim, "trapezoid")
    length = y._data.shape[dim]
    if length == 0:
        return y.sum(dim)
    ends = narrow(y, dim, 0, 1).squeeze(dim) + narrow(y, dim, length - 1, 1).squeeze(dim)
    if x is None:
        return (y.sum(dim) - ends * 0.5) * (1 if dx is None else dx)
    pairs = narrow(y, dim, 1, length - 1) + narrow(y, dim, 0, length - 1)
    return (_spacing(x, y, dim, "trapezoid") * pairs).sum(dim) / 2


@op()
def trapz(y, x=None, *, dx=None, dim=-1):
    """`trapezoid` under NumPy's older name."""
    return trapezoid(y, x, dx=dx, dim=dim)


@op()
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoidal integral of `y` along `dim` (one element shorter than `y` there)."""
    _check_arguments(y, x, dx, "cumulative_trapezoid")
    y = _floating(y)
    dim = normalize_dim(dim, y._data.ndim, "cumulative_trapezoid")
    length = y._data.shape[dim]
    if length == 0:
        return y
    pairs = narrow(y, dim, 1, length - 1) + narrow(y, dim, 0, length - 1)
    widths = 1 if x is None and dx is None else dx if x is None else _spacing(x, y, dim, "cumulative_trapezoid")
    return (pairs * widths / 2).cumsum(dim)
