"""Discrete calculus along a dim: finite differences (`diff`), the sampled derivative (`gradient`) and
the trapezoidal rule (`trapezoid`, `trapz`, `cumulative_trapezoid`). Composites of slicing,
arithmetic and sums, so their gradients come from those ops."""

from .._tensor import Tensor
from .. import _dtype
from ._common import normalize_dim
from ._declare import op
from .joining import cat, narrow

__all__ = ["diff", "gradient", "trapezoid", "trapz", "cumulative_trapezoid"]


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


@op()
def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """The derivative of samples `input` along each dim in `dim` (all by default), one tensor per dim:
    central differences inside, one-sided ones of order `edge_order` (1 or 2) at the two ends.
    `spacing` is one distance between samples, one per dim, or one 1-D tensor of coordinates per dim."""
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    ndim = input._data.ndim
    dims = _gradient_dims(dim, ndim)
    spacings = _gradient_spacings(spacing, dims)
    y = _floating(input)
    for axis in dims:
        if y._data.shape[axis] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    return tuple(_sampled_derivative(y, axis, step, edge_order) for axis, step in zip(dims, spacings))


def _gradient_dims(dim, ndim):
    if dim is None:
        return list(range(ndim))
    dims = [normalize_dim(d, ndim, "gradient") for d in ([dim] if isinstance(dim, int) else dim)]
    for d in dims:
        if dims.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return dims


def _gradient_spacings(spacing, dims):
    if isinstance(spacing, Tensor):
        if spacing._data.ndim != 0:
            raise TypeError(
                "gradient(): spacing must be a number, a list of numbers or a tuple of 1-D coordinate tensors "
                f"(one per dim), not a {spacing._data.ndim}-D tensor; wrap it as spacing=(coordinates,)"
            )
        spacing = spacing.item()
    if not isinstance(spacing, (list, tuple)):
        return [spacing] * len(dims)
    if len(spacing) != len(dims):
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim arguments to have "
            f"the same length, but got a spacing argument of length {len(spacing)} and a dim argument of length "
            f"{len(dims)}."
        )
    for step in spacing:
        if isinstance(step, Tensor) and step._data.ndim != 1:
            raise RuntimeError(
                "torch.gradient expected each element of spacing to have one dimension, but got an element with "
                f"{step._data.ndim} dimensions!"
            )
    return list(spacing)


def _sampled_derivative(y, dim, step, edge_order):
    """numpy.gradient's formulas along one dim: `step` a distance, or the coordinates of the samples."""
    n = y._data.shape[dim]

    def part(start, length=1):
        return narrow(y, dim, start, length)

    if isinstance(step, Tensor):
        if step._data.shape[0] != n:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
        x = _floating(step)
        shape = [1] * y._data.ndim
        shape[dim] = n - 2
        before, after = x[1:-1] - x[:-2], x[2:] - x[1:-1]  # distances to the neighbours of each inner sample
        inner = (
            part(0, n - 2) * (-after / (before * (before + after))).reshape(shape)
            + part(1, n - 2) * ((after - before) / (before * after)).reshape(shape)
            + part(2, n - 2) * (before / (after * (before + after))).reshape(shape)
        )
        first_gap, second_gap, last_gap, gap_before_last = x[1] - x[0], x[2] - x[1], x[-1] - x[-2], x[-2] - x[-3]
    else:
        inner = (part(2, n - 2) - part(0, n - 2)) / (2 * step)
        first_gap = second_gap = last_gap = gap_before_last = step
    if edge_order == 1:
        first = (part(1) - part(0)) / first_gap
        last = (part(n - 1) - part(n - 2)) / last_gap
    else:
        a, b = first_gap, second_gap
        first = (
            part(0) * (-(2 * a + b) / (a * (a + b))) + part(1) * ((a + b) / (a * b)) + part(2) * (-a / (b * (a + b)))
        )
        a, b = gap_before_last, last_gap
        last = (
            part(n - 3) * (b / (a * (a + b)))
            + part(n - 2) * (-(a + b) / (a * b))
            + part(n - 1) * ((2 * b + a) / (b * (a + b)))
        )
    return cat([first, inner, last], dim)


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
