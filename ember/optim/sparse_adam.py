"""SparseAdam: Adam for sparse gradients (such as nn.Embedding(sparse=True) gives)."""

import math

from .._backend import np
from .._sparse_coo import SparseCoo
from .._tensor import new_tensor
from .optimizer import Optimizer, check_betas, check_lr

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """`torch.optim.SparseAdam`: Adam that updates only the moments and parameters at the rows a sparse
    gradient holds, in PyTorch's order of operations. The gradient is coalesced first (the update is
    not linear, so each row must appear once); a dense gradient is refused, as in PyTorch.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        check_lr(lr)
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        check_betas(betas)
        defaults = dict(lr=lr, betas=betas, eps=eps, maximize=maximize)
        super().__init__(params, defaults)
        complex_params = [
            [group_index, index]
            for group_index, group in enumerate(self.param_groups)
            for index, param in enumerate(group["params"])
            if param.is_complex()
        ]
        if complex_params:
            raise ValueError(
                f"Complex params at indices {complex_params}: SparseAdam does not support complex parameters"
            )

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            for param, gradient in self._params_with_grad(group):
                self._update(param, gradient, group)
        return loss

    def _sparse_gradient(self, gradient, group):
        return gradient.coalesce()

    def _update(self, param, gradient, group):
        if type(gradient) is not SparseCoo:
            raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
        rows, values = tuple(gradient.indices), gradient.values
        state = self.state[param]
        if not state:
            state["step"] = 0
            state["exp_avg"] = new_tensor(np.zeros_like(param._data))
            state["exp_avg_sq"] = new_tensor(np.zeros_like(param._data))
        state["step"] += 1
        if values.size == 0:
            return
        lr, eps = group["lr"], group["eps"]
        beta1, beta2 = group["betas"]
        exp_avg, exp_avg_sq = state["exp_avg"]._data, state["exp_avg_sq"]._data
        # old <- b * old + (1 - b) * new, written old += (1 - b) * (new - old), at the gradient's rows
        old_avg, old_avg_sq = exp_avg[rows], exp_avg_sq[rows]
        avg_update = (values - old_avg) * (1 - beta1)
        avg_sq_update = (values * values - old_avg_sq) * (1 - beta2)
        exp_avg[rows] += avg_update
        exp_avg_sq[rows] += avg_sq_update
        denominator = np.sqrt(avg_sq_update + old_avg_sq) + eps
        step_size = lr * math.sqrt(1 - beta2 ** state["step"]) / (1 - beta1 ** state["step"])
        param._data[rows] += -step_size * ((avg_update + old_avg) / denominator)
        self._updated(param)
