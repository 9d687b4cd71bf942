"""`Identity`, `Linear`, `Bilinear`."""

import math

from ..._validation import check_int_arguments
from ...ops import creation
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear"]


class Identity(Module):
    """Returns its input unchanged (a placeholder, e.g. to remove a layer); ignores any arguments."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """`y = x @ weight.T + bias`, weight (out_features, in_features).

    Initialised as PyTorch: weight and bias from U(-1/sqrt(in_features), 1/sqrt(in_features)).

    Example::

        >>> m = nn.Linear(20, 30)
        >>> m(ember.randn(128, 20)).shape
        torch.Size([128, 30])
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        check_int_arguments(type(self).__name__, in_features=in_features, out_features=out_features)
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(creation.empty((out_features, in_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(creation.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Draw the weight and bias from U(-1/sqrt(in_features), 1/sqrt(in_features)), as PyTorch does."""
        # kaiming_uniform_ with a=sqrt(5) is U(-1/sqrt(fan_in), 1/sqrt(fan_in)) (pytorch/pytorch#57109).
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            _uniform_bias(self.bias, self.weight)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class NonDynamicallyQuantizableLinear(Linear):
    """A plain `Linear`; PyTorch names MultiheadAttention's output projection this way for its quantizer.

    It lives here, as in PyTorch (`torch.nn.modules.linear`), because a whole saved model pickles the
    class by that path, and scripts list it there for `torch.serialization.safe_globals`.
    """


def _uniform_bias(bias, weight):
    """PyTorch's default bias: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with the fan_in of `weight`."""
    fan_in, _ = init._calculate_fan_in_and_fan_out(weight)
    bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
    init.uniform_(bias, -bound, bound)


class Bilinear(Module):
    """`y = x1^T A x2 + b`, weight (out_features, in1_features, in2_features)."""

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        check_int_arguments("Bilinear", in1_features=in1_features, in2_features=in2_features, out_features=out_features)
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(creation.empty((out_features, in1_features, in2_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(creation.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Draw the weight and bias from U(-1/sqrt(in1_features), 1/sqrt(in1_features)), as PyTorch does."""
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features={self.in1_features})")
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )
