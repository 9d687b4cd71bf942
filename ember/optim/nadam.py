"""NAdam: Adam with Nesterov momentum, the first moment looked at one step ahead."""

from .._backend import np
from .._tensor import new_tensor
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
    scalar_dtype,
    step_state,
    zeros_state,
)

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """`torch.optim.NAdam` (Dozat, 2016): for each parameter with a gradient g (negated if `maximize`),
    at step t, with the momentum schedule mu_t = beta1 * (1 - 0.5 * 0.96**(t * momentum_decay)),

        g += weight_decay * p               (or p *= 1 - lr * weight_decay if decoupled_weight_decay)
        m = m + (1 - beta1) * (g - m);  v = beta2 * v + (1 - beta2) * g * g
        P_t = mu_1 * ... * mu_t                                                    (mu_product)
        d = sqrt(v / (1 - beta2**t)) + eps
        p -= lr * (1 - mu_t) / (1 - P_t) * g / d + lr * mu_{t+1} / (1 - P_t * mu_{t+1}) * m / d

    State per parameter: `step`, `mu_product`, `exp_avg`, `exp_avg_sq`, as in PyTorch; with
    `decoupled_weight_decay=True` this is NAdamW. `differentiable=True` records the update in the graph
    (lr, betas and weight_decay may be tensors that require grad).
    """

    _capturable_tensors = "params, mu_products and state_steps"

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        momentum_decay=4e-3,
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
        check_nonnegative("momentum_decay value", momentum_decay)
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            momentum_decay=momentum_decay,
            decoupled_weight_decay=decoupled_weight_decay,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _state_of(self, param):
        state = self.state[param]
        if len(state) == 0:
            state["step"] = step_state()
            state["mu_product"] = new_tensor(np.ones((), dtype=scalar_dtype()))
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
            weight_decay, momentum_decay = group["weight_decay"], group["momentum_decay"]
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
                mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
                mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
                mu_product = state["mu_product"]._data
                mu_product *= mu  # kept in the state's own dtype, as PyTorch's 0-d tensor is
                mu_product = float(mu_product)
                exp_avg, exp_avg_sq = state["exp_avg"]._data, state["exp_avg_sq"]._data
                lerp_(exp_avg, grad, 1 - beta1)
                exp_avg_sq *= beta2
                exp_avg_sq += (1 - beta2) * grad * grad
                denominator = np.sqrt(exp_avg_sq / (1 - beta2**step))
                denominator += eps
                data += -lr * (1.0 - mu) / (1.0 - mu_product) * grad / denominator
                data += -lr * mu_next / (1.0 - mu_product * mu_next) * exp_avg / denominator
                self._updated(param)
        return loss

    def _differentiable_step(self, group):
        lr, eps, weight_decay = hyperparameter(group["lr"]), group["eps"], hyperparameter(group["weight_decay"])
        beta1, beta2 = (hyperparameter(beta) for beta in group["betas"])
        momentum_decay = group["momentum_decay"]
        for param, grad in self._params_with_grad_tensors(group):
            state = self._state_of(param)
            step = state["step"].add_(1).item()  # a number here, as in PyTorch (only Adam keeps a tensor)
            if nonzero(weight_decay):
                if group["decoupled_weight_decay"]:
                    param.mul_(1 - lr * weight_decay)
                else:
                    grad = grad + weight_decay * param
            mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
            mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
            # The product stays a 0-d state tensor, so both step sizes below are rounded to its dtype
            # (float32 by default), as in PyTorch's differentiable step.
            mu_product = state["mu_product"]
            mu_product.mul_(mu)
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            denominator = (exp_avg_sq / (1 - beta2**step)).sqrt() + eps
            grad_step = grad * divide(-lr * (1.0 - mu), 1.0 - mu_product)
            momentum_step = exp_avg * divide(-lr * mu_next, 1.0 - mu_product * mu_next)
            param.addcdiv_(grad_step, denominator)
            param.addcdiv_(momentum_step, denominator)
