"""ember.vision.utils.make_grid and save_image against their definition."""

import numpy as np
import pytest

import ember
from ember.vision.utils import make_grid, save_image


def test_make_grid_tiles_with_padding():
    images = np.random.default_rng(0).random((5, 3, 4, 6)).astype(np.float32)
    grid = make_grid(ember.from_numpy(images), nrow=2, padding=1, pad_value=0.5).numpy()
    assert grid.shape == (3, 3 * 5 + 1, 2 * 7 + 1)
    for index in range(5):
        row, column = divmod(index, 2)
        top, left = 1 + row * 5, 1 + column * 7
        assert np.array_equal(grid[:, top : top + 4, left : left + 6], images[index])
    assert np.all(grid[:, 0] == 0.5) and np.all(grid[:, 11:, 8:] == 0.5)  # padding and the empty sixth cell


def test_make_grid_gray_lists_and_normalize():
    images = [ember.full((1, 2, 2), float(value)) for value in (2.0, 4.0)]
    grid = make_grid(images, padding=0, normalize=True).numpy()
    assert grid.shape == (3, 2, 4)
    assert np.allclose(grid[:, :, :2], 0.0) and np.allclose(grid[:, :, 2:], 1.0)
    ranged = make_grid(images, padding=0, normalize=True, value_range=(0.0, 8.0)).numpy()
    assert np.allclose(ranged[0, 0], [0.25, 0.25, 0.5, 0.5])
    each = make_grid(
        [ember.tensor([[[0.0, 2.0]]]), ember.tensor([[[1.0, 5.0]]])], padding=0, normalize=True, scale_each=True
    ).numpy()
    assert np.allclose(each[0, 0], [0.0, 1.0, 0.0, 1.0])
    single = make_grid(ember.zeros(1, 3, 5, 5))
    assert single.shape == (3, 5, 5)
    with pytest.raises(TypeError, match="value_range"):
        make_grid(images, normalize=True, value_range=[0, 1])


def test_save_image_writes_rounded_bytes(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    data = np.random.default_rng(1).random((3, 5, 7)).astype(np.float32)
    save_image(ember.from_numpy(data), tmp_path / "image.png")
    with Image.open(tmp_path / "image.png") as image:
        written = np.asarray(image)
    assert np.array_equal(written, np.clip(data * 255 + 0.5, 0, 255).astype(np.uint8).transpose(1, 2, 0))
    save_image(ember.rand(4, 1, 8, 8), tmp_path / "grid.png", nrow=2)
    with Image.open(tmp_path / "grid.png") as grid:
        assert grid.size == (2 * 10 + 2, 2 * 10 + 2)
