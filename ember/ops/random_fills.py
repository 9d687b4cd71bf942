"""In-place random fills: `x.normal_()`, `x.uniform_(-1, 1)`, `x.exponential_()`, ... (Tensor methods
only, as in PyTorch). `nn.init` and hand-written initializers use them.

Each draws in float64 from the one seedable generator (`creation.default_generator` unless a
`generator=` is given) and copies the draws into the tensor, so the tensor keeps its dtype, shape
and identity (views of it see the new values).
"""

from .._backend import np
from .. import _dtype
from .._tensor import new_tensor
from ..autograd import grad_mode
from .inplace import _check_leaf
from .creation import _rng
from ._declare import op

__all__ = []  # Tensor methods only: there is no `torch.normal_`.


def _fill(tensor, name, draw, generator, floating=True):
    """Replace `tensor`'s values by `draw(rng, shape)`, which returns a float64 or int64 array."""
    if floating and not tensor.is_floating_point():
        raise NotImplementedError(
            f'"{name}_kernel_cpu" not implemented for \'{_dtype.kernel_name(tensor.dtype)}\': '
            f"{name}_() fills floating-point tensors; convert with .float() first"
        )
    if grad_mode.state.enabled:
        _check_leaf(tensor, f"{name}_")
    values = draw(_rng(generator), tuple(tensor.shape))
    with grad_mode.no_grad():
        tensor.copy_(new_tensor(np.asarray(values).astype(tensor._data.dtype, copy=False)))
    return tensor


def _check_positive(value, name, what):
    if not value > 0:
        raise RuntimeError(f"{name}_ expects {what} > 0.0, but found {what}={value}")


@op(method=True)
def normal_(input, mean=0.0, std=1.0, *, generator=None):
    """Fill with draws from N(mean, std**2)."""
    if std < 0:
        raise RuntimeError(f"normal_ expects std >= 0.0, but found std {std}")
    return _fill(input, "normal", lambda rng, shape: rng.normal(mean, std, shape), generator)


@op(method=True)
def uniform_(input, low=0.0, to=1.0, *, generator=None, **bounds):
    """Fill with draws from [low, to); PyTorch spells the lower bound `from`, so `uniform_(**{'from': a})` works."""
    low = bounds.pop("from", low)
    if bounds:
        raise TypeError(f"uniform_() got an unexpected keyword argument {next(iter(bounds))!r}")
    if low > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={low} > to={to}")
    return _fill(input, "uniform", lambda rng, shape: rng.uniform(low, to, shape), generator)


@op(method=True)
def exponential_(input, lambd=1.0, *, generator=None):
    """Fill with draws from the exponential distribution of rate `lambd`."""
    _check_positive(lambd, "exponential", "lambda")
    return _fill(input, "exponential", lambda rng, shape: rng.exponential(1.0 / lambd, shape), generator)


@op(method=True)
def geometric_(input, p, *, generator=None):
    """Fill with the number of Bernoulli(p) trials up to the first success (1, 2, ...)."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    return _fill(input, "geometric", lambda rng, shape: rng.geometric(p, shape), generator, floating=False)


@op(method=True)
def cauchy_(input, median=0.0, sigma=1.0, *, generator=None):
    """Fill with draws from the Cauchy distribution."""
    _check_positive(sigma, "cauchy", "sigma")
    return _fill(input, "cauchy", lambda rng, shape: median + sigma * rng.standard_cauchy(shape), generator)


@op(method=True)
def log_normal_(input, mean=1.0, std=2.0, *, generator=None):
    """Fill with exp of draws from N(mean, std**2)."""
    _check_positive(std, "log_normal", "std")
    return _fill(input, "log_normal", lambda rng, shape: rng.lognormal(mean, std, shape), generator)


@op(method=True)
def random_(input, low=None, to=None, *, generator=None, **keywords):
    """Fill with integers from [low, to); `random_(to)` draws from [0, to); `random_()` from 0 up to
    the largest integer the dtype holds exactly (2**24 for float32, as PyTorch). PyTorch spells the
    lower bound `from`."""
    if "from" in keywords:
        low = keywords.pop("from")
    elif to is None and low is not None:
        low, to = 0, low
    if keywords:
        raise TypeError(f"random_() got an unexpected keyword argument {next(iter(keywords))!r}")
    low = 0 if low is None else low
    to = _exact_integer_limit(input) + 1 if to is None else to
    if low >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={to}")
    if low < -(2**63) or to > 2**63:
        raise RuntimeError(f"random_: the range [{low}, {to}) does not fit in int64")
    return _fill(
        input, "random", lambda rng, shape: rng.integers(low, to, shape, dtype=np.int64), generator, floating=False
    )


def _exact_integer_limit(tensor):
    if tensor.dtype == _dtype.bool_:
        return 1
    if tensor.is_floating_point():
        return 2 ** (np.finfo(tensor._data.dtype).nmant + 1)
    return int(np.iinfo(tensor._data.dtype).max)
