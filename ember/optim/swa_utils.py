"""Weight averaging, as `torch.optim.swa_utils`: a running average (SWA) or exponential moving average
(EMA) of a model's weights, the learning-rate schedule SWA trains with, and the batch-norm statistics
pass an averaged model needs."""

import copy
import itertools
import math

from .. import nn
from .._dtype import int64
from ..autograd.grad_mode import no_grad
from ..ops.creation import tensor
from .lr_scheduler import LRScheduler, _per_group
from .._warn import warn as _warn

__all__ = [
    "AveragedModel",
    "update_bn",
    "SWALR",
    "get_ema_multi_avg_fn",
    "get_swa_multi_avg_fn",
    "get_ema_avg_fn",
    "get_swa_avg_fn",
]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_multi_avg_fn(decay=0.999):
    """An in-place EMA over lists of tensors: averaged = decay * averaged + (1 - decay) * current."""
    _check_decay(decay)

    def ema_update(ema_param_list, current_param_list, _):
        with no_grad():
            if ema_param_list[0].is_floating_point() or ema_param_list[0].is_complex():
                for averaged, current in zip(ema_param_list, current_param_list):
                    averaged.lerp_(current, 1 - decay)
            else:
                for averaged, current in zip(ema_param_list, current_param_list):
                    averaged.copy_(averaged * decay + current * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """An in-place running mean over lists of tensors: averaged += (current - averaged) / (n + 1)."""

    def swa_update(averaged_param_list, current_param_list, num_averaged):
        with no_grad():
            if averaged_param_list[0].is_floating_point() or averaged_param_list[0].is_complex():
                weight = float(1 / (num_averaged + 1))
                for averaged, current in zip(averaged_param_list, current_param_list):
                    averaged.lerp_(current, weight)
            else:
                for averaged, current in zip(averaged_param_list, current_param_list):
                    averaged.copy_(averaged + (current - averaged) / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """The EMA of one tensor, returned (not in place): decay * averaged + (1 - decay) * current."""
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """The running mean of one tensor, returned: averaged + (current - averaged) / (n + 1)."""

    def swa_update(averaged_param, current_param, num_averaged):
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(nn.Module):
    """A copy of `model` whose parameters are the average of the weights passed to `update_parameters`.

    By default the equal-weight running mean of SWA (Izmailov et al., 2018); `avg_fn` (one tensor at a
    time, returning the new average) or `multi_avg_fn` (lists of tensors, in place) choose another, e.g.
    `multi_avg_fn=get_ema_multi_avg_fn(0.999)` for an EMA. Buffers are copied from the model, or averaged
    too with `use_buffers=True`. `n_averaged` counts the updates. Example:

        swa_model = AveragedModel(model)
        ...  # after each epoch of the SWA phase:
        swa_model.update_parameters(model)
        update_bn(loader, swa_model)
    """

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=int64))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def _averaged_tensors(self, model):
        if self.use_buffers:
            return (
                itertools.chain(self.module.parameters(), self.module.buffers()),
                itertools.chain(model.parameters(), model.buffers()),
            )
        return self.parameters(), model.parameters()

    def update_parameters(self, model):
        """Fold `model`'s current weights into the average (the first call copies them)."""
        mine, theirs = self._averaged_tensors(model)
        pairs = [(averaged.detach(), current.detach()) for averaged, current in zip(mine, theirs)]
        with no_grad():
            if int(self.n_averaged) == 0:
                for averaged, current in pairs:
                    averaged.copy_(current)
            elif self.avg_fn is not None:
                for averaged, current in pairs:
                    averaged.copy_(self.avg_fn(averaged, current, self.n_averaged))
            elif pairs:
                averaged_list, current_list = [a for a, _ in pairs], [c for _, c in pairs]
                for group in _by_dtype(averaged_list, current_list):
                    if self.multi_avg_fn is not None:
                        self.multi_avg_fn(*group, self.n_averaged)
                    else:  # PyTorch's running mean on the CPU, tensor by tensor
                        average = get_swa_avg_fn()
                        for averaged, current in zip(*group):
                            averaged.copy_(average(averaged, current, self.n_averaged))
            if not self.use_buffers:
                for averaged, current in zip(self.module.buffers(), model.buffers()):
                    averaged.detach().copy_(current.detach())
            self.n_averaged += 1


def _by_dtype(averaged_list, current_list):
    """Split the pairs by dtype, as PyTorch hands a multi_avg_fn one list per device and dtype."""
    groups = {}
    for averaged, current in zip(averaged_list, current_list):
        lists = groups.setdefault(averaged.dtype, ([], []))
        lists[0].append(averaged)
        lists[1].append(current)
    return list(groups.values())


def update_bn(loader, model, device=None):
    """Recompute every batch-norm layer's running statistics with one pass over `loader` (the averaged
    weights change the activations, so the statistics gathered while training no longer fit).

    Each batch is the loader's item, or its first element when it is a list or tuple. The statistics are
    a plain average over all batches (momentum None during the pass); the model's mode is restored.
    """
    with no_grad():
        momenta = {}
        for module in model.modules():
            if isinstance(module, nn.modules.normalization._BatchNorm):
                module.reset_running_stats()
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
        for module, momentum in momenta.items():
            module.momentum = momentum
        model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's rate from its current value to `swa_lr` over `anneal_epochs` epochs ("cos" or
    "linear"), then hold it: the constant (or cyclic) rate of the SWA phase. Example:

        swa_scheduler = SWALR(optimizer, swa_lr=0.05, anneal_epochs=5)
    """

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        for group, group_swa_lr in zip(optimizer.param_groups, _per_group("swa_lr", optimizer, swa_lr)):
            group["swa_lr"] = group_swa_lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        """The rate the annealing started from, given the rate reached at weight alpha."""
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def get_lr(self):
        if not self._get_lr_called_within_step:
            _warn(
                "To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                UserWarning,
                stacklevel=2,
            )
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        groups = self.optimizer.param_groups
        previous_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        start_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], previous_alpha) for group in groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [group["swa_lr"] * alpha + lr * (1 - alpha) for group, lr in zip(groups, start_lrs)]

    def state_dict(self):
        return {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
