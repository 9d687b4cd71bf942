"""Adadelta: steps whose size is set by running averages of past squared gradients and past squared
updates, so the units of the update match those of the parameter."""

from .._backend import np
from .._tensor import Tensor
from .optimizer import Optimizer, hyperparameter, nonzero, check_lr, check_nonnegative, scalar, step_state, zeros_state

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """`torch.optim.Adadelta` (Zeiler, 2012): for each parameter with a gradient g (negated if `maximize`),

        g += weight_decay * p
        v = rho * v + (1 - rho) * g * g                              (square_avg)
        delta = sqrt(u + eps) / sqrt(v + eps) * g
        u = rho * u + (1 - rho) * delta * delta                      (acc_delta)
        p -= lr * delta

    State per parameter: `step`, `square_avg`, `acc_delta`. Example:
    `opt = ember.optim.Adadelta(model.parameters(), rho=0.95)`.
    """

    def __init__(
        self,
        params,
        lr=1.0,
        rho=0.9,
        eps=1e-6,
        weight_decay=0,
        foreach=None,
        *,
        capturable=False,
        maximize=False,
        differentiable=False,
    ):
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_nonnegative("epsilon value", eps)
        check_nonnegative("weight_decay value", weight_decay)
        defaults = dict(
            lr=lr,
            rho=rho,
            eps=eps,
            weight_decay=weight_decay,
            maximize=maximize,
            capturable=capturable,
            foreach=foreach,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _state_of(self, param):
        state = self.state[param]
        if len(state) == 0:
            state["step"] = step_state()
            state["square_avg"] = zeros_state(param)
            state["acc_delta"] = zeros_state(param)
        return state

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            if group["differentiable"]:
                self._differentiable_step(group)
                continue
            lr, rho, eps, weight_decay = scalar(group["lr"]), group["rho"], group["eps"], group["weight_decay"]
            for param, grad in self._params_with_grad(group):
                data = param._data
                state = self._state_of(param)
                state["step"]._data += 1
                if weight_decay != 0:
                    grad = grad + weight_decay * data
                square_avg, acc_delta = state["square_avg"]._data, state["acc_delta"]._data
                square_avg *= rho
                square_avg += (1 - rho) * grad * grad
                delta = np.sqrt(acc_delta + eps)
                delta /= np.sqrt(square_avg + eps)
                delta *= grad
                acc_delta *= rho
                acc_delta += (1 - rho) * delta * delta
                data += -lr * delta
                self._updated(param)
        return loss

    def _differentiable_step(self, group):
        lr, rho, eps = hyperparameter(group["lr"]), group["rho"], group["eps"]
        weight_decay = hyperparameter(group["weight_decay"])
        for param, grad in self._params_with_grad_tensors(group):
            state = self._state_of(param)
            state["step"].add_(1)
            if nonzero(weight_decay):
                grad = grad + weight_decay * param
            square_avg, acc_delta = state["square_avg"], state["acc_delta"]
            square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
            delta = (acc_delta + eps).sqrt() / (square_avg + eps).sqrt() * grad
            acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
            if isinstance(lr, Tensor):
                param.sub_(delta * lr)
            else:
                param.add_(delta, alpha=-lr)
