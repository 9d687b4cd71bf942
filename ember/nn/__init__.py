"""ember.nn: modules, parameters and layers, as torch.nn."""
from . import functional  # noqa: F401
