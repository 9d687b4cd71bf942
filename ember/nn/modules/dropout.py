"""Dropout layers: zero random elements (or channels) in training, identity in eval."""

from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    _function_name = None

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return getattr(F, self._function_name)(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """In training, zero each element with probability `p` and scale the rest by 1 / (1 - p); in eval
    (`model.eval()`), return the input unchanged."""

    _function_name = "dropout"


class Dropout1d(_DropoutNd):
    """Zero whole channels of (N, C, L) inputs."""

    _function_name = "dropout1d"


class Dropout2d(_DropoutNd):
    """Zero whole channels of (N, C, H, W) inputs."""

    _function_name = "dropout2d"


class Dropout3d(_DropoutNd):
    """Zero whole channels of (N, C, D, H, W) inputs."""

    _function_name = "dropout3d"


class AlphaDropout(_DropoutNd):
    """Dropout that keeps the self-normalising mean and variance of SELU networks."""

    _function_name = "alpha_dropout"


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels: SELU networks keep their mean and variance."""

    _function_name = "feature_alpha_dropout"
