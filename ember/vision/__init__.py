"""ember.vision: torchvision's API for what tutorials use (datasets, transforms, tv_tensors, ops, utils,
models) on NumPy.

Under `python -m ember run` or after `ember.compat.install()`, `import torchvision` (and
`from torchvision import datasets, transforms, utils, models`) gives this package. Image files and
the datasets' samples need Pillow (`pip install pillow`, or the `ember-autograd[vision]` extra);
tensors alone do not.

`__version__` is the torchvision release whose API this package follows (the one paired with
PyTorch 2.13), marked `+ember` so that code checking it can tell the difference.
"""

import importlib

__version__ = "0.28.0+ember"

_SUBMODULES = ("datasets", "io", "models", "ops", "transforms", "tv_tensors", "utils")

__all__ = list(_SUBMODULES)


def __getattr__(name):
    # Submodules load on first use: `import torchvision` should not pay for models it never builds.
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_SUBMODULES))


def get_image_backend():
    """The image-file library the datasets use: always 'PIL' (torchvision's default)."""
    return "PIL"


def set_image_backend(backend):
    """Only 'PIL' is available (torchvision's 'accimage' is not)."""
    if backend != "PIL":
        raise ValueError(f"Invalid backend '{backend}'. ember.vision supports only 'PIL'")
