"""`torch.nn.utils.prune`: zero out parts of a parameter through a mask that a forward pre-hook applies.

    prune.l1_unstructured(layer, "weight", amount=0.3)   # the 30% smallest |w| become 0
    layer.weight_orig, layer.weight_mask                  # the parameter and the mask buffer
    prune.remove(layer, "weight")                         # make it permanent: weight is a Parameter again

Pruning `name` moves the parameter to `name + "_orig"`, registers the 0/1 mask as the buffer
`name + "_mask"`, sets `module.name = name_orig * name_mask` (a plain tensor, recomputed by the
pre-hook before each forward, so gradients reach `name_orig` through the mask) and keeps the
method as that hook. Pruning the same parameter again combines the methods in a PruningContainer:
each later method only chooses among the entries still unpruned, as in PyTorch.
"""

import numbers
from abc import ABC, abstractmethod

from ... import ops as _ops
from ...autograd.grad_mode import no_grad
from .convert_parameters import parameters_to_vector

__all__ = [
    "BasePruningMethod",
    "PruningContainer",
    "Identity",
    "RandomUnstructured",
    "L1Unstructured",
    "RandomStructured",
    "LnStructured",
    "CustomFromMask",
    "identity",
    "random_unstructured",
    "l1_unstructured",
    "random_structured",
    "ln_structured",
    "global_unstructured",
    "custom_from_mask",
    "remove",
    "is_pruned",
]


class BasePruningMethod(ABC):
    """A way of choosing a mask. Subclasses set PRUNING_TYPE ("unstructured", "structured" or
    "global") and write `compute_mask(t, default_mask)`; the rest (re-parametrizing the module,
    the forward pre-hook, removal) is shared."""

    _tensor_name: str

    def __call__(self, module, inputs):
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The new mask for tensor `t`, given the mask already applied to it."""

    def apply_mask(self, module):
        """`name_orig * name_mask` of `module`: the pruned tensor."""
        if getattr(self, "_tensor_name", None) is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return orig * mask.to(dtype=orig.dtype)

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune `module.name` with a new `cls(*args, **kwargs)`, combined with earlier pruning of it."""
        earlier = None
        hooks_of_name = [
            (key, hook)
            for key, hook in module._forward_pre_hooks.items()
            if isinstance(hook, BasePruningMethod) and hook._tensor_name == name
        ]
        if len(hooks_of_name) > 1:
            raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} of module {module}.")
        if hooks_of_name:
            key, earlier = hooks_of_name[0]
            del module._forward_pre_hooks[key]

        method = cls(*args, **kwargs)
        method._tensor_name = name
        if earlier is not None:
            container = earlier if isinstance(earlier, PruningContainer) else PruningContainer(earlier)
            container.add_pruning_method(method)
            method = container

        orig = getattr(module, name)
        if importance_scores is not None and importance_scores.shape != orig.shape:
            raise AssertionError(
                f"importance_scores should have the same shape as parameter {name} of {module}: "
                f"{tuple(importance_scores.shape)} vs {tuple(orig.shape)}"
            )
        scores = importance_scores if importance_scores is not None else orig
        if earlier is None:
            default_mask = _ops.ones_like(orig)
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
            orig = getattr(module, name + "_orig")
        with no_grad():
            mask = method.compute_mask(scores, default_mask=default_mask)
        module.register_buffer(name + "_mask", mask)
        setattr(module, name, method.apply_mask(module))
        module.register_forward_pre_hook(method)
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """`t` times the mask computed from `importance_scores` (default: `t` itself)."""
        if importance_scores is not None and importance_scores.shape != t.shape:
            raise AssertionError("importance_scores should have the same shape as tensor t")
        scores = importance_scores if importance_scores is not None else t
        default_mask = default_mask if default_mask is not None else _ops.ones_like(t)
        return t * self.compute_mask(scores, default_mask=default_mask)

    def remove(self, module):
        """Make the pruning permanent: `module.name` becomes a Parameter holding the pruned values."""
        if getattr(self, "_tensor_name", None) is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        with no_grad():
            orig.copy_(weight.detach())
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


class PruningContainer(BasePruningMethod):
    """Several pruning methods applied in turn to one tensor; each later one works only on what the
    earlier ones left (for structured methods: on the channels not yet fully pruned)."""

    def __init__(self, *args):
        self._pruning_methods = ()
        if len(args) == 1 and not isinstance(args[0], BasePruningMethod) and hasattr(args[0], "__iter__"):
            args = tuple(args[0])
        for method in args:
            self.add_pruning_method(method)
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name

    def add_pruning_method(self, method):
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and getattr(self, "_tensor_name", method._tensor_name) != method._tensor_name:
            raise ValueError(
                "Can only add pruning methods acting on the parameter named "
                f"'{self._tensor_name}' to PruningContainer. Found '{method._tensor_name}'"
            )
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, index):
        return self._pruning_methods[index]

    def compute_mask(self, t, default_mask):
        method = self._pruning_methods[-1]
        new_mask = default_mask.clone()
        kept = default_mask == 1
        if method.PRUNING_TYPE == "unstructured":
            new_mask[kept] = method.compute_mask(t[kept], default_mask=default_mask[kept]).to(new_mask.dtype)
            return new_mask
        if method.PRUNING_TYPE == "structured":
            dim = method.dim if method.dim >= 0 else t.dim() + method.dim
            others = [d for d in range(t.dim()) if d != dim]
            alive = kept.sum(dim=others) != 0 if others else kept
            channels = _ops.nonzero(alive).reshape(-1)
            index = [slice(None)] * t.dim()
            index[dim] = channels
            index = tuple(index)
            new_mask[index] = method.compute_mask(t[index], default_mask=default_mask[index]).to(new_mask.dtype)
            return new_mask
        if method.PRUNING_TYPE == "global":
            return method.compute_mask(t, default_mask=default_mask)
        raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")


class Identity(BasePruningMethod):
    """Prunes nothing: the mask is all ones (useful to re-parametrize a module as pruned)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


def _check_amount(amount):
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
        not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or float(amount) < 0.0)
    ):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _count_to_prune(amount, size, what="parameters"):
    if isinstance(amount, numbers.Integral):
        if amount > size:
            raise ValueError(f"amount={amount} should be smaller than the number of {what} to prune={size}")
        return int(amount)
    return round(amount * size)


class RandomUnstructured(BasePruningMethod):
    """Prune `amount` entries (an int count, or a fraction) chosen uniformly at random."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        count = _count_to_prune(self.amount, t.numel())
        mask = default_mask.clone()
        if count != 0:
            chosen = _ops.topk(_ops.rand_like(t, dtype=_float_of(t)).reshape(-1), k=count).indices
            mask.view(-1)[chosen] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prune the `amount` entries (count or fraction) of smallest absolute value."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        count = _count_to_prune(self.amount, t.numel())
        mask = default_mask.clone()
        if count != 0:
            smallest = _ops.topk(_ops.abs(t).reshape(-1), k=count, largest=False).indices
            mask.view(-1)[smallest] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


_NOT_MULTIDIMENSIONAL = (
    "Structured pruning can only be applied to multidimensional tensors. Found tensor of shape {shape} with {dims} dims"
)


def _channel_mask(t, dim, channels, default_mask):
    """default_mask with every channel along `dim` outside `channels` (indices kept) set to 0."""
    keep = _ops.zeros_like(t)
    index = [slice(None)] * t.dim()
    index[dim] = channels
    keep[tuple(index)] = 1
    return default_mask * keep


class RandomStructured(BasePruningMethod):
    """Prune `amount` whole channels along `dim` (slices t[..., c, ...]), chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _check_amount(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        if t.dim() <= 1:
            raise ValueError(_NOT_MULTIDIMENSIONAL.format(shape=t.shape, dims=t.dim()))
        size = t.shape[self.dim]
        count = _count_to_prune(self.amount, size, "channels")
        if count == 0:
            return default_mask
        kept = _ops.topk(_ops.rand(size), k=size - count).indices
        return _channel_mask(t, self.dim % t.dim(), kept, default_mask)

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prune the `amount` channels along `dim` of smallest L`n` norm (n: int, inf, -inf or 'fro')."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _check_amount(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        if t.dim() <= 1:
            raise ValueError(_NOT_MULTIDIMENSIONAL.format(shape=t.shape, dims=t.dim()))
        dim = self.dim % t.dim()
        size = t.shape[dim]
        count = _count_to_prune(self.amount, size, "channels")
        if count == 0:
            return default_mask
        others = tuple(d for d in range(t.dim()) if d != dim)
        order = 2 if self.n == "fro" else self.n
        norms = _ops.linalg.vector_norm(t, ord=order, dim=others)
        kept = _ops.topk(norms, k=size - count, largest=True).indices
        return _channel_mask(t, dim, kept, default_mask)

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prune with a given mask (combined with the current one)."""

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError("mask and the tensor's current mask must have the same shape")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def _float_of(t):
    return t.dtype if t.is_floating_point() else None


def identity(module, name):
    """Re-parametrize `module.name` as pruned with an all-ones mask; returns `module`."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prune `amount` (count or fraction) random entries of `module.name`; returns `module`."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prune the `amount` (count or fraction) entries of `module.name` with the smallest |score|
    (the scores default to the parameter itself); returns `module`."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prune `amount` random channels of `module.name` along `dim`; returns `module`."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prune the `amount` channels along `dim` of smallest L`n` norm; returns `module`."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name, mask):
    """Prune `module.name` with the given 0/1 `mask`; returns `module`."""
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune the (module, name) pairs in `parameters` together: `pruning_method(**kwargs)` (an
    unstructured method class such as L1Unstructured) chooses among all their entries at once, so
    `amount=0.2` prunes 20% of the total, unevenly spread over the tensors."""
    if not hasattr(parameters, "__iter__"):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    scores = parameters_to_vector(
        [importance_scores.get((module, name), getattr(module, name)).reshape(-1) for module, name in parameters]
    )
    default_mask = parameters_to_vector(
        [
            getattr(module, name + "_mask", _ops.ones_like(getattr(module, name))).reshape(-1)
            for module, name in parameters
        ]
    )
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(
            'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
            f"Found method {pruning_method} of type {method.PRUNING_TYPE}"
        )
    container.add_pruning_method(method)
    with no_grad():
        final_mask = container.compute_mask(scores, default_mask)
    start = 0
    for module, name in parameters:
        parameter = getattr(module, name)
        count = parameter.numel()
        custom_from_mask(module, name, mask=final_mask[start : start + count].reshape(parameter.shape))
        start += count


def remove(module, name):
    """Make the pruning of `module.name` permanent and drop `name_orig`, `name_mask` and the hook;
    ValueError if it is not pruned. Returns `module`."""
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module):
    """True if `module` or any submodule has a pruning hook."""
    return any(
        isinstance(hook, BasePruningMethod)
        for submodule in module.modules()
        for hook in submodule._forward_pre_hooks.values()
    )
