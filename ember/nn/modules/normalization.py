"""Normalisation layers: BatchNorm, InstanceNorm, LayerNorm, GroupNorm, RMSNorm, local response norms."""

import numbers

from ..._validation import check_int_arguments
from ... import _dtype
from ...ops import creation, linalg
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module
from ..._warn import warn as _warn

__all__ = [
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "LayerNorm",
    "GroupNorm",
    "RMSNorm",
    "LocalResponseNorm",
    "CrossMapLRN2d",
]


def _register_affine(module, enabled, shape, with_bias, device, dtype):
    """The learnable scale `weight` and shift `bias` of a normalisation layer (None when disabled)."""
    weight = Parameter(creation.empty(shape, device=device, dtype=dtype)) if enabled else None
    bias = Parameter(creation.empty(shape, device=device, dtype=dtype)) if enabled and with_bias else None
    module.register_parameter("weight", weight)
    module.register_parameter("bias", bias)


def _reset_affine(module):
    """PyTorch's initial affine transform: weight 1, bias 0."""
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


class _NormBase(Module):
    """The parameters (weight=1, bias=0 when `affine`) and running statistics (buffers running_mean=0,
    running_var=1, num_batches_tracked=0 when `track_running_stats`) BatchNorm and InstanceNorm share."""

    _version = 2  # version 2 added num_batches_tracked

    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=True,
        track_running_stats=True,
        device=None,
        dtype=None,
        *,
        bias=True,
    ):
        check_int_arguments(type(self).__name__, num_features=num_features)
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        _register_affine(self, affine, num_features, bias, device, dtype)
        if track_running_stats:
            self.register_buffer("running_mean", creation.zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", creation.ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", creation.tensor(0, dtype=_dtype.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        _reset_affine(self)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self):
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
            f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}"
        )

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ):
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            # Checkpoints from before num_batches_tracked existed load with a count of 0.
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (
                    self.num_batches_tracked
                    if self.num_batches_tracked is not None
                    else creation.tensor(0, dtype=_dtype.int64)
                )
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )


class _BatchNorm(_NormBase):
    """Normalise each channel with the batch's statistics in training (updating the running ones by
    `momentum`, or by a cumulative average when momentum is None) and with the running ones in eval."""

    def forward(self, input):
        self._check_input_dim(input)
        exponential_average_factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                exponential_average_factor = 1.0 / float(self.num_batches_tracked)
        # Without running statistics, eval mode also normalises with the batch's statistics.
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_running = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if use_running else None,
            self.running_var if use_running else None,
            self.weight,
            self.bias,
            bn_training,
            exponential_average_factor,
            self.eps,
        )


class BatchNorm1d(_BatchNorm):
    """Batch normalisation over (N, C) or (N, C, L) inputs.

    Example::

        >>> bn = nn.BatchNorm1d(3)
        >>> bn(ember.randn(8, 3)).mean(0).abs().max() < 1e-5
        tensor(True)
    """

    def _check_input_dim(self, input):
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalisation over (N, C, H, W) inputs, per channel."""

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch normalization over the channels of (N, C, D, H, W) inputs."""

    def _check_input_dim(self, input):
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class _InstanceNorm(_NormBase):
    """Normalise each sample's channels over their own spatial positions."""

    _no_batch_dim = None

    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=False,
        track_running_stats=False,
        device=None,
        dtype=None,
        *,
        bias=True,
    ):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def _check_input_dim(self, input):
        if input.dim() not in (self._no_batch_dim, self._no_batch_dim + 1):
            raise ValueError(
                f"expected {self._no_batch_dim}D or {self._no_batch_dim + 1}D input (got {input.dim()}D input)"
            )

    def _apply_instance_norm(self, input):
        return F.instance_norm(
            input,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0,
            self.eps,
        )

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ):
        if local_metadata.get("version", None) is None and not self.track_running_stats:
            keys = [prefix + name for name in ("running_mean", "running_var") if prefix + name in state_dict]
            if keys:
                error_msgs.append(
                    "Unexpected running stats buffer(s) {names} for {klass} with track_running_stats=False. If "
                    "state_dict is a checkpoint saved before 0.4.0, this may be expected because {klass} does not "
                    "track running stats by default since 0.4.0. Please remove these keys from state_dict. If the "
                    "running stats are actually needed, instead set track_running_stats=True in {klass} to enable "
                    "them. See the documentation of {klass} for details.".format(
                        names=" and ".join(f'"{key}"' for key in keys), klass=type(self).__name__
                    )
                )
                for key in keys:
                    state_dict.pop(key)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - self._no_batch_dim
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features "
                    f"({self.num_features}), but got: {input.size(feature_dim)}."
                )
            _warn(
                f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                "warning by not passing in num_features, which is not used because affine=False",
                stacklevel=2,
            )
        if input.dim() == self._no_batch_dim:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Normalize each channel of each sample of (N, C, L) (or (C, L)) over its length."""

    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    """Normalize each channel of each sample of (N, C, H, W) (or (C, H, W)) over its plane."""

    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    """Normalize each channel of each sample of (N, C, D, H, W) (or (C, D, H, W)) over its volume."""

    _no_batch_dim = 4


def _normalized_shape(normalized_shape):
    if isinstance(normalized_shape, numbers.Integral):
        return (normalized_shape,)
    return tuple(normalized_shape)


class LayerNorm(Module):
    """Normalise over the trailing `normalized_shape` dimensions of each sample, then scale and shift
    (weight=1, bias=0) when `elementwise_affine`."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        check_int_arguments("LayerNorm", normalized_shape=normalized_shape)
        super().__init__()
        self.normalized_shape = _normalized_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _register_affine(self, elementwise_affine, self.normalized_shape, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        """Weight to 1 and bias to 0 (when `elementwise_affine`)."""
        _reset_affine(self)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
            f"bias={self.bias is not None}"
        )


class GroupNorm(Module):
    """Normalise each sample over groups of `num_channels // num_groups` channels."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None, *, bias=True):
        check_int_arguments("GroupNorm", num_groups=num_groups, num_channels=num_channels)
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _register_affine(self, affine, num_channels, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        """Weight to 1 and bias to 0 (when `affine`)."""
        _reset_affine(self)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
            f"bias={self.bias is not None}"
        )


class RMSNorm(Module):
    """`x / sqrt(mean(x**2) + eps) * weight` over the trailing `normalized_shape` dimensions."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _normalized_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(creation.empty(self.normalized_shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Weight to 1 (when `elementwise_affine`)."""
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, input):
        return F.rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class _ChannelNeighbourhoodNorm(Module):
    """What LocalResponseNorm and CrossMapLRN2d share: a window of `size` channels and the constants
    of `input * (k + alpha / size * sum of squares) ** -beta`."""

    def __init__(self, size, alpha, beta, k):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class LocalResponseNorm(_ChannelNeighbourhoodNorm):
    """Normalise each channel by the activity of its `size` neighbouring channels (AlexNet)."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__(size, alpha, beta, k)

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)


class CrossMapLRN2d(_ChannelNeighbourhoodNorm):
    """Local response normalisation across channels of (N, C, H, W) inputs, as Lua Torch's layer.

    `output = input * (k + alpha / size * S) ** -beta`, where S sums the squares of channel c's
    neighbours: channels `c - p + 1` to `c + p - 1`, with `p = int((size - 1) / 2 + 1)`, clipped to
    the channels there are, and channel 0 always (PyTorch's running-window sum never takes it out
    again; ember reproduces that forward). Other input ranks raise ValueError.

    Example::

        >>> lrn = nn.CrossMapLRN2d(3, alpha=1.0, beta=1.0, k=1)
        >>> lrn(ember.ones(1, 1, 1, 1))  # 1 / (1 + 1/3)
        tensor([[[[0.7500]]]])

    Difference from PyTorch: the gradient is the exact derivative of this forward (and can be
    differentiated again). PyTorch's hand-written backward assumes another channel window, so its
    gradient fails PyTorch's own gradcheck wherever the two windows differ, and raises for `size=1`.
    """

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__(size, alpha, beta, k)

    def forward(self, input):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        if not input.is_floating_point():
            raise RuntimeError(
                f"CrossMapLRN2d: result type Float can't be cast to the desired output type {input.dtype} "
                "(the layer needs a floating-point input: call .float() on it)"
            )
        window = self._channel_window(input.size(1), input.dtype, input.device)
        summed_squares = linalg.einsum("cj,njhw->nchw", window, input * input)
        scale = summed_squares * (self.alpha / self.size) + self.k
        return scale.pow(-self.beta) * input

    def _channel_window(self, channels, dtype, device):
        """(C, C) matrix with 1 where channel j counts towards channel c's sum of squares."""
        pre_pad = int((self.size - 1) / 2 + 1)
        c = creation.arange(channels, device=device).unsqueeze(1)
        j = creation.arange(channels, device=device).unsqueeze(0)
        in_window = ((j > c - pre_pad) & (j < c + pre_pad)) | (j == 0)
        return in_window.to(dtype)
