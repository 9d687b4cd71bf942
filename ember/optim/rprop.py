"""Rprop: resilient backpropagation, where only the sign of the gradient is used and each coordinate
adapts its own step size."""

from .._backend import np
from .._tensor import new_tensor
from .optimizer import Optimizer, check_lr, scalar, step_state, zeros_state

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """`torch.optim.Rprop` (Riedmiller & Braun, 1993): for each parameter with a gradient g (negated if
    `maximize`), coordinate by coordinate, comparing g with the previous (kept) gradient:

        same sign:      step_size = min(step_size * etaplus, step_size_max)
        opposite sign:  step_size = max(step_size * etaminus, step_size_min); g = 0 (skip, forget g)
        p -= sign(g) * step_size

    State per parameter: `step`, `prev` (the kept gradient) and `step_size`, which starts at `lr`.
    `differentiable=True` records the update in the graph; the signs have zero derivative, so gradients
    reach the initial parameters through p and the step sizes only.
    """

    def __init__(
        self,
        params,
        lr=1e-2,
        etas=(0.5, 1.2),
        step_sizes=(1e-6, 50),
        *,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ):
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(
            lr=lr,
            etas=etas,
            step_sizes=step_sizes,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        super().__init__(params, defaults)

    def _state_of(self, param, group):
        state = self.state[param]
        if len(state) == 0:
            state["step"] = step_state()
            state["prev"] = zeros_state(param)
            state["step_size"] = new_tensor(np.full_like(param._data, scalar(group["lr"])))
        return state

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            if group["differentiable"]:
                self._differentiable_step(group)
                continue
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            for param, grad in self._params_with_grad(group):
                state = self._state_of(param, group)
                state["step"]._data += 1
                prev, step_size = state["prev"]._data, state["step_size"]._data
                agreement = np.sign(grad * prev)
                reversed_sign = agreement < 0
                factor = np.ones_like(step_size)
                factor[agreement > 0] = etaplus
                factor[reversed_sign] = etaminus
                step_size *= factor
                np.clip(step_size, step_size_min, step_size_max, out=step_size)
                grad = np.array(grad)  # a copy, and an array even for a 0-d parameter
                grad[reversed_sign] = 0
                param._data += -1 * np.sign(grad) * step_size
                prev[...] = grad
                self._updated(param)
        return loss

    def _differentiable_step(self, group):
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        for param, grad in self._params_with_grad_tensors(group):
            state = self._state_of(param, group)
            state["step"].add_(1)
            prev, step_size = state["prev"], state["step_size"]
            # The factor keeps the graph of sign(g * prev) as PyTorch's does (its derivative is zero).
            factor = (grad * prev.clone()).sign()
            agreement = factor.detach().clone()
            factor[agreement > 0] = etaplus
            factor[agreement < 0] = etaminus
            factor[agreement == 0] = 1
            step_size.mul_(factor).clamp_(step_size_min, step_size_max)
            grad = grad.clone()
            grad[agreement < 0] = 0
            param.addcmul_(grad.sign(), step_size, value=-1)
            prev.copy_(grad)
