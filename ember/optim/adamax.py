"""Adamax: Adam with the second moment replaced by an exponentially weighted infinity norm."""

from .._backend import np
from ..ops import stack
from .optimizer import (
    Optimizer,
    hyperparameter,
    nonzero,
    check_betas,
    check_lr,
    check_nonnegative,
    lerp_,
    scalar,
    step_state,
    zeros_state,
)

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """`torch.optim.Adamax` (Kingma & Ba, section 7): for each parameter with a gradient g (negated if
    `maximize`), at step t,

        g += weight_decay * p
        m = m + (1 - beta1) * (g - m)                      (exp_avg)
        u = max(beta2 * u, |g| + eps)                      (exp_inf)
        p -= lr / (1 - beta1**t) * m / u

    State per parameter: `step`, `exp_avg`, `exp_inf`. Example:
    `opt = ember.optim.Adamax(model.parameters(), lr=2e-3)`.
    """

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        capturable=False,
    ):
        check_lr(lr)
        check_nonnegative("epsilon value", eps)
        check_betas(betas)
        check_nonnegative("weight_decay value", weight_decay)
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        super().__init__(params, defaults)

    def _state_of(self, param):
        state = self.state[param]
        if len(state) == 0:
            state["step"] = step_state()
            state["exp_avg"] = zeros_state(param)
            state["exp_inf"] = zeros_state(param)
        return state

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            if group["differentiable"]:
                self._differentiable_step(group)
                continue
            lr, (beta1, beta2), eps = scalar(group["lr"]), group["betas"], group["eps"]
            weight_decay = group["weight_decay"]
            for param, grad in self._params_with_grad(group):
                data = param._data
                state = self._state_of(param)
                step_t = state["step"]
                step_t._data += 1
                if weight_decay != 0:
                    grad = grad + weight_decay * data
                exp_avg, exp_inf = state["exp_avg"]._data, state["exp_inf"]._data
                lerp_(exp_avg, grad, 1 - beta1)
                exp_inf *= beta2
                norm = np.abs(grad)
                norm += eps
                np.maximum(exp_inf, norm, out=exp_inf)
                step_size = lr / (1 - beta1 ** step_t._data.item())
                data += -step_size * exp_avg / exp_inf
                self._updated(param)
        return loss

    def _differentiable_step(self, group):
        lr, (beta1, beta2), eps = hyperparameter(group["lr"]), group["betas"], group["eps"]
        weight_decay = hyperparameter(group["weight_decay"])
        for param, grad in self._params_with_grad_tensors(group):
            state = self._state_of(param)
            state["step"].add_(1)
            if nonzero(weight_decay):
                grad = grad + weight_decay * param
            exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
            exp_avg.lerp_(grad, 1 - beta1)
            # amax of the pair (not maximum) shares the gradient of a tie evenly, as PyTorch's
            candidates = stack([exp_inf.mul_(beta2), grad.abs() + eps])
            exp_inf.copy_(candidates.amax(0))
            step_size = lr / (1 - beta1 ** float(state["step"]._data))
            param.sub_(step_size * exp_avg.clone() / exp_inf.clone())
