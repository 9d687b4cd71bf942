"""Utilities: hook handles and data loading (`ember.utils.data`)."""
from . import data  # noqa: E402,F401  (`torch.utils.data` is reachable after `import torch`)
