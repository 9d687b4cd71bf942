"""`torch.utils._python_dispatch`: the base class of `__torch_dispatch__` modes.

PyTorch dispatches every aten-level op of a region to a TorchDispatchMode. ember's ops are not
routed through aten, so a mode cannot see them: entering one raises rather than intercept nothing.
Code that defines a mode imports; code that relies on one fails where it starts, with the reason.
"""

__all__ = ["TorchDispatchMode", "is_traceable_wrapper_subclass"]


class TorchDispatchMode:
    """Subclasses define `__torch_dispatch__(self, func, types, args=(), kwargs=None)`."""

    def __init__(self, _dispatch_key=None):
        self._dispatch_key = _dispatch_key

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        raise NotImplementedError(
            f"{type(self).__name__}: __torch_dispatch__ modes are not supported by ember (its ops do not go "
            "through PyTorch's aten dispatcher, so the mode would see none of them). For op-level "
            "interception, override __torch_function__ on a Tensor subclass instead."
        )

    def __exit__(self, *exception):
        return None

    @classmethod
    def push(cls, *args, **kwargs):
        return cls(*args, **kwargs)


def _get_current_dispatch_mode():
    """None: no dispatch mode is ever active in ember."""
    return None


def is_traceable_wrapper_subclass(tensor):
    """False: ember has no `__torch_dispatch__` wrapper subclasses."""
    return False
