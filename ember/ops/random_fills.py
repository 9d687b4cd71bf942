"""In-place random fills: `x.normal_()`, `x.uniform_(-1, 1)`, `x.exponential_()`, ... (Tensor methods
only, as in PyTorch). `nn.init` and hand-written initializers use them.

Each draws PyTorch's samples from the seedable generator (`creation.default_generator` unless a
`generator=` is given), in the order PyTorch writes them (memory order), and copies them into the
tensor, so the tensor keeps its dtype, shape and identity (views of it see the new values).
"""

from .._backend import np
from .. import _dtype
from .._tensor import Tensor, new_tensor
from ..autograd import grad_mode
from .inplace import _check_leaf
from .creation import _engine
from . import _distribution_kernels as kernels
from ._declare import op

__all__ = []  # Tensor methods only: there is no `torch.normal_`.


def _fill(tensor, name, draw, generator, floating=True):
    """Replace `tensor`'s values by `draw(engine, count, numpy_dtype)`, a flat array laid out in memory
    order (PyTorch's iteration order, also for transposed or sliced tensors)."""
    if floating and not tensor.is_floating_point():
        raise NotImplementedError(
            f'"{name}_kernel_cpu" not implemented for \'{_dtype.kernel_name(tensor.dtype)}\': '
            f"{name}_() fills floating-point tensors; convert with .float() first"
        )
    if grad_mode.state.enabled:
        _check_leaf(tensor, f"{name}_")
    array = tensor._data
    numpy_dtype = array.dtype
    values = np.asarray(draw(_engine(generator), array.size, numpy_dtype)).astype(numpy_dtype, copy=False)
    with grad_mode.no_grad():
        tensor.copy_(new_tensor(_in_memory_order(values, array)))
    return tensor


def _in_memory_order(values, array):
    """`values` (flat, in the order of `array`'s memory) arranged in `array`'s shape."""
    if array.flags.c_contiguous or array.ndim < 2:
        return values.reshape(array.shape)
    axes = sorted(range(array.ndim), key=lambda axis: -abs(array.strides[axis]))
    return np.transpose(values.reshape([array.shape[axis] for axis in axes]), np.argsort(axes))


def _check_positive(value, name, what):
    if not value > 0:
        raise RuntimeError(f"{name}_ expects {what} > 0.0, but found {what}={value}")


@op(method=True)
def normal_(input, mean=0.0, std=1.0, *, generator=None):
    """Fill with draws from N(mean, std**2)."""
    if std < 0:
        raise RuntimeError(f"normal_ expects std >= 0.0, but found std {std}")
    contiguous = input.is_contiguous()
    return _fill(
        input,
        "normal",
        lambda engine, count, dtype: kernels.normal(engine, count, dtype, mean, std, contiguous),
        generator,
    )


@op(method=True)
def uniform_(input, low=0.0, to=1.0, *, generator=None, **bounds):
    """Fill with draws from [low, to); PyTorch spells the lower bound `from`, so `uniform_(**{'from': a})` works."""
    low = bounds.pop("from", low)
    if bounds:
        raise TypeError(f"uniform_() got an unexpected keyword argument {next(iter(bounds))!r}")
    if low > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={low} > to={to}")
    return _fill(
        input, "uniform", lambda engine, count, dtype: kernels.uniform(engine, count, dtype, low, to), generator
    )


@op(method=True)
def exponential_(input, lambd=1.0, *, generator=None):
    """Fill with draws from the exponential distribution of rate `lambd`."""
    _check_positive(lambd, "exponential", "lambda")
    return _fill(
        input, "exponential", lambda engine, count, dtype: kernels.exponential(engine, count, lambd), generator
    )


@op(method=True)
def geometric_(input, p, *, generator=None):
    """Fill with the number of Bernoulli(p) trials up to the first success (1, 2, ...)."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    return _fill(input, "geometric", lambda engine, count, dtype: kernels.geometric(engine, count, p), generator, False)


@op(method=True)
def cauchy_(input, median=0.0, sigma=1.0, *, generator=None):
    """Fill with draws from the Cauchy distribution."""
    _check_positive(sigma, "cauchy", "sigma")
    return _fill(input, "cauchy", lambda engine, count, dtype: kernels.cauchy(engine, count, median, sigma), generator)


@op(method=True)
def log_normal_(input, mean=1.0, std=2.0, *, generator=None):
    """Fill with exp of draws from N(mean, std**2)."""
    _check_positive(std, "log_normal", "std")
    return _fill(
        input, "log_normal", lambda engine, count, dtype: kernels.log_normal(engine, count, mean, std), generator
    )


_ONLY_ONE_BOUND = object()  # `random_(to)` and `random_(from, None)` differ, as in PyTorch


@op(method=True)
def random_(input, low=None, to=_ONLY_ONE_BOUND, *, generator=None, **keywords):
    """Fill with integers from [low, to); `random_(to)` draws from [0, to); `random_()` from 0 up to
    the largest integer the dtype holds exactly (2**24 for float32, as PyTorch); `random_(from=low)`
    from low up to that largest integer. PyTorch spells the lower bound `from`."""
    if "from" in keywords:
        low = keywords.pop("from")
        to = None if to is _ONLY_ONE_BOUND else to
    elif to is _ONLY_ONE_BOUND:
        low, to = (None, None) if low is None else (0, low)
    if keywords:
        raise TypeError(f"random_() got an unexpected keyword argument {next(iter(keywords))!r}")
    if low is None:
        draw = kernels.random_default
    elif to is None and low == -(2**63):
        draw = kernels.random_full_range
    else:
        to = _exact_integer_limit(input) + 1 if to is None else to
        if low >= to:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={to}")
        if low < -(2**63) or to > 2**64:
            raise RuntimeError(f"random_: the range [{low}, {to}) does not fit in int64")
        return _fill(
            input,
            "random",
            lambda engine, count, dtype: kernels.random_from_to(engine, count, dtype, to - low, low),
            generator,
            floating=False,
        )
    return _fill(input, "random", draw, generator, floating=False)


def _exact_integer_limit(tensor):
    if tensor.dtype == _dtype.bool_:
        return 1
    if tensor.is_floating_point():
        return 2 ** (np.finfo(tensor._data.dtype).nmant + 1)
    return int(np.iinfo(tensor._data.dtype).max)


@op(method=True)
def bernoulli_(input, p=0.5, *, generator=None):
    """Fill with 1 with probability `p` (a number, or a tensor broadcast to `input`), else 0."""
    if isinstance(p, Tensor):
        probabilities = np.ascontiguousarray(np.broadcast_to(p._data, input._data.shape)).reshape(-1)
        if probabilities.dtype.kind not in "fV":
            probabilities = probabilities.astype(np.float32)

        def draw(engine, count, dtype):
            return kernels.bernoulli_tensor(engine, probabilities)

    else:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")

        def draw(engine, count, dtype):
            return kernels.bernoulli_scalar(engine, count, p)

    return _fill(input, "bernoulli", draw, generator, floating=False)
