"""Differential tests: ember.vision's transforms and models against real torchvision on the same inputs.

They run where torchvision can be installed beside torch 2.13 and skip elsewhere. ember itself never
imports torch or torchvision; this file compares the two from outside.
"""

import numpy as np
import pytest

import ember
from ember.vision import models as ember_models
from ember.vision import transforms as ember_transforms
from ember.vision.transforms import functional as ember_functional

torch = pytest.importorskip("torch")
torchvision = pytest.importorskip("torchvision")
Image = pytest.importorskip("PIL.Image")
tv_transforms = pytest.importorskip("torchvision.transforms")
tv_functional = pytest.importorskip("torchvision.transforms.functional")


@pytest.fixture
def image():
    return Image.fromarray(np.random.default_rng(0).integers(0, 256, (23, 31, 3), dtype=np.uint8))


def as_numpy(value):
    if isinstance(value, Image.Image):
        return np.asarray(value)
    return value.detach().numpy() if hasattr(value, "detach") else np.asarray(value)


DETERMINISTIC = [
    ("Resize(12)", lambda T: T.Resize(12)),
    ("Resize((10, 17), bicubic)", lambda T: T.Resize((10, 17), interpolation=T.InterpolationMode.BICUBIC)),
    ("CenterCrop(15)", lambda T: T.CenterCrop(15)),
    ("CenterCrop(40)", lambda T: T.CenterCrop(40)),
    ("Pad reflect", lambda T: T.Pad((1, 2, 3, 4), padding_mode="reflect")),
    ("Pad fill", lambda T: T.Pad(2, fill=(10, 20, 30))),
    ("Grayscale(3)", lambda T: T.Grayscale(3)),
    ("ToTensor", lambda T: T.ToTensor()),
    ("PILToTensor", lambda T: T.PILToTensor()),
    ("ToTensor+Normalize", lambda T: T.Compose([T.ToTensor(), T.Normalize((0.4, 0.5, 0.6), (0.2, 0.3, 0.4))])),
    ("GaussianBlur fixed", lambda T: T.GaussianBlur(5, sigma=1.2)),
]


@pytest.mark.parametrize("name, build", DETERMINISTIC, ids=[name for name, _ in DETERMINISTIC])
def test_deterministic_transform_on_a_pil_image(image, name, build):
    ours, theirs = as_numpy(build(ember_transforms)(image)), as_numpy(build(tv_transforms)(image))
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    np.testing.assert_allclose(ours.astype(np.float64), theirs.astype(np.float64), atol=1e-6)


FUNCTIONS = [
    ("adjust_brightness", lambda F, x: F.adjust_brightness(x, 1.4)),
    ("adjust_contrast", lambda F, x: F.adjust_contrast(x, 0.6)),
    ("adjust_saturation", lambda F, x: F.adjust_saturation(x, 1.7)),
    ("adjust_hue", lambda F, x: F.adjust_hue(x, 0.12)),
    ("rotate", lambda F, x: F.rotate(x, 27.0)),
    ("rotate expand", lambda F, x: F.rotate(x, 27.0, expand=True)),
    ("affine", lambda F, x: F.affine(x, angle=12.0, translate=[2, -3], scale=1.1, shear=[5.0, 0.0])),
    ("hflip", lambda F, x: F.hflip(x)),
    ("resized_crop", lambda F, x: F.resized_crop(x, 2, 3, 15, 20, [9, 9])),
]


@pytest.mark.parametrize("name, apply", FUNCTIONS, ids=[name for name, _ in FUNCTIONS])
def test_functional_on_pil_images(image, name, apply):
    ours, theirs = as_numpy(apply(ember_functional, image)), as_numpy(apply(tv_functional, image))
    assert ours.shape == theirs.shape
    assert np.abs(ours.astype(int) - theirs.astype(int)).max() <= 1


@pytest.mark.parametrize("name, apply", FUNCTIONS, ids=[name for name, _ in FUNCTIONS])
def test_functional_on_float_tensors(image, name, apply):
    data = np.asarray(image).transpose(2, 0, 1).astype(np.float32) / 255
    ours = apply(ember_functional, ember.from_numpy(data.copy())).numpy()
    theirs = apply(tv_functional, torch.from_numpy(data.copy())).numpy()
    assert ours.shape == theirs.shape
    if name.startswith(("rotate", "affine")):  # nearest-neighbour sampling may break ties differently
        assert (np.abs(ours - theirs) < 1e-5).mean() > 0.97
    else:
        np.testing.assert_allclose(ours, theirs, atol=1e-5)


@pytest.mark.parametrize("name", ["resnet18", "alexnet"])
def test_model_state_dict_keys_and_shapes(name):
    ours = getattr(ember_models, name)().state_dict()
    theirs = getattr(torchvision.models, name)().state_dict()
    assert list(ours) == list(theirs)
    assert {key: tuple(value.shape) for key, value in ours.items()} == {
        key: tuple(value.shape) for key, value in theirs.items()
    }


def test_resnet18_with_torchvisions_weights_computes_what_torchvision_computes():
    reference = torchvision.models.resnet18(num_classes=7).eval()
    model = ember_models.resnet18(num_classes=7).eval()
    model.load_state_dict(
        {key: ember.from_numpy(value.numpy().copy()) for key, value in reference.state_dict().items()}
    )
    batch = np.random.default_rng(1).standard_normal((2, 3, 40, 40)).astype(np.float32)
    with torch.no_grad():
        expected = reference(torch.from_numpy(batch)).numpy()
    with ember.no_grad():
        np.testing.assert_allclose(model(ember.from_numpy(batch)).numpy(), expected, rtol=1e-4, atol=1e-4)
