"""Activation layers: module forms of the element-wise nonlinearities and of softmax."""

from ... import ops
from ...ops import creation
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module
from ..._warn import warn as _warn

__all__ = [
    "Threshold",
    "ReLU",
    "RReLU",
    "Hardtanh",
    "ReLU6",
    "Sigmoid",
    "Hardsigmoid",
    "Tanh",
    "SiLU",
    "Mish",
    "Hardswish",
    "ELU",
    "CELU",
    "SELU",
    "GLU",
    "GELU",
    "Hardshrink",
    "LeakyReLU",
    "LogSigmoid",
    "Softplus",
    "Softshrink",
    "PReLU",
    "Softsign",
    "Tanhshrink",
    "Softmin",
    "Softmax",
    "Softmax2d",
    "LogSoftmax",
]


def _inplace_suffix(module, first=False):
    """The ', inplace=True' (or 'inplace=True' when it is the only item) of PyTorch's reprs."""
    if not module.inplace:
        return ""
    return "inplace=True" if first else ", inplace=True"


class Threshold(Module):
    """`y = x if x > threshold else value`."""

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}{_inplace_suffix(self)}"


class ReLU(Module):
    """`max(0, x)`; `inplace=True` overwrites the input.

    Example::

        >>> nn.ReLU()(ember.tensor([-1.0, 2.0]))
        tensor([0., 2.])
    """

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace_suffix(self, first=True)


class RReLU(Module):
    """Randomized leaky ReLU: the negative slope is drawn from U(lower, upper) in training, their mean in eval."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}{_inplace_suffix(self)}"


class Hardtanh(Module):
    """Clamp to [min_val, max_val]."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        super().__init__()
        if min_value is not None:
            _warn("keyword argument `min_value` is deprecated and rename to `min_val`", FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            _warn("keyword argument `max_value` is deprecated and rename to `max_val`", FutureWarning, stacklevel=2)
            max_val = max_value
        if not max_val > min_val:
            raise ValueError(f"Hardtanh: max_val ({max_val}) must be greater than min_val ({min_val})")
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_suffix(self)}"


class ReLU6(Hardtanh):
    """`min(max(0, x), 6)`."""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        """Shows `inplace=True` only when set, as PyTorch's repr does."""
        return _inplace_suffix(self, first=True)


class Sigmoid(Module):
    """`1 / (1 + exp(-x))`."""

    def forward(self, input):
        return ops.sigmoid(input)


class Tanh(Module):
    """`tanh(x)`, the hyperbolic tangent: outputs in (-1, 1)."""

    def forward(self, input):
        return ops.tanh(input)


class _InplaceOnlyActivation(Module):
    """An activation whose only option is `inplace`; subclasses name their F function."""

    _function_name = None
    _repr_inplace = True

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return getattr(F, self._function_name)(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace_suffix(self, first=True) if self._repr_inplace else ""


class Hardsigmoid(_InplaceOnlyActivation):
    """`relu6(x + 3) / 6`."""

    _function_name = "hardsigmoid"
    _repr_inplace = False


class Hardswish(_InplaceOnlyActivation):
    """`x * relu6(x + 3) / 6`."""

    _function_name = "hardswish"
    _repr_inplace = False


class SiLU(_InplaceOnlyActivation):
    """`x * sigmoid(x)` (also called swish)."""

    _function_name = "silu"


class Mish(_InplaceOnlyActivation):
    """`x * tanh(softplus(x))`."""

    _function_name = "mish"


class SELU(_InplaceOnlyActivation):
    """`scale * elu(x, alpha)` with the self-normalising constants."""

    _function_name = "selu"


class _ExponentialLinear(Module):
    _function_name = None

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        return getattr(F, self._function_name)(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}{_inplace_suffix(self)}"


class ELU(_ExponentialLinear):
    """`x if x > 0 else alpha * (exp(x) - 1)`."""

    _function_name = "elu"


class CELU(_ExponentialLinear):
    """`max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`."""

    _function_name = "celu"


class GLU(Module):
    """Gated linear unit: splits `dim` in halves a, b and returns `a * sigmoid(b)`."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class GELU(Module):
    """`x * Phi(x)` (Phi the standard normal CDF); `approximate='tanh'` uses the tanh approximation."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class _Shrink(Module):
    _function_name = None

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return getattr(F, self._function_name)(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Hardshrink(_Shrink):
    """`x if |x| > lambd else 0`."""

    _function_name = "hardshrink"


class Softshrink(_Shrink):
    """`x - lambd if x > lambd, x + lambd if x < -lambd, else 0`."""

    _function_name = "softshrink"


class LeakyReLU(Module):
    """`x if x >= 0 else negative_slope * x`."""

    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}{_inplace_suffix(self)}"


class LogSigmoid(Module):
    """`log(sigmoid(x))`, computed as `-softplus(-x)` so it stays finite for large negative x."""

    def forward(self, input):
        return F.logsigmoid(input)


class Softplus(Module):
    """`log(1 + exp(beta * x)) / beta`, linear above `threshold` for stability."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class PReLU(Module):
    """Leaky ReLU with a learned negative slope: one (`num_parameters=1`) or one per channel, starting at `init`."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(creation.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        """Every slope back to `init`."""
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class Softsign(Module):
    """`x / (1 + |x|)`."""

    def forward(self, input):
        return F.softsign(input)


class Tanhshrink(Module):
    """`x - tanh(x)`."""

    def forward(self, input):
        return F.tanhshrink(input)


class _SoftmaxNd(Module):
    """Softmax-like layers over `dim` (None picks PyTorch's legacy implicit dimension, with a warning)."""

    _function_name = None

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def forward(self, input):
        return getattr(F, self._function_name)(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax(_SoftmaxNd):
    """`exp(x) / exp(x).sum(dim)`: rows of probabilities.

    Example::

        >>> nn.Softmax(dim=1)(ember.zeros(1, 4))
        tensor([[0.2500, 0.2500, 0.2500, 0.2500]])
    """

    _function_name = "softmax"


class Softmin(_SoftmaxNd):
    """`softmax(-x)`."""

    _function_name = "softmin"


class LogSoftmax(_SoftmaxNd):
    """`log(softmax(x))`, computed stably; pair it with NLLLoss."""

    _function_name = "log_softmax"


class Softmax2d(Module):
    """Softmax over the channels at every spatial position of (N, C, H, W) or (C, H, W) inputs."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3)


from .attention import MultiheadAttention  # noqa: E402,F401  (PyTorch defines it in nn.modules.activation)
