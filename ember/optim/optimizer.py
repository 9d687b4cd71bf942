"""`Optimizer`: parameter groups, per-parameter state and the state_dict format of torch.optim.

Subclasses implement `step()` with NumPy maths on `p._data` / `p._grad._data`, in place, outside the
graph; `_updated(p)` then bumps the parameter's version counter as PyTorch's in-place updates do,
so a graph that saved the old value refuses to backward through it. With `differentiable=True`
(all but LBFGS, SparseAdam, Adafactor and Muon) the step instead runs in grad mode with in-place
tensor ops, so the update is recorded in the graph (parameters must then be non-leaf tensors, as in
PyTorch). `foreach`, `fused` and `capturable` are accepted and refused in PyTorch's combinations; ember has one
implementation, so they change nothing else.
"""

import copy
import functools
from collections import OrderedDict, defaultdict
from itertools import chain

from .._backend import np
from .._dtype import get_default_dtype
from .._sparse_coo import SparseCoo
from .._tensor import Tensor, new_tensor
from ..autograd.grad_mode import enable_grad, set_grad_enabled
from ..utils.hooks import RemovableHandle
from .._warn import warn as _warn

__all__ = [
    "Optimizer",
    "required",
    "check_lr",
    "check_nonnegative",
    "check_betas",
    "hyperparameter",
    "nonzero",
    "divide",
    "zeros_state",
    "scalar_dtype",
    "step_state",
    "scalar",
    "lerp_",
    "fused_lerp_",
    "add_scaled_",
    "add_product_",
]


class _RequiredParameter:
    """The default of an option every parameter group must set (SGD's lr in old PyTorch)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def check_nonnegative(description, value):
    """Raise PyTorch's ValueError for a negative option (`Invalid learning rate: -0.1`)."""
    if value is not required and not value >= 0.0:
        raise ValueError(f"Invalid {description}: {value}")


def check_lr(lr):
    """The learning rate may be a number or a 1-element tensor (PyTorch allows both), never negative."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    check_nonnegative("learning rate", lr)


def check_betas(betas):
    """Each beta of an Adam-family optimizer lies in [0, 1)."""
    for index, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {index}: {beta}")


def scalar(value):
    """A hyper-parameter as a Python number (a tensor learning rate is read once per step)."""
    return value.item() if isinstance(value, Tensor) else value


def lerp_(buffer, end, weight):
    """`buffer += weight * (end - buffer)` in place, with PyTorch's two-sided formula, which is exact
    at both ends (running averages such as Adam's first moment use it)."""
    if weight < 0.5:
        buffer += weight * (end - buffer)
    else:
        buffer[...] = end - (end - buffer) * (1 - buffer.dtype.type(weight))


def add_scaled_(target, scale, vector):
    """target += scale * vector, rounded once as PyTorch's fused `add_(vector, alpha=scale)` is.

    For the optimizers whose iterates amplify last-bit differences (LBFGS's line-search-free steps,
    Muon's bfloat16 rounding): float32 work is done in float64, where the product of float32 numbers is
    exact (`scale` is first rounded to float32, as PyTorch rounds alpha), so the results follow
    PyTorch's bit for bit. It costs a float64 temporary of the vector's size; other dtypes round twice.
    """
    if target.dtype == np.float32:
        wide = np.multiply(vector, np.float64(np.float32(scale)), dtype=np.float64)
        wide += target
        np.copyto(target, wide, casting="same_kind")
    else:
        target += scale * vector


_BLOCK = 65536  # elements: a float32 block's product (256 KiB) stays in L2 until it is added


def add_product_(target, scale, vector):
    """`target += scale * vector` into the array `target` (not a NumPy scalar: the caller would not see
    the sum), the same two roundings, block by block for large arrays.

    Whole, the product is a temporary the size of the parameter: written to memory, read back by the
    addition (five passes over memory where three carry data). In blocks of 64 K elements it stays in
    cache: SGD's update of a (512, 784) float32 weight takes 0.68-0.80x the time (one thread, caches
    cold as after a step's GEMMs), an MLP 784-512-512-10 step ~4% less. Each element gets the very
    operations it got whole, so the results are the same bits.
    """
    size = target.size
    if (
        size <= 2 * _BLOCK
        or vector.shape != target.shape
        or vector.dtype != target.dtype
        or not (target.flags.c_contiguous and vector.flags.c_contiguous)
        or target.dtype.kind != "f"
    ):
        target += scale * vector
        return
    # (a Python number takes the vector's dtype; a NumPy float64 one computes in float64, as whole)
    dtype = vector.dtype if type(scale) in (float, int) else np.result_type(scale, vector)
    flat_target, flat_vector = target.reshape(-1), vector.reshape(-1)
    product = np.empty(_BLOCK, dtype)
    for start in range(0, size, _BLOCK):
        stop = min(start + _BLOCK, size)
        block, target_block = product[: stop - start], flat_target[start:stop]
        np.multiply(scale, flat_vector[start:stop], out=block)
        np.add(target_block, block, out=target_block)


def fused_lerp_(buffer, end, weight):
    """`lerp_` rounded once, as PyTorch's kernel is (see add_scaled_ for where and why)."""
    if buffer.dtype != np.float32:
        lerp_(buffer, end, weight)
    elif weight < 0.5:
        add_scaled_(buffer, weight, end - buffer)
    else:
        difference = end - buffer
        buffer[...] = end
        add_scaled_(buffer, -(1 - np.float32(weight)), difference)


def hyperparameter(value):
    """An option as the differentiable step uses it: a tensor that requires grad stays a tensor (so
    gradients reach it), anything else becomes a Python number."""
    if isinstance(value, Tensor) and value.requires_grad:
        return value.reshape(())
    return scalar(value)


def divide(numerator, denominator):
    """`numerator / denominator` for a tensor denominator, rounded as PyTorch rounds it: a number
    divided by a tensor is `denominator.reciprocal() * numerator` there (two roundings)."""
    if isinstance(numerator, Tensor):
        return numerator / denominator
    return denominator.reciprocal() * numerator


def nonzero(value):
    """Whether an option (a number, or a tensor that requires grad) switches its term on."""
    return isinstance(value, Tensor) or value != 0


def zeros_state(param):
    """A zero buffer shaped like `param` (exp_avg, square_avg, ...)."""
    return new_tensor(np.zeros_like(param._data))


def scalar_dtype():
    """The dtype of the 0-d state PyTorch keeps (step counters, ASGD's eta and mu, NAdam's mu_product):
    float32, or float64 when that is the default dtype."""
    return np.float64 if get_default_dtype().numpy_dtype == np.float64 else np.float32


def step_state():
    """The step counter PyTorch keeps per parameter: a 0-d tensor of `scalar_dtype()`."""
    return new_tensor(np.zeros((), dtype=scalar_dtype()))


def _type_name(value):
    """torch.typename: the legacy type of a tensor, else the class qualified by a non-builtin module."""
    if isinstance(value, Tensor):
        return value.type()
    module = type(value).__module__
    return type(value).__qualname__ if module == "builtins" else f"{module}.{type(value).__qualname__}"


def _run_step_hooks(step):
    """Wrap a subclass's `step` so pre/post hooks run around it (once, even through super().step())."""

    @functools.wraps(step)
    def hooked_step(self, *args, **kwargs):
        if self._in_step:
            return step(self, *args, **kwargs)
        self._in_step = True
        try:
            for hook in list(self._optimizer_step_pre_hooks.values()):
                result = hook(self, args, kwargs)
                if result is not None:
                    args, kwargs = result
            self._check_implementation_options()
            # As PyTorch: a differentiable optimizer records its update in the graph, others do not.
            with set_grad_enabled(bool(self.defaults.get("differentiable", False))):
                output = step(self, *args, **kwargs)
            self._opt_called = True  # lets a learning-rate scheduler check the call order
            for hook in list(self._optimizer_step_post_hooks.values()):
                hook(self, args, kwargs)
        finally:
            self._in_step = False
        return output

    hooked_step._records_call = True  # learning-rate schedulers check that optimizer.step() ran first
    return hooked_step


class Optimizer:
    """Base class of all optimizers.

    Args:
        params: an iterable of tensors, of `(name, tensor)` pairs, or of dicts (parameter groups,
            each with a `"params"` entry and any options that override `defaults`).
        defaults: the default value of each option (lr, momentum, ...).

    `state` maps each parameter (the tensor itself) to a dict of its buffers; `param_groups` is a
    list of dicts. `state_dict()` replaces parameters by their integer index, as PyTorch does, so it
    can be saved with `ember.save` and loaded into a new optimizer built on the same parameters.
    """

    _in_step = False
    # What PyTorch's capturable check names, and whether its foreach step refuses differentiable=True.
    _capturable_tensors = "params and state_steps"
    _foreach_is_differentiable = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__:
            cls.step = _run_step_hooks(cls.__dict__["step"])

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._init_state_dict_hooks()
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {_type_name(params)}"
            )
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)
        if defaults.get("fused"):
            if defaults.get("differentiable"):
                raise RuntimeError("`fused` does not support `differentiable`")
            if defaults.get("foreach"):
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def _check_implementation_options(self):
        """Refuse at step time what PyTorch's CPU implementations refuse: `capturable=True` (CUDA-graph
        capture needs a GPU) and `foreach=True` with `differentiable=True` (its foreach ops record no
        graph). ember has one NumPy implementation; otherwise foreach, fused and capturable change
        nothing."""
        for group in self.param_groups:
            capturable = group.get("capturable")
            foreach_differentiable = group.get("foreach") and group.get("differentiable")
            if not (capturable or foreach_differentiable and not self._foreach_is_differentiable):
                continue
            if not any(param.grad is not None for param in group["params"]):
                continue  # (PyTorch checks inside its loop over parameters with gradients)
            if capturable:
                raise AssertionError(
                    f"If capturable=True, {self._capturable_tensors} must be on supported devices: "
                    "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla']. (ember runs on the CPU: use capturable=False)"
                )
            raise AssertionError("_foreach ops don't support autograd (use foreach=None with differentiable=True)")

    # ----------------------------------------------------------------- groups
    def add_param_group(self, param_group):
        """Add a group of parameters with its own options (e.g. a new layer unfrozen mid-training)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        params = list(params)
        names = [param[0] for param in params if isinstance(param, tuple)]
        params = [param[1] if isinstance(param, tuple) else param for param in params]
        param_group["params"] = params
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        for param in params:
            if not isinstance(param, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {_type_name(param)}")
            if not (self.defaults.get("differentiable") or param.is_leaf or param.retains_grad):
                raise ValueError(
                    "can't optimize a non-leaf Tensor (a differentiable=True optimizer can, to record "
                    "its steps in the graph)"
                )
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        if len(params) != len(set(params)):
            _warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this "
                "will cause an error; see github.com/pytorch/pytorch/issues/40967 for more "
                "information",
                stacklevel=3,
            )
        existing = set()
        for group in self.param_groups:
            existing.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {which} to the optimizer"
                )
        if not existing.isdisjoint(params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ----------------------------------------------------------------- gradients
    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all parameters: to None (the default), or to zeros in place."""
        for group in self.param_groups:
            for param in group["params"]:
                grad = param._grad
                if grad is None:
                    continue
                if set_to_none:
                    param._grad = None
                    continue
                if grad._grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad._data[...] = 0
                grad._bump_version()

    def step(self, closure=None):
        """Update the parameters once from their `.grad`; `closure` re-evaluates the loss if given."""
        raise NotImplementedError(
            f"{type(self).__name__}.step() is not implemented: an Optimizer subclass must define step()"
        )

    @staticmethod
    def _evaluate(closure):
        """Call the loss closure with grad mode on (step itself runs under no_grad)."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    @staticmethod
    def _updated(param):
        """Record an in-place change of `param._data` (PyTorch bumps the version in `param.add_`)."""
        param._bump_version()

    def _params_with_grad(self, group):
        """(param, gradient array) for each parameter of `group` that has a gradient, negated for
        `maximize=True`; parameters without a gradient are skipped (and get no state), as in PyTorch.
        A sparse gradient (`nn.Embedding(sparse=True)`) goes through `_sparse_gradient`."""
        maximize = group.get("maximize", False)
        for param in group["params"]:
            grad = param._grad
            if grad is not None:
                data = grad._data
                if type(data) is SparseCoo:
                    data = self._sparse_gradient(data, group)
                yield param, (-data if maximize else data)

    _sparse_gradient_error = None  # PyTorch's own wording where it is not the generic one

    def _sparse_gradient(self, gradient, group):
        """What the step uses of a sparse gradient: PyTorch's error here; optimizers that take sparse
        gradients (SGD, SparseAdam) override it."""
        raise RuntimeError(self._sparse_gradient_error or f"{type(self).__name__} does not support sparse gradients")

    @staticmethod
    def _params_with_grad_tensors(group):
        """(param, gradient tensor) for a differentiable step: the gradient as the user left it
        (it may carry a graph), negated for `maximize=True`."""
        maximize = group.get("maximize", False)
        for param in group["params"]:
            grad = param.grad
            if grad is not None:
                yield param, (-grad if maximize else grad)

    # ----------------------------------------------------------------- hooks
    def register_step_pre_hook(self, hook):
        """`hook(optimizer, args, kwargs)` runs before each step; it may return new (args, kwargs)."""
        return RemovableHandle(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """`hook(optimizer, args, kwargs)` runs after each step."""
        return RemovableHandle(self._optimizer_step_post_hooks, hook)

    _STATE_DICT_HOOKS = (
        "_optimizer_state_dict_pre_hooks",
        "_optimizer_state_dict_post_hooks",
        "_optimizer_load_state_dict_pre_hooks",
        "_optimizer_load_state_dict_post_hooks",
    )

    def _init_state_dict_hooks(self):
        for name in self._STATE_DICT_HOOKS:
            self.__dict__.setdefault(name, OrderedDict())

    @staticmethod
    def _register(hooks, hook, prepend):
        handle = RemovableHandle(hooks, hook)
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """`hook(optimizer)` runs before `state_dict()` builds its result."""
        return self._register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """`hook(optimizer, state_dict)` runs on the result of `state_dict()`; it may return a new one."""
        return self._register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """`hook(optimizer, state_dict)` runs before loading; it may return the state_dict to load instead."""
        return self._register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """`hook(optimizer)` runs after `load_state_dict()` has restored the state."""
        return self._register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ----------------------------------------------------------------- state_dict
    def state_dict(self):
        """The state as `{"state": {index: {...}}, "param_groups": [{..., "params": [index, ...]}]}`.

        Parameters are numbered in the order of the groups; the buffers are the optimizer's own tensors
        (not copies), as in PyTorch.
        """
        for hook in list(self._optimizer_state_dict_pre_hooks.values()):
            hook(self)
        index_of = {}
        param_groups = []
        for group in self.param_groups:
            packed = {key: value for key, value in group.items() if key != "params"}
            for param in group["params"]:
                index_of.setdefault(id(param), len(index_of))
            packed["params"] = [index_of[id(param)] for param in group["params"]]
            param_groups.append(packed)
        state = {(index_of[id(key)] if isinstance(key, Tensor) else key): value for key, value in self.state.items()}
        state_dict = {"state": state, "param_groups": param_groups}
        for hook in list(self._optimizer_state_dict_post_hooks.values()):
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def load_state_dict(self, state_dict):
        """Restore a `state_dict()`; buffers are copied and converted to their parameter's dtype."""
        state_dict = dict(state_dict)
        for hook in list(self._optimizer_load_state_dict_pre_hooks.values()):
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(group["params"]) != len(saved["params"]) for group, saved in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
            )
        param_of = dict(
            zip(
                chain.from_iterable(group["params"] for group in saved_groups),
                chain.from_iterable(group["params"] for group in groups),
            )
        )
        state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in param_of:
                param = param_of[key]
                state[param] = _cast_state(param, value)
            else:
                state[key] = copy.deepcopy(value)
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})
        for hook in list(self._optimizer_load_state_dict_post_hooks.values()):
            hook(self)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__dict__.setdefault("_optimizer_step_pre_hooks", OrderedDict())
        self.__dict__.setdefault("_optimizer_step_post_hooks", OrderedDict())
        self._init_state_dict_hooks()

    def __repr__(self):
        """PyTorch's layout: each group's options sorted by name, groups separated by a blank line."""
        groups = []
        for index, group in enumerate(self.param_groups):
            lines = [f"Parameter Group {index}"]
            lines.extend(f"    {key}: {group[key]}" for key in sorted(group) if key != "params")
            groups.append("\n".join(lines))
        return type(self).__name__ + " (\n" + "\n\n".join(groups) + "\n)"


def _cast_state(param, value, key=None):
    """A copy of a loaded buffer in the parameter's dtype (the step counter keeps its own)."""
    if isinstance(value, Tensor):
        array = value._data
        if key != "step" and param._data.dtype.kind in "fV":
            array = array.astype(param._data.dtype)
        return new_tensor(array.copy())
    if isinstance(value, dict):
        return {k: _cast_state(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, v) for v in value)
    return value
