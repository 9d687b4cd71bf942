"""`torch.overrides`, as far as code that checks for it needs: ember has no `__torch_function__`
dispatch, so no argument ever overrides an op (the checks answer False and the op runs as usual)."""

__all__ = ["has_torch_function", "has_torch_function_unary", "has_torch_function_variadic", "is_tensor_like"]


def has_torch_function(relevant_args):
    """False: ember does not dispatch to `__torch_function__` (see the module docstring)."""
    return False


def has_torch_function_unary(arg):
    return False


def has_torch_function_variadic(*args):
    return False


def is_tensor_like(inp):
    """Whether `inp` is a Tensor (or an instance of a subclass)."""
    from ._tensor import Tensor

    return isinstance(inp, Tensor)
