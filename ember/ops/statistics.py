"""Statistics of samples: covariance and correlation matrices, quantiles. Composites of sort,
gather, matmul and arithmetic, so their gradients (and higher ones) come from those ops."""

import numbers

from .._backend import np
from .._tensor import Tensor
from .. import _dtype
from ._common import normalize_dim
from ._declare import op
from .._warn import warn as _warn

__all__ = ["cov", "corrcoef", "quantile", "nanquantile"]


def _observations(input, op_name):
    if not isinstance(input, Tensor):
        raise TypeError(f"{op_name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if input._data.ndim > 2:
        raise RuntimeError(
            f"{op_name}(): expected input to have two or fewer dimensions but got an input with {input.dim()} dimensions"
        )
    if input._data.dtype.kind not in "fcV":
        input = input.to(_dtype.get_default_dtype())
    return input if input._data.ndim == 2 else input.reshape(1, -1)


def _check_weights(weights, name, observations, integral):
    if weights is None:
        return None
    if weights._data.ndim > 1:
        raise RuntimeError(
            f"cov(): expected {name} to have one or fewer dimensions but got {name} with {weights.dim()} dimensions"
        )
    if weights.numel() != observations:
        raise RuntimeError(
            f"cov(): expected {name} to have the same numel as there are observations in the input but got "
            f"{weights.numel()} != {observations}"
        )
    kind = weights._data.dtype.kind
    if integral and kind not in "iu":
        raise RuntimeError(
            f"cov(): expected fweights to have integral dtype but got fweights with {_dtype.kernel_name(weights.dtype)} dtype"
        )
    if not integral and kind != "f":
        raise RuntimeError(
            f"cov(): expected aweights to have floating point dtype but got aweights with {_dtype.kernel_name(weights.dtype)} dtype"
        )
    if (weights._data < 0).any():
        raise RuntimeError(f"cov(): {name} cannot be negative")
    return weights


@op(method=True)
def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance matrix of the variables in the rows of `input` (observations in the columns);
    `correction=1` is Bessel's correction; frequency and analytic weights as NumPy's `cov`."""
    x = _observations(input, "cov")
    observations = x._data.shape[1]
    fweights = _check_weights(fweights, "fweights", observations, True)
    aweights = _check_weights(aweights, "aweights", observations, False)
    weights = fweights
    if aweights is not None:
        weights = aweights if weights is None else weights * aweights
    if weights is None:
        mean = x.mean(1, keepdim=True)
        total = observations
        normalizer = total - correction
    else:
        weights = weights.to(x.dtype)
        total = weights.sum()
        mean = (x * weights).sum(1, keepdim=True) / total
        if aweights is None or correction == 0:
            normalizer = total - correction
        else:
            normalizer = total - correction * (weights * aweights.to(x.dtype)).sum() / total
    if float(normalizer) <= 0:
        _warn(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of observations.",
            UserWarning,
            stacklevel=2,
        )
        normalizer = normalizer * 0 if isinstance(normalizer, Tensor) else 0
    centered = x - mean
    weighted = centered if weights is None else centered * weights
    return (weighted @ centered.mT.conj() / normalizer).squeeze()


@op(method=True)
def corrcoef(input):
    """Pearson correlation coefficients of the variables in the rows of `input`, clamped to [-1, 1]."""
    covariance = cov(input)
    if covariance._data.ndim == 0:
        return covariance / covariance
    stddev = covariance.diagonal().sqrt()
    covariance = covariance / stddev.unsqueeze(1)
    covariance = covariance / stddev.unsqueeze(0)
    return covariance.clamp(-1, 1)


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan, op_name):
    from .creation import tensor as _tensor_of

    if not isinstance(input, Tensor):
        raise TypeError(f"{op_name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if input._data.dtype.kind not in "fV" or input.dtype not in (_dtype.float32, _dtype.float64):
        raise RuntimeError(f"{op_name}() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(
            f"{op_name}() interpolation must be one of linear, lower, higher, midpoint or nearest, but got {interpolation}"
        )
    if isinstance(q, Tensor):
        if q._data.ndim > 1:
            raise RuntimeError(f"{op_name}() q must be a scalar or 1D tensor")
        if q.dtype is not input.dtype:
            raise RuntimeError(f"{op_name}() q tensor must be same dtype as the input tensor")
        scalar_q, levels = q._data.ndim == 0, np.atleast_1d(q._data).astype(np.float64)
    elif isinstance(q, numbers.Real):
        scalar_q, levels = True, np.array([float(q)])
    else:
        scalar_q, levels = False, np.asarray(q, dtype=np.float64).reshape(-1)
    if input.numel() == 0:
        raise RuntimeError(f"{op_name}() input tensor must be non-empty")
    for level in levels:
        if not 0 <= level <= 1:
            raise RuntimeError(f"{op_name}() q must be in the range [0, 1] but got {level}")
    # The levels end up first: (levels, *input's shape with `dim` kept as 1), then squeezed in place
    # as PyTorch does (so the node names match its).
    if dim is None:
        values, kept_shape, squeezed = input.reshape(-1), (1,) * max(input._data.ndim, 1), 1
        if not keepdim:
            kept_shape = (1,)
    else:
        dim = normalize_dim(dim, max(input._data.ndim, 1), op_name)
        values = input.unsqueeze(0) if input._data.ndim == 0 else input
        kept_shape = list(values._data.shape)
        kept_shape[dim] = 1
        values, squeezed = values.movedim(dim, -1), dim + 1
    ordered = values.sort(-1).values  # NaNs sort last
    count = values._data.shape[-1]
    nan = np.isnan(values._data)
    if ignore_nan:
        valid = count - nan.sum(-1, keepdims=True)
        ranks = levels * np.maximum(valid - 1, 0)
        ranks = np.where(valid == 0, count - 1, ranks)  # an all-NaN row gives NaN
    else:
        ranks = levels * (count - 1) + np.zeros(nan.shape[:-1] + (1,))
        ranks = np.where(nan.any(-1, keepdims=True), count - 1, ranks)  # any NaN gives NaN
    if interpolation == "nearest":
        ranks = np.round(ranks)
    below, above = np.floor(ranks).astype(np.int64), np.ceil(ranks).astype(np.int64)
    low = ordered.gather(-1, _tensor_of(below))
    if interpolation == "lower" or interpolation == "nearest":
        result = low
    else:
        high = ordered.gather(-1, _tensor_of(above))
        if interpolation == "higher":
            result = high
        else:
            weights = np.full(ranks.shape, 0.5) if interpolation == "midpoint" else ranks - below
            result = low + (high - low) * _tensor_of(weights.astype(ordered._data.dtype))
    result = result.movedim(-1, 0).reshape((len(levels),) + tuple(kept_shape))
    if not keepdim or input._data.ndim == 0:
        result = result.squeeze_(squeezed)
    return result.squeeze_(0) if scalar_q else result


@op(method=True)
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The `q`-th quantiles (a number, or a 1-d tensor of levels in [0, 1]) of `input` (flattened, or
    along `dim`); between two samples the `interpolation` chooses; any NaN makes the result NaN."""
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


@op(method=True)
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """`quantile` ignoring NaNs (NaN only where a whole slice is NaN)."""
    return _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")
