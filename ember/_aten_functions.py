"""nn.functional's ops under the names and signatures torch's own namespace gives them (ATen's):
`torch.celu_`, `torch.pdist`, `torch.dropout_(input, p, train)` ... Loaded with `ember.nn` on first
use, as the package's lazy names (see ember/__init__.py)."""

from .nn.functional import celu_, channel_shuffle, max_pool1d_with_indices, pdist, rms_norm, rrelu_, selu_, threshold_
from .nn import functional as F
from .ops import dropouts as _dropouts
from .ops.inplace import apply_inplace

__all__ = [
    "celu_",
    "channel_shuffle",
    "max_pool1d_with_indices",
    "pdist",
    "rms_norm",
    "rrelu_",
    "selu_",
    "threshold_",
    "dropout_",
    "alpha_dropout_",
    "feature_dropout_",
    "feature_alpha_dropout",
    "feature_alpha_dropout_",
]


def dropout_(input, p, train):
    """In-place `torch.dropout`: `train` is required, as in ATen."""
    return F.dropout(input, p, train, inplace=True)


def alpha_dropout_(input, p, train):
    """In-place `torch.alpha_dropout`."""
    return F.alpha_dropout(input, p, train, inplace=True)


def feature_dropout_(input, p, train):
    """In-place `torch.feature_dropout`: whole (n, c) channels of any (N, C, ...) input."""
    _dropouts._check_probability(p, "dropout")
    if not train:
        return input
    return apply_inplace(input, "feature_dropout_", _dropouts.feature_dropout, p, train)


def feature_alpha_dropout(input, p, train):
    """`nn.functional.feature_alpha_dropout` with ATen's required `train`."""
    return F.feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input, p, train):
    """In-place `torch.feature_alpha_dropout`."""
    return F.feature_alpha_dropout(input, p, train, inplace=True)
