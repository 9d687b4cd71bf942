"""torchvision.utils: make_grid (images tiled into one) and save_image (through Pillow)."""

import math

from .._backend import np
from .._tensor import Tensor, new_tensor
from ._pil import pil_image

__all__ = ["make_grid", "save_image"]


def _as_batch(tensor):
    if isinstance(tensor, (list, tuple)):
        if not all(isinstance(item, Tensor) for item in tensor):
            raise TypeError(
                f"tensor or list of tensors expected, got a list containing "
                f"{sorted({type(item).__name__ for item in tensor})}"
            )
        return np.stack([item.detach().numpy() for item in tensor])
    if not isinstance(tensor, Tensor):
        raise TypeError(f"tensor or list of tensors expected, got {type(tensor)}")
    return tensor.detach().numpy()


def _normalize(array, value_range):
    low, high = value_range if value_range is not None else (float(array.min()), float(array.max()))
    array = np.clip(array, low, high)
    return (array - low) / max(high - low, 1e-5)


def make_grid(tensor, nrow=8, padding=2, normalize=False, value_range=None, scale_each=False, pad_value=0.0):
    """Tile a batch (B, C, H, W) (or a list of (C, H, W) images) into one image, `nrow` images per row.

    Args:
        nrow: images per row. padding: pixels between images and around the grid.
        normalize: shift and scale to [0, 1], by `value_range` (min, max) or by the batch's min and max
            (each image's own with `scale_each`). pad_value: the colour of the padding.

    Returns a (3, H', W') tensor (one-channel images are repeated to 3, as torchvision does).
    Example: `save_image(make_grid(images, nrow=4), "batch.png")`.
    """
    array = _as_batch(tensor).copy()
    if array.ndim == 2:
        array = array[None]
    if array.ndim == 3:
        if array.shape[0] == 1:
            array = np.concatenate([array] * 3, axis=0)
        array = array[None]
    if array.ndim != 4:
        raise ValueError(f"make_grid expects a 4-D batch (B, C, H, W) or a list of images; got shape {array.shape}")
    if array.shape[1] == 1:
        array = np.concatenate([array] * 3, axis=1)
    if normalize:
        if value_range is not None and not isinstance(value_range, tuple):
            raise TypeError("value_range has to be a tuple (min, max) if specified. min and max are numbers")
        array = array.astype(np.result_type(array.dtype, np.float32))
        if scale_each:
            array = np.stack([_normalize(image, value_range) for image in array])
        else:
            array = _normalize(array, value_range)
    if array.shape[0] == 1:
        return new_tensor(np.ascontiguousarray(array[0]))
    count, channels, height, width = array.shape
    columns = min(nrow, count)
    rows = math.ceil(count / columns)
    cell_height, cell_width = height + padding, width + padding
    grid = np.full(
        (channels, cell_height * rows + padding, cell_width * columns + padding), pad_value, dtype=array.dtype
    )
    for index in range(count):
        row, column = divmod(index, columns)
        top, left = row * cell_height + padding, column * cell_width + padding
        grid[:, top : top + height, left : left + width] = array[index]
    return new_tensor(grid)


def save_image(tensor, fp, format=None, **kwargs):
    """Save a tensor image (or a batch, tiled by make_grid with **kwargs) to an image file with Pillow.

    Values are taken as [0, 1] and rounded to bytes. `fp` is a path or a file object; `format` is
    inferred from the file name unless given.
    """
    grid = make_grid(tensor, **kwargs).numpy()
    array = np.clip(grid * 255 + 0.5, 0, 255).astype(np.uint8).transpose(1, 2, 0)
    image = pil_image().fromarray(np.ascontiguousarray(array[:, :, 0] if array.shape[2] == 1 else array))
    image.save(fp, format=format)
