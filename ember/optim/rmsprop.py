"""RMSprop: divide the gradient by a running root mean square of recent gradients."""

from .._backend import np
from .._tensor import Tensor
from .optimizer import (
    Optimizer,
    check_lr,
    check_nonnegative,
    hyperparameter,
    nonzero,
    lerp_,
    scalar,
    step_state,
    zeros_state,
)

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """`torch.optim.RMSprop`: for each parameter with a gradient g (negated if `maximize`),

        g += weight_decay * p
        v = alpha * v + (1 - alpha) * g * g
        avg = sqrt(v - g_avg**2) + eps, with g_avg = running mean of g   (centered)
        avg = sqrt(v) + eps                                             (otherwise)
        buf = momentum * buf + g / avg; p -= lr * buf                   (momentum > 0)
        p -= lr * g / avg                                               (otherwise)

    State: `step`, `square_avg`, plus `momentum_buffer` and `grad_avg` when used, as in PyTorch.
    `differentiable=True` records the update in the graph.
    """

    def __init__(
        self,
        params,
        lr=1e-2,
        alpha=0.99,
        eps=1e-8,
        weight_decay=0,
        momentum=0,
        centered=False,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ):
        check_lr(lr)
        check_nonnegative("epsilon value", eps)
        check_nonnegative("momentum value", momentum)
        check_nonnegative("weight_decay value", weight_decay)
        check_nonnegative("alpha value", alpha)
        defaults = dict(
            lr=lr,
            momentum=momentum,
            alpha=alpha,
            eps=eps,
            centered=centered,
            weight_decay=weight_decay,
            capturable=capturable,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _state_of(self, param, group):
        state = self.state[param]
        if len(state) == 0:
            state["step"] = step_state()
            state["square_avg"] = zeros_state(param)
            if group["momentum"] > 0:
                state["momentum_buffer"] = zeros_state(param)
            if group["centered"]:
                state["grad_avg"] = zeros_state(param)
        return state

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            if group["differentiable"]:
                self._differentiable_step(group)
                continue
            lr, alpha, eps = scalar(group["lr"]), group["alpha"], group["eps"]
            weight_decay, momentum = group["weight_decay"], group["momentum"]
            for param, grad in self._params_with_grad(group):
                data = param._data
                state = self._state_of(param, group)
                state["step"]._data += 1
                if weight_decay != 0:
                    grad = grad + weight_decay * data
                square_avg = state["square_avg"]._data
                square_avg *= alpha
                square_avg += (1 - alpha) * grad * grad
                if group["centered"]:
                    grad_avg = state["grad_avg"]._data
                    lerp_(grad_avg, grad, 1 - alpha)
                    average = np.sqrt(square_avg + -1 * grad_avg * grad_avg)
                else:
                    average = np.sqrt(square_avg)
                average += eps
                if momentum > 0:
                    buffer = state["momentum_buffer"]._data
                    buffer *= momentum
                    buffer += grad / average
                    data += -lr * buffer
                else:
                    data += -lr * grad / average
                self._updated(param)
        return loss

    def _differentiable_step(self, group):
        lr, alpha, eps = hyperparameter(group["lr"]), group["alpha"], group["eps"]
        weight_decay, momentum = hyperparameter(group["weight_decay"]), group["momentum"]
        for param, grad in self._params_with_grad_tensors(group):
            state = self._state_of(param, group)
            state["step"].add_(1)
            if nonzero(weight_decay):
                grad = grad + weight_decay * param
            square_avg = state["square_avg"]
            square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
            if group["centered"]:
                grad_avg = state["grad_avg"]
                grad_avg.lerp_(grad, 1 - alpha)
                average = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt() + eps
            else:
                average = square_avg.sqrt() + eps
            if momentum > 0:
                buffer = state["momentum_buffer"]
                buffer.mul_(momentum).addcdiv_(grad, average)
                update = buffer
            else:
                update = grad / average
            if isinstance(lr, Tensor):
                param.sub_(update * lr)
            else:
                param.add_(update, alpha=-lr)
