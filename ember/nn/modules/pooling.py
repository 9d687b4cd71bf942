"""Pooling layers: max, average and adaptive pooling in 1, 2 and 3 dimensions."""

from .. import functional as F
from .module import Module
from .utils import _single

__all__ = [
    "MaxPool1d",
    "MaxPool2d",
    "MaxPool3d",
    "AvgPool1d",
    "AvgPool2d",
    "AvgPool3d",
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d",
]


class _MaxPoolNd(Module):
    """Max over windows; `stride` defaults to `kernel_size`. `return_indices` also returns the argmax
    positions (for MaxUnpool)."""

    _function_name = None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return getattr(F, self._function_name)(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )

    def extra_repr(self):
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool1d(_MaxPoolNd):
    """1-D max pooling over (N, C, L) inputs."""

    _function_name = "max_pool1d"


class MaxPool2d(_MaxPoolNd):
    """2-D max pooling over (N, C, H, W) inputs.

    Example::

        >>> nn.MaxPool2d(2)(ember.arange(16.).view(1, 1, 4, 4))
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
    """

    _function_name = "max_pool2d"


class MaxPool3d(_MaxPoolNd):
    """3-D max pooling over (N, C, D, H, W) inputs."""

    _function_name = "max_pool3d"


class AvgPool1d(Module):
    """1-D average pooling; its arguments are kept as 1-tuples, as PyTorch does."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AvgPoolNd(Module):
    _function_name = None

    def __init__(
        self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None
    ):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return getattr(F, self._function_name)(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    """2-D average pooling; with `count_include_pad` (default) zero padding counts in the average."""

    _function_name = "avg_pool2d"


class AvgPool3d(_AvgPoolNd):
    """3-D average pooling over (N, C, D, H, W) inputs."""

    _function_name = "avg_pool3d"


class _AdaptiveAvgPoolNd(Module):
    """Average pooling to a fixed `output_size` whatever the input size (None keeps that dimension)."""

    _function_name = None

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return getattr(F, self._function_name)(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class _AdaptiveMaxPoolNd(_AdaptiveAvgPoolNd):
    """Max pooling to a fixed `output_size`; `return_indices` also returns the argmax positions."""

    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input):
        return getattr(F, self._function_name)(input, self.output_size, self.return_indices)


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Average pooling of (N, C, L) to `output_size` whatever the input length."""

    _function_name = "adaptive_avg_pool1d"


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Average pooling to `output_size` (e.g. `AdaptiveAvgPool2d((1, 1))` for global average pooling)."""

    _function_name = "adaptive_avg_pool2d"


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Average pooling of (N, C, D, H, W) to `output_size` (None keeps that size)."""

    _function_name = "adaptive_avg_pool3d"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Max pooling of (N, C, L) to `output_size` whatever the input length."""

    _function_name = "adaptive_max_pool1d"


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling of (N, C, H, W) to `output_size` (None keeps that size)."""

    _function_name = "adaptive_max_pool2d"


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Max pooling of (N, C, D, H, W) to `output_size` (None keeps that size)."""

    _function_name = "adaptive_max_pool3d"
