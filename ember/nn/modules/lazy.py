"""Lazy modules: layers whose input size is read from the first batch (`nn.LazyLinear(10)`).

A lazy module starts with `UninitializedParameter`s. A forward pre-hook infers their shapes from the
first input, materializes and initializes them exactly as the eager layer would, then the module
becomes that layer (`LazyLinear` -> `Linear`), so from then on nothing about it is lazy. Loading a
state dict into it materializes the parameters to the checkpoint's shapes.
"""

from ... import _dtype, autograd
from ...ops import creation
from ..parameter import UninitializedBuffer, UninitializedParameter, UninitializedTensorMixin
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .linear import Linear
from .normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d

__all__ = [
    "LazyModuleMixin",
    "LazyLinear",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyConvTranspose3d",
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
    "LazyInstanceNorm1d",
    "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
]


class LazyModuleMixin:
    """Infers the shapes of uninitialized parameters at the first forward, then becomes `cls_to_become`."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._register_lazy_hooks()

    def _register_lazy_hooks(self):
        self._load_hook = self.register_load_state_dict_pre_hook(LazyModuleMixin._materialize_from_checkpoint)
        self._initialize_hook = self.register_forward_pre_hook(LazyModuleMixin._infer_parameters, with_kwargs=True)

    def has_uninitialized_params(self):
        """Whether a parameter or buffer still waits for the first forward to know its shape."""
        return any(
            isinstance(tensor, UninitializedTensorMixin)
            for tensor in list(self._parameters.values()) + list(self._buffers.values())
        )

    def initialize_parameters(self, *args, **kwargs):
        """Infer the shapes from the first forward's arguments, materialize and initialize."""
        raise NotImplementedError(f"initialize_parameters is not implemented for {type(self).__name__}")

    def _infer_parameters(self, args, kwargs=None):
        self.initialize_parameters(*args, **(kwargs or {}))
        if self.has_uninitialized_params():
            raise RuntimeError(f"module {type(self).__name__} has not been fully initialized")
        self._initialize_hook.remove()
        self._load_hook.remove()
        del self._initialize_hook, self._load_hook
        if self.cls_to_become is not None:
            self.__class__ = self.cls_to_become

    def _materialize_from_checkpoint(self, state_dict, prefix, *rest):
        for name, tensor in list(self._parameters.items()) + list(self._buffers.items()):
            key = prefix + name
            if isinstance(tensor, UninitializedTensorMixin) and key in state_dict:
                with autograd.no_grad():
                    tensor.materialize(state_dict[key].shape)


class LazyLinear(LazyModuleMixin, Linear):
    """`Linear` whose `in_features` is the last dimension of the first input."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        """`in_features` is the input's last dimension."""
        if self.has_uninitialized_params():
            with autograd.no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


class _LazyConvMixin(LazyModuleMixin):
    """A convolution whose `in_channels` is the channel dimension of the first input."""

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            batched = input.dim() == self._spatial_dims + 2
            self.in_channels = input.shape[1] if batched else input.shape[0]
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups)
            else:
                shape = (self.out_channels, self.in_channels // self.groups)
            with autograd.no_grad():
                self.weight.materialize(shape + tuple(self.kernel_size))
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()


def _lazy_conv(conv, spatial_dims):
    def __init__(self, out_channels, kernel_size, *args, bias=True, device=None, dtype=None, **kwargs):
        conv.__init__(self, 0, 0, kernel_size, *args, bias=False, **kwargs)
        self.out_channels = out_channels
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        self._register_lazy_hooks()

    return type(
        "Lazy" + conv.__name__,
        (_LazyConvMixin, conv),
        {
            "__init__": __init__,
            "cls_to_become": conv,
            "_spatial_dims": spatial_dims,
            "__doc__": f"`{conv.__name__}` whose `in_channels` is read from the first input.",
            "__module__": __name__,
        },
    )


LazyConv1d = _lazy_conv(Conv1d, 1)
LazyConv2d = _lazy_conv(Conv2d, 2)
LazyConv3d = _lazy_conv(Conv3d, 3)
LazyConvTranspose1d = _lazy_conv(ConvTranspose1d, 1)
LazyConvTranspose2d = _lazy_conv(ConvTranspose2d, 2)
LazyConvTranspose3d = _lazy_conv(ConvTranspose3d, 3)


class _LazyNormMixin(LazyModuleMixin):
    """Batch or instance norm whose `num_features` is the channel dimension of the first input."""

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]  # as PyTorch infers it
            with autograd.no_grad():
                for name in ("weight", "bias", "running_mean", "running_var"):
                    tensor = getattr(self, name)
                    if isinstance(tensor, UninitializedTensorMixin):
                        tensor.materialize((self.num_features,))
                self.reset_parameters()


def _lazy_norm(norm):
    def __init__(
        self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, **kwargs
    ):
        norm.__init__(self, 0, eps, momentum, False, False, **kwargs)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = creation.tensor(0, dtype=_dtype.int64)
        self._register_lazy_hooks()

    return type(
        "Lazy" + norm.__name__,
        (_LazyNormMixin, norm),
        {
            "__init__": __init__,
            "cls_to_become": norm,
            "__doc__": f"`{norm.__name__}` whose `num_features` is read from the first input.",
            "__module__": __name__,
        },
    )


LazyBatchNorm1d = _lazy_norm(BatchNorm1d)
LazyBatchNorm2d = _lazy_norm(BatchNorm2d)
LazyBatchNorm3d = _lazy_norm(BatchNorm3d)
LazyInstanceNorm1d = _lazy_norm(InstanceNorm1d)
LazyInstanceNorm2d = _lazy_norm(InstanceNorm2d)
LazyInstanceNorm3d = _lazy_norm(InstanceNorm3d)
