"""`convert_conv2d_weight_memory_format` / `..._conv3d_...`: store convolution weights in a memory
format (channels_last), as PyTorch scripts do before mixed-precision training."""

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, kinds):
    if isinstance(module, kinds):
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Give the weight of every Conv2d / ConvTranspose2d in `module` (recursively) `memory_format`,
    in place; returns `module`. ember's convolutions compute the same either way."""
    from ..modules.conv import Conv2d, ConvTranspose2d

    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """As `convert_conv2d_weight_memory_format`, for Conv3d / ConvTranspose3d (channels_last_3d)."""
    from ..modules.conv import Conv3d, ConvTranspose3d

    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
