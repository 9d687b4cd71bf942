"""Batch, layer, group and instance normalization."""

import math

from .. import _precision
from .._backend import np
from .._tensor import Tensor, new_tensor
from ..autograd.function import Primitive
from ._nn_common import _check_floating, _check_tensor
from ._declare import op
from ._tangents import add_tangents

__all__ = ["layer_norm", "batch_norm", "group_norm", "instance_norm"]


# ================================================================ normalization
def _normalize(input, dims, eps):
    """(input - mean) / sqrt(var + eps) over `dims` in ember ops, and the batch statistics (mean, biased
    var) used: what a recorded backward of the normalizations differentiates."""
    mean = input.mean(dims, keepdim=True)
    centered = input - mean
    var = (centered * centered).mean(dims, keepdim=True)
    return centered * (var + eps) ** -0.5, mean, var


def _update_running(running, statistic, momentum):
    """running = (1 - momentum) * running + momentum * statistic, in place and outside the graph."""
    data = running._data
    data *= 1 - momentum
    data += (momentum * statistic.astype(data.dtype, copy=False)).reshape(data.shape)
    running._bump_version()


# ---------------------------------------------------------------- batch and group norm as primitives
# One node each with PyTorch's name (NativeBatchNormBackward0, NativeGroupNormBackward0), and about a
# third of the composite's array passes: the forward keeps the normalized input and 1/std for the
# first-order backward on arrays; a recorded backward recomputes them in ember ops (double backward).
def _statistics(x, dims):
    """The centered input, its mean and biased variance over `dims` (kept), as arrays; float16 is
    worked in float32."""
    work = x if x.dtype.itemsize >= 4 else x.astype(np.float32)
    size = math.prod(work.shape[axis] for axis in dims)
    mean = np.add.reduce(work, axis=dims, keepdims=True)
    mean /= size
    centered = work - mean
    variance = np.add.reduce(centered * centered, axis=dims, keepdims=True)
    variance /= size
    return centered, mean, variance


def _inverse_std(variance, eps):
    result = variance + eps
    np.sqrt(result, out=result)
    return np.divide(1.0, result, out=result)


def _normalization_product_on_arrays(vector, normalized, rstd, dims):
    """`_normalization_product` on arrays, in place in `vector` (a fresh array)."""
    size = normalized.size // rstd.size
    mean_vector = np.add.reduce(vector, axis=dims, keepdims=True)
    mean_vector /= size
    projection = np.add.reduce(vector * normalized, axis=dims, keepdims=True)
    projection /= size
    vector -= mean_vector
    vector -= normalized * projection
    vector *= rstd
    return vector


class BatchNorm(Primitive, node="NativeBatchNormBackward0", backward_on_arrays=True):
    """(x - mean) / sqrt(var + eps) * weight + bias per channel (dim 1) of (N, C, ...): with the batch's
    statistics when training (and then `running`, the (running_mean, running_var) tensors or Nones, is
    updated in place), with the running ones otherwise."""

    @staticmethod
    def forward(ctx, x, weight, bias, running, training, momentum, eps):
        ctx.save_for_backward(x, weight)
        view = (1, -1) + (1,) * (x.ndim - 2)
        dims = (0,) + tuple(range(2, x.ndim))
        ctx.layout, ctx.training, ctx.eps = (view, dims), training, eps
        running_mean, running_var = running
        if training:
            normalized, mean, variance = _statistics(x, dims)
            count = normalized.size // normalized.shape[1]
            if running_mean is not None:
                _update_running(running_mean, mean, momentum)
            if running_var is not None:
                _update_running(running_var, variance * (count / (count - 1)), momentum)
            rstd = _inverse_std(variance, eps)
            normalized *= rstd
        else:
            work = x if x.dtype.itemsize >= 4 else x.astype(np.float32)
            mean = running_mean._data.reshape(view)
            rstd = _inverse_std(running_var._data.reshape(view).astype(work.dtype), eps)
            normalized = work - mean
            normalized *= rstd
            ctx.running_mean = mean
        if any(ctx.needs_input_grad[:3]):  # (what backward on arrays reads)
            ctx.normalized, ctx.rstd = normalized, rstd
        return _scale_and_shift(normalized, weight, bias, view).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        needs_x, needs_weight, needs_bias = ctx.needs_input_grad[:3]
        view, dims = ctx.layout
        grad_x = grad_weight = grad_bias = None
        if not isinstance(grad, Tensor):  # a first-order backward on arrays (see autograd.function)
            normalized, rstd = ctx.normalized, ctx.rstd
            if needs_weight:
                grad_weight = np.add.reduce(grad * normalized, axis=dims).astype(weight.dtype, copy=False)
            if needs_bias:
                grad_bias = np.add.reduce(grad, axis=dims)
            if needs_x:
                scaled = grad * weight.reshape(view) if weight is not None else grad.astype(normalized.dtype)
                if ctx.training:
                    scaled = _normalization_product_on_arrays(scaled, normalized, rstd, dims)
                else:
                    scaled *= rstd
                grad_x = scaled.astype(x.dtype, copy=False)
            return grad_x, grad_weight, grad_bias, None, None, None, None
        # on tensors (create_graph): the same formulas in ember ops, so they can be differentiated again
        normalized, rstd = _batch_normalized(ctx, x)
        if needs_weight:
            grad_weight = (grad * normalized).sum(dims)
        if needs_bias:
            grad_bias = grad.sum(dims)
        if needs_x:
            scaled = grad * weight.reshape(view) if weight is not None else grad
            grad_x = _normalization_product(scaled, normalized, rstd, dims) if ctx.training else scaled * rstd
        return grad_x, grad_weight, grad_bias, None, None, None, None

    @staticmethod
    def jvp(ctx, tangent_x, tangent_weight, tangent_bias, *_):
        x, weight = ctx.inputs[:2]
        view, dims = ctx.layout
        normalized, rstd = _batch_normalized(ctx, x)
        total = None
        if tangent_x is not None:  # the Jacobian in x is symmetric: backward's product
            total = _normalization_product(tangent_x, normalized, rstd, dims) if ctx.training else tangent_x * rstd
            if weight is not None:
                total = total * weight.reshape(view)
        if tangent_weight is not None:
            total = add_tangents(total, normalized * tangent_weight.reshape(view))
        if tangent_bias is not None:
            total = add_tangents(total, tangent_bias.reshape(view).expand(normalized.shape))
        return total


def _scale_and_shift(normalized, weight, bias, view):
    """normalized * weight + bias (each optional, shaped by `view`), in a new array."""
    if weight is None:
        return normalized + bias.reshape(view) if bias is not None else normalized.copy()
    output = normalized * weight.reshape(view)
    if bias is not None:
        output += bias.reshape(view)
    return output


def _batch_normalized(ctx, x):
    """The normalized input and 1/std as tensors: recomputed in ember ops from x when training (so
    they depend on x), constants from the running statistics otherwise."""
    dims = ctx.layout[1]
    if ctx.training:
        return _normalized_and_rstd(x, dims, ctx.eps)
    dtype = x._data.dtype
    rstd = new_tensor(ctx.rstd.astype(dtype, copy=False))
    return (x - new_tensor(ctx.running_mean.astype(dtype, copy=False))) * rstd, rstd


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
    if training:
        if input._data.size // shape[1] <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {list(shape)}")
        if momentum is None:
            raise TypeError("batch_norm(): argument 'momentum' (position 7) must be float, not NoneType")
    elif running_mean is None or running_var is None:
        raise RuntimeError("batch_norm: running_mean and running_var must be given when training=False")
    _check_floating(input, "batch_norm")
    return BatchNorm.apply(input, weight, bias, (running_mean, running_var), bool(training), momentum, eps)


@op(BatchNorm)
def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled=True):
    """`torch.batch_norm` (weight and bias first); see `nn.functional.batch_norm`."""
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


class LayerNorm(Primitive, node="NativeLayerNormBackward0", backward_on_arrays=True):
    """(x - mean) / sqrt(var + eps) * weight + bias over the last `count` dims: a primitive for measured
    speed (as PyTorch's native_layer_norm). The composite makes ~8 array passes forward and ~20
    backward; this one keeps the normalized input and 1/std for its first-order backward on arrays
    (a Transformer's (32, 32, 64) layer norm: 0.97 ms forward and backward compiled, 0.5 ms as this)."""

    @staticmethod
    def forward(ctx, x, weight, bias, count, eps):
        ctx.save_for_backward(x, weight)
        ctx.count, ctx.eps = count, eps
        size = math.prod(x.shape[-count:])
        work = x if x.dtype.itemsize >= 4 else x.astype(np.float32)  # float16 statistics in float32
        mean = _precision.sum_last(work, count)
        mean /= size
        normalized = work - mean
        rstd = _precision.sum_last(normalized * normalized, count)
        rstd /= size
        rstd += eps
        np.sqrt(rstd, out=rstd)
        np.divide(1.0, rstd, out=rstd)
        normalized *= rstd
        if ctx.needs_input_grad[0] or ctx.needs_input_grad[1]:  # (what backward on arrays reads)
            ctx.normalized, ctx.rstd = normalized, rstd
        if weight is None:
            output = normalized + bias if bias is not None else normalized.copy()
        else:
            output = normalized * weight
            if bias is not None:
                output += bias
        return output.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        needs_x, needs_weight, needs_bias = ctx.needs_input_grad[:3]
        count = ctx.count
        dims = tuple(range(-count, 0))
        leading = tuple(range(grad.ndim - count))
        if isinstance(grad, np.ndarray):  # a first-order backward on arrays (see autograd.function)
            normalized, rstd = ctx.normalized, ctx.rstd
            size = normalized.size // rstd.size if rstd.size else 0
            grad_x = grad_weight = grad_bias = None
            product = grad * normalized if needs_weight or needs_x else None  # (weight's and x's)
            if needs_weight:
                grad_weight = _precision.sum_first(product, len(leading)).astype(weight.dtype, copy=False)
            if needs_bias:
                grad_bias = _precision.sum_first(grad, len(leading)).astype(grad.dtype, copy=False)
            if needs_x:
                scaled = grad * weight if weight is not None else grad.astype(normalized.dtype)
                mean_scaled = _precision.sum_last(scaled, count)
                mean_scaled /= size
                # the rows' sums of scaled * normalized = grad * normalized * weight: one pass fewer
                mean_projection = _precision.dot_last(product, weight, count)
                mean_projection /= size
                scaled -= mean_scaled
                mean_projection = normalized * mean_projection
                scaled -= mean_projection
                scaled *= rstd
                grad_x = scaled.astype(x.dtype, copy=False)
            return grad_x, grad_weight, grad_bias, None, None
        # on tensors (create_graph): the same formulas in ember ops, so they can be differentiated again
        normalized, rstd = _normalized_and_rstd(x, dims, ctx.eps)
        grad_x = grad_weight = grad_bias = None
        if needs_weight:
            grad_weight = (grad * normalized).sum(leading) if leading else grad * normalized
        if needs_bias:
            grad_bias = grad.sum(leading) if leading else grad
        if needs_x:
            grad_x = _normalization_product(grad * weight if weight is not None else grad, normalized, rstd, dims)
        return grad_x, grad_weight, grad_bias, None, None

    @staticmethod
    def jvp(ctx, tangent_x, tangent_weight, tangent_bias, *_):
        x, weight = ctx.inputs[:2]
        dims = tuple(range(-ctx.count, 0))
        normalized, rstd = _normalized_and_rstd(x, dims, ctx.eps)
        total = None
        if tangent_x is not None:  # the normalization's Jacobian is symmetric: backward's product
            total = _normalization_product(tangent_x, normalized, rstd, dims)
            if weight is not None:
                total = total * weight
        if tangent_weight is not None:
            total = add_tangents(total, normalized * tangent_weight)
        if tangent_bias is not None:
            total = add_tangents(total, tangent_bias.expand(normalized.shape))
        return total


def _normalized_and_rstd(x, dims, eps):
    """(x - mean) / sqrt(var + eps) and 1 / sqrt(var + eps), in ember ops."""
    normalized, _, variance = _normalize(x, dims, eps)
    return normalized, (variance + eps) ** -0.5


def _normalization_product(vector, normalized, rstd, dims):
    """The Jacobian of x -> normalized(x) times `vector` (it is symmetric: J^T v = J v)."""
    projection = (vector * normalized).mean(dims, keepdim=True)
    return (vector - vector.mean(dims, keepdim=True) - normalized * projection) * rstd


@op(LayerNorm)
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
    return LayerNorm.apply(input, weight, bias, count, eps)


class GroupNorm(Primitive, node="NativeGroupNormBackward0", backward_on_arrays=True):
    """(x - mean) / sqrt(var + eps) over groups of channels (and the spatial dims) of (N, C, ...),
    then weight * . + bias per channel."""

    @staticmethod
    def forward(ctx, x, weight, bias, groups, eps):
        ctx.save_for_backward(x, weight)
        grouped_shape = (x.shape[0], groups, -1)
        view = (1, -1) + (1,) * (x.ndim - 2)
        ctx.layout, ctx.eps = (grouped_shape, view), eps
        normalized, _, variance = _statistics(x.reshape(grouped_shape), (2,))
        rstd = _inverse_std(variance, eps)
        normalized *= rstd
        if any(ctx.needs_input_grad[:3]):  # (what backward on arrays reads)
            ctx.normalized, ctx.rstd = normalized, rstd
        return _scale_and_shift(normalized.reshape(x.shape), weight, bias, view).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx.saved_tensors
        needs_x, needs_weight, needs_bias = ctx.needs_input_grad[:3]
        grouped_shape, view = ctx.layout
        channel_dims = (0,) + tuple(range(2, grad.ndim))
        grad_x = grad_weight = grad_bias = None
        if not isinstance(grad, Tensor):  # a first-order backward on arrays (see autograd.function)
            normalized, rstd = ctx.normalized, ctx.rstd
            if needs_weight:
                products = grad * normalized.reshape(grad.shape)
                grad_weight = np.add.reduce(products, axis=channel_dims).astype(weight.dtype, copy=False)
            if needs_bias:
                grad_bias = np.add.reduce(grad, axis=channel_dims)
            if needs_x:
                scaled = grad * weight.reshape(view) if weight is not None else grad.astype(normalized.dtype)
                scaled = _normalization_product_on_arrays(scaled.reshape(grouped_shape), normalized, rstd, (2,))
                grad_x = scaled.reshape(x.shape).astype(x.dtype, copy=False)
            return grad_x, grad_weight, grad_bias, None, None
        # on tensors (create_graph): the same formulas in ember ops, so they can be differentiated again
        normalized, rstd = _normalized_and_rstd(x.reshape(grouped_shape), (2,), ctx.eps)
        if needs_weight:
            grad_weight = (grad * normalized.reshape(x.shape)).sum(channel_dims)
        if needs_bias:
            grad_bias = grad.sum(channel_dims)
        if needs_x:
            scaled = (grad * weight.reshape(view) if weight is not None else grad).reshape(grouped_shape)
            grad_x = _normalization_product(scaled, normalized, rstd, (2,)).reshape(x.shape)
        return grad_x, grad_weight, grad_bias, None, None

    @staticmethod
    def jvp(ctx, tangent_x, tangent_weight, tangent_bias, *_):
        x, weight = ctx.inputs[:2]
        grouped_shape, view = ctx.layout
        normalized, rstd = _normalized_and_rstd(x.reshape(grouped_shape), (2,), ctx.eps)
        normalized_x = normalized.reshape(x.shape)
        total = None
        if tangent_x is not None:  # the Jacobian in x is symmetric: backward's product
            total = _normalization_product(tangent_x.reshape(grouped_shape), normalized, rstd, (2,)).reshape(x.shape)
            if weight is not None:
                total = total * weight.reshape(view)
        if tangent_weight is not None:
            total = add_tangents(total, normalized_x * tangent_weight.reshape(view))
        if tangent_bias is not None:
            total = add_tangents(total, tangent_bias.reshape(view).expand(x.shape))
        return total


@op(GroupNorm)
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    """Normalize (N, C, ...) over groups of C/num_groups channels and the spatial dims."""
    _check_tensor(input, "input", "group_norm")
    shape = input._data.shape
    if input._data.ndim < 2 or shape[1] % num_groups:
        raise RuntimeError(
            f"Expected number of channels in input to be divisible by num_groups, but got input of "
            f"shape {list(shape)} and num_groups={num_groups}"
        )
    for name, value in (("weight", weight), ("bias", bias)):
        if value is not None and value._data.shape != (shape[1],):
            raise RuntimeError(
                f"group_norm: expected {name} to be a vector of size equal to the number of channels in "
                f"input ({shape[1]}), but got {name} of shape {list(value.shape)}"
            )
    _check_floating(input, "group_norm")
    return GroupNorm.apply(input, weight, bias, num_groups, eps)


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
    """Normalize each (n, c) feature map of (N, C, ...) over its spatial dims: as PyTorch, batch norm
    of the input seen as (1, N * C, ...) (its node, then the view back: ViewBackward0), with the
    per-channel running statistics repeated per sample and averaged back after the update."""
    _check_tensor(input, "input", "instance_norm")
    shape = input._data.shape
    if use_input_stats and math.prod(shape[2:]) <= 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {list(shape)}")
    batch = shape[0]
    repeated = [
        None if running is None else new_tensor(np.tile(running._data, batch))
        for running in (running_mean, running_var)
    ]
    weight, bias = (None if value is None else value.repeat(batch) for value in (weight, bias))
    output = _batch_norm(
        input.reshape((1, -1) + shape[2:]), *repeated, weight, bias, use_input_stats, momentum, eps
    ).view(shape)
    if use_input_stats:
        for running, update in zip((running_mean, running_var), repeated):
            if running is not None:
                running._data[...] = update._data.reshape(batch, -1).mean(0)
                running._bump_version()
    return output
