"""Weight normalisation with a forward pre-hook (the older API, as `torch.nn.utils.weight_norm`).

`weight` becomes `weight_g * weight_v / ||weight_v||` (the norm over every dimension but `dim`),
recomputed before each forward from the two new parameters `weight_g` and `weight_v`. PyTorch
deprecates this in favour of `nn.utils.parametrizations.weight_norm`, and so does ember.
"""

from ..parameter import Parameter
from ..._warn import warn as _warn

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm", "norm_except_dim"]


def norm_except_dim(v, pow=2, dim=0):
    """The `pow`-norm of `v` over every dimension except `dim` (over all of them if dim is -1),
    keeping the reduced dimensions so that it broadcasts against `v`."""
    if dim == -1:
        return v.norm(pow)
    dim = dim % v.dim()
    others = tuple(d for d in range(v.dim()) if d != dim)
    if not others:
        return v.abs() if pow != 0 else v.ne(0).to(v.dtype)
    return (v.abs() ** pow).sum(others, keepdim=True) ** (1.0 / pow)


def _weight_norm(v, g, dim):
    return v * (g / norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook that recomputes `module.<name>` from `<name>_g` and `<name>_v`."""

    def __init__(self, name, dim):
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name, dim):
        _warn(
            "`torch.nn.utils.weight_norm` is deprecated in favor of `torch.nn.utils.parametrizations.weight_norm`.",
            FutureWarning,
            stacklevel=3,
        )
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Reparametrise `module.<name>` as `g * v / ||v||`; returns the module.

    Args:
        module: the module holding the parameter.
        name: the parameter's name.
        dim: the dimension kept by the norm (0: one norm per output row); None: one norm for all.

    Example::

        >>> m = nn.utils.weight_norm(nn.Linear(20, 40), name="weight")
        >>> m.weight_g.shape, m.weight_v.shape
        (torch.Size([40, 1]), torch.Size([40, 20]))
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Undo `weight_norm`: `module.<name>` becomes a plain parameter again, with its current value."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
