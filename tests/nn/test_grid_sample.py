"""F.affine_grid and F.grid_sample against PyTorch (values and gradients), with gradient checks."""

import itertools

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember.autograd import gradcheck, gradgradcheck

rng = np.random.default_rng(0)
CASES = [
    (dims, mode, padding, align)
    for dims, mode, padding, align in itertools.product(
        (2, 3), ("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection"), (True, False)
    )
    if not (mode == "bicubic" and dims == 3)
]


def _data(dims):
    image = rng.standard_normal((2, 3) + ((4, 5) if dims == 2 else (3, 4, 5)))
    grid = rng.uniform(-1.3, 1.3, (2,) + ((3, 6) if dims == 2 else (2, 3, 4)) + (dims,))  # some points outside
    return image, grid


@pytest.mark.parametrize("dims, mode, padding, align", CASES)
def test_grid_sample_matches_torch_with_gradients(dims, mode, padding, align):
    torch = pytest.importorskip("torch")
    image, grid = _data(dims)
    ours = [ember.tensor(a, requires_grad=True) for a in (image, grid)]
    theirs = [torch.tensor(a, requires_grad=True) for a in (image, grid)]
    output = F.grid_sample(*ours, mode, padding, align)
    expected = torch.nn.functional.grid_sample(*theirs, mode, padding, align)
    np.testing.assert_allclose(output.detach().numpy(), expected.detach().numpy(), rtol=1e-10, atol=1e-12)
    upstream = rng.standard_normal(tuple(expected.shape))
    output.backward(ember.tensor(upstream))
    expected.backward(torch.tensor(upstream))
    for mine, reference in zip(ours, theirs):
        np.testing.assert_allclose(mine.grad.numpy(), reference.grad.numpy(), rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_grid_sample_gradcheck_and_gradgradcheck(mode, padding):
    image = ember.tensor(rng.standard_normal((1, 2, 4, 4)), requires_grad=True)
    # points away from pixel centres and borders, where the interpolation is smooth
    grid = ember.tensor(rng.uniform(-0.8, 0.8, (1, 2, 3, 2)) + 0.013, requires_grad=True)

    def sample(image, grid):
        return F.grid_sample(image, grid, mode, padding, align_corners=False)

    assert gradcheck(sample, (image, grid))
    assert gradgradcheck(sample, (image, grid))


@pytest.mark.parametrize("dims", [2, 3])
def test_affine_grid_matches_torch_and_is_differentiable(dims):
    torch = pytest.importorskip("torch")
    theta = rng.standard_normal((2, dims, dims + 1))
    size = (2, 3) + ((4, 5) if dims == 2 else (3, 4, 5))
    for align in (True, False):
        ours = F.affine_grid(ember.tensor(theta), size, align).numpy()
        theirs = torch.nn.functional.affine_grid(torch.tensor(theta), size, align).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)
    assert gradcheck(lambda t: F.affine_grid(t, size, False), (ember.tensor(theta, requires_grad=True),))


def test_spatial_transformer_identity_reproduces_the_image():
    image = ember.randn(2, 3, 5, 6)
    identity = ember.tensor([[[1.0, 0, 0], [0, 1, 0]]]).expand(2, 2, 3)
    grid = F.affine_grid(identity, image.shape, align_corners=False)
    np.testing.assert_allclose(F.grid_sample(image, grid, align_corners=False).numpy(), image.numpy(), atol=1e-6)


def test_errors_and_the_align_corners_warning():
    image, grid = ember.ones(1, 1, 3, 3), ember.zeros(1, 2, 2, 2)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.grid_sample(image, grid)
    with pytest.raises(ValueError, match="expected mode to be 'bilinear', 'nearest' or 'bicubic'"):
        F.grid_sample(image, grid, mode="linear", align_corners=False)
    with pytest.raises(ValueError, match="expected padding_mode"):
        F.grid_sample(image, grid, padding_mode="wrap", align_corners=False)
    with pytest.raises(RuntimeError, match="same batch size"):
        F.grid_sample(ember.ones(2, 1, 3, 3), grid, align_corners=False)
    with pytest.raises(RuntimeError, match="bicubic interpolation only supports 4D input"):
        F.grid_sample(ember.ones(1, 1, 2, 2, 2), ember.zeros(1, 1, 1, 1, 3), mode="bicubic", align_corners=False)
    with pytest.raises(ValueError, match="Nx2x3"):
        F.affine_grid(ember.zeros(1, 3, 3), (1, 1, 2, 2), align_corners=False)
