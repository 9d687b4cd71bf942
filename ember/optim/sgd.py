"""Stochastic gradient descent, with momentum, dampening, Nesterov momentum and weight decay."""

from .._backend import np
from .._sparse_coo import SparseCoo
from .optimizer import Optimizer, add_product_, check_lr, check_nonnegative, hyperparameter, nonzero, scalar
from .._tensor import Tensor, new_tensor

__all__ = ["SGD"]


class SGD(Optimizer):
    """`torch.optim.SGD`: for each parameter with a gradient g (negated if `maximize`),

        g += weight_decay * p
        buf = g                                         (first step)
        buf = momentum * buf + (1 - dampening) * g      (later steps)
        g = g + momentum * buf if nesterov else buf     (when momentum != 0)
        p -= lr * g

    Example: `opt = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)`.
    `differentiable=True` records the update in the graph (lr and weight_decay may then be tensors
    that require grad); as in PyTorch the first momentum buffer is a detached copy of the gradient.
    """

    _foreach_is_differentiable = True  # (PyTorch's foreach SGD records its graph)

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

    def _sparse_gradient(self, gradient, group):
        """A sparse gradient (`nn.Embedding(sparse=True)`). Without momentum each of its entries is
        added to the parameter on its own, in order, as PyTorch's `p.add_(sparse, alpha=-lr)` does (the
        same bits). With momentum it is used dense, so the buffer stays the parameter's size: PyTorch
        keeps a sparse buffer whose sums merge entries in its own order, so the values agree up to the
        rounding of that order. Weight decay would add the dense parameter to it, which PyTorch refuses."""
        if group["weight_decay"] != 0:
            raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
        return gradient if group["momentum"] == 0 else gradient.to_dense()

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            if group["differentiable"]:
                self._differentiable_step(group)
                continue
            lr, momentum, dampening = scalar(group["lr"]), group["momentum"], group["dampening"]
            weight_decay, nesterov = group["weight_decay"], group["nesterov"]
            for param, grad in self._params_with_grad(group):
                data = param._data
                if type(grad) is SparseCoo:  # rows of an embedding, momentum 0 (see `_sparse_gradient`)
                    np.add.at(data, tuple(grad.indices), -lr * grad.values)
                    self._updated(param)
                    continue
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
                add_product_(data, -lr, grad)
                self._updated(param)
        return loss

    def _differentiable_step(self, group):
        lr, weight_decay = hyperparameter(group["lr"]), hyperparameter(group["weight_decay"])
        momentum, dampening = hyperparameter(group["momentum"]), group["dampening"]
        for param, grad in self._params_with_grad_tensors(group):
            if nonzero(weight_decay):
                grad = grad + weight_decay * param
            if nonzero(momentum):
                state = self.state[param]
                buffer = state.get("momentum_buffer")
                if buffer is None:
                    state["momentum_buffer"] = buffer = grad.detach().clone()
                else:
                    buffer.mul_(momentum).add_(grad, alpha=1 - dampening)
                grad = grad + momentum * buffer if group["nesterov"] else buffer
            if isinstance(lr, Tensor):
                param.sub_(grad * lr)
            else:
                param.add_(grad, alpha=-lr)
