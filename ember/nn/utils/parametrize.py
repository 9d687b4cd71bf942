"""Parametrizations: a module's tensor computed on every access from other tensors (as `torch.nn.utils.parametrize`).

`register_parametrization(module, "weight", P)` moves the parameter to
`module.parametrizations.weight.original` (or `original0`, `original1`, ... when P's
`right_inverse` returns several tensors) and makes `module.weight` a property computing
`P(original)`; assigning to `module.weight` runs `right_inverse`. The module's class becomes a
subclass named `Parametrized<Class>`, as in PyTorch, so state dict keys match PyTorch's.
"""

import contextlib
import copy

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = [
    "ParametrizationList",
    "register_parametrization",
    "is_parametrized",
    "remove_parametrizations",
    "cached",
    "type_before_parametrizations",
    "transfer_parametrizations_and_params",
]

_cache_enabled = 0
_cache = {}


@contextlib.contextmanager
def cached():
    """Within this context, each parametrized tensor is computed once and reused."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


def _register_parameter_or_buffer(module, name, tensor):
    if isinstance(tensor, Parameter):
        module.register_parameter(name, tensor)
    else:
        module.register_buffer(name, tensor)


def _maybe_set(destination, source):
    """Give `destination` the value of `source` while keeping its identity (optimizers hold it)."""
    destination.data = source.detach()


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the original tensor(s) they start from."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        new = original
        with no_grad():
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, list, tuple)):
            raise ValueError(
                "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                f"Got {type(new).__name__}"
            )
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {new.dtype}"
                )
            with no_grad():
                _maybe_set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for index, tensor in enumerate(new):
                if not isinstance(tensor, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                        f"Got element {index} of the sequence with type {type(tensor).__name__}."
                    )
                if isinstance(original, Parameter):
                    tensor = Parameter(tensor.detach(), original.requires_grad)
                _register_parameter_or_buffer(self, f"original{index}", tensor)
        if not self.unsafe:
            self._check_round_trip(original)

    def _check_round_trip(self, original):
        value = self()
        if not isinstance(value, Tensor):
            raise ValueError(f"A parametrization must return a tensor. Got {type(value).__name__}.")
        if value.dtype != original.dtype:
            raise ValueError(
                "Registering a parametrization may not change the dtype of the tensor, unless `unsafe` "
                f"flag is enabled.\nunparametrized dtype: {original.dtype}\n"
                f"parametrized dtype: {value.dtype}"
            )
        if tuple(value.shape) != tuple(original.shape):
            raise ValueError(
                "Registering a parametrization may not change the shape of the tensor, unless `unsafe` "
                f"flag is enabled.\nunparametrized shape: {original.shape}\n"
                f"parametrized shape: {value.shape}"
            )

    def right_inverse(self, value):
        """Set the original tensor(s) so that the parametrized tensor becomes `value`."""
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(
                        f"The tensor returned by `right_inverse` has dtype {value.dtype} while "
                        f"`original` has dtype {self.original.dtype}"
                    )
                _maybe_set(self.original, value)
            else:
                if len(value) != self.ntensors:
                    raise ValueError(
                        f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. "
                        f"Got a sequence of length {len(value)}"
                    )
                for index, tensor in enumerate(value):
                    _maybe_set(getattr(self, f"original{index}"), tensor)

    def forward(self):
        if self.is_tensor:
            value = self[0](self.original)
        else:
            value = self[0](*(getattr(self, f"original{index}") for index in range(self.ntensors)))
        for module in list(self)[1:]:
            value = module(value)
        return value


def _inject_new_class(module):
    """Make `module` an instance of a fresh subclass of its class, to carry the parametrized properties."""
    cls = module.__class__

    def default_deepcopy(self, memo):
        replica = memo.get(id(self))
        if replica is not None:
            return replica
        replica = self.__new__(self.__class__)
        memo[id(self)] = replica
        replica.__dict__ = copy.deepcopy(self.__dict__, memo)
        return replica

    def getstate(self):
        raise RuntimeError(
            "Serialization of parametrized modules is only supported through state_dict(). See:\n"
            "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
            "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training"
        )

    attributes = {"__getstate__": getstate}
    if not hasattr(cls, "__deepcopy__"):
        attributes["__deepcopy__"] = default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), attributes)


def _inject_property(module, tensor_name):
    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), tensor_name)
        if key not in _cache:
            _cache[key] = parametrization()
        return _cache[key]

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make `module.<tensor_name>` be `parametrization(original)`, computed on each access.

    Args:
        module: the module holding the parameter or buffer.
        tensor_name: its name.
        parametrization: a Module; its optional `right_inverse(value)` maps a value to the
            original (or a tuple of originals, stored as original0, original1, ...).
        unsafe: skip the checks that dtype and shape are preserved.

    Registering a second parametrization on the same tensor chains it after the first.

    Example::

        >>> class Symmetric(nn.Module):
        ...     def forward(self, X):
        ...         return X.triu() + X.triu(1).transpose(-1, -2)
        >>> m = nn.Linear(5, 5)
        >>> m = nn.utils.parametrize.register_parametrization(m, "weight", Symmetric())
        >>> bool((m.weight == m.weight.T).all())
        True
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            current = getattr(module, tensor_name)
            value = parametrization(current)
            if not isinstance(value, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(value).__name__}.")
            if value.dtype != current.dtype or tuple(value.shape) != tuple(current.shape):
                raise ValueError(
                    "Registering a parametrization may not change the dtype or shape of the tensor, "
                    f"unless the `unsafe` flag is enabled.\nmodule.{tensor_name}: {current.dtype} "
                    f"{tuple(current.shape)}; parametrization(module.{tensor_name}): {value.dtype} "
                    f"{tuple(value.shape)}"
                )
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with name "
            f"'{tensor_name}'"
        )
    return module


def is_parametrized(module, tensor_name=None):
    """Whether `module` has any parametrization (or one on `tensor_name`)."""
    parametrizations = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Remove the parametrizations of `module.<tensor_name>`.

    With `leave_parametrized` (default) the tensor keeps its current parametrized value; otherwise
    it becomes the original again (only possible with a single original tensor).
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                _maybe_set(original, getattr(module, tensor_name))
    else:
        if not leave_parametrized:
            raise ValueError(
                "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized "
                "in terms of a sequence of tensors."
            )
        with no_grad():
            value = getattr(module, tensor_name)
        original = (
            Parameter(value.detach(), parametrizations.original0.requires_grad)
            if isinstance(parametrizations.original0, Parameter)
            else value.detach()
        )
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    """The module's class before any parametrization was registered."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Copy the parametrizations (and their originals) of `from_module` onto `to_module`."""
    if not is_parametrized(from_module):
        raise ValueError(f"Module {from_module} does not have any parametrizations")
    names = [tensor_name] if tensor_name is not None else list(from_module.parametrizations)
    for name in names:
        if name not in to_module._parameters and not is_parametrized(to_module, name):
            to_module.register_parameter(name, Parameter(getattr(from_module, name).detach()))
        source = from_module.parametrizations[name]
        for parametrization in source:
            register_parametrization(to_module, name, parametrization, unsafe=True)
        target = to_module.parametrizations[name]
        with no_grad():
            if source.is_tensor:
                _maybe_set(target.original, source.original)
            else:
                for index in range(source.ntensors):
                    _maybe_set(getattr(target, f"original{index}"), getattr(source, f"original{index}"))
    return to_module
