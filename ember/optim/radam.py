"""RAdam: Adam whose adaptive step is switched on gradually, as the variance of its second-moment
estimate becomes tractable (a warm-up without a schedule)."""

from .._backend import np
from .optimizer import (
    Optimizer,
    check_betas,
    check_lr,
    check_nonnegative,
    divide,
    hyperparameter,
    lerp_,
    nonzero,
    scalar,
    step_state,
    zeros_state,
)

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """`torch.optim.RAdam` (Liu et al., 2019): for each parameter with a gradient g (negated if
    `maximize`), at step t,

        g += weight_decay * p               (or p *= 1 - lr * weight_decay if decoupled_weight_decay)
        m = m + (1 - beta1) * (g - m);  v = beta2 * v + (1 - beta2) * g * g
        rho_inf = 2 / (1 - beta2) - 1;  rho_t = rho_inf - 2 t beta2**t / (1 - beta2**t)
        m_hat = m / (1 - beta1**t)
        p -= lr * m_hat * sqrt(1 - beta2**t) / (sqrt(v) + eps) * r_t     if rho_t > 5, where
             r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))
        p -= lr * m_hat                                                  otherwise (SGD with momentum)

    State per parameter: `step`, `exp_avg`, `exp_avg_sq`. `differentiable=True` records the update in
    the graph (lr, betas and weight_decay may be tensors that require grad).
    """

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        decoupled_weight_decay=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
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
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            decoupled_weight_decay=decoupled_weight_decay,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _state_of(self, param):
        state = self.state[param]
        if len(state) == 0:
            state["step"] = step_state()
            state["exp_avg"] = zeros_state(param)
            state["exp_avg_sq"] = zeros_state(param)
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
                step = step_t._data.item()
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        data *= 1 - lr * weight_decay
                    else:
                        grad = grad + weight_decay * data
                exp_avg, exp_avg_sq = state["exp_avg"]._data, state["exp_avg_sq"]._data
                lerp_(exp_avg, grad, 1 - beta1)
                exp_avg_sq *= beta2
                exp_avg_sq += (1 - beta2) * grad * grad
                bias_correction2 = 1 - beta2**step
                update = exp_avg / (1 - beta1**step) * lr
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
                if rho_t > 5.0:
                    rectification = (
                        (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
                    ) ** 0.5
                    root = np.sqrt(exp_avg_sq)
                    root += eps
                    update *= bias_correction2**0.5 / root
                    update *= rectification
                data -= update
                self._updated(param)
        return loss

    def _differentiable_step(self, group):
        lr, eps, weight_decay = hyperparameter(group["lr"]), group["eps"], hyperparameter(group["weight_decay"])
        beta1, beta2 = (hyperparameter(beta) for beta in group["betas"])
        for param, grad in self._params_with_grad_tensors(group):
            state = self._state_of(param)
            step = state["step"].add_(1).item()
            if nonzero(weight_decay):
                if group["decoupled_weight_decay"]:
                    param.mul_(1 - lr * weight_decay)
                else:
                    grad = grad + weight_decay * param
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            bias_correction2 = 1 - beta2**step
            update = exp_avg / (1 - beta1**step) * lr
            rho_inf = 2 / (1 - beta2) - 1
            rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
            if rho_t > 5.0:
                rectification = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                update = update * divide(bias_correction2**0.5, exp_avg_sq.sqrt() + eps) * rectification
            param.sub_(update)
