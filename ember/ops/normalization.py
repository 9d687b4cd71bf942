"""Batch, layer, group and instance normalization."""

import math

from ._nn_common import _check_floating, _check_tensor
from ._declare import op

__all__ = ["layer_norm", "batch_norm", "group_norm", "instance_norm"]


# ================================================================ normalization
def _normalize(input, dims, eps, mean=None, var=None):
    """(input - mean) / sqrt(var + eps) over `dims`, and the batch statistics (mean, biased var) used."""
    if mean is None:
        mean = input.mean(dims, keepdim=True)
        centered = input - mean
        var = (centered * centered).mean(dims, keepdim=True)
    else:
        centered = input - mean
    return centered * (var + eps) ** -0.5, mean, var


def _channel_view(tensor, ndim):
    """A per-channel (C,) tensor shaped (1, C, 1, ...) to broadcast against an (N, C, ...) input."""
    return tensor.reshape((1, -1) + (1,) * (ndim - 2))


def _affine(output, weight, bias, shaper):
    if weight is not None:
        output = output * shaper(weight)
    if bias is not None:
        output = output + shaper(bias)
    return output


def _update_running(running, statistic, momentum):
    """running = (1 - momentum) * running + momentum * statistic, in place and outside the graph."""
    data = running._data
    data *= 1 - momentum
    data += (momentum * statistic.astype(data.dtype, copy=False)).reshape(data.shape)
    running._bump_version()


def _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps):
    _check_tensor(input, "input", "batch_norm")
    shape = input._data.shape
    if input._data.ndim < 2:
        raise ValueError(f"batch_norm: expected 2D or more input (N, C, ...), got input of size {list(shape)}")
    for name, value in (
        ("running_mean", running_mean),
        ("running_var", running_var),
        ("weight", weight),
        ("bias", bias),
    ):
        if value is not None and value._data.shape != (shape[1],):
            raise RuntimeError(
                f"batch_norm: {name} should contain {shape[1]} elements (one per channel of input "
                f"{list(shape)}), not {value._data.size}"
            )
    ndim = input._data.ndim
    dims = (0,) + tuple(range(2, ndim))
    if training:
        count = input._data.size // shape[1]
        if count <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {list(shape)}")
        output, mean, var = _normalize(input, dims, eps)
        if running_mean is not None:
            _update_running(running_mean, mean._data, momentum)
        if running_var is not None:
            _update_running(running_var, var._data * (count / (count - 1)), momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("batch_norm: running_mean and running_var must be given when training=False")
        output, _, _ = _normalize(input, dims, eps, _channel_view(running_mean, ndim), _channel_view(running_var, ndim))
    return _affine(output, weight, bias, lambda t: _channel_view(t, ndim))


@op()
def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled=True):
    """`torch.batch_norm` (weight and bias first); see `nn.functional.batch_norm`."""
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


@op()
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    """Normalize over the last len(normalized_shape) dims, then scale by `weight` and shift by `bias`."""
    _check_tensor(input, "input", "layer_norm")
    normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    count = len(normalized_shape)
    shape = input._data.shape
    if count == 0 or shape[len(shape) - count :] != normalized_shape or count > len(shape):
        raise RuntimeError(
            f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
            f"[*, {', '.join(map(str, normalized_shape))}], but got input of size{list(shape)}"
        )
    for name, value in (("weight", weight), ("bias", bias)):
        if value is not None and value._data.shape != normalized_shape:
            raise RuntimeError(f"layer_norm: {name} must have shape {list(normalized_shape)}, got {list(value.shape)}")
    _check_floating(input, "layer_norm")
    if input._data.dtype.kind == "V":  # bfloat16: normalized in float32 and rounded once, as PyTorch's kernel
        return layer_norm(input.float(), normalized_shape, weight, bias, eps).to(input.dtype)
    output, _, _ = _normalize(input, tuple(range(-count, 0)), eps)
    return _affine(output, weight, bias, lambda t: t)


@op()
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    """Normalize (N, C, ...) over groups of C/num_groups channels and the spatial dims."""
    _check_tensor(input, "input", "group_norm")
    shape = input._data.shape
    if input._data.ndim < 2 or shape[1] % num_groups:
        raise RuntimeError(
            f"Expected number of channels in input to be divisible by num_groups, but got input of "
            f"shape {list(shape)} and num_groups={num_groups}"
        )
    grouped = input.reshape((shape[0], num_groups, -1))
    output, _, _ = _normalize(grouped, (2,), eps)
    return _affine(output.reshape(shape), weight, bias, lambda t: _channel_view(t, len(shape)))


@op()
def instance_norm(
    input,
    weight=None,
    bias=None,
    running_mean=None,
    running_var=None,
    use_input_stats=True,
    momentum=0.1,
    eps=1e-5,
    cudnn_enabled=True,
):
    """Normalize each (n, c) feature map of (N, C, ...) over its spatial dims."""
    _check_tensor(input, "input", "instance_norm")
    shape = input._data.shape
    ndim = len(shape)
    dims = tuple(range(2, ndim))
    if use_input_stats:
        if math.prod(shape[2:]) <= 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {list(shape)}")
        output, mean, var = _normalize(input, dims, eps)
        count = math.prod(shape[2:])
        if running_mean is not None:
            _update_running(running_mean, mean._data.mean(0), momentum)
        if running_var is not None:
            _update_running(running_var, (var._data * (count / (count - 1))).mean(0), momentum)
    else:
        output, _, _ = _normalize(input, dims, eps, _channel_view(running_mean, ndim), _channel_view(running_var, ndim))
    return _affine(output, weight, bias, lambda t: _channel_view(t, ndim))
