"""ember.nn.functional: the functional forms of layers, activations and losses, as torch.nn.functional.

Signatures, defaults and results follow PyTorch. The primitives (convolution, pooling, softmax,
NLL, ...) live in `ember.ops` (conv, pooling, losses, ... one module per family); the rest are composites of ember ops, so they are
differentiable twice. Difference from PyTorch: `interpolate` has no `antialias`.
"""

import math


from .. import ops as _ops
from .. import _dtype
from .._tensor import Tensor, new_tensor
from ..ops import (
    _nn_common,
    activations as _activations,
    dropouts as _dropouts,
    embeddings as _embeddings,
    losses as _losses,
    normalization as _normalization,
    padding as _padding,
    pooling as _pooling,
)
from ..ops import _autocast
from ..ops.inplace import apply_inplace as _apply_inplace
from ..ops.pooling import max_pool1d, max_pool2d, max_pool3d, adaptive_avg_pool1d
from ..ops.fractional_pooling import (
    fractional_max_pool2d,
    fractional_max_pool2d_with_indices,
    fractional_max_pool3d,
    fractional_max_pool3d_with_indices,
)
from ..ops.conv import conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d, conv_transpose3d
from ..ops.interpolation import interpolate
from ..ops.embeddings import one_hot
from ..ops.linear_layers import linear, bilinear
from ..ops.patches import unfold, fold, pixel_shuffle, pixel_unshuffle
from ..ops.distance import cosine_similarity, pairwise_distance
from ..ops.activations import prelu, softplus, hardshrink
from ..ops.elementwise import tanh, sigmoid
from ..ops.losses import margin_ranking_loss, hinge_embedding_loss, cosine_embedding_loss, triplet_margin_loss
from ..ops.losses import reduce_loss as _reduce_loss
from .._warn import warn as _warn

__all__ = [
    "affine_grid",
    "grid_sample",
    "max_unpool3d",
    "lp_pool3d",
    "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices",
    "channel_shuffle",
    "native_channel_shuffle",
    "pdist",
    "gumbel_softmax",
    "triplet_margin_with_distance_loss",
    "linear",
    "bilinear",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "unfold",
    "fold",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "max_pool1d_with_indices",
    "max_pool2d_with_indices",
    "max_pool3d_with_indices",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "max_unpool1d",
    "max_unpool2d",
    "lp_pool1d",
    "lp_pool2d",
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d_with_indices",
    "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices",
    "threshold",
    "threshold_",
    "relu",
    "relu_",
    "relu6",
    "hardtanh",
    "hardtanh_",
    "elu",
    "elu_",
    "selu",
    "selu_",
    "celu",
    "celu_",
    "leaky_relu",
    "leaky_relu_",
    "prelu",
    "rrelu",
    "rrelu_",
    "glu",
    "gelu",
    "logsigmoid",
    "hardshrink",
    "tanhshrink",
    "softsign",
    "softplus",
    "softmin",
    "softmax",
    "softshrink",
    "log_softmax",
    "tanh",
    "sigmoid",
    "hardsigmoid",
    "silu",
    "mish",
    "hardswish",
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "alpha_dropout",
    "feature_alpha_dropout",
    "batch_norm",
    "instance_norm",
    "layer_norm",
    "group_norm",
    "rms_norm",
    "local_response_norm",
    "normalize",
    "embedding",
    "one_hot",
    "pad",
    "interpolate",
    "upsample",
    "upsample_nearest",
    "upsample_bilinear",
    "pixel_shuffle",
    "pixel_unshuffle",
    "cosine_similarity",
    "pairwise_distance",
    "l1_loss",
    "mse_loss",
    "smooth_l1_loss",
    "huber_loss",
    "cross_entropy",
    "nll_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "kl_div",
    "poisson_nll_loss",
    "gaussian_nll_loss",
    "margin_ranking_loss",
    "hinge_embedding_loss",
    "cosine_embedding_loss",
    "triplet_margin_loss",
    "soft_margin_loss",
    "multilabel_soft_margin_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
]


# ================================================================ pooling
def max_pool1d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=True
):
    """`max_pool1d(..., return_indices=True)`: the pooled values and the positions of the maxima."""
    return _pooling.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=True
):
    """`max_pool2d(..., return_indices=True)`: the pooled values and the positions of the maxima."""
    return _pooling.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(
    input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=True
):
    """`max_pool3d(..., return_indices=True)`: the pooled values and the positions of the maxima."""
    return _pooling.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """Average pooling over (N, C, L)."""
    return _pooling.avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad)


def avg_pool2d(
    input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None
):
    """Average pooling over (N, C, H, W) windows. `count_include_pad=False` leaves the zero padding out
    of each divisor; `divisor_override` replaces the divisor."""
    return _pooling._avg_pool(
        input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 2, "avg_pool2d"
    )


def avg_pool3d(
    input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None
):
    """Average pooling over (N, C, D, H, W) windows, with `avg_pool2d`'s options."""
    return _pooling._avg_pool(
        input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, 3, "avg_pool3d"
    )


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool1d: values put back at `indices`, zeros elsewhere."""
    return _pooling._max_unpool(input, indices, kernel_size, stride, padding, output_size, 1, "max_unpool1d")


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool2d: values put back at `indices` (from return_indices=True)."""
    return _pooling._max_unpool(input, indices, kernel_size, stride, padding, output_size, 2, "max_unpool2d")


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of max_pool3d: values put back at `indices`, zeros elsewhere."""
    return _pooling._max_unpool(input, indices, kernel_size, stride, padding, output_size, 3, "max_unpool3d")


def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, n):
    kernel = _nn_common._ntuple(kernel_size, n, "kernel_size", f"lp_pool{n}d")
    pool = {1: avg_pool1d, 2: avg_pool2d, 3: avg_pool3d}[n]
    output = pool(input**norm_type, kernel, stride, 0, ceil_mode)
    return (_ops.sign(output) * relu(_ops.abs(output)) * math.prod(kernel)) ** (1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum of x**p over each window) ** (1/p)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum of x**p over each 2-d window) ** (1/p), over (N, C, H, W)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum of x**p over each 3-d window) ** (1/p)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3)


def adaptive_avg_pool2d(input, output_size):
    """Average pooling of (N, C, H, W) to `output_size` (an int, a pair, None keeps a size)."""
    return _pooling._adaptive_avg_pool(input, output_size, 2, "adaptive_avg_pool2d")


def adaptive_avg_pool3d(input, output_size):
    """Average pooling of (N, C, D, H, W) to `output_size`, with PyTorch's adaptive windows."""
    return _pooling._adaptive_avg_pool(input, output_size, 3, "adaptive_avg_pool3d")


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max pooling of (N, C, L) to `output_size`, with PyTorch's adaptive windows."""
    return _pooling.adaptive_max_pool1d_of(input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pooling of (N, C, H, W) to `output_size`, with PyTorch's adaptive windows."""
    return _pooling._adaptive_max_pool(input, output_size, return_indices, 2, "adaptive_max_pool2d")


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Max pooling of (N, C, D, H, W) to `output_size`, with PyTorch's adaptive windows."""
    return _pooling._adaptive_max_pool(input, output_size, return_indices, 3, "adaptive_max_pool3d")


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=True):
    """adaptive_max_pool3d, also returning the indices of the maxima."""
    return _pooling._adaptive_max_pool(input, output_size, True, 3, "adaptive_max_pool3d")


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=True):
    """`adaptive_max_pool1d(..., return_indices=True)`: the values and the positions of the maxima."""
    return _pooling.adaptive_max_pool1d_of(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=True):
    """`adaptive_max_pool2d(..., return_indices=True)`: the values and the positions of the maxima."""
    return _pooling._adaptive_max_pool(input, output_size, True, 2, "adaptive_max_pool2d")


# ================================================================ activations
def _maybe_inplace(input, inplace, name, function, *args):
    """`function(input, *args)`, or stored into `input` itself when `inplace` (PyTorch's `xxx_`)."""
    if inplace:
        return _apply_inplace(input, name, function, *args)
    return function(input, *args)


def threshold(input, threshold, value, inplace=False):
    """x where x > threshold, else `value`."""
    return _maybe_inplace(input, inplace, "threshold_", _activations.threshold, threshold, value)


def threshold_(input, threshold, value):
    """In-place `threshold`: stores the result in `input` and returns it."""
    return _apply_inplace(input, "threshold_", _activations.threshold, threshold, value)


def relu(input, inplace=False):
    """max(x, 0)."""
    return _maybe_inplace(input, inplace, "relu_", _ops.relu)


def relu_(input):
    """In-place `relu`: stores the result in `input` and returns it."""
    return _apply_inplace(input, "relu_", _ops.relu)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """x clipped to [min_val, max_val]."""
    return _maybe_inplace(input, inplace, "hardtanh_", _activations.hardtanh, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """In-place `hardtanh`: stores the result in `input` and returns it."""
    return _apply_inplace(input, "hardtanh_", _activations.hardtanh, min_val, max_val)


def relu6(input, inplace=False):
    """min(max(x, 0), 6)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def elu(input, alpha=1.0, inplace=False):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""
    return _maybe_inplace(input, inplace, "elu_", _activations.elu, alpha)


def elu_(input, alpha=1.0):
    """In-place `elu`: stores the result in `input` and returns it."""
    return _apply_inplace(input, "elu_", _activations.elu, alpha)


def selu(input, inplace=False):
    """scale * elu(x, alpha) with the self-normalizing constants (scale 1.0507..., alpha 1.6732...)."""
    return _maybe_inplace(input, inplace, "selu_", _activations.selu)


def selu_(input):
    """In-place `selu`: stores the result in `input` and returns it."""
    return _apply_inplace(input, "selu_", _activations.selu)


def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    return _maybe_inplace(input, inplace, "celu_", _activations.celu, alpha)


def celu_(input, alpha=1.0):
    """In-place `celu`: stores the result in `input` and returns it."""
    return _apply_inplace(input, "celu_", _activations.celu, alpha)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x for x > 0, negative_slope * x otherwise."""
    return _maybe_inplace(input, inplace, "leaky_relu_", _activations.leaky_relu, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    """In-place `leaky_relu`: stores the result in `input` and returns it."""
    return _apply_inplace(input, "leaky_relu_", _activations.leaky_relu, negative_slope)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Leaky ReLU with a random slope in [lower, upper] per element when training, their mean otherwise."""
    return _maybe_inplace(input, inplace, "rrelu_", _activations.rrelu, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """In-place `rrelu`: stores the result in `input` and returns it."""
    return _apply_inplace(input, "rrelu_", _activations.rrelu, lower, upper, training)


def glu(input, dim=-1):
    """a * sigmoid(b), where a and b are the two halves of `input` along `dim`."""
    return _activations.glu(input, dim)


def _in_float32_for_bfloat16(input):
    """Whether a composite should run on `input.float()` and round its result to bfloat16 once, as
    PyTorch's single kernel for it does (each of the composite's ops would round on its own)."""
    return type(input) is Tensor and input._data.dtype.kind == "V"


def gelu(input, approximate="none"):
    """x * Phi(x), Phi the standard normal CDF; approximate='tanh' uses the tanh formula."""
    if _in_float32_for_bfloat16(input):
        return gelu(input.float(), approximate).to(input.dtype)
    return _activations.gelu(input, approximate)


def logsigmoid(input):
    """log(sigmoid(x)) = -softplus(-x), without overflow."""
    return _activations.logsigmoid(input)


def tanhshrink(input):
    """x - tanh(x)."""
    return input - _ops.tanh(input)


def softsign(input):
    """x / (1 + |x|)."""
    return input / (_ops.abs(input) + 1)


def softshrink(input, lambd=0.5):
    """x - lambd above lambd, x + lambd below -lambd, 0 between."""
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    return _ops.where(input > lambd, input - lambd, _ops.where(input < -lambd, input + lambd, 0.0))


def hardsigmoid(input, inplace=False):
    """relu6(x + 3) / 6."""
    return _maybe_inplace(input, inplace, "hardsigmoid_", _activations.hardsigmoid)


def silu(input, inplace=False):
    """x * sigmoid(x) (also called swish)."""
    return _maybe_inplace(input, inplace, "silu_", _silu)


def _silu(input):
    if _in_float32_for_bfloat16(input):
        return _silu(input.float()).to(input.dtype)
    return _activations.silu(input)


def mish(input, inplace=False):
    """x * tanh(softplus(x))."""
    return _maybe_inplace(input, inplace, "mish_", _activations.mish)


def hardswish(input, inplace=False):
    """x * relu6(x + 3) / 6."""
    return _maybe_inplace(input, inplace, "hardswish_", _activations.hardswish)


def _softmax_dim(name, ndim, stacklevel):
    _warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.",
        UserWarning,
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x) / sum(exp(x)) along `dim` (stable for any x); `dtype` converts the input first."""
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    return _activations.softmax(input, dim, dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x)."""
    if dim is None:
        dim = _softmax_dim("softmin", input.dim(), _stacklevel)
    if dtype is not None:
        input = input.to(dtype)
    return _activations.softmax(-input, dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log(softmax(x)) along `dim`, computed directly (stable)."""
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    return _activations.log_softmax(input, dim, dtype)


# ================================================================ dropout
def dropout(input, p=0.5, training=True, inplace=False):
    """Zero elements with probability p and scale the others by 1/(1-p) when `training`."""
    _dropouts._check_probability(p, "dropout")
    return _maybe_inplace(input, inplace and training, "dropout_", _dropouts.dropout, p, training)


def _channel_dropout(input, p, training, inplace, n, name):
    _dropouts._check_probability(p, name)
    ndim = input.dim()
    if ndim not in (n + 1, n + 2):
        _warn(
            f"{name}: Received a {ndim}-D input to {name}, which is deprecated and will result in an "
            f"error in a future release. To retain the behavior and silence this warning, please use "
            f"dropout instead.",
            UserWarning,
            stacklevel=3,
        )
    unbatched = ndim == n + 1
    if unbatched:
        input = input.unsqueeze(0) if not inplace else input
    result = (
        _maybe_inplace(input, inplace and training, "feature_dropout_", _dropouts.feature_dropout, p, training)
        if not (unbatched and inplace)
        else _apply_inplace(input, "feature_dropout_", _unbatched_feature_dropout, p, training)
    )
    return result.squeeze(0) if unbatched and not inplace else result


def _unbatched_feature_dropout(input, p, training):
    return _dropouts.feature_dropout(input.unsqueeze(0), p, training).squeeze(0)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, L) with probability p."""
    return _channel_dropout(input, p, training, inplace, 1, "dropout1d")


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels (feature maps) of (N, C, H, W) with probability p."""
    return _channel_dropout(input, p, training, inplace, 2, "dropout2d")


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels (feature maps) of (N, C, D, H, W) with probability p, scaling the rest by 1/(1-p)."""
    return _channel_dropout(input, p, training, inplace, 3, "dropout3d")


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks (keeps mean and variance). Note the default training=False, as PyTorch."""
    return _maybe_inplace(input, inplace and training, "alpha_dropout_", _dropouts.alpha_dropout, p, training)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """alpha_dropout of whole channels."""

    def channel_alpha_dropout(tensor, p, training):
        return _dropouts._alpha_dropout(tensor, p, training, _dropouts._feature_shape(tensor))

    return _maybe_inplace(input, inplace and training, "feature_alpha_dropout_", channel_alpha_dropout, p, training)


# ================================================================ normalization
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """Normalize (N, C, ...) per channel with the batch's statistics (training; the running ones are
    updated in place) or with `running_mean` / `running_var` (eval), then scale and shift."""
    return _normalization._batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(
    input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True, momentum=0.1, eps=1e-5
):
    """Normalize each (n, c) feature map over its spatial dims."""
    return _normalization.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalize over the last dims given by `normalized_shape`, then scale and shift elementwise."""
    return _normalization.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalize (N, C, ...) over groups of channels (and the spatial dims)."""
    return _normalization.group_norm(input, num_groups, weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x / sqrt(mean(x**2) + eps) over the last dims given by `normalized_shape`, times `weight`."""
    normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    count = len(normalized_shape)
    if tuple(input.shape[input.dim() - count :]) != normalized_shape:
        raise RuntimeError(
            f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
            f"[*, {', '.join(map(str, normalized_shape))}], but got input of size{list(input.shape)}"
        )
    if eps is None:
        eps = _dtype.finfo(input.dtype).eps
    dims = tuple(range(-count, 0))
    output = input * _ops.rsqrt((input * input).mean(dims, keepdim=True) + eps)
    return output * weight if weight is not None else output


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Normalize each element by the squares of its `size` neighbouring channels (AlexNet's LRN)."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    squared = (input * input).unsqueeze(1)
    if dim == 3:
        squared = pad(squared, (0, 0, size // 2, (size - 1) // 2))
        average = avg_pool2d(squared, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.shape
        squared = squared.reshape((sizes[0], 1, sizes[1], sizes[2], -1))
        squared = pad(squared, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        average = avg_pool3d(squared, (size, 1, 1), stride=1).squeeze(1).reshape(sizes)
    return input / (average * alpha + k) ** beta


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p, eps) along `dim`."""
    denominator = _ops.clamp_min(_ops.norm(input, p, dim, keepdim=True), eps).expand_as(input)
    result = input / denominator
    if out is not None:
        from ..ops.inplace import copy_into_out

        return copy_into_out(out, result)
    return result


# ================================================================ embedding, one_hot, pad
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    """Rows of `weight` (num_embeddings, dim) at integer `input`. `padding_idx`'s row gets no gradient;
    `max_norm` renormalizes the rows used, in place. With `sparse=True` the weight's gradient is a sparse
    COO tensor (for `optim.SGD` and `optim.SparseAdam`), as in PyTorch."""
    return _embeddings._embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse)


def pad(input, pad, mode="constant", value=None):
    """Pad the last len(pad)//2 dims: `pad` is (left, right, top, bottom, ...), last dim first.

    mode: 'constant' (with `value`, default 0; negative amounts crop), 'reflect', 'replicate', 'circular'.
    """
    if mode == "constant":
        return _padding.constant_pad_nd(input, pad, 0.0 if value is None else value)
    if value is not None and value != 0:
        raise ValueError(f"Padding mode \"{mode}\" doesn't take in value argument.")
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    padded_dims = len(pad) // 2
    if padded_dims not in (1, 2, 3) or input.dim() not in (padded_dims + 1, padded_dims + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.dim()}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
        )
    return _padding.index_pad(input, pad, mode)


# ================================================================ interpolate


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of `interpolate` (PyTorch warns the same way)."""
    _warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.", UserWarning, stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: `interpolate(input, size, scale_factor, mode="nearest")`, with PyTorch's warning."""
    _warn(
        "nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.",
        UserWarning,
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: `interpolate(..., mode="bilinear", align_corners=True)`, with PyTorch's warning."""
    _warn(
        "nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.",
        UserWarning,
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ================================================================ losses
def _legacy_reduction(size_average, reduce, reduction):
    """PyTorch's handling of the pre-0.4 `size_average` / `reduce` arguments (with its warning)."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    result = "mean" if size_average and reduce else "sum" if reduce else "none"
    _warn(
        f"size_average and reduce args will be deprecated, please use reduction='{result}' instead.",
        UserWarning,
        stacklevel=3,
    )
    return result


def _check_target_size(input, target, name):
    if target.shape != input.shape:
        _warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            f"This will likely lead to incorrect results due to broadcasting. Please ensure they have "
            f"the same size.",
            UserWarning,
            stacklevel=3,
        )


def _check_pointwise_loss(input, target, name):
    """Both are tensors whose shapes broadcast (a warning if they differ, as PyTorch's)."""
    for label, value in (("input", input), ("target", target)):
        if not isinstance(value, Tensor):
            raise TypeError(f"{name}(): argument '{label}' must be Tensor, not {type(value).__name__}")
    _check_target_size(input, target, name)
    try:
        _ops.broadcast_shapes(input.shape, target.shape)
    except RuntimeError:
        raise RuntimeError(
            f"{name}: The size of tensor a ({input.shape[-1]}) must match the size of tensor b "
            f"({target.shape[-1]}) at non-singleton dimension: input {list(input.shape)} and "
            f"target {list(target.shape)} cannot be broadcast"
        ) from None


def _integral_target_promoted(input, target):
    """An integer or bool target in the dtype the loss computes in (PyTorch's promotion, which
    NumPy's would not give: float32 with int64 is float64 there)."""
    if target._data.dtype.kind in "biu" and input._data.dtype.kind in "fc":
        return target.to(_dtype.result_type(input, target))
    return target


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """|input - target|, reduced ('mean', 'sum' or 'none')."""
    if _autocast.ever_enabled and _autocast.state.active:
        input, target = _autocast.full_precision(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_pointwise_loss(input, target, "l1_loss")
    return _losses.reduce_loss(_ops.abs(input - target), reduction)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """(input - target)**2, reduced."""
    if _autocast.ever_enabled and _autocast.state.active:
        input, target = _autocast.full_precision(input, target)
    reduction = _losses.reduction_name(_legacy_reduction(size_average, reduce, reduction))
    _check_pointwise_loss(input, target, "mse_loss")
    target = _integral_target_promoted(input, target)
    if weight is not None:  # PyTorch's weighted form is a composite too
        difference = input - target
        return _losses.reduce_loss(difference * difference * weight, reduction)
    return _losses.MseLoss.apply(input, target, reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 d**2 / beta where |d| < beta, else |d| - 0.5 beta (beta=0 is the L1 loss)."""
    if _autocast.ever_enabled and _autocast.state.active:
        input, target = _autocast.full_precision(input, target)
    reduction = _losses.reduction_name(_legacy_reduction(size_average, reduce, reduction))
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _check_pointwise_loss(input, target, "smooth_l1_loss")
    target = _integral_target_promoted(input, target)
    return _losses.SmoothL1Loss.apply(input, target, float(beta), reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 d**2 where |d| < delta, else delta (|d| - 0.5 delta)."""
    if _autocast.ever_enabled and _autocast.state.active:
        input, target = _autocast.full_precision(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    reduction = _losses.reduction_name(reduction)
    _check_pointwise_loss(input, target, "huber_loss")
    target = target.to(input.dtype)  # PyTorch's huber_loss computes in the input's dtype
    if weight is not None:
        loss = _losses.HuberLoss.apply(input, target, float(delta), "none")
        return _losses.reduce_loss(loss * weight, reduction)
    return _losses.HuberLoss.apply(input, target, float(delta), reduction)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """Negative log-likelihood of class-index targets: input holds log-probabilities (N, C) or
    (N, C, d1, ...); 'mean' divides by the summed weights of the non-ignored targets."""
    if _autocast.ever_enabled and _autocast.state.active:
        input, target = _autocast.full_precision(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _losses.nll_loss_rows(input, target, weight, ignore_index, reduction)


def _probability_cross_entropy(log_probabilities, target, weight, reduction, label_smoothing):
    classes = log_probabilities.shape[1] if log_probabilities.dim() > 1 else log_probabilities.shape[0]
    class_dim = 1 if log_probabilities.dim() > 1 else 0
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    products = log_probabilities * target
    if weight is not None:
        products = products * weight.reshape((-1,) + (1,) * (log_probabilities.dim() - class_dim - 1))
    if reduction == "none":
        return -products.sum(class_dim)
    if reduction == "sum":
        return -products.sum()
    return -products.sum() / (log_probabilities.numel() / classes)


def cross_entropy(
    input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean", label_smoothing=0.0
):
    """log_softmax over the class dim (1, or 0 for unbatched input) followed by nll_loss.

    `target` holds class indices (N,) / (N, d1, ...) or class probabilities shaped like `input`.
    `label_smoothing` mixes the target with the uniform distribution.
    """
    if _autocast.ever_enabled and _autocast.state.active:
        input, target = _autocast.full_precision(input, target)
    reduction = _losses.reduction_name(_legacy_reduction(size_average, reduce, reduction))
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if not isinstance(input, Tensor) or not isinstance(target, Tensor):
        raise TypeError(
            f"cross_entropy(): input and target must be Tensors, got {type(input).__name__} and {type(target).__name__}"
        )
    class_dim = 1 if input.dim() > 1 else 0
    log_probabilities = _activations.log_softmax(input, class_dim)
    if target._data.dtype.kind in "fV":
        if target.shape != input.shape:
            raise RuntimeError(
                f"cross_entropy: class-probability targets must have the input's shape "
                f"{list(input.shape)}, got {list(target.shape)} (class indices must be integers)"
            )
        return _probability_cross_entropy(log_probabilities, target, weight, reduction, label_smoothing)
    loss = _losses.nll_loss_rows(log_probabilities, target, weight, ignore_index, reduction, "cross_entropy")
    if label_smoothing == 0:
        return loss
    classes = input.shape[class_dim]
    ignored = new_tensor(target._data == ignore_index)
    if weight is not None:
        weighted = log_probabilities * weight.reshape((-1,) + (1,) * (input.dim() - class_dim - 1))
        smooth = -weighted.sum(class_dim)
    else:
        smooth = -log_probabilities.sum(class_dim)
    smooth = _ops.where(ignored, 0.0, smooth)
    if reduction == "mean":
        if weight is not None:
            kept = target._data[target._data != ignore_index]
            smooth = smooth.sum() / weight[new_tensor(kept)].sum()
        else:
            smooth = smooth.sum() / int((~ignored._data).sum())
    elif reduction == "sum":
        smooth = smooth.sum()
    return loss * (1 - label_smoothing) + smooth * (label_smoothing / classes)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-w [t log(x) + (1 - t) log(1 - x)] for probabilities x in [0, 1] (logs clamped at -100)."""
    if _autocast.ever_enabled and _autocast.state.active:
        input, target = _autocast.full_precision(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _losses.binary_cross_entropy(input, target, weight, reduction)


def binary_cross_entropy_with_logits(
    input, target, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None
):
    """binary_cross_entropy(sigmoid(input), target), computed stably from the logits; `pos_weight`
    weighs the positive term (per class, broadcast over the last dim)."""
    if _autocast.ever_enabled and _autocast.state.active:
        input, target = _autocast.full_precision(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _losses.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """KL divergence sum(target * (log(target) - input)); `input` holds log-probabilities. Use
    reduction='batchmean' for the mathematical KL divergence ('mean' divides by every element)."""
    if _autocast.ever_enabled and _autocast.state.active:
        input, target = _autocast.full_precision(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction == "mean":
        _warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size."
            "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
            "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
            UserWarning,
            stacklevel=2,
        )
    return _losses.kl_div(input, target, reduction, log_target)


def poisson_nll_loss(
    input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"
):
    """Negative log-likelihood of a Poisson target: exp(input) - target * input when `log_input`."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _losses.poisson_nll_loss(input, target, log_input, full, eps, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """0.5 (log(max(var, eps)) + (input - target)**2 / max(var, eps)) (+ 0.5 log(2 pi) when `full`)."""
    if var.dim() != input.dim() and var.shape == input.shape[:-1]:
        var = var.unsqueeze(-1)
    if var.dim() == input.dim() and var.shape != input.shape and var.shape[-1] != 1:
        raise ValueError("var is of incorrect size")
    if bool((var._data < 0).any()):
        raise ValueError("var has negative entry/entries")
    from ..autograd import grad_mode

    with grad_mode.no_grad():
        clamped = _ops.clamp_min(var, eps)
    var = var + (clamped - var).detach()  # clamp without blocking the gradient, as PyTorch
    difference = input - target
    loss = (_ops.log(var) + difference * difference / var) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _losses.reduce_loss(loss, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target * input)), reduced."""
    reduction = _losses.reduction_name(_legacy_reduction(size_average, reduce, reduction))
    _check_pointwise_loss(input, target, "soft_margin_loss")
    target = target.to(input.dtype)  # PyTorch's soft_margin_loss computes in the input's dtype
    return _losses.SoftMarginLoss.apply(input, target, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-mean over classes of [t log(sigmoid(x)) + (1 - t) log(sigmoid(-x))], per sample."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(input.dim() - 1) / input.shape[-1]
    return _losses.reduce_loss(loss, reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
    """sum over i != y of w[y] * max(0, margin - x[y] + x[i])**p / C, per sample (a multi-class
    hinge loss; p is 1 or 2). Input (C,) or (N, C), target (N,) class indices."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _losses.multi_margin_loss(input, target, p, margin, weight, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """sum over target classes j and other classes i of max(0, 1 - (x[j] - x[i])) / C, per sample.

    `target` has the input's shape, (C,) or (N, C): each row lists the sample's classes, ended by
    the first -1 (the rest of the row is ignored)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _losses.multilabel_margin_loss(input, target, reduction)


from ._functional_attention import scaled_dot_product_attention, multi_head_attention_forward  # noqa: E402

# the modules (nn.MultiheadAttention, nn.Transformer) reach these helpers through F, as PyTorch's do
from ._functional_attention import _canonical_mask, _none_or_dtype  # noqa: E402,F401
from ._functional_attention import _in_projection_packed, _in_projection  # noqa: E402,F401
from ._functional_ctc import ctc_loss  # noqa: E402
from ._functional_grid import affine_grid, grid_sample  # noqa: E402
from ._functional_embedding_bag import embedding_bag  # noqa: E402

__all__ += ["scaled_dot_product_attention", "multi_head_attention_forward", "ctc_loss", "embedding_bag"]


# ================================================================ more compositions
def channel_shuffle(input, groups):
    """Interleave the channels of (N, C, *) in `groups` groups (ShuffleNet): channel g * (C / groups) + i
    goes to position i * groups + g."""
    if input.dim() < 3:
        raise RuntimeError(
            f"channel_shuffle expects input to have at least 3 dimensions, but got input with sizes {list(input.shape)}"
        )
    channels = input.shape[1]
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    if channels % groups != 0:
        raise RuntimeError(
            f"Number of channels must be divisible by groups. Got {channels} channels and {groups} groups."
        )
    batch, rest = input.shape[0], tuple(input.shape[2:])
    grouped = input.reshape((batch, groups, channels // groups) + rest)
    return grouped.transpose(1, 2).reshape(input.shape)


native_channel_shuffle = channel_shuffle


def pdist(input, p=2):
    """The p-norm distances between every pair of rows of an (N, M) input: the upper triangle of
    cdist(input, input), row by row, as a vector of N * (N - 1) / 2."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    positions = _ops.arange(input.shape[0])
    first, second = _ops.meshgrid(positions, positions, indexing="ij")
    above_diagonal = first < second  # the pairs (i, j > i), row by row
    first, second = first[above_diagonal], second[above_diagonal]
    if first.numel() == 0:
        return input.new_zeros(0)
    difference = input[first] - input[second]
    return _ops.linalg.vector_norm(difference, p, dim=1)


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """A sample from the Gumbel-softmax (Concrete) distribution over `dim`; with `hard`, a one-hot
    vector whose gradient is the soft sample's (straight-through)."""
    gumbels = -_ops.empty_like(logits).exponential_().log()
    soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return soft
    index = soft.max(dim, keepdim=True)[1]
    one_hot_sample = _ops.zeros_like(logits).scatter_(dim, index, 1.0)
    return one_hot_sample - soft.detach() + soft


def triplet_margin_with_distance_loss(
    anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False, reduction="mean"
):
    """max(d(anchor, positive) - d(anchor, negative) + margin, 0) with a distance of your choice
    (pairwise_distance by default); `swap` also uses d(positive, negative) when it is smaller."""
    if margin <= 0:
        raise ValueError(
            f"triplet_margin_with_distance_loss: expected margin to be greater than 0, got {margin} instead"
        )
    distance = pairwise_distance if distance_function is None else distance_function
    positive_distance = distance(anchor, positive)
    negative_distance = distance(anchor, negative)
    if swap:
        negative_distance = _ops.minimum(negative_distance, distance(positive, negative))
    loss = (positive_distance - negative_distance + margin).clamp_min(0)
    return _reduce_loss(loss, reduction)


# Public names offer their calls to the arguments' __torch_function__ (see ember._torch_function).
from .. import _torch_function  # noqa: E402

_torch_function.publish(globals(), __all__, "ember.nn.functional")
