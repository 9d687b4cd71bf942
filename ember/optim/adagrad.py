"""Adagrad: per-coordinate steps scaled by the root of the sum of all past squared gradients."""

from .._backend import np
from .._tensor import Tensor, new_tensor
from .optimizer import Optimizer, check_lr, check_nonnegative, hyperparameter, nonzero, scalar, step_state

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """`torch.optim.Adagrad`: for each parameter with a gradient g (negated if `maximize`), at step t,

        g += weight_decay * p
        clr = lr / (1 + (t - 1) * lr_decay)
        sum += g * g
        p -= clr * g / (sqrt(sum) + eps)

    As in PyTorch the state (`step`, `sum` filled with `initial_accumulator_value`) is created when the
    optimizer is built, so `state_dict()` lists every parameter from the start.
    `differentiable=True` records the update in the graph.
    """

    def __init__(
        self,
        params,
        lr=1e-2,
        lr_decay=0,
        weight_decay=0,
        initial_accumulator_value=0,
        eps=1e-10,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        fused=None,
    ):
        check_lr(lr)
        check_nonnegative("lr_decay value", lr_decay)
        check_nonnegative("weight_decay value", weight_decay)
        check_nonnegative("initial_accumulator_value value", initial_accumulator_value)
        check_nonnegative("epsilon value", eps)
        defaults = dict(
            lr=lr,
            lr_decay=lr_decay,
            eps=eps,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            fused=fused,
        )
        super().__init__(params, defaults)
        for group in self.param_groups:
            for param in group["params"]:
                self._state_of(param, group)

    def _state_of(self, param, group):
        state = self.state[param]
        if len(state) == 0:
            state["step"] = step_state()
            state["sum"] = new_tensor(np.full_like(param._data, group["initial_accumulator_value"]))
        return state

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            if group["differentiable"]:
                self._differentiable_step(group)
                continue
            lr, lr_decay, eps = scalar(group["lr"]), group["lr_decay"], group["eps"]
            weight_decay = group["weight_decay"]
            for param, grad in self._params_with_grad(group):
                data = param._data
                state = self._state_of(param, group)
                step_t = state["step"]
                step_t._data += 1
                if weight_decay != 0:
                    grad = grad + weight_decay * data
                clr = lr / (1 + (step_t._data.item() - 1) * lr_decay)
                total = state["sum"]._data
                total += grad * grad
                deviation = np.sqrt(total)
                deviation += eps
                data += -clr * grad / deviation
                self._updated(param)
        return loss

    def _differentiable_step(self, group):
        lr, lr_decay, eps = hyperparameter(group["lr"]), group["lr_decay"], group["eps"]
        weight_decay = hyperparameter(group["weight_decay"])
        for param, grad in self._params_with_grad_tensors(group):
            state = self._state_of(param, group)
            state["step"].add_(1)
            if nonzero(weight_decay):
                grad = grad + weight_decay * param
            decayed_lr = lr / (1 + (float(state["step"]._data) - 1) * lr_decay)
            total = state["sum"]
            total.addcmul_(grad, grad, value=1)
            update = grad / (total.sqrt() + eps)
            if isinstance(decayed_lr, Tensor):
                param.sub_(update * decayed_lr)
            else:
                param.add_(update, alpha=-decayed_lr)
