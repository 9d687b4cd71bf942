"""Handles returned by every `register_*hook` call."""

import itertools

__all__ = ["RemovableHandle"]

_next_id = itertools.count()


class RemovableHandle:
    """Removes the hook it was returned for: `handle.remove()`, or leave a `with handle:` block."""

    def __init__(self, hooks_dict, hook=None, *, extra_dict=None):
        self.hooks_dict = hooks_dict
        self.id = next(_next_id)
        if hook is not None:
            hooks_dict[self.id] = hook
        # Side tables keyed by the same id (e.g. which module hooks take kwargs), cleaned up on remove.
        self.extra_dicts = [extra_dict] if isinstance(extra_dict, dict) else list(extra_dict or ())

    def remove(self):
        """Unregister the hook (again is harmless); `with handle:` removes it on leaving the block."""
        self.hooks_dict.pop(self.id, None)
        for extra in self.extra_dicts:
            extra.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()
