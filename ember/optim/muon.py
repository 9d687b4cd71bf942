"""Muon: SGD-momentum whose update for a weight matrix is replaced by the nearest semi-orthogonal
matrix, found by a few Newton–Schulz iterations (Keller Jordan, 2024)."""

import math

from .._backend import np
from .._tensor import Tensor
from .optimizer import Optimizer, add_scaled_, fused_lerp_, scalar, zeros_state

__all__ = ["Muon"]

DEFAULT_A, DEFAULT_B, DEFAULT_C = 3.4445, -4.775, 2.0315
DEFAULT_NS_STEPS = 5
EPS = 1e-7


def _round_to_bfloat16(array):
    """float32 values rounded to the nearest bfloat16 (ties to even), still stored as float32.

    PyTorch runs the Newton–Schulz iteration in bfloat16, which NumPy lacks: each operation is done in
    float32 and its result rounded here, as PyTorch's CPU kernels round their float32 results.
    """
    bits = np.asarray(array, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32)


def _orthogonalize(matrix, coefficients, steps, eps):
    """The Newton–Schulz iteration X <- a X + (b A + c A A) X with A = X X^T, from X = M / |M|_F, which
    drives every singular value of M towards 1 (the quintic coefficients trade exactness for speed)."""
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if matrix.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = coefficients
    tall = matrix.shape[0] > matrix.shape[1]
    x = _round_to_bfloat16(matrix.T if tall else matrix)  # iterate on the wide side: the Gram matrix is smaller
    norm = _round_to_bfloat16(np.sqrt(np.sum(np.square(x, dtype=np.float32))))
    x = _round_to_bfloat16(x / np.maximum(norm, _round_to_bfloat16(eps)))
    for _ in range(steps):
        gram = _round_to_bfloat16(x @ x.T)
        polynomial = _round_to_bfloat16(b * gram + c * (gram @ gram))
        x = _round_to_bfloat16(a * x + polynomial @ x)
    return x.T if tall else x


def _adjusted_lr(lr, adjust_lr_fn, shape):
    """Scale the rate so that updates of rectangular matrices have comparable RMS."""
    rows, columns = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / columns))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, columns))
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    """`torch.optim.Muon`, for 2-D parameters (hidden-layer weights): for each with a gradient g,

        B = B + (1 - momentum) * (g - B)                  (momentum_buffer)
        U = g + momentum * (B - g) if nesterov else B
        O = NewtonSchulz(U)                               (in bfloat16, as PyTorch)
        p *= 1 - lr * weight_decay;  p -= adjusted_lr * O

    `adjust_lr_fn`: None or "original" (lr * sqrt(max(1, rows / columns))), or "match_rms_adamw"
    (lr * 0.2 * sqrt(max(rows, columns)), to reuse AdamW's settings). Optimize biases, embeddings and
    other parameters with e.g. AdamW. Example: `Muon([layer.weight], lr=0.02)`.
    """

    def __init__(
        self,
        params,
        lr=1e-3,
        weight_decay=0.1,
        momentum=0.95,
        nesterov=True,
        ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C),
        eps=EPS,
        ns_steps=DEFAULT_NS_STEPS,
        adjust_lr_fn=None,
    ):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ("original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(
            lr=lr,
            weight_decay=weight_decay,
            momentum=momentum,
            nesterov=nesterov,
            ns_coefficients=ns_coefficients,
            eps=eps,
            ns_steps=ns_steps,
            adjust_lr_fn=adjust_lr_fn,
        )
        super().__init__(params, defaults)
        for group in self.param_groups:
            for param in group["params"]:
                if param.ndim != 2:
                    raise ValueError(
                        f"Muon only supports 2D parameters whereas we found a parameter with size: "
                        f"{param.size()}; optimize it with e.g. AdamW"
                    )

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr, weight_decay, momentum = scalar(group["lr"]), group["weight_decay"], group["momentum"]
            for param, grad in self._params_with_grad(group):
                if param.is_complex():
                    raise RuntimeError("Muon does not support complex parameters")
                if grad.ndim != 2:
                    raise ValueError("Param gradient must be a 2D matrix")
                state = self.state[param]
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = zeros_state(param)
                buffer = state["momentum_buffer"]._data
                fused_lerp_(buffer, grad, 1 - momentum)
                if group["nesterov"]:
                    update = np.array(grad)
                    fused_lerp_(update, buffer, momentum)
                else:
                    update = buffer
                update = _orthogonalize(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
                data = param._data
                data *= 1 - lr * weight_decay
                add_scaled_(data, -_adjusted_lr(lr, group["adjust_lr_fn"], data.shape), update.astype(data.dtype))
                self._updated(param)
        return loss
