"""`swap_in_optimizer_params_and_state`: run an optimizer on other parameters and state for a while
(functional or traced training steps), leaving the live optimizer untouched afterwards."""

import contextlib
from collections import defaultdict

from .._tensor import Tensor

__all__ = ["swap_in_optimizer_params_and_state"]

_NAME = "swap_in_optimizer_params_and_state"


def _check_state(state):
    if not isinstance(state, dict):
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['state'] to be a dict mapping packed parameter ids "
            f"to per-param state dicts, got {type(state).__name__}."
        )
    if any(isinstance(key, Tensor) for key in state):
        raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style state keyed by packed parameter ids.")
    if any(isinstance(key, int) and not isinstance(value, dict) for key, value in state.items()):
        raise RuntimeError(f"{_NAME} requires per-parameter optimizer state entries to be dictionaries.")
    return state


def _check_group(index, live, swapin):
    """The swap-in group must be the state_dict form of the live one: packed ids, the same keys."""
    if not isinstance(swapin, dict):
        raise RuntimeError(f"{_NAME} requires each optimizer param group to be a dictionary.")
    ids = swapin.get("params")
    if not isinstance(ids, list) or not all(isinstance(param_id, int) for param_id in ids):
        raise RuntimeError(
            f"{_NAME} requires optimizer.state_dict()-style param_groups[*]['params'] entries keyed by "
            "packed parameter ids."
        )
    if len(live["params"]) != len(ids):
        raise RuntimeError(
            f"swapin_optim_state param group {index} has a different number of params than the live "
            "optimizer param group."
        )
    swapin_only, live_only = [k for k in swapin if k not in live], [k for k in live if k not in swapin]
    if swapin_only or live_only:
        raise RuntimeError(
            f"{_NAME} requires optimizer.state_dict()-style param group keys to exactly match the live "
            f"optimizer group keys for group {index}. Keys only in swap-in: {swapin_only}. Keys only in "
            f"live: {live_only}."
        )
    return ids


def _plan(optimizer, swapin_parameters, swapin_optim_state):
    """Check everything first; returns the packed state and, per group, (live group, swap-in group, params)."""
    if not optimizer.state:
        raise RuntimeError(f"{_NAME} requires initialized optimizer state.")
    if not isinstance(swapin_optim_state, dict):
        raise RuntimeError(f"{_NAME} requires a DCP-style optimizer state_dict.")
    state = _check_state(swapin_optim_state.get("state"))
    groups = swapin_optim_state.get("param_groups")
    if not isinstance(groups, list):
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['param_groups'] to be a list of param-group dicts, "
            f"got {type(groups).__name__}."
        )
    if len(groups) != len(optimizer.param_groups):
        raise RuntimeError("swapin_optim_state has a different number of parameter groups than the live optimizer.")
    parameters = list(swapin_parameters.values())
    plan, used_ids, offset = [], set(), 0
    for index, (live, swapin) in enumerate(zip(optimizer.param_groups, groups)):
        ids = _check_group(index, live, swapin)
        used_ids.update(ids)
        if offset + len(ids) > len(parameters):
            raise RuntimeError(
                f"{_NAME} requires the explicit parameter state to match optimizer.param_groups ordering."
            )
        plan.append((live, swapin, parameters[offset : offset + len(ids)]))
        offset += len(ids)
    extra = [key for key in state if key not in used_ids]
    if extra:
        raise RuntimeError(
            f"{_NAME} requires swapin_optim_state['state'] to be keyed only by packed parameter ids "
            f"from param_groups[*]['params']; got extra keys {extra!r}."
        )
    return state, plan


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(optimizer, swapin_parameters, swapin_optim_state):
    """Within the block, `optimizer` steps `swapin_parameters` (a dict, in the optimizer's parameter order)
    with the options and state of `swapin_optim_state` (an `optimizer.state_dict()`); on exit its own
    parameters, options and state are back. In-place changes to the swap-in state's tensors are kept in
    `swapin_optim_state`; the optimizer's state must already exist (step it once first).

        with swap_in_optimizer_params_and_state(optimizer, dict(model.named_parameters()), saved):
            optimizer.step()
    """
    state, plan = _plan(optimizer, swapin_parameters, swapin_optim_state)
    live_state = optimizer.state
    live_groups = [dict(group) for group in optimizer.param_groups]
    try:
        swapped_state = defaultdict(dict)
        for live, swapin, params in plan:
            live.update({key: value for key, value in swapin.items() if key != "params"})
            live["params"] = params
            for param, param_id in zip(params, swapin["params"]):
                swapped_state[param] = dict(state.get(param_id, {}))
        optimizer.state = swapped_state
        yield
    finally:
        for group, saved in zip(optimizer.param_groups, live_groups):
            group.clear()
            group.update(saved)
        optimizer.state = live_state
