"""Image transforms on PIL images, through Pillow's own operations (as torchvision does)."""

from ..._backend import np
from .._pil import is_pil_image, pil_image, pil_module


def check_image(image):
    if not is_pil_image(image):
        raise TypeError(f"img should be PIL Image. Got {type(image)}")


def get_dimensions(image):
    check_image(image)
    channels = len(image.getbands()) if hasattr(image, "getbands") else 1
    width, height = image.size
    return [channels, height, width]


def parse_fill(fill, image, name="fillcolor"):
    """The fill value in the form Pillow expects for this image's mode (a number or a tuple per band)."""
    bands = len(image.getbands())
    if fill is None:
        fill = 0
    if isinstance(fill, (int, float)) and bands > 1:
        fill = tuple([fill] * bands)
    if isinstance(fill, (list, tuple)):
        if len(fill) == 1:
            fill = fill * bands
        if len(fill) != bands:
            raise ValueError(
                f"The number of elements in 'fill' does not match the number of bands of the image "
                f"({len(fill)} != {bands})"
            )
        fill = tuple(int(value) if image.mode != "F" else float(value) for value in fill)
        if bands == 1:
            fill = fill[0]
    elif image.mode != "F":
        fill = int(fill)
    return {name: fill}


def resize(image, size, interpolation):
    check_image(image)
    height, width = size
    return image.resize((width, height), interpolation)


def crop(image, top, left, height, width):
    check_image(image)
    return image.crop((left, top, left + width, top + height))


def hflip(image):
    check_image(image)
    return image.transpose(pil_image().Transpose.FLIP_LEFT_RIGHT)


def vflip(image):
    check_image(image)
    return image.transpose(pil_image().Transpose.FLIP_TOP_BOTTOM)


def pad(image, padding, fill, padding_mode):
    """Pad by (left, top, right, bottom): constant through ImageOps.expand, other modes through np.pad."""
    check_image(image)
    left, top, right, bottom = padding
    if padding_mode == "constant" and min(padding) >= 0:
        if image.mode == "P":
            palette = image.getpalette()
            result = pil_module("ImageOps").expand(image, border=tuple(padding), **parse_fill(fill, image, "fill"))
            result.putpalette(palette)
            return result
        return pil_module("ImageOps").expand(image, border=tuple(padding), **parse_fill(fill, image, "fill"))
    if min(padding) < 0:
        width, height = image.size
        image = image.crop((max(-left, 0), max(-top, 0), width - max(-right, 0), height - max(-bottom, 0)))
        left, top, right, bottom = (max(value, 0) for value in padding)
    array = np.asarray(image)
    widths = [(top, bottom), (left, right)] + [(0, 0)] * (array.ndim - 2)
    if padding_mode == "constant":
        fill_value = parse_fill(fill, image, "fill")["fill"]
        if isinstance(fill_value, tuple):
            channels = [
                np.pad(array[..., index], widths[:2], mode="constant", constant_values=value)
                for index, value in enumerate(fill_value)
            ]
            padded = np.stack(channels, axis=-1)
        else:
            padded = np.pad(array, widths, mode="constant", constant_values=fill_value)
    else:
        padded = np.pad(array, widths, mode=padding_mode)
    result = pil_image().fromarray(np.ascontiguousarray(padded))
    if image.mode == "P":
        result.putpalette(image.getpalette())
    return result


def rotate(image, angle, interpolation, expand, center, fill):
    check_image(image)
    return image.rotate(angle, interpolation, expand, center, **parse_fill(fill, image))


def affine(image, matrix, interpolation, fill):
    check_image(image)
    return image.transform(image.size, pil_image().Transform.AFFINE, matrix, interpolation, **parse_fill(fill, image))


def to_grayscale(image, num_output_channels):
    check_image(image)
    gray = image.convert("L")
    if num_output_channels == 1:
        return gray
    if num_output_channels == 3:
        array = np.asarray(gray)
        return pil_image().fromarray(np.dstack([array, array, array]), "RGB")
    raise ValueError(f"num_output_channels should be either 1 or 3, got {num_output_channels}")


def _enhance(image, kind, factor):
    check_image(image)
    return getattr(pil_module("ImageEnhance"), kind)(image).enhance(factor)


def adjust_brightness(image, factor):
    return _enhance(image, "Brightness", factor)


def adjust_contrast(image, factor):
    return _enhance(image, "Contrast", factor)


def adjust_saturation(image, factor):
    return _enhance(image, "Color", factor)


def adjust_hue(image, factor):
    check_image(image)
    mode = image.mode
    if mode in ("L", "1", "I", "F"):
        return image
    hue, saturation, value = image.convert("HSV").split()
    shift = np.uint8(int(factor * 255) % 256)  # a hue turn of `factor`, wrapping around the circle
    with np.errstate(over="ignore"):
        shifted = np.asarray(hue, dtype=np.uint8) + shift
    hue = pil_image().fromarray(shifted, "L")
    return pil_image().merge("HSV", (hue, saturation, value)).convert(mode)


def adjust_gamma(image, gamma, gain):
    check_image(image)
    mode = image.mode
    rgb = image.convert("RGB")
    table = [int((255 + 1 - 1e-3) * gain * pow(level / 255.0, gamma)) for level in range(256)] * 3
    return rgb.point(table).convert(mode)


def invert(image):
    check_image(image)
    return pil_module("ImageOps").invert(image)


def posterize(image, bits):
    check_image(image)
    return pil_module("ImageOps").posterize(image, bits)


def solarize(image, threshold):
    check_image(image)
    return pil_module("ImageOps").solarize(image, threshold)


def autocontrast(image):
    check_image(image)
    return pil_module("ImageOps").autocontrast(image)


def equalize(image):
    check_image(image)
    return pil_module("ImageOps").equalize(image)


def adjust_sharpness(image, factor):
    return _enhance(image, "Sharpness", factor)
