"""Pillow, imported only when an image is made or read; a clear error naming what to install otherwise."""

import importlib

_INSTALL_HINT = "pip install pillow (or pip install 'ember-autograd[vision]')"


def pil_image():
    """The `PIL.Image` module, or ImportError saying how to install Pillow."""
    try:
        return importlib.import_module("PIL.Image")
    except ImportError:
        raise ImportError(
            f"this needs Pillow to work with images, and Pillow is not installed: {_INSTALL_HINT}"
        ) from None


def pil_module(name):
    """`PIL.<name>` (ImageEnhance, ImageOps, ...), with the same install hint when Pillow is missing."""
    pil_image()
    return importlib.import_module(f"PIL.{name}")


def is_pil_image(value):
    """True for a PIL image; never imports Pillow just to answer (nothing can be one if it is not loaded)."""
    import sys

    image_module = sys.modules.get("PIL.Image")
    return image_module is not None and isinstance(value, image_module.Image)
