"""Dropout, feature (channel) dropout and alpha dropout."""

import math

from .._backend import np
from .._tensor import new_tensor
from .activations import _SELU_ALPHA, _SELU_SCALE
from ._declare import op

__all__ = ["dropout", "alpha_dropout", "feature_dropout"]


# ================================================================ dropout
def _keep_mask(shape, p, dtype):
    """Bernoulli(1 - p) draws as 0/1 values of `dtype`: PyTorch's `bernoulli_(1 - p)` on the default
    generator, so that the same seed drops the same units."""
    from .creation import default_generator
    from ._distribution_kernels import bernoulli_scalar

    return bernoulli_scalar(default_generator.engine, math.prod(shape), 1 - p).reshape(shape).astype(dtype)


def _noise(shape, p, dtype):
    """The keep-mask divided by 1 - p in the input's type (PyTorch's rounding)."""
    if p == 1:
        return np.zeros(shape, dtype=dtype)
    return _keep_mask(shape, p, dtype) / dtype.type(1 - p)


def _check_probability(p, op_name):
    if not 0 <= p <= 1:
        raise ValueError(f"{op_name} probability has to be between 0 and 1, but got {p}")


def _feature_shape(input):
    """Noise shape of channel-wise dropout: one draw per (N, C), broadcast over the spatial dims."""
    shape = input._data.shape
    return shape[:2] + (1,) * (len(shape) - 2)


@op()
def dropout(input, p=0.5, train=True):
    """Zero each element with probability `p` and scale the rest by 1/(1-p) (identity when not `train`)."""
    _check_probability(p, "dropout")
    if not train or p == 0:
        return input
    return input * new_tensor(_noise(input._data.shape, p, input._data.dtype))


@op()
def feature_dropout(input, p=0.5, train=True):
    """Dropout of whole channels: (N, C, ...) inputs lose entire (n, c) feature maps."""
    _check_probability(p, "dropout")
    if not train or p == 0:
        return input
    return input * new_tensor(_noise(_feature_shape(input), p, input._data.dtype))


_ALPHA_PRIME = _SELU_ALPHA * _SELU_SCALE  # selu's negative saturation value, in magnitude


def _alpha_dropout(input, p, train, noise_shape):
    _check_probability(p, "alpha_dropout")
    if not train or p == 0:
        return input
    if p == 1:
        return input * 0.0
    dtype = input._data.dtype
    keep = _keep_mask(noise_shape, p, dtype)
    # Dropped units take selu's saturation value; a and b restore zero mean and unit variance.
    a = 1 / math.sqrt((_ALPHA_PRIME**2 * p + 1) * (1 - p))
    shift = (keep - dtype.type(1)) * dtype.type(_ALPHA_PRIME * a) + dtype.type(_ALPHA_PRIME * a * p)
    return input * new_tensor(keep * dtype.type(a)) + new_tensor(shift)


@op()
def alpha_dropout(input, p=0.5, train=True):
    """Dropout for SELU networks: keeps the mean and variance of the activations (see `selu`)."""
    return _alpha_dropout(input, p, train, input._data.shape)
