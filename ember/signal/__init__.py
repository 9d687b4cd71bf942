"""ember.signal, as torch.signal: the window functions of `ember.signal.windows` (SciPy's family)."""

from . import windows

__all__ = ["windows"]
