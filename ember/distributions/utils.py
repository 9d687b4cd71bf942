"""Helpers shared by the distributions: broadcasting parameters, probabilities <-> logits, and a
property computed once per instance (so `probs` and `logits` can be given either way round)."""

import numbers
from functools import update_wrapper

from .. import _dtype, ops as _ops
from .._size import Size
from .._tensor import Tensor
from ..autograd import enable_grad

__all__ = [
    "broadcast_all",
    "logits_to_probs",
    "probs_to_logits",
    "clamp_probs",
    "lazy_property",
    "tril_matrix_to_vec",
    "vec_to_tril_matrix",
]


def broadcast_all(*values):
    """Tensors and numbers broadcast to one shape; numbers become tensors of the tensors' dtype
    (the default float dtype when every value is a number)."""
    tensors = [value for value in values if isinstance(value, Tensor)]
    for value in values:
        if not isinstance(value, (Tensor, numbers.Number)):
            raise ValueError(
                f"Input arguments must all be instances of numbers.Number or Tensor, not {type(value).__name__}."
            )
    dtype = tensors[0].dtype if tensors else _dtype.get_default_dtype()
    values = [value if isinstance(value, Tensor) else _ops.tensor(float(value), dtype=dtype) for value in values]
    shape = Size(_ops.broadcast_shapes(*(value.shape for value in values)))
    return tuple(value if value.shape == shape else value.expand(shape) for value in values)


def standard_normal(shape, dtype):
    return _ops.randn(Size(shape), dtype=dtype)


def sum_rightmost(value, dims):
    """Sum over the `dims` rightmost dimensions (none when dims is 0)."""
    if dims == 0:
        return value
    return value.reshape(tuple(value.shape[: value.dim() - dims]) + (-1,)).sum(-1)


def clamp_probs(probs):
    """Probabilities kept inside (0, 1) by the dtype's eps, so their logits stay finite."""
    eps = _dtype.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def logits_to_probs(logits, is_binary=False):
    """Sigmoid of each logit (binary) or softmax over the last dimension (categorical)."""
    if is_binary:
        return logits.sigmoid()
    return logits.softmax(-1)


def probs_to_logits(probs, is_binary=False):
    """log(p) - log(1 - p) (binary) or log(p) (categorical), on clamped probabilities."""
    clamped = clamp_probs(probs)
    if is_binary:
        return clamped.log() - (-clamped).log1p()
    return clamped.log()


def normalized_logits(logits):
    """Logits shifted so that they are the log-probabilities (logsumexp 0 over the last dim)."""
    return logits - logits.logsumexp(-1, keepdim=True)


class lazy_property:
    """A property computed on first read with grad enabled and stored on the instance, so that a
    distribution given `probs` computes `logits` only when asked (and the other way round)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, owner=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """What `Class.attribute` shows for a lazy_property: a property, so documentation tools see it."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)
        lazy_property.__init__(self, wrapped)


def log_binomial_coefficient(n, k):
    """log C(n, k) through lgamma, for tensors."""
    return (n + 1).lgamma() - (k + 1).lgamma() - (n - k + 1).lgamma()


def binary_log_likelihood(logits, value):
    """log p(value) of a Bernoulli with these logits: -BCE-with-logits, stable for large |logits|."""
    return -_ops.binary_cross_entropy_with_logits(logits, value, reduction="none")


class BinaryParameters:
    """`probs` and `logits` of a distribution built on one success probability (Bernoulli,
    Binomial, Geometric, the relaxed Bernoulli): given either, the other is computed on first use."""

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()


def _tril_flat_positions(n, diag):
    """Flat (row-major) positions in an n x n matrix of the entries on or below diagonal `diag`."""
    return [row * n + column for row in range(n) for column in range(n) if column <= row + diag]


def tril_matrix_to_vec(mat, diag=0):
    """The entries of `mat` (..., n, n) on or below diagonal `diag`, in row order, as (..., count)."""
    n = mat.shape[-1]
    if not -n <= diag < n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    positions = _ops.tensor(_tril_flat_positions(n, diag), dtype=_dtype.int64)
    return mat.reshape(tuple(mat.shape[:-2]) + (n * n,))[..., positions]


def vec_to_tril_matrix(vec, diag=0):
    """The (..., n, n) lower triangular matrix (below diagonal `diag`) whose entries, in row order,
    are the last dimension of `vec`; zeros elsewhere."""
    count = vec.shape[-1]
    # n solves n^2 + (1 + 2 diag) n - |diag| (diag + 1) = 2 count
    root = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * count + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    n = round(root)
    if abs(n - root) > _dtype.finfo(vec.dtype).eps:
        raise ValueError(
            f"The size of last dimension is {count} which cannot be expressed as "
            "the lower triangular part of a square D x D matrix."
        )
    # each matrix entry reads one element of vec, or the zero appended after it
    sources = [count] * (n * n)
    for index, position in enumerate(_tril_flat_positions(n, diag)):
        sources[position] = index
    padded = _ops.cat([vec, _ops.zeros(tuple(vec.shape[:-1]) + (1,), dtype=vec.dtype)], -1)
    return padded[..., _ops.tensor(sources, dtype=_dtype.int64)].reshape(tuple(vec.shape[:-1]) + (n, n))
