"""Loss primitives and the reduction helpers shared by all losses."""

import math

from .. import _dtype
from .._backend import np
from .._tensor import new_tensor
from ..autograd.function import Primitive
from ._nn_common import _check_floating, _check_tensor
from .activations import Softplus, _sigmoid, _where
from .broadcast import sum_to_shape
from ._tangents import pointwise_jvp
from .distance import pairwise_distance
from ._declare import op

__all__ = [
    "binary_cross_entropy_with_logits",
    "kl_div",
    "margin_ranking_loss",
    "hinge_embedding_loss",
    "cosine_embedding_loss",
    "triplet_margin_loss",
    "poisson_nll_loss",
]


# ================================================================ losses
_REDUCTIONS = {0: "none", 1: "mean", 2: "sum", "none": "none", "mean": "mean", "sum": "sum", "batchmean": "batchmean"}


def reduction_name(reduction):
    """'none', 'mean' or 'sum' from a name or PyTorch's enum number (0, 1, 2)."""
    try:
        return _REDUCTIONS[reduction]
    except (KeyError, TypeError):
        raise ValueError(f"{reduction} is not a valid value for reduction (use 'none', 'mean' or 'sum')") from None


def reduce_loss(loss, reduction):
    reduction = reduction_name(reduction)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


class ReducedLoss(Primitive):
    """Base of the losses that are one graph node each, as in PyTorch (`MseLossBackward0`, ...).

    A subclass states its element-wise loss (`pointwise`, on arrays, saving what it needs) and that
    loss's gradient (`pointwise_backward`, with ember ops, one gradient per operand, over the loss's
    shape). The reduction ('mean', 'sum' or 'none', the last operand), spreading its gradient back
    over the elements, undoing broadcasting and the forward-mode rule are here, once."""

    @staticmethod
    def forward(ctx, *operands):
        *arrays, reduction = operands
        loss = ctx._forward_cls.pointwise(ctx, *arrays)
        ctx.reduction, ctx.loss_shape = reduction, loss.shape
        ctx.operand_shapes = [array.shape if isinstance(array, np.ndarray) else None for array in arrays]
        if reduction == "none":
            return loss
        return np.asarray(loss.mean() if reduction == "mean" else loss.sum(), dtype=loss.dtype)

    @staticmethod
    def backward(ctx, grad):
        if ctx.reduction != "none":
            if ctx.reduction == "mean":
                grad = grad / max(math.prod(ctx.loss_shape), 1)
            grad = grad.expand(ctx.loss_shape)
        grads = ctx._forward_cls.pointwise_backward(ctx, grad)
        return tuple(
            None if gradient is None else sum_to_shape(gradient, shape)
            for gradient, shape in zip(grads, ctx.operand_shapes)
        ) + (None,)

    @staticmethod
    def jvp(ctx, *tangents):
        total = pointwise_jvp(ctx, tangents[:-1], ctx._forward_cls.pointwise_backward, ctx.loss_shape)
        return None if total is None else reduce_loss(total, ctx.reduction)


class MseLoss(ReducedLoss, node="MseLossBackward0"):
    """(x - t)**2."""

    @staticmethod
    def pointwise(ctx, x, target):
        ctx.save_for_backward(x, target)  # (inputs, not their difference: backward's graph must reach them)
        difference = x - target
        return difference * difference

    @staticmethod
    def pointwise_backward(ctx, grad):
        x, target = ctx.saved_tensors
        difference = x - target
        grad_x = 2 * grad * difference
        return grad_x, -grad_x if ctx.needs_input_grad[1] else None


class SmoothL1Loss(ReducedLoss, node="SmoothL1LossBackward0"):
    """0.5 d**2 / beta where |d| < beta, else |d| - 0.5 beta, for d = x - t (beta = 0: |d|)."""

    @staticmethod
    def pointwise(ctx, x, target, beta):
        ctx.save_for_backward(x, target)
        difference = x - target
        ctx.beta = beta
        absolute = np.abs(difference)
        if beta == 0:
            return absolute
        return np.where(absolute < beta, 0.5 * difference * difference / beta, absolute - 0.5 * beta)

    @staticmethod
    def pointwise_backward(ctx, grad):
        from . import clamp, sign

        x, target = ctx.saved_tensors
        difference = x - target
        slope = sign(difference) if ctx.beta == 0 else clamp(difference / ctx.beta, -1.0, 1.0)
        grad_x = grad * slope
        return grad_x, -grad_x if ctx.needs_input_grad[1] else None, None


class HuberLoss(ReducedLoss, node="HuberLossBackward0"):
    """0.5 d**2 where |d| < delta, else delta (|d| - 0.5 delta), for d = x - t."""

    @staticmethod
    def pointwise(ctx, x, target, delta):
        ctx.save_for_backward(x, target)
        difference = x - target
        ctx.delta = delta
        absolute = np.abs(difference)
        return np.where(absolute < delta, 0.5 * difference * difference, delta * (absolute - 0.5 * delta))

    @staticmethod
    def pointwise_backward(ctx, grad):
        from . import clamp

        x, target = ctx.saved_tensors
        difference = x - target
        grad_x = grad * clamp(difference, -ctx.delta, ctx.delta)
        return grad_x, -grad_x if ctx.needs_input_grad[1] else None, None


class SoftMarginLoss(ReducedLoss, node="SoftMarginLossBackward0"):
    """log(1 + exp(-t x)), computed as a stable softplus."""

    @staticmethod
    def pointwise(ctx, x, target):
        ctx.save_for_backward(x, target)
        return np.logaddexp(0, -target * x).astype(np.result_type(x, target), copy=False)

    @staticmethod
    def pointwise_backward(ctx, grad):
        x, target = ctx.saved_tensors
        scaled = -grad * _sigmoid(-target * x)
        needs_x, needs_target = ctx.needs_input_grad[:2]
        return (scaled * target if needs_x else None), (scaled * x if needs_target else None)


class BinaryCrossEntropyWithLogits(ReducedLoss, node="BinaryCrossEntropyWithLogitsBackward0"):
    """(1 - t) x + lw (log1p(exp(-|x|)) + max(-x, 0)), lw = 1 + (pos_weight - 1) t: a primitive so both
    the loss and PyTorch's gradient lw * sigmoid(x) - pos_weight * t are exact for large |x| (every
    composite loses one of them to cancellation)."""

    @staticmethod
    def pointwise(ctx, x, target, weight, pos_weight):
        ctx.save_for_backward(x, target, weight, pos_weight)
        softplus_negated = np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0)
        if pos_weight is not None:
            softplus_negated *= 1 + (pos_weight - 1) * target
        result = (1 - target) * x + softplus_negated
        if weight is not None:
            result *= weight
        return result.astype(np.result_type(x, target), copy=False)  # both floating (see the op)

    @staticmethod
    def pointwise_backward(ctx, grad):
        x, target, weight, pos_weight = ctx.saved_tensors
        if weight is not None:
            grad = grad * weight
        grad_x = grad_target = None
        if ctx.needs_input_grad[0]:
            if pos_weight is None:
                grad_x = grad * (_sigmoid(x) - target)
            else:
                grad_x = grad * ((1 + (pos_weight - 1) * target) * _sigmoid(x) - pos_weight * target)
        if ctx.needs_input_grad[1]:
            if pos_weight is None:
                grad_target = -grad * x
            else:
                grad_target = grad * (pos_weight * Softplus.apply(-x, 1.0, math.inf) - Softplus.apply(x, 1.0, math.inf))
        return grad_x, grad_target, None, None


@op(BinaryCrossEntropyWithLogits)
def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction="mean"):
    """-[pos_weight * t * log(sigmoid(x)) + (1 - t) * log(1 - sigmoid(x))], stable for any logit x."""
    _check_tensor(input, "input", "binary_cross_entropy_with_logits")
    _check_tensor(target, "target", "binary_cross_entropy_with_logits")
    if input._data.shape != target._data.shape:
        raise ValueError(f"Target size ({list(target.shape)}) must be the same as input size ({list(input.shape)})")
    _check_floating(input, "binary_cross_entropy_with_logits")
    if target._data.dtype.kind not in "fc":
        raise RuntimeError(
            f"result type {_dtype.kernel_name(input.dtype)} can't be cast to the desired output type "
            f"{_dtype.kernel_name(target.dtype)} (binary_cross_entropy_with_logits needs a floating "
            "point target; convert it first, e.g. target.float())"
        )
    return BinaryCrossEntropyWithLogits.apply(input, target, weight, pos_weight, reduction_name(reduction))


@op()
def kl_div(input, target, reduction="mean", log_target=False):
    """Pointwise target * (log(target) - input) (input holds log-probabilities); 0 where target == 0."""
    _check_tensor(input, "input", "kl_div")
    _check_tensor(target, "target", "kl_div")
    if input._data.dtype.kind in "biu" or target._data.dtype.kind in "biu":
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        from . import exp

        loss = exp(target) * (target - input)
    else:
        from . import xlogy

        loss = xlogy(target, target) - target * input
    reduction = reduction_name(reduction)
    if reduction == "batchmean":
        return loss.sum() / (input._data.shape[0] if input._data.ndim else 1)
    return reduce_loss(loss, reduction)


@op()
def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """max(0, -target * (input1 - input2) + margin)."""
    from . import relu

    return reduce_loss(relu(-target * (input1 - input2) + margin), reduction)


@op()
def hinge_embedding_loss(input, target, margin=1.0, reduction="mean"):
    """x where target == 1, max(0, margin - x) where target == -1."""
    from . import relu

    margin_part = _where(target != 1, relu(margin - input), 0.0)
    loss = _where(target != -1, input, 0.0) + margin_part
    return reduce_loss(loss, reduction)


@op()
def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """1 - cos(x1, x2) where target == 1, max(0, cos(x1, x2) - margin) where target == -1."""
    from . import relu

    # PyTorch's formula: eps 1e-12 added to the squared norms rather than clamping them.
    eps = 1e-12
    dim = input1._data.ndim - 1
    product = (input1 * input2).sum(dim)
    magnitude = ((input1 * input1).sum(dim) + eps) * ((input2 * input2).sum(dim) + eps)
    cosine = product / magnitude.sqrt()
    loss = _where(target == 1, 1 - cosine, 0.0) + _where(target == -1, relu(cosine - margin), 0.0)
    return reduce_loss(loss, reduction)


@op()
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, reduction="mean"):
    """max(d(a, p) - d(a, n) + margin, 0) with d the pairwise p-norm distance."""
    from . import relu
    from . import minimum

    for name, value in (("anchor", anchor), ("positive", positive), ("negative", negative)):
        _check_tensor(value, name, "triplet_margin_loss")
    if not anchor._data.ndim == positive._data.ndim == negative._data.ndim:
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {anchor._data.ndim}D, positive {positive._data.ndim}D, "
            f"and negative {negative._data.ndim}D inputs"
        )
    distance_positive = pairwise_distance(anchor, positive, p, eps)
    distance_negative = pairwise_distance(anchor, negative, p, eps)
    if swap:
        distance_negative = minimum(distance_negative, pairwise_distance(positive, negative, p, eps))
    return reduce_loss(relu(distance_positive - distance_negative + margin), reduction)


@op()
def poisson_nll_loss(input, target, log_input=True, full=False, eps=1e-8, reduction="mean"):
    """exp(input) - target * input (log_input), or input - target * log(input + eps); `full` adds
    Stirling's approximation of log(target!) where target > 1."""
    from . import exp, log

    if log_input:
        loss = exp(input) - target * input
    else:
        loss = input - target * log(input + eps)
    if full:
        stirling = target * log(target) - target + 0.5 * log(2 * math.pi * target)
        loss = loss + _where(target > 1, stirling, 0.0)
    return reduce_loss(loss, reduction)


class NllLoss(Primitive, node="NllLossBackward0", backward_on_arrays=True):
    """-weight[t] * input[..., t, ...] per sample, reduced: the negative log-likelihood of class targets.

    Takes (C,) and (N, C) inputs (NllLoss2d: (N, C, H, W)) with the class dim where PyTorch has it;
    the rows are formed on arrays, so the node's input is the caller's tensor itself. Its backward is
    the constant "where each target sits" times the incoming gradient, so it is linear in that
    gradient and differentiable again.
    """

    @staticmethod
    def forward(ctx, input, target, weight, reduction, ignore_index):
        class_dim = 0 if input.ndim == 1 else 1
        classes = input.shape[class_dim]
        # (np.moveaxis is ~5 us of Python even when the class dim is already last, as for (N, C))
        moved = input if class_dim == input.ndim - 1 else np.moveaxis(input, class_dim, -1)
        rows = moved.reshape(-1, classes)
        target_shape, target = target.shape, target.reshape(-1)
        count = rows.shape[0]
        valid = target != ignore_index
        all_valid = bool(valid.all())
        safe = target if all_valid else np.where(valid, target, 0)
        if safe.size and (safe.min() < 0 or safe.max() >= classes):
            bad = safe[(safe < 0) | (safe >= classes)][0]
            raise IndexError(
                f"Target {bad} is out of bounds (the input has {classes} classes: targets must be in "
                f"[0, {classes - 1}] or equal ignore_index={ignore_index})"
            )
        picked = rows[np.arange(count), safe]
        ctx.layout = input.shape, class_dim, target_shape, reduction
        if weight is None and all_valid and count:
            # The usual case, every sample counted once: no per-sample weights to build.
            scale = 1.0 if reduction != "mean" else 1.0 / count
            ctx.picked = safe, np.asarray(scale, dtype=rows.dtype)
            if reduction == "none":
                return (-picked).reshape(target_shape)
            # (0 - sum, not -sum: PyTorch's sums start from +0, so a zero loss prints as 0., not -0.)
            return np.asarray((0.0 - picked.sum()) * scale, dtype=rows.dtype)
        sample_weight = weight[safe] if weight is not None else np.ones(count, dtype=rows.dtype)
        sample_weight = sample_weight * valid
        losses = -picked * sample_weight
        if reduction == "none":
            scale = sample_weight
            result = losses.reshape(target_shape)
        elif reduction == "sum":
            scale = sample_weight
            result = np.asarray(losses.sum() + 0.0, dtype=rows.dtype)  # +0 for a zero loss, as above
        else:
            total = sample_weight.sum()
            scale = sample_weight / total  # (0/0 when every target is ignored: nan, as PyTorch)
            result = np.asarray((losses.sum() + 0.0) / total, dtype=rows.dtype)
        ctx.picked = safe, scale.astype(rows.dtype, copy=False)
        return result

    @staticmethod
    def coefficient(ctx):
        """d(loss)/d(input), per sample for 'none': -scale where each target sits, 0 elsewhere."""
        safe, scale = ctx.picked
        shape, class_dim = ctx.layout[:2]
        moved = shape[:class_dim] + shape[class_dim + 1 :] + (shape[class_dim],)
        coefficient = np.zeros((safe.size, shape[class_dim]), dtype=scale.dtype)
        coefficient[np.arange(safe.size), safe] = -scale
        coefficient = coefficient.reshape(moved)
        return coefficient if class_dim == len(shape) - 1 else np.moveaxis(coefficient, -1, class_dim)

    @staticmethod
    def backward(ctx, grad):
        shape, class_dim, target_shape, reduction = ctx.layout
        coefficient = NllLoss.coefficient(ctx)
        if reduction == "none":  # one gradient per target: broadcast it along the class dim
            grad = grad.reshape(target_shape[:class_dim] + (1,) + target_shape[class_dim:])
        if isinstance(grad, np.ndarray):  # a first-order backward on arrays (see autograd.function)
            return grad * coefficient, None, None, None, None
        return grad * new_tensor(coefficient), None, None, None, None

    @staticmethod
    def jvp(ctx, tangent, *rest):
        if tangent is None:
            return None
        class_dim, reduction = ctx.layout[1], ctx.layout[3]
        weighted = tangent * new_tensor(NllLoss.coefficient(ctx))
        return weighted.sum(class_dim) if reduction == "none" else weighted.sum()


class NllLoss2d(NllLoss, node="NllLoss2DBackward0"):
    pass


def nll_loss_rows(input, target, weight, ignore_index, reduction, op_name="nll_loss"):
    """NLL of class-index targets for (C,), (N, C) or (N, C, d1, ...) log-probabilities.

    As PyTorch, 3-D and 5-D-or-more inputs are viewed as (N, C, 1, -1) for the 2-D kernel and the
    loss is viewed back, so the nodes are those PyTorch prints."""
    _check_tensor(input, "input", op_name)
    _check_tensor(target, "target", op_name)
    reduction = reduction_name(reduction)
    ndim = input._data.ndim
    if ndim < 1:
        raise ValueError(f"{op_name}: expected input with 1 or more dimensions (got 0)")
    if target._data.dtype.kind not in "iu":
        raise RuntimeError(
            f"{op_name}: expected target of an integer dtype (class indices, e.g. .long()), but "
            f"got {target.dtype}; for class probabilities use cross_entropy"
        )
    if ndim == 1:
        if target._data.ndim != 0:
            raise ValueError(
                f"{op_name}: for an unbatched input of shape {list(input.shape)} the target must be "
                f"0-D, got {list(target.shape)}"
            )
    elif input._data.shape[0] != target._data.shape[0]:
        raise ValueError(
            f"Expected input batch_size ({input._data.shape[0]}) to match target batch_size ({target._data.shape[0]})."
        )
    elif input._data.shape[2:] != target._data.shape[1:]:
        raise RuntimeError(
            f"{op_name}: expected target size {[input._data.shape[0]] + list(input.shape[2:])}, "
            f"got {list(target.shape)} (input is {list(input.shape)})"
        )
    classes = input._data.shape[0 if ndim == 1 else 1]
    if weight is not None and weight._data.shape != (classes,):
        raise RuntimeError(
            f"{op_name}: weight tensor should be defined either for all {classes} classes or no "
            f"classes but got weight tensor of shape: {list(weight.shape)}"
        )
    weight_array = None if weight is None else weight._data.astype(input._data.dtype, copy=False)
    if ndim <= 2:
        return NllLoss.apply(input, target._data, weight_array, reduction, ignore_index)
    if ndim == 4:
        return NllLoss2d.apply(input, target._data, weight_array, reduction, ignore_index)
    batch = input._data.shape[0]
    flat_target = target._data.reshape(batch, 1, -1)
    loss = NllLoss2d.apply(input.reshape((batch, classes, 1, -1)), flat_target, weight_array, reduction, ignore_index)
    return loss.reshape(target._data.shape) if reduction == "none" else loss


def _margin_batch(input, target, op_name, target_like_input):
    """(N, C) arrays for a margin loss's 0-D, (C,) or (N, C) input, with PyTorch's checks."""
    if input.ndim > 2 or (input.ndim and 0 in input.shape[-1:]):
        raise RuntimeError(
            f"{op_name}: expected a non-empty vector or matrix (C,) / (N, C) with optional 0-dim "
            f"batch size, but got input of shape {list(input.shape)}"
        )
    if target.dtype.kind not in "iu":
        raise RuntimeError(f"{op_name}: expected target of scalar type Long (class indices) but found {target.dtype}")
    rows = input.reshape(-1, input.shape[-1] if input.ndim else 1)
    expected = rows.shape if target_like_input else rows.shape[:1]
    if target_like_input:
        matches = target.shape == input.shape
    else:
        matches = target.shape == input.shape[:1] if input.ndim == 2 else target.size == 1
    if not matches:
        if target_like_input:
            raise RuntimeError(
                f"{op_name}: inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}"
            )
        raise RuntimeError(
            f"{op_name}: target tensor should be 1-D with size equal to the number of input samples "
            f"(batch size). Expected target size {list(rows.shape[:1])}, but got {list(target.shape)}. "
            f"Input has shape {list(input.shape)}."
        )
    return rows, target.reshape(expected)


def _reduce_rows(per_sample, reduction, output_shape, dtype):
    """A margin loss's per-sample losses reduced; 'none' gives them the output's shape."""
    if reduction == "none":
        return per_sample.astype(dtype, copy=False).reshape(output_shape)
    total = per_sample.sum() if reduction == "sum" else per_sample.sum() / per_sample.size
    return np.asarray(total, dtype=dtype)


class MarginSlopeLoss(Primitive):
    """Base of the multi-class margin losses: the per-sample loss's slope G (N, C) with respect to
    the input is computed by the subclass (`slopes`, with ember ops); backward is the incoming
    gradient times G and the forward-mode rule sums G times the tangent over the classes."""

    @staticmethod
    def backward(ctx, grad):
        slopes = ctx._forward_cls.slopes(ctx)
        if ctx.reduction == "none":
            grad = grad.reshape((-1, 1))
        elif ctx.reduction == "mean":
            grad = grad / slopes.shape[0]
        others = (None,) * (len(ctx.needs_input_grad) - 1)
        return ((grad * slopes).reshape(ctx.input_shape),) + others

    @staticmethod
    def jvp(ctx, tangent, *rest):
        if tangent is None:
            return None
        per_sample = (ctx._forward_cls.slopes(ctx) * tangent.reshape(ctx.rows_shape)).sum(1)
        if ctx.reduction == "none":
            return per_sample.reshape(ctx.output_shape)
        return reduce_loss(per_sample, ctx.reduction)


class MultiMarginLoss(MarginSlopeLoss, node="MultiMarginLossBackward0"):
    """sum over i != y of w[y] * max(0, margin - x[y] + x[i])**p / C per sample (p = 1 or 2)."""

    @staticmethod
    def forward(ctx, input, target, p, margin, weight, reduction):
        target_shape = target.shape
        rows, target = _margin_batch(input, target, "multi_margin_loss", target_like_input=False)
        count, classes = rows.shape
        if target.size and (target.min() < 0 or target.max() >= classes):
            raise RuntimeError(f"multi_margin_loss: target out of range (targets must be in [0, {classes - 1}])")
        if weight is not None and weight.shape != (classes,):
            raise RuntimeError(
                f"multi_margin_loss: inconsistent weight size, expected {classes} but got {list(weight.shape)}"
            )
        batch = np.arange(count)
        hinge = margin - rows[batch, target][:, None] + rows
        active = hinge > 0
        active[batch, target] = False
        scale = active / classes
        if weight is not None:
            scale = scale * weight[target][:, None]
        per_sample = ((hinge if p == 1 else hinge * hinge) * scale).sum(1)
        ctx.save_for_backward(input if p == 2 else None)
        ctx.scale, ctx.target, ctx.p, ctx.margin = scale.astype(rows.dtype), target, p, margin
        ctx.reduction, ctx.input_shape, ctx.rows_shape = reduction, input.shape, rows.shape
        ctx.output_shape = (count,) if input.ndim == 2 else target_shape  # unbatched: the target's 0-D or (1,)
        return _reduce_rows(per_sample, reduction, ctx.output_shape, rows.dtype)

    @staticmethod
    def slopes(ctx):
        """d(loss_n)/dx[n, i]: the active hinges' slopes, and minus their sum at the target."""
        scale = new_tensor(ctx.scale)
        if ctx.p == 2:
            (input,) = ctx.saved_tensors
            rows = input.reshape(ctx.rows_shape)
            picked = rows.gather(1, new_tensor(ctx.target[:, None]))
            scale = 2 * (ctx.margin - picked + rows) * scale
        at_target = new_tensor(np.arange(ctx.rows_shape[1]) == ctx.target[:, None])
        return scale - _where(at_target, scale.sum(1, keepdim=True), 0.0)


class MultilabelMarginLoss(MarginSlopeLoss, node="MultilabelMarginLossBackward0"):
    """sum over targets j and non-targets i of max(0, 1 - (x[y_j] - x[i])) / C per sample; a row of
    targets ends at its first -1."""

    @staticmethod
    def forward(ctx, input, target, reduction):
        rows, target = _margin_batch(input, target, "multilabel_margin_loss", target_like_input=True)
        count, classes = rows.shape
        listed = np.cumprod(target != -1, axis=1).astype(bool)  # positions before the first -1
        if ((target[listed] < 0) | (target[listed] >= classes)).any():
            raise RuntimeError(
                f"multilabel_margin_loss: argument #2 'target' is out of range (targets must be in "
                f"[0, {classes - 1}], ended by -1)"
            )
        safe = np.where(listed, target, 0)
        batch = np.arange(count)[:, None]
        is_target = np.zeros(rows.shape, dtype=bool)
        is_target[np.broadcast_to(batch, safe.shape)[listed], safe[listed]] = True
        hinge = 1 - rows[batch, safe][:, :, None] + rows[:, None, :]  # (N, target slot, class)
        active = (hinge > 0) & listed[:, :, None] & ~is_target[:, None, :]
        per_sample = (hinge * active).sum((1, 2)) / classes
        # The loss is piecewise linear: its slopes are constants, fixed here.
        slopes = active.sum(1).astype(rows.dtype)
        np.subtract.at(slopes, (np.broadcast_to(batch, safe.shape), safe), active.sum(2))
        ctx.slope_array = slopes / classes
        ctx.reduction, ctx.input_shape, ctx.rows_shape = reduction, input.shape, rows.shape
        ctx.output_shape = (count,) if input.ndim == 2 else ()
        return _reduce_rows(per_sample, reduction, ctx.output_shape, rows.dtype)

    @staticmethod
    def slopes(ctx):
        return new_tensor(ctx.slope_array)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, reduction="mean"):
    _check_tensor(input, "input", "multi_margin_loss")
    _check_tensor(target, "target", "multi_margin_loss")
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    _check_floating(input, "multi_margin_loss")
    weight_array = None if weight is None else weight._data.astype(input._data.dtype, copy=False)
    return MultiMarginLoss.apply(input, target._data, p, float(margin), weight_array, reduction_name(reduction))


def multilabel_margin_loss(input, target, reduction="mean"):
    _check_tensor(input, "input", "multilabel_margin_loss")
    _check_tensor(target, "target", "multilabel_margin_loss")
    _check_floating(input, "multilabel_margin_loss")
    return MultilabelMarginLoss.apply(input, target._data, reduction_name(reduction))


class BinaryCrossEntropy(ReducedLoss, node="BinaryCrossEntropyBackward0"):
    """-w [t log(x) + (1 - t) log(1 - x)] with each log clamped at -100, as PyTorch: a primitive so
    that x = 0 or 1 gives a finite loss and PyTorch's gradient (x - t) / max(x (1 - x), 1e-12)."""

    @staticmethod
    def pointwise(ctx, x, target, weight):
        if x.size and (x.min() < 0 or x.max() > 1):
            raise RuntimeError(
                "all elements of input should be between 0 and 1 (binary_cross_entropy takes "
                "probabilities; for logits use binary_cross_entropy_with_logits)"
            )
        if target.size and (target.min() < 0 or target.max() > 1):
            raise RuntimeError(
                "all elements of target should be between 0 and 1 (binary_cross_entropy's target is "
                f"a probability; got values in [{target.min()}, {target.max()}])"
            )
        ctx.save_for_backward(x, target, weight)
        log_x = np.maximum(np.log(x), -100)
        log_rest = np.maximum(np.log1p(-x), -100)
        result = -(target * log_x + (1 - target) * log_rest)
        if weight is not None:
            result *= weight
        return result.astype(x.dtype, copy=False)

    @staticmethod
    def pointwise_backward(ctx, grad):
        from . import clamp_min, log1p
        from . import log

        x, target, weight = ctx.saved_tensors
        grad_x = grad_target = None
        if weight is not None:
            grad = grad * weight
        if ctx.needs_input_grad[0]:
            grad_x = grad * (x - target) / clamp_min(x * (1 - x), 1e-12)
        if ctx.needs_input_grad[1]:
            grad_target = grad * (clamp_min(log1p(-x), -100) - clamp_min(log(x), -100))
        return grad_x, grad_target, None


def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    _check_tensor(input, "input", "binary_cross_entropy")
    _check_tensor(target, "target", "binary_cross_entropy")
    if input._data.shape != target._data.shape:
        raise ValueError(
            f"Using a target size ({list(target.shape)}) that is different to the input size "
            f"({list(input.shape)}) is deprecated. Please ensure they have the same size."
        )
    _check_floating(input, "binary_cross_entropy")
    if target.dtype != input.dtype:
        raise RuntimeError(
            f"Found dtype {_dtype.kernel_name(target.dtype)} but expected {_dtype.kernel_name(input.dtype)} "
            "(binary_cross_entropy needs the target in the input's dtype; convert it, e.g. target.float())"
        )
    if weight is not None and weight._data.shape != input._data.shape:
        weight = weight.expand(input.shape)
    return BinaryCrossEntropy.apply(input, target, weight, reduction_name(reduction))
