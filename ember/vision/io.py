"""torchvision.io's image file functions ember provides: read_image and decode_image through Pillow."""

from enum import Enum

from .._backend import np
from .._tensor import new_tensor
from ._pil import pil_image

__all__ = ["ImageReadMode", "read_image", "decode_image", "write_png", "write_jpeg"]


class ImageReadMode(Enum):
    """How to convert the decoded image (torchvision's names)."""

    UNCHANGED = 0
    GRAY = 1
    GRAY_ALPHA = 2
    RGB = 3
    RGB_ALPHA = 4


_PIL_MODE = {
    ImageReadMode.GRAY: "L",
    ImageReadMode.GRAY_ALPHA: "LA",
    ImageReadMode.RGB: "RGB",
    ImageReadMode.RGB_ALPHA: "RGBA",
}


def _image_to_tensor(image, mode):
    if isinstance(mode, str):
        mode = ImageReadMode[mode.upper()]
    if mode != ImageReadMode.UNCHANGED:
        image = image.convert(_PIL_MODE[mode])
    elif image.mode not in ("L", "LA", "RGB", "RGBA"):
        image = image.convert("RGBA" if "A" in image.getbands() else "RGB")
    array = np.asarray(image, dtype=np.uint8)
    if array.ndim == 2:
        array = array[:, :, None]
    return new_tensor(np.ascontiguousarray(array.transpose(2, 0, 1)))


def read_image(path, mode=ImageReadMode.UNCHANGED):
    """Read an image file into a uint8 tensor of shape (C, H, W), as torchvision.io.read_image.

    Example: `image = read_image("cat.png", ImageReadMode.RGB)`.
    """
    from .datasets.folder import pil_loader_raw

    return _image_to_tensor(pil_loader_raw(path), mode)


def decode_image(input, mode=ImageReadMode.UNCHANGED):
    """Decode encoded image bytes (a uint8 tensor, or a path) into a uint8 (C, H, W) tensor."""
    import io as _io
    import os

    if isinstance(input, (str, os.PathLike)):
        return read_image(input, mode)
    data = bytes(np.asarray(input.numpy(), dtype=np.uint8)) if hasattr(input, "numpy") else bytes(input)
    with pil_image().open(_io.BytesIO(data)) as image:
        image.load()
        return _image_to_tensor(image, mode)


def _write(tensor, filename, format, **options):
    array = tensor.detach().numpy()
    if array.dtype != np.uint8 or array.ndim != 3 or array.shape[0] not in (1, 3, 4):
        raise ValueError(f"expected a uint8 tensor of shape (1, 3 or 4, H, W); got {tensor.dtype} {tuple(array.shape)}")
    array = array.transpose(1, 2, 0)
    image = pil_image().fromarray(array[:, :, 0] if array.shape[2] == 1 else array)
    image.save(filename, format=format, **options)


def write_png(input, filename, compression_level=6):
    """Write a uint8 (C, H, W) tensor to a PNG file."""
    _write(input, filename, "PNG", compress_level=compression_level)


def write_jpeg(input, filename, quality=75):
    """Write a uint8 (C, H, W) tensor to a JPEG file."""
    _write(input, filename, "JPEG", quality=quality)
