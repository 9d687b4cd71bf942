"""`ember.backends.opt_einsum`: einsum contraction order is NumPy's (`optimize=True` path search)."""

__all__ = ["is_available", "get_opt_einsum", "enabled", "strategy"]

enabled = True
strategy = "auto"


def is_available():
    return False


def get_opt_einsum():
    return None
