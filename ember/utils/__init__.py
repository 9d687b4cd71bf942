"""Utilities: hook handles, data loading, checkpointing, TensorBoard logging, DLPack exchange, timing
code and the old weight loader (`ember.utils.data`, `.checkpoint`, `.tensorboard`, `.dlpack`,
`.benchmark`, `.model_zoo`, loaded on first use)."""


def __getattr__(name):
    if name in ("data", "checkpoint", "tensorboard", "dlpack", "benchmark", "model_zoo"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'ember.utils' has no attribute '{name}'")
