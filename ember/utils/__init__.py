"""Utilities: hook handles, data loading, checkpointing and TensorBoard logging (`ember.utils.data`,
`.checkpoint`, `.tensorboard`, loaded on first use)."""


def __getattr__(name):
    if name in ("data", "checkpoint", "tensorboard"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'ember.utils' has no attribute '{name}'")
