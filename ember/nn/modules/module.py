"""`Module`: the base class of every layer and model, as `torch.nn.Module`.

A module keeps its parameters, buffers and child modules in three ordered dicts filled by
`__setattr__` (so `self.fc = Linear(2, 3)` registers `fc`), which is what `parameters()`,
`state_dict()`, `to()` and `repr()` walk.
"""

import functools
import itertools
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ... import _dtype
from ..._backend import device as Device, to_device
from ..._tensor import Tensor
from ...autograd import grad_mode
from ...autograd.function import Function
from ...ops import creation
from ...utils.hooks import RemovableHandle
from ..parameter import Parameter, Buffer
from ..._warn import warn as _warn

__all__ = [
    "Module",
    "register_module_forward_pre_hook",
    "register_module_forward_hook",
    "register_module_full_backward_hook",
    "register_module_full_backward_pre_hook",
]

# Hooks that run for every module, registered with the `register_module_*` functions below.
_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_always_called = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_backward_pre_hooks = OrderedDict()


def typename(obj):
    """PyTorch's `torch.typename`: 'torch.FloatTensor' for tensors, the qualified class name otherwise."""
    if isinstance(obj, Tensor):
        return obj.type()
    cls = type(obj)
    module = cls.__module__
    return cls.__qualname__ if module in (None, "builtins") else f"{module}.{cls.__qualname__}"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What `load_state_dict` returns: the keys it did not find and the keys it did not expect."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(text, spaces):
    """Indent every line but the first (how a child's repr nests inside its parent's)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    first = lines.pop(0)
    return first + "\n" + "\n".join((" " * spaces) + line if line.strip() else "" for line in lines)


def register_module_forward_pre_hook(hook):
    """`hook(module, args)` runs before the forward of every module; see `Module.register_forward_pre_hook`."""
    return RemovableHandle(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, always_call=False):
    """`hook(module, args, output)` runs after the forward of every module."""
    handle = RemovableHandle(_global_forward_hooks, hook, extra_dict=_global_forward_hooks_always_called)
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_full_backward_hook(hook):
    """`hook(module, grad_input, grad_output)` runs in the backward of every module."""
    return RemovableHandle(_global_backward_hooks, hook)


def register_module_full_backward_pre_hook(hook):
    """`hook(module, grad_output)` runs in the backward of every module before its gradients are computed."""
    return RemovableHandle(_global_backward_pre_hooks, hook)


def _forward_unimplemented(self, *input):
    """The computation of the module, defined by every subclass; the layer's own docstring says what it computes.

    Call the module (`model(x)`) rather than `model.forward(x)`: the call runs the forward hooks and the backward
    hooks around it.
    """
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


class Module:
    """Base class for all neural network modules; subclass it, call `super().__init__()`, define `forward`.

    Example::

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 2)

            def forward(self, x):
                return self.fc(x).relu()
    """

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if self.call_super_init is False and kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'"
            )
        if self.call_super_init is False and args:
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} were given"
            )
        # object.__setattr__ skips Module.__setattr__, which needs these dicts to exist.
        setattr_ = super().__setattr__
        setattr_("training", True)
        setattr_("_parameters", {})
        setattr_("_buffers", {})
        setattr_("_non_persistent_buffers_set", set())
        setattr_("_backward_pre_hooks", OrderedDict())
        setattr_("_backward_hooks", OrderedDict())
        setattr_("_is_full_backward_hook", None)
        setattr_("_forward_hooks", OrderedDict())
        setattr_("_forward_hooks_with_kwargs", OrderedDict())
        setattr_("_forward_hooks_always_called", OrderedDict())
        setattr_("_forward_pre_hooks", OrderedDict())
        setattr_("_forward_pre_hooks_with_kwargs", OrderedDict())
        setattr_("_state_dict_hooks", OrderedDict())
        setattr_("_state_dict_pre_hooks", OrderedDict())
        setattr_("_load_state_dict_pre_hooks", OrderedDict())
        setattr_("_load_state_dict_post_hooks", OrderedDict())
        setattr_("_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward = _forward_unimplemented

    # ------------------------------------------------------------------ registration
    def register_buffer(self, name, tensor, persistent=True):
        """Add a tensor that is state but not a parameter (e.g. BatchNorm's `running_mean`).

        Persistent buffers are part of `state_dict()`; `tensor` may be None (then it is skipped).
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{typename(tensor)}' object to buffer '{name}' (torch Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Add a parameter (a `Parameter` or None) under `name`."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{typename(param)}' object to parameter '{name}' (torch.nn.Parameter or None required)"
            )
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created "
                f"explicitly. To express '{name}' as a function of another Tensor, compute the value in "
                "the forward() method."
            )
        self._parameters[name] = param

    def add_module(self, name, module):
        """Add a child module under `name` (also done by `self.name = module`)."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    def register_module(self, name, module):
        """Alias for `add_module`."""
        self.add_module(name, module)

    def get_submodule(self, target):
        """The module at the dotted path `target` ('' is this module), e.g. `'net.0.conv'`."""
        if target == "":
            return self
        module = self
        for item in target.split("."):
            if not hasattr(module, item):
                raise AttributeError(module._get_name() + " has no attribute `" + item + "`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return module

    def set_submodule(self, target, module, strict=False):
        """Replace (or, unless `strict`, add) the module at the dotted path `target`."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        path, _, name = target.rpartition(".")
        parent = self.get_submodule(path)
        if strict and not hasattr(parent, name):
            raise AttributeError(parent._get_name() + " has no attribute `" + name + "`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError("`" + name + "` is not an nn.Module")
        setattr(parent, name, module)

    def get_parameter(self, target):
        """The parameter at the dotted path `target`, e.g. `'net.0.weight'`."""
        module_path, _, param_name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, param_name):
            raise AttributeError(module._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(module, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        """The buffer at the dotted path `target`, e.g. `'bn.running_mean'`."""
        module_path, _, buffer_name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, buffer_name):
            raise AttributeError(module._get_name() + " has no attribute `" + buffer_name + "`")
        if buffer_name not in module._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return getattr(module, buffer_name)

    def get_extra_state(self):
        """Extra state (any picklable object) for `state_dict` to save under `_extra_state`; override it together
        with `set_extra_state`.
        """
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called.")

    def set_extra_state(self, state):
        """Restore what `get_extra_state` returned, called by `load_state_dict`; override it together with
        `get_extra_state`.
        """
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called.")

    # ------------------------------------------------------------------ attribute protocol
    def __getattr__(self, name):
        # Only reached when normal lookup fails: parameters, buffers and modules live in their dicts.
        attributes = self.__dict__
        if "_parameters" in attributes and name in attributes["_parameters"]:
            return attributes["_parameters"][name]
        if "_buffers" in attributes and name in attributes["_buffers"]:
            return attributes["_buffers"][name]
        if "_modules" in attributes and name in attributes["_modules"]:
            return attributes["_modules"][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        def remove_from(*dicts_or_sets):
            for container in dicts_or_sets:
                if name in container:
                    if isinstance(container, dict):
                        del container[name]
                    else:
                        container.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as parameter '{name}' (torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(self.__dict__, self._parameters, self._buffers, self._non_persistent_buffers_set)
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(
                        f"cannot assign '{typename(value)}' as child module '{name}' (torch.nn.Module or None expected)"
                    )
                modules[name] = value
            else:
                buffers = self.__dict__.get("_buffers")
                if isinstance(value, Buffer) or (buffers is not None and name in buffers):
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(
                            f"cannot assign '{typename(value)}' as buffer '{name}' "
                            "(torch.nn.Buffer, torch.Tensor or None expected)"
                        )
                    persistent = (
                        value.persistent if isinstance(value, Buffer) else name not in self._non_persistent_buffers_set
                    )
                    self.register_buffer(name, value, persistent)
                else:
                    super().__setattr__(name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self):
        keys = (
            dir(self.__class__)
            + list(self.__dict__)
            + list(self._parameters)
            + list(self._modules)
            + list(self._buffers)
        )
        return sorted(key for key in keys if not key[0].isdigit())

    def __setstate__(self, state):
        self.__dict__.update(state)
        # Modules pickled by an older version may lack the newer hook tables.
        for name in (
            "_forward_pre_hooks",
            "_forward_hooks",
            "_forward_hooks_with_kwargs",
            "_forward_hooks_always_called",
            "_forward_pre_hooks_with_kwargs",
            "_backward_pre_hooks",
            "_backward_hooks",
            "_state_dict_hooks",
            "_state_dict_pre_hooks",
            "_load_state_dict_pre_hooks",
            "_load_state_dict_post_hooks",
        ):
            if name not in self.__dict__:
                self.__dict__[name] = OrderedDict()
        self.__dict__.setdefault("_non_persistent_buffers_set", set())
        self.__dict__.setdefault("_is_full_backward_hook", None)

    # ------------------------------------------------------------------ iteration
    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in get_members(module):
                if value is None or value in memo:
                    continue
                if remove_duplicate:
                    memo.add(value)
                yield (module_prefix + ("." if module_prefix else "") + name, value)

    def parameters(self, recurse=True):
        """A generator over this module's parameters (and, with `recurse`, its descendants'), each once."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """`(dotted name, parameter)` pairs; a parameter shared by two modules comes once unless
        `remove_duplicate=False`."""
        yield from self._named_members(
            lambda module: module._parameters.items(), prefix=prefix, recurse=recurse, remove_duplicate=remove_duplicate
        )

    def buffers(self, recurse=True):
        """The buffers (tensors registered with `register_buffer`, e.g. BatchNorm's running mean) of this module and,
        with `recurse`, its descendants.
        """
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """`(dotted name, buffer)` for the buffers of this module and, with `recurse`, its descendants."""
        yield from self._named_members(
            lambda module: module._buffers.items(), prefix=prefix, recurse=recurse, remove_duplicate=remove_duplicate
        )

    def children(self):
        """The direct child modules, each once."""
        for _, module in self.named_children():
            yield module

    def named_children(self):
        """`(name, module)` for the direct children, each module once."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self, remove_duplicate=True):
        """This module and all its descendants, depth first (each once unless `remove_duplicate=False`)."""
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """This module and all its descendants, depth first, as `(dotted name, module)` ('' for self)."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            submodule_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, submodule_prefix, remove_duplicate)

    # ------------------------------------------------------------------ modes and gradients
    def train(self, mode=True):
        """Set training mode here and in every descendant (Dropout, BatchNorm behave differently). Returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        """`train(False)`: evaluation mode. Returns self."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Set `requires_grad` of every parameter (e.g. False to freeze a pretrained part). Returns self."""
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all parameters: to None (default) or to zeros."""
        for param in self.parameters():
            if param.grad is not None:
                if set_to_none:
                    param.grad = None
                else:
                    if param.grad.grad_fn is not None:
                        param.grad.detach_()
                    else:
                        param.grad.requires_grad_(False)
                    param.grad.zero_()

    def share_memory(self):
        """Move every parameter, gradient and buffer to shared memory (`Tensor.share_memory_`), e.g. for
        Hogwild training with ember.multiprocessing. Returns self."""
        return self._apply(lambda tensor: tensor.share_memory_())

    # ------------------------------------------------------------------ conversions
    def _apply(self, fn, recurse=True):
        """Apply `fn` to every parameter, gradient and buffer. Parameters keep their identity (their data
        is replaced), so optimizers built before `model.double()` still hold them."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with grad_mode.no_grad():
                param.data = fn(param)
            if param._grad is not None:
                with grad_mode.no_grad():
                    param._grad.data = fn(param._grad)
        for key, buffer in self._buffers.items():
            if buffer is not None:
                self._buffers[key] = fn(buffer)
        return self

    def apply(self, fn):
        """Call `fn(module)` on every descendant, then on this module (e.g. to initialise weights). Returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs):
        """Convert floating point parameters and buffers: `to(ember.float64)`, `to(tensor)`, `to('cpu')`.

        Integer buffers (e.g. `num_batches_tracked`) keep their dtype. Devices other than the CPU raise.
        """
        device, dtype = _parse_to(*args, **kwargs)
        if next(self.parameters(), None) is not None or next(self.buffers(), None) is not None:
            to_device(device)  # as in PyTorch, a module with nothing to move goes anywhere
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError(
                f"nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={dtype}"
            )
        if dtype is None:
            return self

        def convert(tensor):
            return tensor.to(dtype) if tensor.is_floating_point() or tensor.is_complex() else tensor

        return self._apply(convert)

    def cpu(self):
        """The module itself: ember's tensors are always on the CPU."""
        return self

    def cuda(self, device=None):
        """Raises, as PyTorch built without CUDA does, once there is a parameter or buffer to move
        (a module without any, like `nn.ReLU()`, is returned as it is)."""
        return self._apply(lambda tensor: tensor.cuda(device))

    def type(self, dst_type):
        """Convert all parameters and buffers (integer ones too) to `dst_type`."""
        dst_type = _dtype.to_dtype(dst_type)
        return self._apply(lambda tensor: tensor.to(dst_type))

    def float(self):
        """Convert the floating-point parameters and buffers to float32, in place. Returns self."""
        return self._apply(lambda tensor: tensor.float() if tensor.is_floating_point() else tensor)

    def double(self):
        """Convert the floating-point parameters and buffers to float64, in place. Returns self."""
        return self._apply(lambda tensor: tensor.double() if tensor.is_floating_point() else tensor)

    def half(self):
        """Convert the floating-point parameters and buffers to float16, in place. Returns self."""
        return self._apply(lambda tensor: tensor.half() if tensor.is_floating_point() else tensor)

    def bfloat16(self):
        """Convert the floating-point parameters and buffers to bfloat16 (needs ml_dtypes), in place. Returns self."""
        return self._apply(lambda tensor: tensor.bfloat16() if tensor.is_floating_point() else tensor)

    # ------------------------------------------------------------------ hooks
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """`hook(module, args)` (or `hook(module, args, kwargs)` with `with_kwargs`) runs before forward;
        it may return new args (or `(args, kwargs)`)."""
        handle = RemovableHandle(self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """`hook(module, args, output)` (or `hook(module, args, kwargs, output)`) runs after forward; it may
        return a new output. With `always_call` it also runs when forward raises."""
        handle = RemovableHandle(
            self._forward_hooks, extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called]
        )
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """`hook(module, grad_output)` runs when the gradients of the module's outputs are known; it may
        return new grad_output."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """`hook(module, grad_input, grad_output)` runs when the gradients of the module's tensor inputs are
        known; it may return new grad_input. The module's inputs and outputs are wrapped in identity nodes
        (`BackwardHookFunctionBackward`) to catch those gradients, as in PyTorch."""
        if self._is_full_backward_hook is False:
            raise RuntimeError(
                "Cannot use both regular backward hooks and full backward hooks on a single "
                "Module. Please use only one of them."
            )
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook):
        """Raises NotImplementedError: ember has only the full backward hooks; use `register_full_backward_hook`,
        which has the same signature (PyTorch deprecates this one)."""
        raise NotImplementedError(
            "ember has no legacy (non-full) module backward hooks: use "
            "register_full_backward_hook(hook), which has the same signature."
        )

    def register_state_dict_pre_hook(self, hook):
        """`hook(module, prefix, keep_vars)` runs before `state_dict()` saves this module."""
        return RemovableHandle(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """`hook(module, state_dict, prefix, local_metadata)` runs after `state_dict()` saved this module."""
        return RemovableHandle(self._state_dict_hooks, hook)

    def register_load_state_dict_pre_hook(self, hook):
        """`hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs)` runs before this module loads its part of a state dict."""
        return RemovableHandle(self._load_state_dict_pre_hooks, functools.partial(hook, self))

    def register_load_state_dict_post_hook(self, hook):
        """`hook(module, incompatible_keys)` runs after `load_state_dict` (it may edit the key lists)."""
        return RemovableHandle(self._load_state_dict_post_hooks, hook)

    # ------------------------------------------------------------------ calling
    def _call_impl(self, *args, **kwargs):
        if not (
            self._forward_pre_hooks
            or self._forward_hooks
            or self._backward_hooks
            or self._backward_pre_hooks
            or _global_forward_pre_hooks
            or _global_forward_hooks
            or _global_backward_hooks
            or _global_backward_pre_hooks
        ):
            return self.forward(*args, **kwargs)
        return _call_with_hooks(self, args, kwargs)

    __call__ = _call_impl

    # ------------------------------------------------------------------ state dict
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buffer if keep_vars else buffer.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An OrderedDict of every parameter and persistent buffer by dotted name ('0.weight',
        'bn.running_mean'), detached unless `keep_vars`. The keys match PyTorch's for the same model,
        so state dicts move between the two (convert the tensors through NumPy)."""
        if args:  # the deprecated positional form state_dict(destination, prefix, keep_vars)
            destination, prefix, keep_vars = (list(args) + [destination, prefix, keep_vars][len(args) :])[:3]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            if result is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ):
        """Copy this module's own entries of `state_dict` (not its children's) into its tensors, in place."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        local_state = {
            name: value
            for name, value in itertools.chain(
                self._parameters.items(),
                (
                    (name, buffer)
                    for name, buffer in self._buffers.items()
                    if name not in self._non_persistent_buffers_set
                ),
            )
            if value is not None
        }
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(input_param)}"
                )
                continue
            if param.dim() == 0 and input_param.dim() == 1 and input_param.shape[0] == 1:
                input_param = input_param[0]
            if input_param.shape != param.shape:
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {input_param.shape} from "
                    f"checkpoint, the shape in current model is {param.shape}."
                )
                continue
            try:
                with grad_mode.no_grad():
                    if assign:
                        if isinstance(param, Parameter) and not isinstance(input_param, Parameter):
                            input_param = Parameter(input_param, requires_grad=param.requires_grad)
                        setattr(self, name, input_param)
                    else:
                        param.copy_(input_param)
            except Exception as error:
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model are '
                    f"{param.size()} and whose dimensions in the checkpoint are "
                    f"{input_param.size()}, an exception occurred : {error.args}."
                )
        extra_state_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_state_key in state_dict:
                self.set_extra_state(state_dict[extra_state_key])
            elif strict:
                missing_keys.append(extra_state_key)
        elif strict and extra_state_key in state_dict:
            unexpected_keys.append(extra_state_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_state_key:
                    head = key[len(prefix) :].split(".", 1)
                    if len(head) > 1 and head[0] not in self._modules or len(head) == 1 and head[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy parameters and buffers from `state_dict` into this module and its descendants, in place.

        With `strict` (default) the keys must match `self.state_dict()`'s exactly: a RuntimeError names the
        missing and unexpected keys and any size mismatch. Returns `(missing_keys, unexpected_keys)`.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(
                local_state_dict, prefix, local_metadata, True, missing_keys, unexpected_keys, error_msgs
            )
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(
                        child,
                        {key: value for key, value in local_state_dict.items() if key.startswith(child_prefix)},
                        child_prefix,
                    )
            incompatible_keys = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible_keys) is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not expected to return "
                        "new values, if incompatible_keys need to be modified, it should be done inplace."
                    )

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(
                    0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{key}"' for key in unexpected_keys))
                )
            if missing_keys:
                error_msgs.insert(
                    0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{key}"' for key in missing_keys))
                )
        if error_msgs:
            raise RuntimeError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(type(self).__name__, "\n\t".join(error_msgs))
            )
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ------------------------------------------------------------------ printing
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The text inside this module's `repr` parentheses (e.g. `in_features=3, out_features=2`)."""
        return ""

    def __repr__(self):
        extra_lines = self.extra_repr().split("\n") if self.extra_repr() else []
        child_lines = ["(" + key + "): " + _addindent(repr(module), 2) for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"


_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


def _parse_to(*args, dtype=None, device=None, non_blocking=False, copy=False, memory_format=None):
    """(device, dtype) from the forms of `Module.to`: a dtype, a device, a tensor, or keywords."""
    for arg in args:
        if isinstance(arg, Tensor):
            dtype = arg.dtype
        elif isinstance(arg, _dtype.dtype):
            dtype = arg
        elif isinstance(arg, (str, Device, int)) and not isinstance(arg, bool):
            device = arg
        elif isinstance(arg, bool):
            pass  # non_blocking: nothing runs asynchronously on the CPU
        else:
            raise TypeError(f"to() received an invalid combination of arguments: got {typename(arg)}")
    return device, dtype


# ---------------------------------------------------------------------- hooks around forward
def _call_with_hooks(module, args, kwargs):
    called_always = set()
    result = None
    try:
        backward_pre_hooks = [*_global_backward_pre_hooks.values(), *module._backward_pre_hooks.values()]
        backward_hooks = [*_global_backward_hooks.values(), *module._backward_hooks.values()]
        for hook_id, hook in (*_global_forward_pre_hooks.items(), *module._forward_pre_hooks.items()):
            if hook_id in module._forward_pre_hooks_with_kwargs:
                hook_result = hook(module, args, kwargs)
                if hook_result is not None:
                    if not (isinstance(hook_result, tuple) and len(hook_result) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                            f"but got {hook_result}."
                        )
                    args, kwargs = hook_result
            else:
                hook_result = hook(module, args)
                if hook_result is not None:
                    args = hook_result if isinstance(hook_result, tuple) else (hook_result,)
        backward_hook = None
        if backward_hooks or backward_pre_hooks:
            backward_hook = _BackwardHook(module, backward_hooks, backward_pre_hooks)
            args = backward_hook.setup_input_hook(args)
        result = module.forward(*args, **kwargs)
        for hook_id, hook in (*_global_forward_hooks.items(), *module._forward_hooks.items()):
            if hook_id in module._forward_hooks_always_called or hook_id in _global_forward_hooks_always_called:
                called_always.add(hook_id)
            if hook_id in module._forward_hooks_with_kwargs:
                hook_result = hook(module, args, kwargs, result)
            else:
                hook_result = hook(module, args, result)
            if hook_result is not None:
                result = hook_result
        if backward_hook is not None:
            result = backward_hook.setup_output_hook(result)
        return result
    except Exception:
        _run_always_called_hooks(module, args, kwargs, result, called_always)
        raise


def _run_always_called_hooks(module, args, kwargs, result, already_called):
    """Forward hooks registered with `always_call=True` run even when forward raised (their errors are
    turned into warnings so the original error surfaces)."""

    for hook_id, hook in (*_global_forward_hooks.items(), *module._forward_hooks.items()):
        if hook_id in already_called or not (
            hook_id in module._forward_hooks_always_called or hook_id in _global_forward_hooks_always_called
        ):
            continue
        try:
            if hook_id in module._forward_hooks_with_kwargs:
                hook(module, args, kwargs, result)
            else:
                hook(module, args, result)
        except Exception as error:
            _warn(
                "module forward hook with ``always_call=True`` raised an exception that was silenced as "
                f"another error was raised in forward: {error}",
                stacklevel=3,
            )


class BackwardHookFunction(Function):
    """Identity on tensors, so that a module's inputs and outputs get a graph node whose gradients
    the module's full backward hooks can see and replace."""

    @staticmethod
    def forward(ctx, *tensors):
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        return grads


class _HookedTensors:
    """The tensors among a module's inputs (or outputs), of which those requiring grad go through one
    BackwardHookFunction node. Converts between the node's gradients (one per tensor requiring grad)
    and what the hooks see (one per tensor, zeros where there is no gradient, as in PyTorch)."""

    def __init__(self, values):
        self.is_tuple = isinstance(values, tuple)
        self.values = list(values) if self.is_tuple else [values]
        tensors = [i for i, value in enumerate(self.values) if isinstance(value, Tensor)]
        self.meta = [(self.values[i].shape, self.values[i].dtype) for i in tensors]
        recording = grad_mode.is_grad_enabled()
        self.hooked = [k for k, i in enumerate(tensors) if recording and self.values[i].requires_grad]
        self.node = None
        if self.hooked:
            wrapped = BackwardHookFunction.apply(*[self.values[tensors[k]] for k in self.hooked])
            for k, tensor in zip(self.hooked, wrapped):
                self.values[tensors[k]] = tensor
            self.node = wrapped[0].grad_fn

    @property
    def result(self):
        return tuple(self.values) if self.is_tuple else self.values[0]

    def all_grads(self, node_grads):
        grads = [None] * len(self.meta)
        for k, grad in zip(self.hooked, node_grads):
            grads[k] = grad
        return tuple(
            creation.zeros(shape, dtype=dtype) if grad is None else grad
            for grad, (shape, dtype) in zip(grads, self.meta)
        )

    def node_grads(self, all_grads):
        return tuple(all_grads[k] for k in self.hooked)


class _BackwardHook:
    """Runs a module's full backward (pre-)hooks from hooks on two identity nodes: one on the outputs
    (their gradients are `grad_output`) and one on the inputs (`grad_input`)."""

    def __init__(self, module, hooks, pre_hooks):
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.grad_outputs = None
        self.inputs = None

    def setup_input_hook(self, args):
        self.inputs = _HookedTensors(args)
        if self.inputs.node is not None and self.hooks:
            # a post hook of the identity node, as PyTorch's: it runs after the node's pre hooks
            self.inputs.node.register_hook(self._input_gradients_ready)
        return self.inputs.result

    def setup_output_hook(self, result):
        outputs = _HookedTensors(result)
        if outputs.node is not None:
            outputs.node.register_prehook(functools.partial(self._output_gradients_ready, outputs))
        return outputs.result

    def _output_gradients_ready(self, outputs, node_grads):
        grad_outputs = outputs.all_grads(node_grads)
        for hook in self.pre_hooks:
            new_grads = hook(self.module, grad_outputs)
            if new_grads is not None:
                grad_outputs = new_grads if isinstance(new_grads, tuple) else (new_grads,)
        self.grad_outputs = grad_outputs
        if self.inputs.node is None:  # no input needs a gradient: the hooks see None for grad_input
            for hook in self.hooks:
                if hook(self.module, (None,) * len(self.inputs.meta), self.grad_outputs) is not None:
                    raise RuntimeError(
                        "Backward hook for Modules where no input requires gradient should always "
                        "return None or None for all gradients."
                    )
        return outputs.node_grads(grad_outputs)

    def _input_gradients_ready(self, node_grads, _node_grad_outputs):
        if self.grad_outputs is None:
            # the gradient reached the module's inputs without passing its outputs in this backward
            # (a double backward through a gradient made with create_graph): not this module's backward
            return None
        grad_inputs = self.inputs.all_grads(node_grads)
        for hook in self.hooks:
            new_grads = hook(self.module, grad_inputs, self.grad_outputs)
            if new_grads is not None:
                new_grads = new_grads if isinstance(new_grads, tuple) else (new_grads,)
                if len(new_grads) != len(grad_inputs):
                    raise RuntimeError(
                        f"Backward hook returned an invalid number of grad_input, got "
                        f"{len(new_grads)}, but expected {len(grad_inputs)}"
                    )
                grad_inputs = new_grads
        self.grad_outputs = None
        return self.inputs.node_grads(grad_inputs)
