"""`ember.random` (torch.random): the default generator's seeding and state, and `fork_rng`, which
runs a block with random draws that leave the stream outside it as it was."""

import contextlib

from .ops.creation import Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state

__all__ = [
    "Generator",
    "default_generator",
    "fork_rng",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "seed",
    "set_rng_state",
]


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
    """Restore the default generator's state on leaving the block (ember has no GPU generators to
    fork, so `devices` and `device_type` are accepted and have nothing to act on)."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
