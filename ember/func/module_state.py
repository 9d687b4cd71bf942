"""Calling a module with other parameters: `functional_call` and `stack_module_state`."""

from collections.abc import Mapping

__all__ = ["functional_call", "stack_module_state", "replace_all_batch_norm_modules_"]

_MISSING = object()


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """Call `module(*args, **kwargs)` with some parameters and buffers replaced for this one call.

    Args:
        module: an `nn.Module`.
        parameter_and_buffer_dicts: a dict `{qualified name: tensor}` (as `named_parameters()` names
            them, e.g. `"0.weight"`), or a tuple of such dicts (a name may appear in only one).
        args: the positional arguments (a single tensor or a tuple); kwargs: the keyword arguments.
        tie_weights: a parameter shared under several names (tied weights) takes the replacement given
            for any of them; giving different tensors for tied names is an error.
        strict: every parameter and buffer must be given, and no other name.

    Returns:
        What the module returns. The module's own parameters and buffers are back in place afterwards,
        even if the call raised.

    Example::

        params = {name: p.detach() for name, p in model.named_parameters()}
        out = functional_call(model, params, (x,))
        per_sample = vmap(grad(lambda p, x, y: loss_fn(functional_call(model, p, (x[None],)), y[None])),
                          in_dims=(None, 0, 0))(params, x, y)
    """
    replacements = _merge(parameter_and_buffer_dicts)
    if tie_weights:
        replacements = _follow_ties(module, replacements)
    if strict:
        _check_strict(module, replacements)
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    restore = []
    try:
        for name, value in replacements.items():
            restore.append(_swap(module, name, value))
        return module(*args, **(kwargs or {}))
    finally:
        for undo in reversed(restore):
            undo()


def _merge(dicts):
    if isinstance(dicts, Mapping):
        return dict(dicts)
    if not isinstance(dicts, (tuple, list)) or not all(isinstance(item, Mapping) for item in dicts):
        raise ValueError(
            f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got {type(dicts)}"
        )
    merged, repeated = {}, set()
    for item in dicts:
        repeated.update(name for name in item if name in merged)
        merged.update(item)
    if repeated:
        raise ValueError(
            f"{sorted(repeated)} appeared in multiple dictionaries; behavior of functional call is ambiguous"
        )
    return merged


def _named_tensors(module):
    yield from module.named_parameters(remove_duplicate=False)
    yield from module.named_buffers(remove_duplicate=False)


def _follow_ties(module, replacements):
    """Give every name of a tied tensor the replacement given for one of its names."""
    names_of = {}
    for name, tensor in _named_tensors(module):
        names_of.setdefault(id(tensor), []).append(name)
    result = dict(replacements)
    for names in names_of.values():
        if len(names) < 2:
            continue
        given = [name for name in names if name in replacements]
        if not given:
            continue
        values = {id(replacements[name]) for name in given}
        if len(values) > 1:
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(given)}, which are tied. "
                "Consider using tie_weights=False"
            )
        for name in names:
            result[name] = replacements[given[0]]
    return result


def _check_strict(module, replacements):
    expected = [name for name, _ in _named_tensors(module)]
    missing = [name for name in expected if name not in replacements]
    unexpected = [name for name in replacements if name not in set(expected)]
    if missing or unexpected:
        lines = []
        if unexpected:
            lines.append("Unexpected key(s): " + ", ".join(repr(name) for name in unexpected) + ".")
        if missing:
            lines.append("Missing key(s): " + ", ".join(repr(name) for name in missing) + ".")
        raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t" + "\n\t".join(lines))


def _swap(module, name, value):
    """Put `value` in place of the parameter/buffer/attribute `name`; return what undoes it."""
    owner_path, _, attribute = name.rpartition(".")
    owner = module.get_submodule(owner_path) if owner_path else module
    for store_name in ("_parameters", "_buffers"):
        store = owner.__dict__.get(store_name)
        if store is not None and attribute in store:
            original = store[attribute]
            store[attribute] = value

            def undo(store=store, original=original):
                store[attribute] = original

            return undo
    original = owner.__dict__.get(attribute, _MISSING)
    owner.__dict__[attribute] = value

    def undo_attribute():
        if original is _MISSING:
            owner.__dict__.pop(attribute, None)
        else:
            owner.__dict__[attribute] = original

    return undo_attribute


def stack_module_state(models):
    """Stack the parameters and buffers of models of the same architecture along a new first dimension,
    for `vmap` over an ensemble: returns `(params, buffers)`, dicts of stacked tensors.

    Stacked parameters are new leaves (requiring grad if the models' parameters do); buffers are stacked
    as they are.

    Example::

        params, buffers = stack_module_state(models)
        base = copy.deepcopy(models[0]).to("meta")   # or any one model
        outputs = vmap(lambda p, b, x: functional_call(base, (p, b), (x,)), in_dims=(0, 0, None))(params, buffers, x)
    """
    from .. import stack

    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if any(type(model) is not type(models[0]) for model in models):
        raise RuntimeError(
            "stack_module_state: Expected all models to be of the same class, got "
            f"{sorted({type(model).__name__ for model in models})}"
        )
    if not (all(model.training for model in models) or not any(model.training for model in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    params = {}
    for name, _ in models[0].named_parameters():
        column = [dict(model.named_parameters())[name] for model in models]
        stacked = stack([tensor.detach() for tensor in column])
        params[name] = stacked.requires_grad_(all(tensor.requires_grad for tensor in column))
    buffers = {
        name: stack([dict(model.named_buffers())[name] for model in models]) for name, _ in models[0].named_buffers()
    }
    return params, buffers


def replace_all_batch_norm_modules_(root):
    """Make every batch norm in `root` (itself included) normalize by the batch's own statistics and
    keep no running ones: running_mean/var and num_batches_tracked become None and
    track_running_stats False, in place. Under `vmap`, running statistics would be written once per
    sample; this is how PyTorch's function transforms take batch norm. Returns `root`."""
    from ..nn.modules.normalization import _BatchNorm

    for module in root.modules():
        if isinstance(module, _BatchNorm) and module.track_running_stats:
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root
