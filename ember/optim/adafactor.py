"""Adafactor: Adam-like steps whose second moment of a matrix is kept as one row and one column
average (memory O(n + m) instead of O(n m)), with relative step sizes and update clipping."""

from .._backend import np
from .._tensor import Tensor, new_tensor
from .optimizer import Optimizer, lerp_, scalar, step_state

__all__ = ["Adafactor"]


def _rms(array):
    """Root mean square of all entries, as a Python float."""
    return float(np.linalg.norm(array.reshape(-1))) / array.size**0.5


def _mean_square(grad, axis):
    """The mean of the squared gradient along `axis`, through the norm as PyTorch computes it."""
    return np.square(np.sqrt(np.sum(grad * grad, axis=axis, keepdims=True))) / grad.shape[axis]


class Adafactor(Optimizer):
    """`torch.optim.Adafactor` (Shazeer & Stern, 2018), PyTorch's variant: for each parameter with a
    gradient G (negated if `maximize`), at step t,

        beta2_hat = 1 - t**beta2_decay;  rho = min(lr, 1 / sqrt(t));  alpha = max(eps2, RMS(p)) * rho
        p *= 1 - lr * weight_decay
        matrices (factored over the last two dims):
            R = lerp(R, mean of G*G over columns, 1 - beta2_hat);  C = lerp(C, mean over rows, 1 - beta2_hat)
            V = R C / max(mean of R, eps1)
        vectors and scalars:  V = lerp(V, G*G, 1 - beta2_hat)
        U = G / sqrt(max(V, eps1**2));  p -= alpha * U / max(1, RMS(U) / d)

    `eps=(None, 1e-3)`: eps1 None means the parameter dtype's machine epsilon. State per parameter:
    `step` and `row_var`/`col_var` (matrices) or `variance` (vectors). `foreach` is accepted and ignored.
    """

    def __init__(
        self,
        params,
        lr=1e-2,
        beta2_decay=-0.8,
        eps=(None, 1e-3),
        d=1.0,
        weight_decay=0.0,
        *,
        foreach=None,
        maximize=False,
    ):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(
            lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay, foreach=foreach, maximize=maximize
        )
        super().__init__(params, defaults)

    def _state_of(self, param, grad):
        state = self.state[param]
        if len(state) == 0:
            state["step"] = step_state()
            if grad.ndim > 1:
                state["row_var"] = new_tensor(np.zeros(grad.shape[:-1] + (1,), grad.dtype))
                state["col_var"] = new_tensor(np.zeros(grad.shape[:-2] + (1,) + grad.shape[-1:], grad.dtype))
            else:
                state["variance"] = new_tensor(np.zeros_like(grad))
        return state

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr, beta2_decay, d = scalar(group["lr"]), group["beta2_decay"], group["d"]
            weight_decay = group["weight_decay"]
            eps1, eps2 = group["eps"]
            for param, grad in self._params_with_grad(group):
                if param.is_complex():
                    raise RuntimeError("Adafactor does not support complex parameters")
                data = param._data
                grad = np.asarray(grad)
                if eps1 is None:  # PyTorch settles it on the group's first parameter
                    eps1 = float(np.finfo(data.dtype).eps)
                state = self._state_of(param, grad)
                state["step"]._data += 1
                step = state["step"]._data.item()
                weight = step**beta2_decay  # 1 - beta2_hat
                alpha = max(eps2, _rms(data)) * min(lr, 1 / step**0.5)
                if weight_decay != 0:
                    data *= 1 - lr * weight_decay
                if grad.ndim > 1:
                    row_var, col_var = state["row_var"]._data, state["col_var"]._data
                    lerp_(row_var, _mean_square(grad, -1), weight)
                    lerp_(col_var, _mean_square(grad, -2), weight)
                    variance = row_var @ col_var
                    variance /= np.maximum(row_var.mean(axis=-2, keepdims=True), eps1)
                else:
                    variance = state["variance"]._data
                    lerp_(variance, grad * grad, weight)
                update = 1 / np.sqrt(np.maximum(variance, eps1 * eps1))
                update *= grad
                data += -alpha / max(1.0, _rms(update) / d) * update
                self._updated(param)
        return loss
