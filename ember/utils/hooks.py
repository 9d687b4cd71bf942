"""Handles returned by every `register_*hook` call."""
import itertools

__all__ = ["RemovableHandle"]

_next_id = itertools.count()


class RemovableHandle:
    """Removes the hook it was returned for: `handle.remove()`, or leave a `with handle:` block."""

    def __init__(self, hooks_dict, hook=None):
        self.hooks_dict = hooks_dict
        self.id = next(_next_id)
        if hook is not None:
            hooks_dict[self.id] = hook

    def remove(self):
        self.hooks_dict.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()
