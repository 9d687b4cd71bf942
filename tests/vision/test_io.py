"""ember.vision.io: reading and writing image files as uint8 (C, H, W) tensors through Pillow."""

import numpy as np
import pytest

import ember
from ember.vision import io

Image = pytest.importorskip("PIL.Image")


def test_read_image_modes(tmp_path):
    pixels = np.random.default_rng(0).integers(0, 256, (5, 7, 3), dtype=np.uint8)
    Image.fromarray(pixels).save(tmp_path / "rgb.png")
    image = io.read_image(str(tmp_path / "rgb.png"))
    assert image.dtype is ember.uint8 and np.array_equal(image.numpy(), pixels.transpose(2, 0, 1))
    gray = io.read_image(tmp_path / "rgb.png", io.ImageReadMode.GRAY)
    assert np.array_equal(gray.numpy()[0], np.asarray(Image.fromarray(pixels).convert("L")))
    assert io.read_image(tmp_path / "rgb.png", io.ImageReadMode.RGB_ALPHA).shape == (4, 5, 7)


def test_write_png_and_decode_image_round_trip(tmp_path):
    tensor = ember.from_numpy(np.random.default_rng(1).integers(0, 256, (3, 4, 6), dtype=np.uint8))
    io.write_png(tensor, str(tmp_path / "out.png"))
    assert np.array_equal(io.read_image(tmp_path / "out.png").numpy(), tensor.numpy())
    encoded = ember.from_numpy(np.frombuffer((tmp_path / "out.png").read_bytes(), dtype=np.uint8).copy())
    assert np.array_equal(io.decode_image(encoded).numpy(), tensor.numpy())
    with pytest.raises(ValueError, match="uint8"):
        io.write_png(tensor.float(), str(tmp_path / "bad.png"))


def test_read_image_names_an_undecodable_file(tmp_path):
    (tmp_path / "broken.jpg").write_bytes(b"not a jpeg")
    with pytest.raises(OSError, match="broken.jpg"):
        io.read_image(tmp_path / "broken.jpg")
