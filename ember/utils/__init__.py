"""Utilities: hook handles, data loading and checkpointing (`ember.utils.data`, `.checkpoint`, loaded on
first use)."""


def __getattr__(name):
    if name in ("data", "checkpoint"):
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'ember.utils' has no attribute '{name}'")
