"""RAdam: Adam whose adaptive step is switched on gradually, as the variance of its second-moment
estimate becomes tractable (a warm-up without a schedule)."""

from .._backend import np
from .optimizer import (
    Optimizer,
    check_betas,
    check_lr,
    check_nonnegative,
    check_not_differentiable,
    lerp_,
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

    State per parameter: `step`, `exp_avg`, `exp_avg_sq`. `foreach` and `capturable` are accepted and
    ignored.
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
        check_not_differentiable(differentiable, "RAdam")
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
