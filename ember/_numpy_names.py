"""NumPy's names for PyTorch's arguments: `axis` for `dim`, `keepdims` for `keepdim`.

PyTorch's argument parser accepts both spellings for every op (`x.sum(axis=1, keepdims=True)`),
so code written by NumPy hands runs. ember's ops are plain Python functions with PyTorch's names;
a call that spells them NumPy's way fails to bind, and is then retried with the names renamed, so
the usual call pays nothing.
"""

import functools
import inspect

__all__ = ["accepting_numpy_names", "caused_by_numpy_names", "retry_renamed", "takes_dim"]

_PYTORCH_NAME = {"axis": "dim", "keepdims": "keepdim"}


def caused_by_numpy_names(error):
    """Whether `error` is a call's failure to bind `axis=` or `keepdims=`."""
    if type(error) is not TypeError:
        return False
    message = str(error)
    return any(f"unexpected keyword argument '{name}'" in message for name in _PYTORCH_NAME)


def retry_renamed(function, args, kwargs):
    """Call `function` again with NumPy's names replaced by PyTorch's."""
    renamed = {}
    for name, value in kwargs.items():
        new = _PYTORCH_NAME.get(name, name)
        if new in renamed or new != name and new in kwargs:
            raise TypeError(f"{function.__name__}() got both '{new}' and its NumPy name '{name}'") from None
        renamed[new] = value
    return function(*args, **renamed)


def accepting_numpy_names(function):
    """`function` (which takes `dim` or `keepdim`), also callable with `axis=` / `keepdims=`."""

    @functools.wraps(function)
    def call(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except TypeError as error:
            if not (kwargs and caused_by_numpy_names(error)):
                raise
        return retry_renamed(function, args, kwargs)

    return call


def takes_dim(function):
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
    return "dim" in parameters or "keepdim" in parameters
