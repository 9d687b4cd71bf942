"""`VonMises`: the circular analogue of the normal distribution."""

import math

from .. import _dtype, ops as _ops
from .. import special as _special
from .._size import Size
from ..autograd import no_grad
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["VonMises"]


class VonMises(Distribution):
    """VonMises(loc, concentration kappa): density exp(kappa cos(x - loc)) / (2 pi I0(kappa)).

    Samples lie in [-pi, pi), drawn by Best and Fisher's rejection method (in float64, as PyTorch);
    there is no reparameterized sample and no closed-form entropy (as PyTorch).
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, Size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(VonMises, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        super(VonMises, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        kappa = self.concentration
        # log I0(kappa) = log(i0e(kappa)) + kappa, so the large exponentials cancel
        return kappa * ((value - self.loc).cos() - 1) - math.log(2 * math.pi) - _special.i0e(kappa).log()

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        kappa = self.concentration
        return 1 - _special.i1e(kappa) / _special.i0e(kappa)

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            kappa = self.concentration.to(_dtype.float64).expand(shape)
            loc = self.loc.to(_dtype.float64).expand(shape)
            angle = _best_fisher(kappa)
            wrapped = (angle + loc + math.pi).remainder(2 * math.pi) - math.pi
            return wrapped.to(self.loc.dtype)


def _best_fisher(kappa):
    """Angles around 0 with concentration kappa (Best & Fisher 1979), rejection steps vectorized."""
    tau = 1 + (1 + 4 * kappa.pow(2)).sqrt()
    rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
    r = (1 + rho.pow(2)) / (2 * rho)
    result = _ops.zeros_like(kappa)
    pending = _ops.ones_like(kappa) > 0
    while bool(pending.any()):
        u1, u2, u3 = (_ops.rand(kappa.shape, dtype=kappa.dtype) for _ in range(3))
        z = (math.pi * u1).cos()
        f = (1 + r * z) / (r + z)
        c = kappa * (r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        angle = (u3 - 0.5).sign() * f.acos()
        newly = pending & accept
        result = _ops.where(newly, angle, result)
        pending = pending & ~accept
    return result
