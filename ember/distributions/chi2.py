"""`Chi2`: the sum of squares of `df` independent standard normals, a Gamma(df / 2, 1 / 2)."""

from .._size import Size
from . import constraints
from .gamma import Gamma

__all__ = ["Chi2"]


class Chi2(Gamma):
    """Chi2(df): Gamma(0.5 * df, 0.5)."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(Size(batch_shape), new)

    @property
    def df(self):
        """The degrees of freedom (twice the Gamma concentration)."""
        return self.concentration * 2
