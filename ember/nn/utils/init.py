"""`skip_init`: build a module without running its parameter initialisation's meaning (PyTorch builds
it on the meta device and allocates empty memory; ember allocates and initialises as usual, which
gives values as arbitrary as `empty`'s, at the cost of the initialisation)."""

import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """`module_cls(*args, **kwargs)` whose parameter values are not to be relied on."""
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    return module_cls(*args, **kwargs)
