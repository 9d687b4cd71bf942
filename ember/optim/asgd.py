"""ASGD: stochastic gradient descent with a decaying step and a running (Polyak) average of the iterates."""

from .._backend import np
from .._tensor import Tensor, new_tensor
from .._dtype import get_default_dtype
from .optimizer import Optimizer, check_lr, check_nonnegative, hyperparameter, scalar, scalar_dtype, step_state

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """`torch.optim.ASGD` (Polyak & Juditsky, 1992): for each parameter with a gradient g (negated if
    `maximize`), at step t,

        g += weight_decay * p
        p = p * (1 - lambd * eta) - eta * g
        ax = p                        while mu == 1 (before t0)
        ax += mu * (p - ax)           afterwards (the average of the iterates since t0)
        eta = lr / (1 + lambd * lr * t)**alpha;  mu = 1 / max(1, t - t0)

    State per parameter: `step`, `eta`, `mu` (0-d tensors) and `ax`, the averaged parameters, as in
    PyTorch. `differentiable=True` records the update of p and ax in the graph (eta and mu enter it as
    numbers, as in PyTorch).
    """

    _capturable_tensors = "params, mus, etas, and state_steps"

    def __init__(
        self,
        params,
        lr=1e-2,
        lambd=1e-4,
        alpha=0.75,
        t0=1e6,
        weight_decay=0,
        foreach=None,
        maximize=False,
        differentiable=False,
        capturable=False,
    ):
        check_lr(lr)
        check_nonnegative("weight_decay value", weight_decay)
        defaults = dict(
            lr=lr,
            lambd=lambd,
            alpha=alpha,
            t0=t0,
            weight_decay=weight_decay,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        super().__init__(params, defaults)

    def _state_of(self, param, group):
        state = self.state[param]
        if len(state) == 0:
            state["step"] = step_state()
            state["eta"] = new_tensor(np.asarray(scalar(group["lr"]), dtype=scalar_dtype()))
            state["mu"] = new_tensor(np.ones((), dtype=scalar_dtype()))
            state["ax"] = new_tensor(np.zeros_like(param._data))
        return state

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            if group["differentiable"]:
                self._differentiable_step(group)
                continue
            lr, lambd, alpha, t0 = scalar(group["lr"]), group["lambd"], group["alpha"], group["t0"]
            weight_decay = group["weight_decay"]
            for param, grad in self._params_with_grad(group):
                data = param._data
                state = self._state_of(param, group)
                step_t, eta, mu = state["step"]._data, state["eta"]._data, state["mu"]._data
                step_t += 1
                if weight_decay != 0:
                    grad = grad + weight_decay * data
                eta_value = float(eta)
                data *= 1 - lambd * eta_value
                data += -eta_value * grad
                ax = state["ax"]._data
                if float(mu) != 1:
                    ax += (data - ax) * mu
                else:
                    ax[...] = data
                step = float(step_t)
                # PyTorch makes the new values tensors of the default dtype before copying them in.
                default = get_default_dtype().numpy_dtype.type
                eta[...] = default(lr / ((1 + lambd * lr * step) ** alpha))
                mu[...] = default(1 / max(1, step - t0))
                self._updated(param)
        return loss

    def _differentiable_step(self, group):
        lr, lambd, alpha, t0 = hyperparameter(group["lr"]), group["lambd"], group["alpha"], group["t0"]
        weight_decay = group["weight_decay"]
        for param, grad in self._params_with_grad_tensors(group):
            state = self._state_of(param, group)
            eta, mu, ax = state["eta"], state["mu"], state["ax"]
            step = state["step"].add_(1).item()
            if weight_decay != 0:
                grad = grad + weight_decay * param
            eta_value = eta.item()
            param.mul_(1 - lambd * eta_value)
            param.add_(grad, alpha=-eta_value)
            if mu.item() != 1:
                ax.add_((param - ax).mul_(mu))
            else:
                ax.copy_(param)
            eta.copy_(_as_tensor(lr / ((1 + lambd * lr * step) ** alpha)))
            mu.copy_(_as_tensor(1 / max(1, step - t0)))


def _as_tensor(value):
    """PyTorch's `torch.as_tensor` of a new eta or mu: a tensor stays (with its graph), a number becomes
    a 0-d tensor of the default dtype."""
    if isinstance(value, Tensor):
        return value
    return new_tensor(np.asarray(value, dtype=get_default_dtype().numpy_dtype))
