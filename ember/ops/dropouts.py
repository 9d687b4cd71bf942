"""Dropout, feature (channel) dropout and alpha dropout."""

import math

from .._backend import np
from .._tensor import new_tensor
from .activations import _SELU_ALPHA, _SELU_SCALE
from ._declare import op

__all__ = ["dropout", "alpha_dropout", "feature_dropout"]


# ================================================================ dropout
def _noise(shape, p, dtype):
    """Bernoulli(1 - p) keep-mask scaled by 1/(1-p), from ember's seedable default generator."""
    from .creation import default_generator

    if p == 1:
        return np.zeros(shape, dtype=dtype)
    keep = default_generator.rng.random(shape, dtype=np.float32) >= p
    return keep.astype(dtype) * dtype.type(1 / (1 - p))


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
    from .creation import default_generator

    keep = (default_generator.rng.random(noise_shape, dtype=np.float32) >= p).astype(input._data.dtype)
    # Dropped units take selu's saturation value; a and b restore zero mean and unit variance.
    a = 1 / math.sqrt((_ALPHA_PRIME**2 * p + 1) * (1 - p))
    shift = (keep - 1) * (_ALPHA_PRIME * a) + _ALPHA_PRIME * a * p
    return input * new_tensor((keep * a).astype(input._data.dtype)) + new_tensor(shift.astype(input._data.dtype))


@op()
def alpha_dropout(input, p=0.5, train=True):
    """Dropout for SELU networks: keeps the mean and variance of the activations (see `selu`)."""
    return _alpha_dropout(input, p, train, input._data.shape)
