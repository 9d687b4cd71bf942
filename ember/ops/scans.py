"""Scans beyond cumsum/cumprod: cummax, cummin (values and the index each came from) and
logcumsumexp (a running log-sum-exp, computed without overflow).

As PyTorch: at ties cummax/cummin report the latest index, integer inputs keep their dtype in
cummax/cummin, and logcumsumexp needs a floating (or complex) input.
"""

from .._backend import np
from .. import return_types
from ..autograd.function import Primitive
from .reduction import _check_tensor, _dtype_name, _single_dim
from ._declare import op

__all__ = ["cummax", "cummin", "logcumsumexp"]


def _running_extreme(array, dim, take_larger):
    """(values, indices) of the running maximum (or minimum) along `dim`; the latest index at ties,
    and a NaN, once seen, wins from there on (as PyTorch)."""
    moved = np.moveaxis(array, dim, 0)
    values = np.empty_like(moved)
    indices = np.empty(moved.shape, np.int64)
    if moved.shape[0]:
        best, where_best = moved[0].copy(), np.zeros(moved.shape[1:], np.int64)
        values[0], indices[0] = best, where_best
        for position in range(1, moved.shape[0]):
            current = moved[position]
            with np.errstate(invalid="ignore"):
                better = (current >= best) if take_larger else (current <= best)
            better = (
                (better | np.isnan(current)) & ~(np.isnan(best) & ~np.isnan(current))
                if array.dtype.kind in "fcV"
                else better
            )
            best = np.where(better, current, best)
            where_best = np.where(better, position, where_best)
            values[position], indices[position] = best, where_best
    return np.moveaxis(values, 0, dim), np.moveaxis(indices, 0, dim)


class _RunningExtreme(Primitive):
    """Its gradient goes to the element each running value came from (summed where one element
    stays the extreme for several positions)."""

    @staticmethod
    def forward(ctx, a, dim):
        view = a.reshape(1) if a.ndim == 0 else a
        values, indices = _running_extreme(view, dim, ctx._forward_cls.take_larger)
        ctx.dim, ctx.shape = dim, a.shape
        ctx.save_for_backward(indices)
        ctx.mark_non_differentiable(indices)
        return values.reshape(a.shape), indices.reshape(a.shape)

    @staticmethod
    def backward(ctx, grad, grad_indices):
        from .creation import zeros

        (indices,) = ctx.saved_tensors
        if grad.dim() == 0:
            return grad, None
        return zeros(ctx.shape, dtype=grad.dtype).scatter_add(ctx.dim, indices, grad), None

    @staticmethod
    def jvp(ctx, tangent, tangent_dim):
        indices = ctx.outputs[1]
        if tangent is None:
            return None, None
        return (tangent if tangent.dim() == 0 else tangent.gather(ctx.dim, indices)), None


class Cummax(_RunningExtreme, node="CummaxBackward0"):
    take_larger = True


class Cummin(_RunningExtreme, node="CumminBackward0"):
    take_larger = False


@op(Cummax, method=True)
def cummax(input, dim):
    """The running maximum along `dim` and the index of the element it came from (the latest at ties)."""
    _check_tensor(input, "cummax")
    values, indices = Cummax.apply(input, _single_dim(input, dim, "cummax"))
    return return_types.cummax(values, indices)


@op(Cummin, method=True)
def cummin(input, dim):
    """The running minimum along `dim` and the index of the element it came from (the latest at ties)."""
    _check_tensor(input, "cummin")
    values, indices = Cummin.apply(input, _single_dim(input, dim, "cummin"))
    return return_types.cummin(values, indices)


class Logcumsumexp(Primitive, node="LogcumsumexpBackward0"):
    """out_j = log(sum over i <= j of exp(x_i)), by np.logaddexp.accumulate (no overflow)."""

    @staticmethod
    def forward(ctx, a, dim):
        view = a.reshape(1) if a.ndim == 0 else a
        result = np.logaddexp.accumulate(view, axis=dim).reshape(a.shape)
        ctx.dim = dim
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        # d out_j / d x_i = exp(x_i - out_j) for i <= j, so grad_i = sum over j >= i of g_j exp(x_i - out_j).
        # Summed in log space, positive and negative g_j apart, so that nothing overflows:
        # grad_i = exp(x_i + reverse_logcumsumexp(log g_j - out_j)).
        from .creation import zeros_like
        from .elementwise import exp, log
        from .indexing import where
        from .joining import flip

        a, result = ctx.saved_tensors
        dim = ctx.dim
        if a.dim() == 0:
            return grad, None

        def part(mask):
            weights = where(mask, log(where(mask, grad.abs(), 1.0)) - result, float("-inf"))
            summed = flip(logcumsumexp(flip(weights, [dim]), dim), [dim])
            return where(summed == float("-inf"), zeros_like(a), exp(a + summed))

        return part(grad > 0) - part(grad < 0), None

    @staticmethod
    def jvp(ctx, tangent, tangent_dim):
        # d out_j = sum over i <= j of exp(x_i - out_j) t_i: in log space as backward does.
        from .creation import zeros_like
        from .elementwise import exp, log
        from .indexing import where

        if tangent is None:
            return None
        a, out = ctx.inputs[0], ctx.outputs
        if a.dim() == 0:
            return tangent

        def part(mask):
            weights = where(mask, log(where(mask, tangent.abs(), 1.0)) + a, float("-inf"))
            summed = logcumsumexp(weights, ctx.dim)
            return where(summed == float("-inf"), zeros_like(a), exp(summed - out))

        return part(tangent > 0) - part(tangent < 0)


@op(Logcumsumexp, method=True)
def logcumsumexp(input, dim):
    """The running log(sum(exp(x))) along `dim`, computed without overflow."""
    _check_tensor(input, "logcumsumexp")
    if input._data.dtype.kind not in "fcV":
        raise NotImplementedError(
            f"\"logcumsumexp_out_cpu\" not implemented for '{_dtype_name(input._data)}': "
            "logcumsumexp needs a floating input, convert it with .float() first"
        )
    return Logcumsumexp.apply(input, _single_dim(input, dim, "logcumsumexp"))
