"""The allow-list of classes and functions a `weights_only` load may unpickle, as torch.serialization keeps it.

`torch.save(model)` pickles the model's classes; PyTorch 2.6+ loads such a file by default only when the
caller has named those classes as trusted (`add_safe_globals([Net, nn.Conv2d])`, or the `safe_globals`
context manager around one `load`). The list is process-wide, as in PyTorch. An entry is the object
itself or an `(object, "module.qualified_name")` pair for an object pickled under another name.
"""

import collections

from ._backend import device
from ._dtype import _dtype_by_name
from ._size import Size

__all__ = ["add_safe_globals", "clear_safe_globals", "get_safe_globals", "safe_globals", "allowed_globals"]

_user_safe_globals = []

# Always allowed, as PyTorch allows them: what ember pickles around a module's own classes (hook
# dictionaries, dtype / device / Size attributes). Named at each load, as `ember run` renames some.
_ALWAYS_ALLOWED = (collections.OrderedDict, _dtype_by_name, device, Size)


def add_safe_globals(safe_globals):
    """Trust these classes/functions (or `(object, "module.name")` pairs) in `weights_only` loads."""
    for entry in safe_globals:
        _pickled_name(entry)  # refuse a malformed entry now, not at the next load
        _user_safe_globals.append(entry)


def get_safe_globals():
    """The entries added by `add_safe_globals` (and active `safe_globals` blocks), oldest first."""
    return list(_user_safe_globals)


def clear_safe_globals():
    """Forget every entry added by `add_safe_globals`."""
    _user_safe_globals.clear()


class safe_globals:
    """Trust `safe_globals` only inside a `with` block: `with safe_globals([Net]): model = load(f)`."""

    def __init__(self, safe_globals):
        self.safe_globals = list(safe_globals)

    def __enter__(self):
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc_info):
        for entry in self.safe_globals:  # entries added inside the block by add_safe_globals stay
            _user_safe_globals.remove(entry)
        return False


def _pickled_name(entry):
    if isinstance(entry, tuple):
        if len(entry) != 2 or not isinstance(entry[1], str):
            raise ValueError(f"a safe global given as a tuple must be (object, 'module.name'), got {entry!r}")
        return entry[1]
    module, qualname = getattr(entry, "__module__", None), getattr(entry, "__qualname__", None)
    if module is None or qualname is None:
        raise TypeError(
            f"a safe global must be a class or function (or an (object, 'module.name') pair), got {entry!r}"
        )
    return f"{module}.{qualname}"


def allowed_globals():
    """`{"module.name": object}` for every global a weights-only load may resolve now."""
    allowed = {}
    for entry in (*_ALWAYS_ALLOWED, *_user_safe_globals):
        allowed[_pickled_name(entry)] = entry[0] if isinstance(entry, tuple) else entry
    return allowed
