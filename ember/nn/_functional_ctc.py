"""Connectionist temporal classification loss (`F.ctc_loss`), as PyTorch's.

The loss of each sample is -log of the total probability of every alignment of its target to its
input frames, computed with the alpha (forward) recursion in log space, vectorised over the batch
with NumPy; the backward pass runs the beta recursion. This is one once-differentiable Function
(`CtcLossBackward0`): no double backward, as in PyTorch.
"""

import numpy as np

from .._tensor import Tensor, new_tensor
from ..autograd.function import Function, once_differentiable
from ..ops import losses as _losses

__all__ = ["ctc_loss"]


def _logsumexp(*terms):
    """Element-wise log(sum(exp(terms))) that stays -inf (without warnings) where every term is -inf."""
    stacked = np.stack(terms)
    peak = stacked.max(0)
    safe_peak = np.where(np.isfinite(peak), peak, 0)
    with np.errstate(divide="ignore"):
        return np.log(np.exp(stacked - safe_peak).sum(0)) + safe_peak


def _extended_labels(targets, target_lengths, blank):
    """Each target with a blank before, between and after its labels: (N, 2 * max_length + 1)."""
    batch = len(target_lengths)
    longest = int(target_lengths.max()) if batch else 0
    extended = np.full((batch, 2 * longest + 1), blank, dtype=np.int64)
    for n, labels in enumerate(targets):
        extended[n, 1 : 2 * len(labels) : 2] = labels
    return extended


def _can_skip(extended, blank):
    """Whether a path may jump from position s - 2 to s (s a label differing from the label at s - 2)."""
    skip = np.zeros(extended.shape, dtype=bool)
    skip[:, 2:] = (extended[:, 2:] != blank) & (extended[:, 2:] != extended[:, :-2])
    return skip


def _alpha(log_probs, extended, skip, input_lengths):
    """log alpha (T, N, L): log-probability of the target prefixes ending at each position and frame."""
    frames, batch, _ = log_probs.shape
    rows = np.arange(batch)[:, None]
    emitted = log_probs[:, rows, extended]  # (T, N, L): log-probability of each position's label
    alpha = np.full(emitted.shape, -np.inf, dtype=log_probs.dtype)
    alpha[0, :, :2] = emitted[0, :, :2]
    for t in range(1, frames):
        previous = alpha[t - 1]
        shifted_one = np.concatenate([np.full((batch, 1), -np.inf, previous.dtype), previous[:, :-1]], 1)
        shifted_two = np.concatenate([np.full((batch, 2), -np.inf, previous.dtype), previous[:, :-2]], 1)
        shifted_two = np.where(skip, shifted_two, -np.inf)
        alpha[t] = np.where(
            (t < input_lengths)[:, None], _logsumexp(previous, shifted_one, shifted_two) + emitted[t], -np.inf
        )
    return alpha, emitted


def _beta(emitted, skip, input_lengths, target_lengths):
    """log beta (T, N, L): log-probability of completing the target from each position and frame."""
    frames, batch, positions = emitted.shape
    last = 2 * target_lengths  # position of the final blank
    beta = np.full(emitted.shape, -np.inf, dtype=emitted.dtype)
    skip_from = np.concatenate([skip[:, 2:], np.zeros((batch, 2), dtype=bool)], 1)  # may jump s -> s + 2
    end = np.full((batch, positions), -np.inf, dtype=emitted.dtype)
    columns = np.arange(positions)[None, :]
    ends = (columns == last[:, None]) | (columns == last[:, None] - 1)
    for t in range(frames - 1, -1, -1):
        following = beta[t + 1] if t + 1 < frames else end
        shifted_one = np.concatenate([following[:, 1:], np.full((batch, 1), -np.inf, following.dtype)], 1)
        shifted_two = np.concatenate([following[:, 2:], np.full((batch, 2), -np.inf, following.dtype)], 1)
        shifted_two = np.where(skip_from, shifted_two, -np.inf)
        recursed = _logsumexp(following, shifted_one, shifted_two) + emitted[t]
        first = np.where(ends, emitted[t], -np.inf)
        beta[t] = np.where(
            (t == input_lengths - 1)[:, None], first, np.where((t < input_lengths - 1)[:, None], recursed, -np.inf)
        )
    return beta


class CtcLoss(Function):
    """Per-sample CTC negative log-likelihood (N,) of (T, N, C) log-probabilities."""

    _node_name = "CtcLossBackward0"

    @staticmethod
    def forward(ctx, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
        probabilities = log_probs.numpy()
        extended = _extended_labels(targets, target_lengths, blank)
        skip = _can_skip(extended, blank)
        alpha, emitted = _alpha(probabilities, extended, skip, input_lengths)
        rows = np.arange(len(input_lengths))
        final = alpha[input_lengths - 1, rows]
        last = 2 * target_lengths
        before_last = np.where(target_lengths > 0, final[rows, np.maximum(last - 1, 0)], -np.inf)
        nll = -_logsumexp(final[rows, last], before_last)
        nll = np.where(input_lengths > 0, nll, np.where(target_lengths > 0, np.inf, 0.0))  # no frames at all
        ctx.saved_arrays = (probabilities, extended, skip, alpha, emitted, nll, input_lengths, target_lengths)
        ctx.zero_infinity = zero_infinity
        if zero_infinity:
            nll = np.where(np.isinf(nll), 0.0, nll)
        return new_tensor(nll.astype(probabilities.dtype))

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        probabilities, extended, skip, alpha, emitted, nll, input_lengths, target_lengths = ctx.saved_arrays
        beta = _beta(emitted, skip, input_lengths, target_lengths)
        both = alpha + beta  # (T, N, L)
        peak = both.max(2, keepdims=True)
        peak = np.where(np.isfinite(peak), peak, 0)
        classes = probabilities.shape[2]
        one_hot = np.eye(classes, dtype=probabilities.dtype)[extended]  # (N, L, C)
        occupancy = np.einsum("tnl,nlc->tnc", np.exp(both - peak), one_hot)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):  # impossible alignments: inf - inf
            log_occupancy = np.log(occupancy) + peak
            # PyTorch's formula: the gradient through a log_softmax that it assumes produced log_probs.
            grad = np.exp(probabilities) - np.exp(log_occupancy + nll[None, :, None] - probabilities)
        running = np.arange(probabilities.shape[0])[:, None] < input_lengths[None, :]
        grad = np.where(running[..., None], grad, 0.0)
        if ctx.zero_infinity:
            grad = np.where(np.isinf(nll)[None, :, None], 0.0, grad)
        grad = grad * grad_output.numpy()[None, :, None]
        return new_tensor(grad.astype(probabilities.dtype)), None, None, None, None, None


def _lengths(lengths, name, batch):
    array = lengths.numpy() if isinstance(lengths, Tensor) else np.asarray(lengths)
    array = np.atleast_1d(array)
    if array.dtype.kind not in "iu":
        raise RuntimeError(f"ctc_loss: {name} must be integers, got {array.dtype}")
    if array.shape != (batch,):
        raise RuntimeError(f"ctc_loss: {name} must have one entry per sample ({batch}), got shape {list(array.shape)}")
    return array.astype(np.int64)


def _split_targets(targets, target_lengths, batch):
    labels = targets.numpy().astype(np.int64)
    if targets.dim() == 1:
        if len(labels) < target_lengths.sum():
            raise RuntimeError(
                f"ctc_loss: concatenated targets have {len(labels)} labels but target_lengths sum to "
                f"{int(target_lengths.sum())}"
            )
        starts = np.concatenate([[0], np.cumsum(target_lengths)[:-1]])
        return [labels[start : start + length] for start, length in zip(starts, target_lengths)]
    labels = labels.reshape(batch, -1)
    if labels.shape[1] < (target_lengths.max() if batch else 0):
        raise RuntimeError(
            f"Expected tensor to have size at least {int(target_lengths.max())} at dimension 1, but got "
            f"size {labels.shape[1]} for argument #2 'targets' (while checking arguments for ctc_loss)"
        )
    return [labels[n, :length] for n, length in enumerate(target_lengths)]


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """Connectionist temporal classification loss.

    Args:
        log_probs: (T, N, C) log-probabilities (e.g. `log_softmax` output), or (T, C) unbatched.
        targets: (N, S) padded labels, or the N targets concatenated (sum(target_lengths),).
        input_lengths, target_lengths: per-sample lengths (tensors or sequences of ints).
        blank: the blank label. reduction: "mean" (each loss divided by its target length, then
            averaged), "sum" or "none". zero_infinity: impossible alignments give 0 loss and gradient.

    As PyTorch, the gradient is the one through the log_softmax assumed to have made log_probs
    (it differs from the true gradient by exp(log_probs) when log_probs are not normalised).

    Example::

        >>> log_probs = ember.randn(50, 4, 20).log_softmax(2).requires_grad_()
        >>> targets = ember.randint(1, 20, (4, 10))
        >>> F.ctc_loss(log_probs, targets, [50] * 4, [10] * 4).backward()
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        targets = targets.unsqueeze(0)
    if log_probs.dim() != 3:
        raise RuntimeError(f"ctc_loss: log_probs must be (T, N, C) or (T, C), got shape {list(log_probs.shape)}")
    frames, batch, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise RuntimeError(f"blank must be in label range: blank={blank}, classes={classes}")
    input_lengths = _lengths(input_lengths, "input_lengths", batch)
    target_lengths = _lengths(target_lengths, "target_lengths", batch)
    if np.any(input_lengths > frames) or np.any(input_lengths < 0):
        bad = input_lengths[(input_lengths > frames) | (input_lengths < 0)][0]
        raise RuntimeError(
            f"Expected input_lengths to have value at most {frames}, but got value {bad} "
            "(while checking arguments for ctc_loss)"
        )
    split = _split_targets(targets, target_lengths, batch)
    losses = CtcLoss.apply(log_probs, split, input_lengths, target_lengths, blank, zero_infinity)
    if unbatched:
        losses = losses.squeeze(0)
    if reduction == "mean":
        divisor = new_tensor(np.maximum(target_lengths, 1)).to(losses.dtype)
        return (losses / (divisor.squeeze(0) if unbatched else divisor)).mean()
    return _losses.reduce_loss(losses, reduction)
