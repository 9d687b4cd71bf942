"""Convolutions: `Conv1d`, `Conv2d`, `Conv3d` and their transposes."""

import math

from ..._validation import check_int_arguments
from ...ops import creation
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module
from .utils import _single, _pair, _triple, _reverse_repeat_tuple

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]

_VALID_PADDING_STRINGS = {"same", "valid"}
_VALID_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


class _ConvNd(Module):
    """What every convolution shares: argument checks, the weight and bias, PyTorch's initialisation
    and repr. Weight is (out, in / groups, *kernel), or (in, out / groups, *kernel) when transposed."""

    _conv_name = None  # the name of the subclass's function in nn.functional
    _tuple = None  # _single, _pair or _triple

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride,
        padding,
        dilation,
        transposed,
        output_padding,
        groups,
        bias,
        padding_mode,
        device=None,
        dtype=None,
    ):
        check_int_arguments(
            type(self).__name__,
            in_channels=in_channels,
            out_channels=out_channels,
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            dilation=dilation,
            output_padding=output_padding,
            groups=groups,
        )
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in _VALID_PADDING_STRINGS:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {_VALID_PADDING_STRINGS}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _VALID_PADDING_MODES:
            raise ValueError(
                f"padding_mode must be one of {_VALID_PADDING_MODES}, but got padding_mode='{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # The padding `F.pad` needs for non-zero padding modes (it lists the last dimension first).
        if isinstance(padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * len(kernel_size)
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                    total_padding = d * (k - 1)
                    left_pad = total_padding // 2
                    self._reversed_padding_repeated_twice[2 * i] = left_pad
                    self._reversed_padding_repeated_twice[2 * i + 1] = total_padding - left_pad
        else:
            self._reversed_padding_repeated_twice = _reverse_repeat_tuple(padding, 2)
        shape = (in_channels, out_channels // groups) if transposed else (out_channels, in_channels // groups)
        self.weight = Parameter(creation.empty(shape + tuple(kernel_size), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(creation.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        text = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            text += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            text += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            text += ", output_padding={output_padding}"
        if self.groups != 1:
            text += ", groups={groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += ", padding_mode={padding_mode}"
        return text.format(**self.__dict__)

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "padding_mode"):
            self.padding_mode = "zeros"


class _ConvForward(_ConvNd):
    """Forward of the (non-transposed) convolutions; padding modes other than zeros pad explicitly."""

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        bias=True,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        ntuple = type(self)._tuple
        super().__init__(
            in_channels,
            out_channels,
            ntuple(kernel_size),
            ntuple(stride),
            padding if isinstance(padding, str) else ntuple(padding),
            ntuple(dilation),
            False,
            ntuple(0),
            groups,
            bias,
            padding_mode,
            device=device,
            dtype=dtype,
        )

    def _conv_forward(self, input, weight, bias):
        conv = getattr(F, self._conv_name)
        if self.padding_mode != "zeros":
            return conv(
                F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode),
                weight,
                bias,
                self.stride,
                type(self)._tuple(0),
                self.dilation,
                self.groups,
            )
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_ConvForward):
    """1-D convolution over (N, C_in, L) (or unbatched (C_in, L)) inputs."""

    _conv_name = "conv1d"
    _tuple = staticmethod(_single)


class Conv2d(_ConvForward):
    """2-D convolution over (N, C_in, H, W) (or unbatched (C_in, H, W)) inputs.

    Example::

        >>> conv = nn.Conv2d(1, 6, 5, padding=2)
        >>> conv
        Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1), padding=(2, 2))
    """

    _conv_name = "conv2d"
    _tuple = staticmethod(_pair)


class Conv3d(_ConvForward):
    """3-D convolution over (N, C_in, D, H, W) inputs."""

    _conv_name = "conv3d"
    _tuple = staticmethod(_triple)


class _ConvTransposeNd(_ConvNd):
    """Transposed convolutions ("deconvolutions"): the gradient of a convolution with respect to its input."""

    _num_spatial_dims = 0

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups=1,
        bias=True,
        dilation=1,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        ntuple = type(self)._tuple
        super().__init__(
            in_channels,
            out_channels,
            ntuple(kernel_size),
            ntuple(stride),
            ntuple(padding),
            ntuple(dilation),
            True,
            ntuple(output_padding),
            groups,
            bias,
            padding_mode,
            device=device,
            dtype=dtype,
        )

    def _output_padding(self, input, output_size, stride, padding, kernel_size, num_spatial_dims, dilation=None):
        """The output_padding that makes the output `output_size` (or the layer's own when None)."""
        if output_size is None:
            return _single(self.output_padding)
        has_batch_dim = input.dim() == num_spatial_dims + 2
        num_non_spatial_dims = 2 if has_batch_dim else 1
        output_size = list(output_size)
        if len(output_size) == num_non_spatial_dims + num_spatial_dims:
            output_size = output_size[num_non_spatial_dims:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(
                f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must have "
                f"{num_spatial_dims} or {num_non_spatial_dims + num_spatial_dims} elements "
                f"(got {len(output_size)})"
            )
        min_sizes, max_sizes = [], []
        for d in range(num_spatial_dims):
            dim_size = (
                (input.size(d + num_non_spatial_dims) - 1) * stride[d]
                - 2 * padding[d]
                + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1)
                + 1
            )
            min_sizes.append(dim_size)
            max_sizes.append(dim_size + stride[d] - 1)
        for size, min_size, max_size in zip(output_size, min_sizes, max_sizes):
            if size < min_size or size > max_size:
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range from "
                    f"{min_sizes} to {max_sizes} (for an input of {input.size()[2:]})"
                )
        return [output_size[d] - min_sizes[d] for d in range(num_spatial_dims)]

    def forward(self, input, output_size=None):
        output_padding = self._output_padding(
            input, output_size, self.stride, self.padding, self.kernel_size, type(self)._num_spatial_dims, self.dilation
        )
        return getattr(F, self._conv_name)(
            input, self.weight, self.bias, self.stride, self.padding, tuple(output_padding), self.groups, self.dilation
        )


class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution over (N, C, L) inputs (the gradient of `conv1d` with respect to its input)."""

    _conv_name = "conv_transpose1d"
    _tuple = staticmethod(_single)
    _num_spatial_dims = 1


class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution; `forward(input, output_size=None)` can pick among the possible output sizes."""

    _conv_name = "conv_transpose2d"
    _tuple = staticmethod(_pair)
    _num_spatial_dims = 2


class ConvTranspose3d(_ConvTransposeNd):
    """3-D transposed convolution over (N, C, D, H, W); `forward(input, output_size=None)` as in ConvTranspose2d."""

    _conv_name = "conv_transpose3d"
    _tuple = staticmethod(_triple)
    _num_spatial_dims = 3
