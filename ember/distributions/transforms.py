"""Transforms: invertible (mostly) maps between constrained spaces, with the log |det Jacobian|
that a change of variables needs. `TransformedDistribution` pushes a base distribution through
them; `biject_to` / `transform_to` pick one per constraint.

A transform `t` maps `x` in `t.domain` to `y = t(x)` in `t.codomain`; `t.inv` is the inverse map
and `t.log_abs_det_jacobian(x, y)` is log |dy/dx| (per event of `domain.event_dim` dims). With
`cache_size=1` the last pair (x, y) is remembered, so `t.inv(t(x))` returns `x` itself even where
the inverse is not computable (SoftmaxTransform) or not stable.

CatTransform and StackTransform raise ValueError on an input of the wrong size (PyTorch raises
AssertionError).
"""

import functools
import math
import numbers
import operator
import weakref

from .. import _dtype, ops as _ops
from .._size import Size
from .._tensor import Tensor
from ..linalg import cholesky
from ..nn.functional import logsigmoid, pad, softplus
from . import constraints
from .utils import broadcast_all, sum_rightmost, tril_matrix_to_vec, vec_to_tril_matrix

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "CatTransform",
    "ComposeTransform",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "IndependentTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftplusTransform",
    "TanhTransform",
    "SoftmaxTransform",
    "StackTransform",
    "StickBreakingTransform",
    "Transform",
    "identity_transform",
]


class Transform:
    """Base of every transform: subclasses state `domain`, `codomain`, `bijective`, `sign` (for
    monotone maps of reals) and `_call`, `_inverse`, `log_abs_det_jacobian`."""

    bijective = False
    domain = constraints.real
    codomain = constraints.real

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError(f"cache_size must be 0 or 1, got {cache_size!r}")
        self._cache_size = cache_size
        self._inv = None
        self._cached_x_y = None, None

    def __getstate__(self):
        state = self.__dict__.copy()
        if isinstance(state["_inv"], weakref.ref):
            state["_inv"] = None  # a weak reference cannot be pickled; the inverse is made again on demand
        return state

    @property
    def event_dim(self):
        """How many rightmost dimensions make one event, when domain and codomain agree (else ValueError: ask them)."""
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        """The inverse transform (made once and held weakly, so the two do not keep each other alive)."""
        inverse = self._inv() if self._inv is not None else None
        if inverse is None:
            inverse = _InverseTransform(self)
            self._inv = weakref.ref(inverse)
        return inverse

    @property
    def sign(self):
        """+1 or -1 for a monotone increasing or decreasing map of the reals."""
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        """This transform with a cache of `cache_size` (0 or 1): with 1, the inverse of the last output is the last
        input itself.
        """
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self).__name__}.with_cache is not implemented")

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x):
        if not self._cache_size:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y):
        if not self._cache_size:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x):
        raise NotImplementedError(f"{type(self).__name__} does not implement the forward map")

    def _inverse(self, y):
        raise NotImplementedError(f"{type(self).__name__} does not implement the inverse map")

    def log_abs_det_jacobian(self, x, y):
        """`log |dy/dx|` at the pair `(x, y = transform(x))`, summed over the event dimensions: what
        `TransformedDistribution.log_prob` subtracts.
        """
        raise NotImplementedError(f"{type(self).__name__} does not implement log_abs_det_jacobian")

    def __repr__(self):
        return type(self).__name__ + "()"

    def forward_shape(self, shape):
        """The shape of the output for an input of `shape`."""
        return shape

    def inverse_shape(self, shape):
        """The shape of the input that gives an output of `shape`."""
        return shape


class _InverseTransform(Transform):
    """`transform.inv`: the same map read backwards."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @property
    def domain(self):
        return self._inv.codomain

    @property
    def codomain(self):
        return self._inv.domain

    @property
    def bijective(self):
        return self._inv.bijective

    @property
    def sign(self):
        return self._inv.sign

    @property
    def inv(self):
        return self._inv

    def with_cache(self, cache_size=1):
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__

    def __repr__(self):
        return f"{type(self).__name__}({self._inv!r})"

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """`parts` applied in order (the first one first); an empty list is the identity."""

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The first part's domain, with as many event dimensions as the parts need."""
        if not self.parts:
            return constraints.real
        # the input needs as many event dims as any part, carried back through the parts before it
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        return _with_event_dim(self.parts[0].domain, event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The last part's codomain, with as many event dimensions as the parts give."""
        if not self.parts:
            return constraints.real
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        return _with_event_dim(self.parts[-1].codomain, event_dim)

    @property
    def bijective(self):
        """Whether every part is bijective."""
        return all(part.bijective for part in self.parts)

    @property
    def sign(self):
        sign = 1
        for part in self.parts:
            sign = sign * part.sign
        return sign

    @property
    def inv(self):
        inverse = self._inv() if self._inv is not None else None
        if inverse is None:
            inverse = ComposeTransform([part.inv for part in reversed(self.parts)])
            self._inv = weakref.ref(inverse)
            inverse._inv = weakref.ref(self)
        return inverse

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return _ops.zeros_like(x)
        inputs = [x]
        for part in self.parts[:-1]:
            inputs.append(part(inputs[-1]))
        inputs.append(y)
        terms = []
        event_dim = self.domain.event_dim
        for part, part_x, part_y in zip(self.parts, inputs[:-1], inputs[1:]):
            terms.append(sum_rightmost(part.log_abs_det_jacobian(part_x, part_y), event_dim - part.domain.event_dim))
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return functools.reduce(operator.add, terms)

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        return type(self).__name__ + "(\n    " + ",\n    ".join(repr(part) for part in self.parts) + "\n)"


identity_transform = ComposeTransform([])


def _with_event_dim(constraint, event_dim):
    if event_dim > constraint.event_dim:
        return constraints.independent(constraint, event_dim - constraint.event_dim)
    return constraint


class IndependentTransform(Transform):
    """`base_transform` with `reinterpreted_batch_ndims` more rightmost dims in each event: the
    log |det J| is summed over them."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The base transform's domain with `reinterpreted_batch_ndims` more event dimensions."""
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The base transform's codomain with `reinterpreted_batch_ndims` more event dimensions."""
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        """Whether the base transform is bijective."""
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError(f"Too few dimensions on input: {x.dim()} < {self.domain.event_dim}")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError(f"Too few dimensions on input: {y.dim()} < {self.codomain.event_dim}")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


class ReshapeTransform(Transform):
    """Reshapes the rightmost dims of an event from `in_shape` to `out_shape` (same number of elements)."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = Size(in_shape)
        self.out_shape = Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError(
                f"in_shape {self.in_shape} and out_shape {self.out_shape} have different numbers of elements"
            )
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self):
        """The reals, with `len(in_shape)` event dimensions."""
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self):
        """The reals, with `len(out_shape)` event dimensions."""
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        batch_shape = x.shape[: x.dim() - len(self.in_shape)]
        return x.reshape(batch_shape + self.out_shape)

    def _inverse(self, y):
        batch_shape = y.shape[: y.dim() - len(self.out_shape)]
        return y.reshape(batch_shape + self.in_shape)

    def log_abs_det_jacobian(self, x, y):
        batch_shape = x.shape[: x.dim() - len(self.in_shape)]
        return _ops.zeros(batch_shape, dtype=x.dtype)

    def forward_shape(self, shape):
        return self._moved(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return self._moved(shape, self.out_shape, self.in_shape)

    @staticmethod
    def _moved(shape, from_shape, to_shape):
        if len(shape) < len(from_shape):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(from_shape)
        if tuple(shape[cut:]) != tuple(from_shape):
            raise ValueError(f"Shape mismatch: expected {tuple(shape[cut:])} but got {tuple(from_shape)}")
        return Size(shape[:cut]) + to_shape


class ExpTransform(Transform):
    """y = exp(x)."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, ExpTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """y = x ** exponent on the positive reals."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and bool(self.exponent.eq(other.exponent).all())

    __hash__ = object.__hash__

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return Size(_ops.broadcast_shapes(shape, self.exponent.shape))

    def inverse_shape(self, shape):
        return Size(_ops.broadcast_shapes(shape, self.exponent.shape))


def _clipped_sigmoid(x):
    """sigmoid(x) kept inside (0, 1) by the dtype's tiny and eps, so that its log and log(1 - .) are
    finite."""
    info = _dtype.finfo(x.dtype)
    return x.sigmoid().clamp(min=info.tiny, max=1.0 - info.eps)


class SigmoidTransform(Transform):
    """y = 1 / (1 + exp(-x)), onto the unit interval."""

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SigmoidTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        info = _dtype.finfo(y.dtype)
        y = y.clamp(min=info.tiny, max=1.0 - info.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -softplus(-x) - softplus(x)


class SoftplusTransform(Transform):
    """y = log(1 + exp(x)), onto the positive reals."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SoftplusTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return softplus(x)

    def _inverse(self, y):
        return (-(-y).expm1()).log() + y  # log(exp(y) - 1), without overflow for large y

    def log_abs_det_jacobian(self, x, y):
        return -softplus(-x)


class TanhTransform(Transform):
    """y = tanh(x), onto (-1, 1). The inverse is atanh, which is inexact near +-1: use cache_size=1
    when inverting samples."""

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, TanhTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2x)), stable for large |x|
        return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))


class AbsTransform(Transform):
    """y = |x| (not injective: the inverse gives the positive root)."""

    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other):
        return isinstance(other, AbsTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """y = loc + scale * x, element-wise; with `event_dim` > 0 the log |det J| is summed over that
    many rightmost dims."""

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        """The number of rightmost dimensions that form one event (given to the constructor)."""
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The reals, with `event_dim` event dimensions."""
        return _with_event_dim(constraints.real, self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The reals, with `event_dim` event dimensions."""
        return _with_event_dim(constraints.real, self.event_dim)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        return _same_value(self.loc, other.loc) and _same_value(self.scale, other.scale)

    __hash__ = object.__hash__

    @property
    def sign(self):
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        shape = x.shape
        if isinstance(self.scale, numbers.Real):
            result = _ops.full_like(x, math.log(abs(self.scale)))
        else:
            result = self.scale.abs().log()
        if self.event_dim:
            result = sum_rightmost(result, self.event_dim)
            shape = shape[: len(shape) - self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        return Size(_ops.broadcast_shapes(shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ())))

    def inverse_shape(self, shape):
        return self.forward_shape(shape)


def _same_value(a, b):
    if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
        return a == b
    a = a if isinstance(a, Tensor) else _ops.tensor(float(a))
    b = b if isinstance(b, Tensor) else _ops.tensor(float(b))
    return bool((a == b).all())


class SoftmaxTransform(Transform):
    """y = softmax(x) over the last dim, onto the simplex. Not injective (x + c gives the same y);
    the inverse is log(y)."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other):
        return isinstance(other, SoftmaxTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.softmax(-1)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape


class StickBreakingTransform(Transform):
    """A bijection from K - 1 reals onto the K-simplex: each sigmoid breaks off a share of what
    is left of the stick. The offsets make x = 0 map to the uniform vector."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    __hash__ = object.__hash__

    @staticmethod
    def _log_offsets(length, like):
        # log(K - 1), log(K - 2), ..., log(1): the share that breaks the rest evenly
        return _ops.arange(length, 0, -1, dtype=like.dtype).log()

    def _call(self, x):
        shares = _clipped_sigmoid(x - self._log_offsets(x.shape[-1], x))
        remaining = (1 - shares).cumprod(-1)
        return pad(shares, (0, 1), value=1.0) * pad(remaining, (1, 0), value=1.0)

    def _inverse(self, y):
        broken = y[..., :-1]
        left = (1 - broken.cumsum(-1)).clamp(min=_dtype.finfo(y.dtype).tiny)
        return broken.log() - left.log() + self._log_offsets(broken.shape[-1], y)

    def log_abs_det_jacobian(self, x, y):
        shifted = x - self._log_offsets(x.shape[-1], x)
        return (-shifted + logsigmoid(shifted) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return Size(shape[:-1]) + Size((shape[-1] + 1,))

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return Size(shape[:-1]) + Size((shape[-1] - 1,))


class LowerCholeskyTransform(Transform):
    """Square matrices onto lower Cholesky factors: keep the strict lower triangle, exponentiate the
    diagonal (not injective: the upper triangle is dropped)."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.tril(-1) + _ops.diag_embed(x.diagonal(dim1=-2, dim2=-1).exp())

    def _inverse(self, y):
        return y.tril(-1) + _ops.diag_embed(y.diagonal(dim1=-2, dim2=-1).log())


class PositiveDefiniteTransform(Transform):
    """Square matrices onto positive definite ones: L L^T of LowerCholeskyTransform's L."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        lower = LowerCholeskyTransform()(x)
        return lower @ lower.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(cholesky(y))


class CumulativeDistributionTransform(Transform):
    """y = distribution.cdf(x), from the distribution's support onto the unit interval."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        """The support of the distribution whose CDF this transform applies."""
        return self.distribution.support

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return type(self)(self.distribution, cache_size=cache_size)

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)


class CorrCholeskyTransform(Transform):
    """D(D - 1)/2 reals onto the Cholesky factor of a D x D correlation matrix (lower triangular,
    positive diagonal, rows of unit length). The reals fill the strict lower triangle row by row,
    tanh takes each into (-1, 1), and each row is then a signed stick breaking: an entry takes its
    share r of the squared length the entries before it left, and the diagonal takes the rest.

    `log_abs_det_jacobian` is that of the map onto the strict lower triangle of y (as PyTorch's).
    """

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def __eq__(self, other):
        return isinstance(other, CorrCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        eps = _dtype.finfo(x.dtype).eps
        shares = vec_to_tril_matrix(x.tanh().clamp(min=-1 + eps, max=1 - eps), diag=-1)
        # what each row's earlier entries left of the unit length, as a length: prod sqrt(1 - r^2)
        left = (1 - shares.pow(2)).sqrt().cumprod(-1)
        identity = _ops.eye(shares.shape[-1], dtype=shares.dtype)
        return (shares + identity) * pad(left[..., :-1], (1, 0), value=1.0)

    def _inverse(self, y):
        left_before = pad((1 - (y * y).cumsum(-1))[..., :-1], (1, 0), value=1.0)
        shares = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(left_before, diag=-1).sqrt()
        return (shares.log1p() - (-shares).log1p()) / 2

    def log_abs_det_jacobian(self, x, y):
        # y_ij = r_ij sqrt(what entries k < j left), so the stick-breaking Jacobian is triangular with
        # those square roots on its diagonal; entry (i, j - 1) of the row cumsum is what k < j left.
        left = 1 - (y * y).cumsum(-1)
        stick_breaking = 0.5 * tril_matrix_to_vec(left, diag=-2).log().sum(-1)
        # log(1 - tanh(x)^2), written to stay finite for large |x|
        tanh = -2 * (x + softplus(-2 * x) - math.log(2.0)).sum(-1)
        return stick_breaking + tanh

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        count = shape[-1]
        size = round((0.25 + 2 * count) ** 0.5 + 0.5)
        if size * (size - 1) // 2 != count:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return Size(shape[:-1]) + Size((size, size))

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        size = shape[-1]
        return Size(shape[:-2]) + Size((size * (size - 1) // 2,))


def _check_pieces(transform, value, name, count):
    """ValueError unless `value` has dimension `transform.dim` of length `count`."""
    if not -value.dim() <= transform.dim < value.dim():
        raise ValueError(
            f"{type(transform).__name__}: dim {transform.dim} is out of range for {name} with {value.dim()} dimensions"
        )
    if value.shape[transform.dim] != count:
        raise ValueError(
            f"{type(transform).__name__}: {name}.size({transform.dim}) = {value.shape[transform.dim]} "
            f"must equal {count}, the total length its transforms cover"
        )


def _check_transforms(tseq):
    for transform in tseq:
        if not isinstance(transform, Transform):
            raise TypeError(f"All elements of tseq must be Transform instances, got {type(transform).__name__}")


class CatTransform(Transform):
    """Applies `tseq[k]` to the k-th piece of an input cut along `dim` into pieces of
    `lengths` (1 each by default), and concatenates the results, as `cat` would::

        CatTransform([ExpTransform(), identity_transform], dim=0, lengths=[2, 3])
    """

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        _check_transforms(tseq)
        if cache_size:
            tseq = [transform.with_cache(cache_size) for transform in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.transforms)
        if len(self.lengths) != len(self.transforms):
            raise ValueError(f"CatTransform: {len(self.transforms)} transforms but {len(self.lengths)} lengths")
        self.dim = dim

    @property
    def event_dim(self):
        """The most event dimensions any of the transforms has."""
        return max(transform.event_dim for transform in self.transforms)

    @property
    def length(self):
        """The total length along `dim` that the transforms cover."""
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _pieces(self, value, name):
        _check_pieces(self, value, name, self.length)
        starts = [sum(self.lengths[:index]) for index in range(len(self.lengths))]
        return [value.narrow(self.dim, start, length) for start, length in zip(starts, self.lengths)]

    def _call(self, x):
        pieces = self._pieces(x, "x")
        return _ops.cat([transform(piece) for transform, piece in zip(self.transforms, pieces)], self.dim)

    def _inverse(self, y):
        pieces = self._pieces(y, "y")
        return _ops.cat([transform.inv(piece) for transform, piece in zip(self.transforms, pieces)], self.dim)

    def log_abs_det_jacobian(self, x, y):
        terms = [
            sum_rightmost(transform.log_abs_det_jacobian(x_piece, y_piece), self.event_dim - transform.event_dim)
            for transform, x_piece, y_piece in zip(self.transforms, self._pieces(x, "x"), self._pieces(y, "y"))
        ]
        # `dim` counted from the right of what is left once the event dimensions are summed away
        dim = (self.dim - x.dim() if self.dim >= 0 else self.dim) + self.event_dim
        if dim < 0:
            return _ops.cat(terms, dim)
        return functools.reduce(operator.add, terms)

    @property
    def bijective(self):
        """Whether every transform is bijective."""
        return all(transform.bijective for transform in self.transforms)

    @constraints.dependent_property
    def domain(self):
        """The transforms' domains, one per piece along `dim`."""
        return constraints.cat([transform.domain for transform in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        """The transforms' codomains, one per piece along `dim`."""
        return constraints.cat([transform.codomain for transform in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Applies `tseq[k]` to the k-th slice of an input along `dim` and stacks the results, as
    `stack` would::

        StackTransform([ExpTransform(), identity_transform], dim=1)
    """

    def __init__(self, tseq, dim=0, cache_size=0):
        _check_transforms(tseq)
        if cache_size:
            tseq = [transform.with_cache(cache_size) for transform in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, value, name):
        _check_pieces(self, value, name, len(self.transforms))
        return [value.select(self.dim, index) for index in range(len(self.transforms))]

    def _call(self, x):
        slices = self._slices(x, "x")
        return _ops.stack([transform(piece) for transform, piece in zip(self.transforms, slices)], self.dim)

    def _inverse(self, y):
        slices = self._slices(y, "y")
        return _ops.stack([transform.inv(piece) for transform, piece in zip(self.transforms, slices)], self.dim)

    def log_abs_det_jacobian(self, x, y):
        terms = [
            transform.log_abs_det_jacobian(x_piece, y_piece)
            for transform, x_piece, y_piece in zip(self.transforms, self._slices(x, "x"), self._slices(y, "y"))
        ]
        return _ops.stack(terms, self.dim)

    @property
    def bijective(self):
        """Whether every transform is bijective."""
        return all(transform.bijective for transform in self.transforms)

    @constraints.dependent_property
    def domain(self):
        """The transforms' domains, one per slice along `dim`."""
        return constraints.stack([transform.domain for transform in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        """The transforms' codomains, one per slice along `dim`."""
        return constraints.stack([transform.codomain for transform in self.transforms], self.dim)
