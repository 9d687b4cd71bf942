"""What a gradient hook returned, checked where it returns, naming the hook (as PyTorch does).

A hook that returns a string, a gradient of another dtype or another shape is the user's bug; without
these checks it surfaced later as `'str' object has no attribute '_data'`, as an error blaming the
next node (`MulBackward`), or not at all (the dtype was silently cast back).
"""

from .._tensor import Tensor

__all__ = ["checked_hook_result", "checked_hook_results"]


def checked_hook_result(hook, value, original):
    """`value`, returned by `hook` in place of the gradient `original` (a Tensor or None), if it is a
    tensor of the same dtype and shape; TypeError / RuntimeError naming the hook otherwise."""
    if not isinstance(value, Tensor):
        raise TypeError(
            f"expected Tensor, but hook '{_name(hook)}'{_where(hook)} returned "
            f"'{type(value).__name__}'; a gradient hook must return a tensor like its argument, or "
            "None to keep it"
        )
    if original is None:
        return value
    if value._data.dtype != original._data.dtype:
        raise RuntimeError(
            f"hook '{_name(hook)}' has changed the type of value (was {original.type()} got "
            f"{value.type()}){_where(hook)}; convert back with .to(grad.dtype)"
        )
    if value._data.shape != original._data.shape:
        raise RuntimeError(
            f"hook '{_name(hook)}' has changed the size of value (was {list(original.shape)} got "
            f"{list(value.shape)}){_where(hook)}; a hook must return a gradient of the "
            "shape it was given"
        )
    return value


def checked_hook_results(hook, values, originals):
    """The tuple a node hook returned in place of `originals`: same count, each entry None or checked
    as `checked_hook_result`."""
    if isinstance(values, Tensor) or not isinstance(values, (tuple, list)):
        values = (values,)
    if len(values) != len(originals):
        raise RuntimeError(
            f"hook '{_name(hook)}' has returned an incorrect number of values (got {len(values)}, "
            f"but expected {len(originals)}){_where(hook)}"
        )
    return tuple(
        value if value is None else checked_hook_result(hook, value, original)
        for value, original in zip(values, originals)
    )


def _name(hook):
    return getattr(hook, "__name__", type(hook).__name__)


def _where(hook):
    """` (defined at file.py:12)`: where the user's hook is, so the error leads to it."""
    code = getattr(getattr(hook, "__func__", hook), "__code__", None)
    return f" (defined at {code.co_filename}:{code.co_firstlineno})" if code is not None else ""
