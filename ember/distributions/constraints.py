"""Constraints: the sets that parameters and samples live in (`positive`, `simplex`, ...).

`constraint.check(value)` answers, per batch element, whether `value` lies in the set: a bool
tensor with the value's shape less the constraint's `event_dim` rightmost dimensions. Distributions
use them to validate their arguments and the values given to `log_prob`, and
`ember.distributions.biject_to` / `transform_to` map unconstrained reals onto them.
"""

from .. import _dtype, linalg as _linalg, ops as _ops
from .._tensor import Tensor

__all__ = [
    "Constraint",
    "MixtureSameFamilyConstraint",
    "boolean",
    "cat",
    "corr_cholesky",
    "dependent",
    "dependent_property",
    "greater_than",
    "greater_than_eq",
    "half_open_interval",
    "independent",
    "integer_interval",
    "interval",
    "is_dependent",
    "less_than",
    "lower_cholesky",
    "lower_triangular",
    "multinomial",
    "nonnegative",
    "nonnegative_integer",
    "one_hot",
    "positive",
    "positive_definite",
    "positive_integer",
    "positive_semidefinite",
    "real",
    "real_vector",
    "simplex",
    "square",
    "stack",
    "symmetric",
    "unit_interval",
]


class Constraint:
    """A set of values. `is_discrete` marks integer-valued sets; `event_dim` is how many rightmost
    dimensions together make one element of the set (1 for a simplex, 2 for a matrix set)."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        """A bool tensor: True where `value` (per batch element) lies in the set."""
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__.lstrip("_") + "()"


class _Dependent(Constraint):
    """A constraint that depends on other parameters of the distribution (the support of a Uniform
    is its own interval); it cannot be checked on its own."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim
        super().__init__()

    @property
    def is_discrete(self):
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self):
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        """The same kind of constraint with `is_discrete` / `event_dim` stated."""
        return _Dependent(
            is_discrete=self._is_discrete if is_discrete is NotImplemented else is_discrete,
            event_dim=self._event_dim if event_dim is NotImplemented else event_dim,
        )

    def check(self, value):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    """Whether `constraint` is a dependent one (so argument validation skips it)."""
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property of a distribution whose value is a constraint computed from its parameters
    (`Uniform.support`); on the class it reads as a dependent constraint::

        @constraints.dependent_property(is_discrete=False, event_dim=0)
        def support(self):
            return constraints.interval(self.low, self.high)
    """

    def __init__(self, fget=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fget)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fget):
        return _DependentProperty(fget, is_discrete=self._is_discrete, event_dim=self._event_dim)


class MixtureSameFamilyConstraint(Constraint):
    """The support of a MixtureSameFamily: a value is valid when it lies in the support of its
    components (checked against each component along the mixture's rightmost batch dim)."""

    def __init__(self, base_constraint):
        if not isinstance(base_constraint, Constraint):
            raise TypeError(
                f"MixtureSameFamilyConstraint(): base_constraint must be a Constraint, not "
                f"{type(base_constraint).__name__}"
            )
        self.base_constraint = base_constraint
        super().__init__()

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim

    def check(self, value):
        per_component = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        return per_component.all(-1)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_constraint!r})"


class _IndependentConstraint(Constraint):
    """`base_constraint` with `reinterpreted_batch_ndims` more rightmost dimensions in each element:
    an element is valid only when all its entries are."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        if not isinstance(base_constraint, Constraint):
            raise TypeError(
                f"independent(): base_constraint must be a Constraint, not {type(base_constraint).__name__}"
            )
        if not isinstance(reinterpreted_batch_ndims, int) or reinterpreted_batch_ndims < 0:
            raise ValueError(
                f"independent(): reinterpreted_batch_ndims must be a non-negative int, got "
                f"{reinterpreted_batch_ndims!r}"
            )
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__()

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        result = self.base_constraint.check(value)
        if result.dim() < self.reinterpreted_batch_ndims:
            expected = self.base_constraint.event_dim + self.reinterpreted_batch_ndims
            raise ValueError(f"Expected value.dim() >= {expected} but got {value.dim()}")
        return _all_rightmost(result, self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


def _bound(value):
    """A bound as PyTorch formats it: a one-number tensor as its number, else as the tensor."""
    return value.item() if isinstance(value, Tensor) and value.dim() == 0 else value


def _all_rightmost(result, dims):
    if dims == 0:
        return result
    return result.reshape(tuple(result.shape[: result.dim() - dims]) + (-1,)).all(-1)


def _is_integer(value):
    return value % 1 == 0


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        is_boolean = ((value == 0) | (value == 1)).all(-1)
        is_normalized = value.sum(-1) == 1
        return is_boolean & is_normalized


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return _is_integer(value) & (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return f"IntegerInterval(lower_bound={_bound(self.lower_bound)}, upper_bound={_bound(self.upper_bound)})"


class _IntegerLessThan(Constraint):
    is_discrete = True

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return _is_integer(value) & (value <= self.upper_bound)

    def __repr__(self):
        return f"IntegerLessThan(upper_bound={_bound(self.upper_bound)})"


class _IntegerGreaterThan(Constraint):
    is_discrete = True

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        return _is_integer(value) & (value >= self.lower_bound)

    def __repr__(self):
        return f"IntegerGreaterThan(lower_bound={_bound(self.lower_bound)})"


class _Real(Constraint):
    def check(self, value):
        return value == value  # False only at NaN


class _GreaterThan(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        return self.lower_bound < value

    def __repr__(self):
        return f"GreaterThan(lower_bound={_bound(self.lower_bound)})"


class _GreaterThanEq(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        return self.lower_bound <= value

    def __repr__(self):
        return f"GreaterThanEq(lower_bound={_bound(self.lower_bound)})"


class _LessThan(Constraint):
    def __init__(self, upper_bound):
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return value < self.upper_bound

    def __repr__(self):
        return f"LessThan(upper_bound={_bound(self.upper_bound)})"


class _Interval(Constraint):
    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return f"Interval(lower_bound={_bound(self.lower_bound)}, upper_bound={_bound(self.upper_bound)})"


class _HalfOpenInterval(Constraint):
    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return (self.lower_bound <= value) & (value < self.upper_bound)

    def __repr__(self):
        return f"HalfOpenInterval(lower_bound={_bound(self.lower_bound)}, upper_bound={_bound(self.upper_bound)})"


class _Simplex(Constraint):
    """Non-negative vectors summing to 1 (to within 1e-6) along the last dimension."""

    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Multinomial(Constraint):
    """Non-negative integer count vectors whose total is at most `upper_bound`."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return (value >= 0).all(-1) & (value.sum(-1) <= self.upper_bound)


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value):
        return _all_rightmost(value.tril() == value, 2)


class _LowerCholesky(Constraint):
    """Lower-triangular matrices with a positive diagonal."""

    event_dim = 2

    def check(self, value):
        lower_triangular = _all_rightmost(value.tril() == value, 2)
        positive_diagonal = (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)
        return lower_triangular & positive_diagonal


class _CorrCholesky(Constraint):
    """Lower Cholesky factors of correlation matrices: rows of unit length (to a few eps)."""

    event_dim = 2

    def check(self, value):
        tolerance = _dtype.finfo(value.dtype).eps * value.shape[-1] * 10
        row_norm = _linalg.vector_norm(value.detach(), dim=-1)
        unit_rows = ((row_norm - 1.0).abs() <= tolerance).all(-1)
        return _LowerCholesky().check(value) & unit_rows


class _Square(Constraint):
    event_dim = 2

    def check(self, value):
        is_square = value.shape[-2] == value.shape[-1]
        return _ops.full(tuple(value.shape[:-2]), is_square, dtype=_dtype.bool_)


class _Symmetric(_Square):
    def check(self, value):
        square = super().check(value)
        if not bool(square.all()):
            return square
        return _all_rightmost(_ops.isclose(value, value.mT, atol=1e-6), 2)


class _PositiveSemidefinite(_Symmetric):
    def check(self, value):
        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        return (_linalg.eigvalsh(value) >= 0).all(-1)


class _PositiveDefinite(_Symmetric):
    def check(self, value):
        symmetric = super().check(value)
        if not bool(symmetric.all()):
            return symmetric
        return (_linalg.eigvalsh(value) > 0).all(-1)


class _Cat(Constraint):
    """Pieces of `value` along `dim` (of lengths `lengths`, 1 each by default) in their own
    constraints."""

    def __init__(self, constraints, dim=0, lengths=None):
        self.constraints = list(constraints)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.constraints)
        if len(self.lengths) != len(self.constraints):
            raise ValueError(f"cat(): {len(self.constraints)} constraints but {len(self.lengths)} lengths")
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self):
        return any(constraint.is_discrete for constraint in self.constraints)

    @property
    def event_dim(self):
        return max(constraint.event_dim for constraint in self.constraints)

    def check(self, value):
        pieces = []
        start = 0
        for constraint, length in zip(self.constraints, self.lengths):
            pieces.append(constraint.check(value.narrow(self.dim, start, length)))
            start += length
        return _ops.cat(pieces, self.dim)


class _Stack(Constraint):
    """Slices of `value` along `dim`, each in its own constraint."""

    def __init__(self, constraints, dim=0):
        self.constraints = list(constraints)
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self):
        return any(constraint.is_discrete for constraint in self.constraints)

    @property
    def event_dim(self):
        event_dim = max(constraint.event_dim for constraint in self.constraints)
        # stacking along a dimension inside the event (counted from the right) adds one to it
        return event_dim + 1 if self.dim + event_dim < 0 else event_dim

    def check(self, value):
        slices = [value.select(self.dim, index) for index in range(value.shape[self.dim])]
        return _ops.stack([constraint.check(piece) for constraint, piece in zip(self.constraints, slices)], self.dim)


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack
