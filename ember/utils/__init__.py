"""Utilities: hook handles and data loading (`ember.utils.data`, loaded on first use)."""


def __getattr__(name):
    if name == "data":
        import importlib
        return importlib.import_module(f"{__name__}.data")
    raise AttributeError(f"module 'ember.utils' has no attribute '{name}'")
