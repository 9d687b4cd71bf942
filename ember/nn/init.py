"""Weight initialisation, as `torch.nn.init`: every function fills a tensor in place (under no_grad) and
returns it. Random ones draw from ember's seedable generator (`ember.manual_seed`) or `generator=`.
"""

import math

from .. import _dtype
from ..autograd.grad_mode import no_grad
from ..ops import creation
from .._warn import warn as _warn

__all__ = [
    "calculate_gain",
    "uniform_",
    "normal_",
    "trunc_normal_",
    "constant_",
    "ones_",
    "zeros_",
    "eye_",
    "dirac_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "orthogonal_",
    "sparse_",
    "uniform",
    "normal",
    "constant",
    "eye",
    "dirac",
    "xavier_uniform",
    "xavier_normal",
    "kaiming_uniform",
    "kaiming_normal",
    "orthogonal",
    "sparse",
]

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity: 1 for linear/conv/sigmoid, 5/3 for tanh, sqrt(2) for relu,
    sqrt(2 / (1 + slope**2)) for leaky_relu (slope `param`, default 0.01), 3/4 for selu."""
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    """(fan_in, fan_out) of a weight shaped (out, in, *kernel): in * kernel size and out * kernel size."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field_size = 1
    for size in tensor.shape[2:]:
        receptive_field_size *= size
    return tensor.size(1) * receptive_field_size, tensor.size(0) * receptive_field_size


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _fill(tensor, values):
    """Copy `values` into `tensor` without recording it (works on parameters that require grad)."""
    with no_grad():
        return tensor.copy_(values)


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with samples from U(a, b) (PyTorch's numbers after the same seed)."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with samples from N(mean, std**2) (PyTorch's numbers after the same seed)."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill with samples from N(mean, std**2) restricted to [a, b], by rejection as PyTorch 2.13 does
    (same draws, same order): normal draws redrawn where outside when [a, b] holds more than 30% of
    the mass, else uniform proposals on [a, b] accepted with the density's ratio to its peak."""
    if mean < a - 2 * std or mean > b + 2 * std:
        _warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values "
            "may be incorrect.",
            stacklevel=2,
        )
    from .. import ops

    with no_grad():
        if _normal_cdf((b - mean) / std) - _normal_cdf((a - mean) / std) > 0.3:
            low, high = (tensor.new_tensor(bound).item() for bound in (a, b))  # in the tensor's type
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                outside = (result < low) | (result > high)
                if not outside.any():
                    break
                result = ops.where(outside, ops.empty_like(result).normal_(mean, std, generator=generator), result)
            return tensor if result is tensor else tensor.copy_(result)
        log_peak = -0.5 * ((max(a, min(mean, b)) - mean) / std) ** 2

        def rejected(proposals):
            log_density = proposals.sub(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
            return ops.empty_like(proposals).uniform_(generator=generator).log_().gt(log_density)

        tensor.uniform_(a, b, generator=generator)
        pending = rejected(tensor)
        result = tensor
        while pending.any():
            proposals = ops.empty_like(tensor).uniform_(a, b, generator=generator)
            result = ops.where(pending, proposals, result)
            pending = ops.where(pending, rejected(proposals), pending)
        return tensor if result is tensor else tensor.copy_(result)


def _normal_cdf(x):
    return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0


def constant_(tensor, val):
    """Fill with the number `val`."""
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    """Fill with 1, in place and outside the graph. Returns the tensor."""
    return constant_(tensor, 1.0)


def zeros_(tensor):
    """Fill with 0, in place and outside the graph. Returns the tensor."""
    with no_grad():
        return tensor.zero_()


def eye_(tensor):
    """Fill a 2-D tensor with the identity matrix (Linear layers that start by passing inputs through)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(tensor, creation.eye(*tensor.shape, dtype=tensor.dtype))


def dirac_(tensor, groups=1):
    """Fill a 3-, 4- or 5-D conv weight with the Dirac delta: the convolution passes its input channels
    through (per group)."""
    dimensions = tensor.dim()
    if dimensions not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.size()
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_chans_per_group = sizes[0] // groups
    min_dim = min(out_chans_per_group, sizes[1])
    values = creation.zeros(sizes, dtype=tensor.dtype)
    centre = tuple(size // 2 for size in sizes[2:])
    for group in range(groups):
        for channel in range(min_dim):
            values[(group * out_chans_per_group + channel, channel) + centre] = 1
    return _fill(tensor, values)


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot initialisation: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot initialisation: N(0, std**2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He initialisation: U(-bound, bound), bound = gain * sqrt(3 / fan) (fan by `mode`, gain by
    `nonlinearity` with negative slope `a`). Linear and Conv layers use it with a=sqrt(5)."""
    if 0 in tensor.shape:
        _warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He initialisation: N(0, std**2), std = gain / sqrt(fan)."""
    if 0 in tensor.shape:
        _warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def orthogonal_(tensor, gain=1, generator=None):
    """Fill with a (semi-)orthogonal matrix (trailing dimensions flattened), scaled by `gain`."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flattened = creation.randn(rows, cols, generator=generator, dtype=_dtype.float64)
    if rows < cols:
        flattened = flattened.t()
    from ..linalg import qr

    q, r = qr(flattened)
    # Multiplying by the signs of R's diagonal makes Q uniformly distributed.
    q = q * (r * creation.eye(r.size(0), dtype=r.dtype)).sum(0).sign()
    if rows < cols:
        q = q.t()
    return _fill(tensor, q.reshape(tensor.shape) * gain)


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fill a 2-D tensor with N(0, std**2) values, then zero a `sparsity` fraction of each column."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    values = creation.randn(rows, cols, generator=generator, dtype=_dtype.float64) * std
    for column in range(cols):
        zero_rows = creation.randperm(rows, generator=generator)[:num_zeros]
        values[zero_rows, column] = 0
    return _fill(tensor, values)


def _deprecated(new_function):
    old_name = new_function.__name__[:-1]

    def old_function(*args, **kwargs):
        _warn(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_function.__name__}`.",
            FutureWarning,
            stacklevel=2,
        )
        return new_function(*args, **kwargs)

    old_function.__name__ = old_name
    old_function.__doc__ = f"Deprecated: use `{new_function.__name__}`."
    return old_function


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
