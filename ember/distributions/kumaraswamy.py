"""`Kumaraswamy`: a Beta-like distribution on (0, 1) with a closed-form cdf."""

from .. import ops as _ops
from .._size import Size
from . import constraints
from .gumbel import _EULER_GAMMA
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all

__all__ = ["Kumaraswamy"]


def _moment(a, b, n):
    """E[X**n] = b B(1 + n / a, b)."""
    return b * ((1 + n / a).lgamma() + b.lgamma() - (1 + n / a + b).lgamma()).exp()


class Kumaraswamy(TransformedDistribution):
    """Kumaraswamy(concentration1 a, concentration0 b): density a b x**(a-1) (1 - x**a)**(b-1);
    (1 - U**(1/b))**(1/a) for U uniform.

    Differs from PyTorch: `mode` is the textbook ((a - 1) / (a b - 1))**(1/a) for a, b >= 1 (NaN
    otherwise); PyTorch 2.13's formula returns NaN there too.
    """

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base_dist = Uniform(
            _ops.zeros_like(self.concentration0), _ops.ones_like(self.concentration0), validate_args=validate_args
        )
        transforms = [
            PowerTransform(exponent=self.concentration0.reciprocal()),
            AffineTransform(loc=1.0, scale=-1.0),
            PowerTransform(exponent=self.concentration1.reciprocal()),
        ]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(Size(batch_shape), _instance=new)

    @property
    def mean(self):
        return _moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        a, b = self.concentration1, self.concentration0
        mode = ((a - 1) / (a * b - 1)) ** a.reciprocal()
        return _ops.where((a < 1) | (b < 1), float("nan"), mode)

    @property
    def variance(self):
        a, b = self.concentration1, self.concentration0
        return _moment(a, b, 2) - _moment(a, b, 1).pow(2)

    def entropy(self):
        a, b = self.concentration1, self.concentration0
        harmonic = (b + 1).digamma() + _EULER_GAMMA
        return (1 - b.reciprocal()) + (1 - a.reciprocal()) * harmonic - a.log() - b.log()
