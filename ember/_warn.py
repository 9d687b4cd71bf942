"""Warnings shown at the user's line, as PyTorch's are.

An ember op reached through its public name runs a frame deeper than when it is called directly
(the dispatching wrapper, see `_torch_function`), and many ops call others, so no fixed
`stacklevel` names the caller's line. `warn` attributes the warning to the first frame outside the
ember package: the line of the user's code that made the call (and "once per location" means per
user line).
"""

import sys
import warnings

__all__ = ["warn"]


def warn(message, category=UserWarning, stacklevel=None, **options):
    """warnings.warn at the nearest caller outside ember (`stacklevel` is accepted and not needed)."""
    frame, level = sys._getframe(1), 2
    while frame is not None and _in_ember(frame):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level - 1 if frame is None else level, **options)


def _in_ember(frame):
    name = frame.f_globals.get("__name__", "")
    return name == "ember" or name.startswith("ember.")
