"""Adam (and, with decoupled weight decay, AdamW): per-parameter steps from running gradient moments."""

from .._backend import np
from .._tensor import Tensor
from .optimizer import (
    Optimizer,
    check_betas,
    check_lr,
    check_nonnegative,
    hyperparameter,
    nonzero,
    lerp_,
    scalar,
    step_state,
    zeros_state,
)

__all__ = ["Adam"]


def _check_tensor_betas(betas, foreach, capturable):
    """PyTorch's Adam takes both betas as floats or both as 1-element tensors (not with foreach alone)."""
    if not (all(isinstance(beta, float) for beta in betas) or all(isinstance(beta, Tensor) for beta in betas)):
        raise ValueError("betas must be either both floats or both Tensors")
    for index, beta in enumerate(betas):
        if isinstance(beta, Tensor):
            if foreach and not capturable:
                raise ValueError(f"betas[{index}] as a Tensor is not supported for capturable=False and foreach=True")
            if beta.numel() != 1:
                raise ValueError(f"Tensor betas[{index}] must be 1-element")


class Adam(Optimizer):
    """`torch.optim.Adam`: for each parameter with a gradient g (negated if `maximize`), at step t,

        g += weight_decay * p                 (or p *= 1 - lr * weight_decay if decoupled)
        m = m + (1 - beta1) * (g - m)
        v = beta2 * v + (1 - beta2) * g * g
        v_hat = max(v_hat, v) if amsgrad else v
        p -= lr / (1 - beta1**t) * m / (sqrt(v_hat) / sqrt(1 - beta2**t) + eps)

    State per parameter: `step`, `exp_avg`, `exp_avg_sq` (and `max_exp_avg_sq` with amsgrad), as in
    PyTorch. `differentiable=True`
    records the update in the graph (lr, betas and weight_decay may be tensors that require grad).
    """

    _sparse_gradient_error = "Adam does not support sparse gradients, please consider SparseAdam instead"

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        amsgrad=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
        fused=None,
        decoupled_weight_decay=False,
    ):
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
        check_lr(lr)
        check_nonnegative("epsilon value", eps)
        check_betas(betas)
        check_nonnegative("weight_decay value", weight_decay)
        _check_tensor_betas(betas, foreach, capturable)
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            amsgrad=amsgrad,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=decoupled_weight_decay,
        )
        super().__init__(params, defaults)

    def _state_of(self, param, amsgrad):
        state = self.state[param]
        if len(state) == 0:
            state["step"] = step_state()
            state["exp_avg"] = zeros_state(param)
            state["exp_avg_sq"] = zeros_state(param)
            if amsgrad:
                state["max_exp_avg_sq"] = zeros_state(param)
        return state

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            if group["differentiable"]:
                self._differentiable_step(group)
                continue
            lr, (beta1, beta2), eps = scalar(group["lr"]), group["betas"], group["eps"]
            weight_decay, amsgrad = group["weight_decay"], group["amsgrad"]
            decoupled = group.get("decoupled_weight_decay", False)
            for param, grad in self._params_with_grad(group):
                data = param._data
                state = self._state_of(param, amsgrad)
                step_t = state["step"]
                step_t._data += 1
                step = step_t._data.item()  # (item(): ember.compile records it as a number)
                if weight_decay != 0:
                    if decoupled:
                        data *= 1 - lr * weight_decay
                    else:
                        grad = grad + weight_decay * data
                exp_avg, exp_avg_sq = state["exp_avg"]._data, state["exp_avg_sq"]._data
                lerp_(exp_avg, grad, 1 - beta1)
                exp_avg_sq *= beta2
                exp_avg_sq += (1 - beta2) * grad * grad
                if amsgrad:
                    maximum = state["max_exp_avg_sq"]._data
                    np.maximum(maximum, exp_avg_sq, out=maximum)
                    exp_avg_sq = maximum
                step_size = lr / (1 - beta1**step)
                denominator = np.sqrt(exp_avg_sq) / (1 - beta2**step) ** 0.5
                denominator += eps
                data += -step_size * exp_avg / denominator
                self._updated(param)
        return loss

    def _differentiable_step(self, group):
        lr, eps, weight_decay = hyperparameter(group["lr"]), group["eps"], hyperparameter(group["weight_decay"])
        beta1, beta2 = (hyperparameter(beta) for beta in group["betas"])
        amsgrad = group["amsgrad"]
        for param, grad in self._params_with_grad_tensors(group):
            state = self._state_of(param, amsgrad)
            step = state["step"].add_(1)  # a float32 tensor: the bias corrections below are too, as PyTorch's
            if nonzero(weight_decay):
                if group.get("decoupled_weight_decay", False):
                    param.mul_(1 - lr * weight_decay)
                else:
                    grad = grad + weight_decay * param
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            exp_avg.lerp_(grad, 1 - beta1)
            exp_avg_sq.lerp_(grad * grad, 1 - beta2)
            if amsgrad:
                maximum = state["max_exp_avg_sq"]
                maximum.copy_(maximum.clone().maximum(exp_avg_sq.clone()))
                exp_avg_sq = maximum
            # -lr / (1 - beta1**t) and sqrt(1 - beta2**t) are float32 like the step counter, and the
            # scale is folded into the denominator in PyTorch's order, so results agree to rounding.
            negative_step_size = -(lr / (1 - beta1**step))
            scale = (1 - beta2**step).sqrt() * negative_step_size
            denominator = exp_avg_sq.sqrt() / scale + eps / negative_step_size
            # (a clone: the next step changes the moment in place, which this update's graph saves)
            param.addcdiv_(exp_avg.clone(), denominator)
