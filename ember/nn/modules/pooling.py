"""Pooling layers: max, average and adaptive pooling in 1, 2 and 3 dimensions."""

from .. import functional as F
from .module import Module
from .utils import _ntuple, _single

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
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
    "LPPool1d",
    "LPPool2d",
    "LPPool3d",
    "FractionalMaxPool2d",
    "FractionalMaxPool3d",
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


class _MaxUnpoolNd(Module):
    """The partial inverse of MaxPool: `forward(input, indices, output_size=None)` puts each value back
    where the pooling's `return_indices=True` found it, zeros elsewhere."""

    _dims = None

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        as_tuple = _ntuple(self._dims)
        self.kernel_size = as_tuple(kernel_size)
        self.stride = as_tuple(stride if stride is not None else kernel_size)
        self.padding = as_tuple(padding)

    def forward(self, input, indices, output_size=None):
        unpool = (F.max_unpool1d, F.max_unpool2d, F.max_unpool3d)[self._dims - 1]
        return unpool(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Inverse of MaxPool1d over (N, C, L): values back at the pooling's indices, zeros elsewhere."""

    _dims = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """Inverse of MaxPool2d over (N, C, H, W): values back at the pooling's indices, zeros elsewhere."""

    _dims = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """Inverse of MaxPool3d over (N, C, D, H, W): values back at the pooling's indices, zeros elsewhere."""

    _dims = 3


class _LPPoolNd(Module):
    """Power-average pooling: (sum of x ** norm_type over each window) ** (1 / norm_type)."""

    _dims = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input):
        pool = (F.lp_pool1d, F.lp_pool2d, F.lp_pool3d)[self._dims - 1]
        return pool(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self):
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
            f"ceil_mode={self.ceil_mode}"
        )


class LPPool1d(_LPPoolNd):
    """Power-average pooling over (N, C, L)."""

    _dims = 1


class LPPool2d(_LPPoolNd):
    """Power-average pooling over (N, C, H, W)."""

    _dims = 2


class LPPool3d(_LPPoolNd):
    """Power-average pooling over (N, C, D, H, W)."""

    _dims = 3


class _FractionalMaxPoolNd(Module):
    """Max pooling with pseudo-random fractional window steps (`F.fractional_max_pool2d`), to a fixed
    `output_size` or to `output_ratio` of each input. `_random_samples` (a buffer, None by default)
    fixes the windows; otherwise each call draws new ones, as PyTorch's layer does."""

    _dims = None

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None):
        super().__init__()
        name, as_tuple = type(self).__name__, _ntuple(self._dims)
        # PyTorch checks this in the 3-d layer only; its 2-d layer would pool empty windows to -inf.
        if any(k <= 0 for k in as_tuple(kernel_size)):
            raise ValueError(f"{name}: kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = as_tuple(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = as_tuple(output_size) if output_size is not None else None
        self.output_ratio = as_tuple(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError(f"{name}: only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < ratio < 1 for ratio in self.output_ratio):
            raise ValueError(f"{name}: output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        pool = F.fractional_max_pool2d if self._dims == 2 else F.fractional_max_pool3d
        return pool(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Fractional max pooling over (N, C, H, W) or (C, H, W) (Graham, 2014).

    Args:
        kernel_size: window size, an int or (kH, kW).
        output_size: (oH, oW) or one int; give this or `output_ratio`, not both.
        output_ratio: output size as a fraction in (0, 1) of the input's, a number or a pair.
        return_indices: also return the positions of the maxima (for `nn.MaxUnpool2d`).
        _random_samples: fixed (N, C, 2) samples placing the windows; None draws new ones per call.

    Example:
        >>> pool = nn.FractionalMaxPool2d(3, output_ratio=0.5)
        >>> pool(ember.randn(2, 4, 16, 12)).shape
        torch.Size([2, 4, 8, 6])
    """

    _dims = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Fractional max pooling over (N, C, T, H, W) or (C, T, H, W), as `FractionalMaxPool2d`.

    Args:
        kernel_size: window size, an int or (kT, kH, kW).
        output_size: (oT, oH, oW) or one int; give this or `output_ratio`, not both.
        output_ratio: output size as a fraction in (0, 1) of the input's, a number or a triple.
        return_indices: also return the positions of the maxima (for `nn.MaxUnpool3d`).
        _random_samples: fixed (N, C, 3) samples placing the windows; None draws new ones per call.

    Example:
        >>> pool = nn.FractionalMaxPool3d(2, output_size=(3, 4, 4), return_indices=True)
        >>> output, indices = pool(ember.randn(1, 2, 6, 8, 8))
        >>> output.shape, indices.dtype
        (torch.Size([1, 2, 3, 4, 4]), torch.int64)
    """

    _dims = 3
