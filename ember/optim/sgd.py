"""Stochastic gradient descent, with momentum, dampening, Nesterov momentum and weight decay."""

from .optimizer import Optimizer, check_lr, check_nonnegative, check_not_differentiable, scalar
from .._tensor import new_tensor

__all__ = ["SGD"]


class SGD(Optimizer):
    """`torch.optim.SGD`: for each parameter with a gradient g (negated if `maximize`),

        g += weight_decay * p
        buf = g                                         (first step)
        buf = momentum * buf + (1 - dampening) * g      (later steps)
        g = g + momentum * buf if nesterov else buf     (when momentum != 0)
        p -= lr * g

    Example: `opt = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)`.
    `foreach` and `fused` are accepted and ignored (ember has one NumPy implementation).
    """

    def __init__(
        self,
        params,
        lr=1e-3,
        momentum=0,
        dampening=0,
        weight_decay=0,
        nesterov=False,
        *,
        maximize=False,
        foreach=None,
        differentiable=False,
        fused=None,
    ):
        check_lr(lr)
        check_nonnegative("momentum value", momentum)
        check_nonnegative("weight_decay value", weight_decay)
        check_not_differentiable(differentiable)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
            maximize=maximize,
            foreach=foreach,
            differentiable=differentiable,
            fused=fused,
        )
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr, momentum, dampening = scalar(group["lr"]), group["momentum"], group["dampening"]
            weight_decay, nesterov = group["weight_decay"], group["nesterov"]
            for param, grad in self._params_with_grad(group):
                data = param._data
                if weight_decay != 0:
                    grad = grad + weight_decay * data
                if momentum != 0:
                    state = self.state[param]
                    buffer = state.get("momentum_buffer")
                    if buffer is None:
                        state["momentum_buffer"] = buffer = new_tensor(grad.copy())
                    else:
                        buffer._data *= momentum
                        buffer._data += (1 - dampening) * grad
                    grad = grad + momentum * buffer._data if nesterov else buffer._data
                data += -lr * grad
                self._updated(param)
        return loss
