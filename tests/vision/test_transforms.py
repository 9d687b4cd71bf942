"""ember.vision.transforms against their definitions: Pillow's own operations, NumPy, and PyTorch's interpolate."""

import colorsys

import numpy as np
import pytest

import ember
from ember.vision import transforms as T
from ember.vision.transforms import functional as TF

Image = pytest.importorskip("PIL.Image")


@pytest.fixture
def rgb_array():
    return np.random.default_rng(0).integers(0, 256, (20, 30, 3), dtype=np.uint8)


@pytest.fixture
def rgb_image(rgb_array):
    return Image.fromarray(rgb_array)


def as_tensor(array_hwc):
    return ember.from_numpy(np.ascontiguousarray(array_hwc.transpose(2, 0, 1)))


def assert_close(actual, expected, atol=1e-6):
    actual, expected = np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    difference = np.abs(actual - expected)
    assert difference.max() <= atol, (
        f"max difference {difference.max()} at {np.unravel_index(difference.argmax(), difference.shape)}"
    )


# ---------------------------------------------------------------- conversions
def test_to_tensor_scales_bytes_to_unit_floats_channels_first(rgb_image, rgb_array):
    tensor = T.ToTensor()(rgb_image)
    assert tensor.shape == (3, 20, 30) and tensor.dtype is ember.float32
    assert_close(tensor.numpy(), rgb_array.transpose(2, 0, 1) / 255.0)
    gray = T.ToTensor()(rgb_image.convert("L"))
    assert gray.shape == (1, 20, 30)
    assert_close(gray.numpy()[0], np.asarray(rgb_image.convert("L")) / 255.0)
    from_array = T.ToTensor()(rgb_array)
    assert_close(from_array.numpy(), tensor.numpy())


def test_to_tensor_keeps_values_of_wider_modes_and_floats():
    values = np.arange(12, dtype=np.int32).reshape(3, 4) * 1000
    tensor = TF.to_tensor(Image.fromarray(values))
    assert tensor.dtype is ember.int32 and tensor.numpy()[0].tolist() == values.tolist()
    floats = np.linspace(0, 3, 12, dtype=np.float32).reshape(3, 4, 1)
    assert_close(TF.to_tensor(floats).numpy(), floats.transpose(2, 0, 1))
    binary = Image.fromarray(np.array([[0, 255], [255, 0]], dtype=np.uint8)).convert("1")
    assert TF.to_tensor(binary).numpy()[0].tolist() == [[0.0, 1.0], [1.0, 0.0]]


def test_pil_to_tensor_is_uint8_unscaled(rgb_image, rgb_array):
    tensor = T.PILToTensor()(rgb_image)
    assert tensor.dtype is ember.uint8 and tensor.numpy().tolist() == rgb_array.transpose(2, 0, 1).tolist()


def test_to_pil_image_round_trips_and_truncates_floats(rgb_array):
    image = T.ToPILImage()(as_tensor(rgb_array))
    assert image.mode == "RGB" and np.array_equal(np.asarray(image), rgb_array)
    floats = ember.tensor([[[0.999, 0.5], [0.0, 1.0]]])
    gray = TF.to_pil_image(floats)
    assert gray.mode == "L" and np.asarray(gray).tolist() == [[254, 127], [0, 255]]  # int(x * 255), as torchvision
    assert TF.to_pil_image(ember.zeros(4, 2, 2)).mode == "RGBA"
    assert TF.to_pil_image(ember.zeros(2, 2, 2)).mode == "LA"
    assert TF.to_pil_image(ember.zeros(1, 2, 2), mode="F").mode == "F"
    with pytest.raises(ValueError, match="mode"):
        TF.to_pil_image(ember.zeros(3, 2, 2), mode="L")
    with pytest.raises(TypeError, match="pic should be Tensor or ndarray"):
        TF.to_pil_image([1, 2])


def test_convert_image_dtype_follows_torchvisions_rules():
    bytes_ = ember.tensor([[[0, 128, 255]]], dtype=ember.uint8)
    assert_close(T.ConvertImageDtype(ember.float32)(bytes_).numpy(), np.array([[[0, 128, 255]]]) / 255.0)
    floats = ember.tensor([[[0.0, 0.5, 1.0]]])
    expected = (np.array([0.0, 0.5, 1.0]) * (255 + 1 - 1e-3)).astype(np.uint8)
    assert TF.convert_image_dtype(floats, ember.uint8).numpy()[0, 0].tolist() == expected.tolist()


def test_normalize_matches_numpy_and_keeps_the_graph():
    data = np.random.default_rng(1).random((2, 3, 4, 5)).astype(np.float32)
    mean, std = (0.1, 0.2, 0.3), (0.5, 0.25, 2.0)
    expected = (data - np.array(mean)[:, None, None]) / np.array(std)[:, None, None]
    assert_close(T.Normalize(mean, std)(ember.from_numpy(data)).numpy(), expected, atol=1e-6)
    leaf = ember.from_numpy(data[0].copy()).requires_grad_()
    T.Normalize(mean, std)(leaf).sum().backward()
    assert_close(leaf.grad.numpy(), np.broadcast_to(1 / np.array(std)[:, None, None], (3, 4, 5)), atol=1e-6)
    with pytest.raises(ValueError, match="std evaluated to zero"):
        TF.normalize(ember.zeros(3, 2, 2), mean, (1.0, 0.0, 1.0))
    with pytest.raises(TypeError, match="float tensor"):
        TF.normalize(ember.zeros(3, 2, 2, dtype=ember.uint8), mean, std)
    with pytest.raises(TypeError, match="Tensor"):
        TF.normalize(np.zeros((3, 2, 2)), mean, std)


def test_normalize_inplace_writes_into_the_input():
    tensor = ember.ones(1, 2, 2)
    result = TF.normalize(tensor, (0.5,), (0.5,), inplace=True)
    assert result is tensor and tensor.numpy().tolist() == [[[1.0, 1.0], [1.0, 1.0]]]


# ---------------------------------------------------------------- resizing
def test_resize_output_size_rules(rgb_image):
    assert T.Resize(10)(rgb_image).size == (15, 10)  # smaller edge (height 20) -> 10
    assert T.Resize((8, 9))(rgb_image).size == (9, 8)  # (h, w)
    assert T.Resize(10, max_size=12)(rgb_image).size == (12, 8)
    tall = ember.zeros(3, 30, 20)
    assert T.Resize(10)(tall).shape == (3, 15, 10)
    with pytest.raises(ValueError, match="max_size"):
        TF.resize(tall, [10, 10], max_size=20)


@pytest.mark.parametrize("interpolation", ["nearest", "bilinear", "bicubic", "lanczos", "box", "hamming"])
def test_resize_pil_is_pillows_resize(rgb_image, interpolation):
    mode = T.InterpolationMode(interpolation)
    result = T.Resize((11, 17), interpolation=mode)(rgb_image)
    expected = rgb_image.resize((17, 11), TF._PIL_FILTERS[mode])
    assert np.array_equal(np.asarray(result), np.asarray(expected))


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact", "bilinear", "bicubic"])
@pytest.mark.parametrize("antialias", [True, False])
@pytest.mark.parametrize("size", [(10, 13), (41, 50)])
def test_resize_tensor_matches_pytorch_interpolate(mode, antialias, size):
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(2).random((2, 3, 20, 30)).astype(np.float32)
    result = TF.resize(ember.from_numpy(data), list(size), interpolation=T.InterpolationMode(mode), antialias=antialias)
    options = {} if mode.startswith("nearest") else {"align_corners": False, "antialias": antialias}
    expected = torch.nn.functional.interpolate(torch.from_numpy(data), size=size, mode=mode, **options).numpy()
    assert_close(result.numpy(), expected, atol=1e-5)


def test_resize_uint8_tensor_rounds_like_the_float_result(rgb_array):
    tensor = as_tensor(rgb_array)
    as_bytes = TF.resize(tensor, [9, 14]).numpy()
    as_floats = TF.resize(tensor.float(), [9, 14]).numpy()
    assert as_bytes.dtype == np.uint8
    assert_close(as_bytes, np.clip(np.round(as_floats), 0, 255), atol=0)


def test_resize_pil_warns_when_antialias_is_refused(rgb_image):
    with pytest.warns(UserWarning, match="Anti-alias"):
        TF.resize(rgb_image, [5, 5], antialias=False)


# ---------------------------------------------------------------- cropping, flipping, padding
def test_center_crop_tensor_and_pil(rgb_image, rgb_array):
    top, left = round((20 - 8) / 2), round((30 - 11) / 2)
    expected = rgb_array[top : top + 8, left : left + 11]
    assert np.array_equal(np.asarray(T.CenterCrop((8, 11))(rgb_image)), expected)
    assert np.array_equal(T.CenterCrop((8, 11))(as_tensor(rgb_array)).numpy(), expected.transpose(2, 0, 1))


def test_center_crop_pads_an_image_smaller_than_the_crop(rgb_array):
    result = TF.center_crop(as_tensor(rgb_array), [24, 30]).numpy()
    expected = np.pad(rgb_array.transpose(2, 0, 1), ((0, 0), (2, 2), (0, 0)))
    assert np.array_equal(result, expected)


def test_crop_outside_the_image_is_zero(rgb_array):
    result = TF.crop(as_tensor(rgb_array), -2, 25, 5, 10).numpy()
    expected = np.zeros((3, 5, 10), dtype=np.uint8)
    expected[:, 2:, :5] = rgb_array[:3, 25:].transpose(2, 0, 1)
    assert np.array_equal(result, expected)


def test_flips(rgb_image, rgb_array):
    assert np.array_equal(np.asarray(T.RandomHorizontalFlip(p=1.0)(rgb_image)), rgb_array[:, ::-1])
    assert np.array_equal(np.asarray(T.RandomVerticalFlip(p=1.0)(rgb_image)), rgb_array[::-1])
    assert T.RandomHorizontalFlip(p=0.0)(rgb_image) is rgb_image
    tensor = as_tensor(rgb_array)
    assert np.array_equal(T.RandomHorizontalFlip(p=1.0)(tensor).numpy(), tensor.numpy()[..., ::-1])
    assert np.array_equal(T.RandomVerticalFlip(p=1.0)(tensor).numpy(), tensor.numpy()[..., ::-1, :])


@pytest.mark.parametrize("padding_mode", ["constant", "edge", "reflect", "symmetric"])
def test_pad_matches_numpy_pad(rgb_image, rgb_array, padding_mode):
    padding = (1, 2, 3, 4)  # left, top, right, bottom
    widths = ((2, 4), (1, 3))
    options = {"constant_values": 7} if padding_mode == "constant" else {}
    expected = np.pad(rgb_array, widths + ((0, 0),), mode=padding_mode, **options)
    assert np.array_equal(np.asarray(T.Pad(padding, fill=7, padding_mode=padding_mode)(rgb_image)), expected)
    tensor_result = T.Pad(padding, fill=7, padding_mode=padding_mode)(as_tensor(rgb_array)).numpy()
    assert np.array_equal(tensor_result, expected.transpose(2, 0, 1))
    assert T.Pad(3)(rgb_image).size == (36, 26) and T.Pad((1, 2))(rgb_image).size == (32, 24)


def test_pad_rejects_bad_arguments():
    with pytest.raises(ValueError, match="Padding mode"):
        T.Pad(1, padding_mode="wrap")
    with pytest.raises(ValueError, match="3 element tuple"):
        T.Pad((1, 2, 3))


def test_random_crop_takes_a_window_of_the_padded_image_and_is_seeded(rgb_array):
    tensor = as_tensor(rgb_array)
    padded = np.pad(rgb_array.transpose(2, 0, 1), ((0, 0), (2, 2), (2, 2)))
    ember.manual_seed(3)
    first = T.RandomCrop(10, padding=2)(tensor).numpy()
    windows = {
        (top, left)
        for top in range(padded.shape[1] - 9)
        for left in range(padded.shape[2] - 9)
        if np.array_equal(padded[:, top : top + 10, left : left + 10], first)
    }
    assert windows, "the crop is not a window of the padded image"
    ember.manual_seed(3)
    assert np.array_equal(T.RandomCrop(10, padding=2)(tensor).numpy(), first)
    assert T.RandomCrop((25, 35), pad_if_needed=True)(tensor).shape == (3, 25, 35)
    with pytest.raises(ValueError, match="larger than input image size"):
        T.RandomCrop(40)(tensor)


def test_random_resized_crop_size_and_reproducibility(rgb_image):
    ember.manual_seed(0)
    first = T.RandomResizedCrop(16)(rgb_image)
    ember.manual_seed(0)
    second = T.RandomResizedCrop(16)(rgb_image)
    assert first.size == (16, 16) and np.array_equal(np.asarray(first), np.asarray(second))
    for _ in range(20):
        top, left, height, width = T.RandomResizedCrop.get_params(rgb_image, (0.08, 1.0), (3 / 4, 4 / 3))
        assert 0 <= top and top + height <= 20 and 0 <= left and left + width <= 30 and height > 0 and width > 0


# ---------------------------------------------------------------- rotation and affine maps
def test_rotate_tensor_by_90_degrees_is_rot90():
    square = ember.from_numpy(np.random.default_rng(4).random((3, 9, 9)).astype(np.float32))
    assert_close(TF.rotate(square, 90).numpy(), np.rot90(square.numpy(), 1, axes=(1, 2)))
    assert_close(
        TF.rotate(square, -90, interpolation=T.InterpolationMode.BILINEAR).numpy(),
        np.rot90(square.numpy(), -1, axes=(1, 2)),
        atol=1e-5,
    )


def test_rotate_pil_is_pillows_rotate(rgb_image):
    result = T.RandomRotation((30, 30), fill=5)(rgb_image)
    assert np.array_equal(np.asarray(result), np.asarray(rgb_image.rotate(30, fillcolor=(5, 5, 5))))
    expanded = TF.rotate(rgb_image, 30, expand=True)
    assert expanded.size == rgb_image.rotate(30, expand=True).size


def test_rotate_tensor_agrees_with_pil_and_expand_holds_the_image(rgb_array):
    tensor_result = TF.rotate(as_tensor(rgb_array), 33).numpy().transpose(1, 2, 0)
    pil_result = np.asarray(TF.rotate(Image.fromarray(rgb_array), 33))
    assert (tensor_result == pil_result).all(axis=2).mean() > 0.95  # nearest-neighbour ties may round apart
    expanded = TF.rotate(as_tensor(rgb_array), 90, expand=True)
    assert expanded.shape == (3, 30, 20)
    assert np.array_equal(expanded.numpy(), np.rot90(rgb_array.transpose(2, 0, 1), 1, axes=(1, 2)))


def test_random_affine_identity_and_translation(rgb_array):
    tensor = as_tensor(rgb_array)
    assert np.array_equal(T.RandomAffine(0)(tensor).numpy(), tensor.numpy())
    shifted = TF.affine(tensor, angle=0.0, translate=[3, 2], scale=1.0, shear=[0.0, 0.0]).numpy()
    assert np.array_equal(shifted[:, 2:, 3:], tensor.numpy()[:, :-2, :-3]) and not shifted[:, :2].any()
    pil_shifted = np.asarray(TF.affine(Image.fromarray(rgb_array), 0.0, [3, 2], 1.0, [0.0, 0.0]))
    assert np.array_equal(pil_shifted, shifted.transpose(1, 2, 0))
    ember.manual_seed(0)
    assert T.RandomAffine(10, translate=(0.1, 0.1), scale=(0.9, 1.1), shear=5)(tensor).shape == tensor.shape


# ---------------------------------------------------------------- colour
def test_grayscale_tensor_formula_and_pil(rgb_image, rgb_array):
    expected = (0.2989 * rgb_array[..., 0] + 0.587 * rgb_array[..., 1] + 0.114 * rgb_array[..., 2]).astype(np.uint8)
    assert np.array_equal(T.Grayscale()(as_tensor(rgb_array)).numpy()[0], expected)
    assert T.Grayscale(3)(as_tensor(rgb_array)).shape == (3, 20, 30)
    assert np.array_equal(np.asarray(T.Grayscale()(rgb_image)), np.asarray(rgb_image.convert("L")))
    three = T.Grayscale(num_output_channels=3)(rgb_image)
    assert three.mode == "RGB" and np.array_equal(np.asarray(three)[..., 1], np.asarray(rgb_image.convert("L")))
    assert T.RandomGrayscale(p=1.0)(rgb_image).mode == "RGB"


def test_colour_adjustments_on_pil_are_image_enhance(rgb_image):
    from PIL import ImageEnhance

    for function, enhancer in (
        (TF.adjust_brightness, ImageEnhance.Brightness),
        (TF.adjust_contrast, ImageEnhance.Contrast),
        (TF.adjust_saturation, ImageEnhance.Color),
    ):
        assert np.array_equal(np.asarray(function(rgb_image, 1.3)), np.asarray(enhancer(rgb_image).enhance(1.3)))


def test_colour_adjustments_on_tensors_blend_as_defined(rgb_array):
    floats = ember.from_numpy(rgb_array.transpose(2, 0, 1).astype(np.float32) / 255)
    data = floats.numpy()
    assert_close(TF.adjust_brightness(floats, 1.5).numpy(), np.clip(data * 1.5, 0, 1))
    gray = 0.2989 * data[0] + 0.587 * data[1] + 0.114 * data[2]
    assert_close(TF.adjust_contrast(floats, 0.5).numpy(), np.clip(0.5 * data + 0.5 * gray.mean(), 0, 1), atol=1e-6)
    assert_close(TF.adjust_saturation(floats, 0.0).numpy(), np.broadcast_to(gray, data.shape), atol=1e-6)
    with pytest.raises(ValueError, match="not non-negative"):
        TF.adjust_brightness(floats, -1)


def test_adjust_hue_on_tensors_is_an_hsv_hue_turn(rgb_array):
    floats = rgb_array.astype(np.float64) / 255
    result = TF.adjust_hue(ember.from_numpy(floats.transpose(2, 0, 1).copy()), 0.2).numpy().transpose(1, 2, 0)
    for row, column in [(0, 0), (5, 7), (19, 29), (10, 3)]:
        hue, saturation, value = colorsys.rgb_to_hsv(*floats[row, column])
        expected = colorsys.hsv_to_rgb((hue + 0.2) % 1.0, saturation, value)
        assert_close(result[row, column], expected, atol=1e-9)
    with pytest.raises(ValueError, match=r"\[-0.5, 0.5\]"):
        TF.adjust_hue(ember.zeros(3, 2, 2), 0.7)


def test_color_jitter_ranges_and_seeding(rgb_image):
    jitter = T.ColorJitter(brightness=0.4, contrast=(0.5, 1.5), saturation=0, hue=0.1)
    assert jitter.brightness == (0.6, 1.4) and jitter.contrast == (0.5, 1.5) and jitter.saturation is None
    assert jitter.hue == (-0.1, 0.1)
    ember.manual_seed(1)
    first = np.asarray(jitter(rgb_image))
    ember.manual_seed(1)
    assert np.array_equal(first, np.asarray(jitter(rgb_image)))
    with pytest.raises(ValueError, match="hue values should be between"):
        T.ColorJitter(hue=0.7)


def test_gaussian_blur_matches_a_direct_convolution():
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(5).random((1, 3, 12, 14)).astype(np.float32)
    result = TF.gaussian_blur(ember.from_numpy(data), [5, 3], [1.5, 0.8]).numpy()
    kernel_x = np.exp(-0.5 * (np.arange(-2, 3) / 1.5) ** 2)
    kernel_y = np.exp(-0.5 * (np.arange(-1, 2) / 0.8) ** 2)
    kernel = np.outer(kernel_y / kernel_y.sum(), kernel_x / kernel_x.sum()).astype(np.float32)
    padded = torch.nn.functional.pad(torch.from_numpy(data), (2, 2, 1, 1), mode="reflect")
    weight = torch.from_numpy(np.broadcast_to(kernel, (3, 1, 3, 5)).copy())
    expected = torch.nn.functional.conv2d(padded, weight, groups=3).numpy()
    assert_close(result, expected, atol=1e-5)
    blurred = T.GaussianBlur(3, sigma=1.0)(Image.fromarray((data[0].transpose(1, 2, 0) * 255).astype(np.uint8)))
    assert blurred.mode == "RGB" and blurred.size == (14, 12)
    with pytest.raises(ValueError, match="odd and positive"):
        T.GaussianBlur(4)


def test_invert_and_gamma(rgb_array):
    tensor = as_tensor(rgb_array)
    assert np.array_equal(TF.invert(tensor).numpy(), 255 - tensor.numpy())
    floats = tensor.float() / 255
    assert_close(TF.adjust_gamma(floats, 2.0).numpy(), (floats.numpy()) ** 2, atol=1e-6)


# ---------------------------------------------------------------- containers and erasing
def test_compose_lambda_and_random_containers(rgb_image):
    pipeline = T.Compose([T.Resize(8), T.ToTensor(), T.Lambda(lambda t: t * 2)])
    assert pipeline(rgb_image).shape == (3, 8, 12) and float(pipeline(rgb_image).max()) <= 2.0
    assert "Resize(size=8" in repr(pipeline)
    assert T.RandomApply([T.Grayscale(3)], p=1.0)(rgb_image).mode == "RGB"
    assert T.RandomApply([T.Resize(4)], p=0.0)(rgb_image) is rgb_image
    assert T.RandomChoice([T.Resize(4)])(rgb_image).size == (6, 4)
    ordered = T.RandomOrder([T.CenterCrop(10), T.Grayscale()])(rgb_image)
    assert ordered.size == (10, 10) and ordered.mode == "L"
    with pytest.raises(TypeError, match="callable"):
        T.Lambda(3)


def test_random_erasing_sets_a_rectangle_to_the_value():
    image = ember.ones(3, 16, 16)
    ember.manual_seed(2)
    erased = T.RandomErasing(p=1.0, value=0.25)(image).numpy()
    changed = erased != 1.0
    assert changed.any() and np.allclose(erased[changed], 0.25)
    rows, columns = np.nonzero(changed[0])
    assert changed[:, rows.min() : rows.max() + 1, columns.min() : columns.max() + 1].all()  # a full rectangle
    assert image.numpy().min() == 1.0  # not in place by default


def test_functions_reject_non_images():
    for function in (TF.hflip, TF.vflip, lambda x: TF.resize(x, 3), lambda x: TF.pad(x, 1)):
        with pytest.raises(TypeError, match="PIL Image or Tensor"):
            function([[1, 2], [3, 4]])
    with pytest.raises(TypeError, match="pic should be PIL Image or ndarray"):
        TF.to_tensor("image.png")


def test_transforms_handle_batched_tensors():
    batch = ember.from_numpy(np.random.default_rng(6).random((4, 3, 10, 12)).astype(np.float32))
    assert T.Resize((5, 6))(batch).shape == (4, 3, 5, 6)
    assert T.CenterCrop(4)(batch).shape == (4, 3, 4, 4)
    assert_close(T.RandomHorizontalFlip(1.0)(batch).numpy(), batch.numpy()[..., ::-1])
    assert T.Grayscale()(batch).shape == (4, 1, 10, 12)


def test_v2_transforms_take_whole_samples(rgb_image, rgb_array):
    from ember.vision.transforms import v2

    pipeline = v2.Compose(
        [
            v2.RandomResizedCrop(16),
            v2.RandomHorizontalFlip(),
            v2.ToImage(),
            v2.ToDtype(ember.float32, scale=True),
            v2.Normalize([0.5] * 3, [0.5] * 3),
        ]
    )
    image, label = pipeline(rgb_image, 3)
    assert image.shape == (3, 16, 16) and image.dtype is ember.float32 and label == 3
    as_bytes = v2.ToImage()(rgb_image)
    assert as_bytes.dtype is ember.uint8 and np.array_equal(as_bytes.numpy(), rgb_array.transpose(2, 0, 1))
    assert_close(v2.ToDtype(ember.float32, scale=True)(as_bytes).numpy(), rgb_array.transpose(2, 0, 1) / 255.0)
    assert v2.ToDtype(ember.float32)(as_bytes).numpy().max() == rgb_array.max()
    ember.manual_seed(0)
    first, second = v2.RandomCrop(8)({"a": rgb_image, "b": rgb_image.copy()}).values()
    assert np.array_equal(np.asarray(first), np.asarray(second))  # one set of random parameters per sample
    with pytest.warns(UserWarning, match="deprecated"):
        v2.ToTensor()


def test_reprs_are_torchvisions():
    assert repr(T.ToTensor()) == "ToTensor()"
    assert repr(T.Normalize((0.5,), (0.5,))) == "Normalize(mean=(0.5,), std=(0.5,))"
    assert repr(T.RandomHorizontalFlip()) == "RandomHorizontalFlip(p=0.5)"
    assert repr(T.Resize(256)) == "Resize(size=256, interpolation=bilinear, max_size=None, antialias=True)"
    assert repr(T.CenterCrop(224)) == "CenterCrop(size=(224, 224))"
    assert repr(T.RandomCrop(32, padding=4)) == "RandomCrop(size=(32, 32), padding=4)"
    assert (
        repr(T.RandomRotation(10))
        == "RandomRotation(degrees=[-10.0, 10.0], interpolation=nearest, expand=False, fill=0)"
    )
    assert repr(T.Compose([T.ToTensor()])) == "Compose(\n    ToTensor()\n)"


@pytest.mark.parametrize(
    "name, apply, pil_apply",
    [
        ("posterize", lambda F, x: F.posterize(x, 3), lambda x: __import__("PIL.ImageOps").ImageOps.posterize(x, 3)),
        ("solarize", lambda F, x: F.solarize(x, 100), lambda x: __import__("PIL.ImageOps").ImageOps.solarize(x, 100)),
        ("autocontrast", lambda F, x: F.autocontrast(x), lambda x: __import__("PIL.ImageOps").ImageOps.autocontrast(x)),
        ("equalize", lambda F, x: F.equalize(x), lambda x: __import__("PIL.ImageOps").ImageOps.equalize(x)),
        (
            "sharpness",
            lambda F, x: F.adjust_sharpness(x, 1.7),
            lambda x: __import__("PIL.ImageEnhance").ImageEnhance.Sharpness(x).enhance(1.7),
        ),
    ],
)
def test_photometric_ops_on_tensors_match_pillow(rgb_image, rgb_array, name, apply, pil_apply):
    expected = np.asarray(pil_apply(rgb_image)).astype(int)
    assert np.array_equal(np.asarray(apply(TF, rgb_image)).astype(int), expected)
    from_tensor = apply(TF, as_tensor(rgb_array)).numpy().transpose(1, 2, 0).astype(int)
    assert np.abs(from_tensor - expected).max() <= 1  # sharpness rounds its smoothed image like Pillow, +-1


def test_automatic_augmentations_keep_shape_and_are_seeded(rgb_image, rgb_array):
    tensor = as_tensor(rgb_array)
    for augment in (T.TrivialAugmentWide(), T.RandAugment(), T.RandAugment(num_ops=3, magnitude=20)):
        for _ in range(15):
            assert augment(rgb_image).size == (30, 20) and augment(tensor).shape == (3, 20, 30)
    ember.manual_seed(5)
    first = [np.asarray(T.TrivialAugmentWide()(rgb_image)) for _ in range(5)]
    ember.manual_seed(5)
    assert all(np.array_equal(a, np.asarray(T.TrivialAugmentWide()(rgb_image))) for a in first)
    assert T.RandomEqualize(p=1.0)(tensor).dtype is ember.uint8
    with pytest.raises(TypeError, match="uint8"):
        TF.equalize(tensor.float())


def test_mixup_blends_neighbours_and_their_labels():
    from ember.vision.transforms import v2

    images = ember.from_numpy(np.random.default_rng(7).random((4, 3, 5, 5)).astype(np.float32))
    labels = ember.tensor([0, 1, 2, 3])
    mixed, soft = v2.MixUp(num_classes=4)(images, labels)
    lam = float(soft[0, 0])
    assert 0.0 <= lam <= 1.0 and soft.shape == (4, 4)
    expected_labels = lam * np.eye(4) + (1 - lam) * np.roll(np.eye(4), 1, axis=0)
    assert_close(soft.numpy(), expected_labels, atol=1e-6)
    assert_close(mixed.numpy(), lam * images.numpy() + (1 - lam) * np.roll(images.numpy(), 1, axis=0), atol=1e-6)


def test_cutmix_pastes_a_box_and_weights_labels_by_area():
    from ember.vision.transforms import v2

    images = ember.from_numpy(np.random.default_rng(8).random((3, 2, 10, 12)).astype(np.float32))
    labels = ember.tensor([2, 0, 1])
    ember.manual_seed(4)
    mixed, soft = v2.CutMix(num_classes=3)((images, labels))
    pasted = np.isclose(mixed.numpy(), np.roll(images.numpy(), 1, axis=0)) & ~np.isclose(mixed.numpy(), images.numpy())
    kept = np.isclose(mixed.numpy(), images.numpy())
    assert (pasted | kept).all()
    area = pasted[0, 0].mean()
    assert_close(soft.numpy()[0], (1 - area) * np.eye(3)[2] + area * np.eye(3)[1], atol=1e-6)
    with pytest.raises(ValueError, match="int64"):
        v2.CutMix(num_classes=3)(images, labels.float())


@pytest.mark.parametrize("fill", [None, [0.25, 0.5, 0.75]])
def test_tensor_rotate_bilinear_samples_as_grid_sample(fill):
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(9).random((3, 11, 14)).astype(np.float32)
    angle = 23.0
    result = TF.rotate(ember.from_numpy(data), angle, interpolation=T.InterpolationMode.BILINEAR, fill=fill).numpy()
    a, b, c, d, e, f = TF._inverse_affine_matrix([0.0, 0.0], -angle, [0.0, 0.0], 1.0, [0.0, 0.0])
    ys, xs = np.meshgrid(np.arange(11) + 0.5 - 5.5, np.arange(14) + 0.5 - 7.0, indexing="ij")
    grid = np.stack([(a * xs + b * ys + c) / 7.0, (d * xs + e * ys + f) / 5.5], axis=-1)[None].astype(np.float32)
    with_mask = torch.from_numpy(np.concatenate([data, np.ones((1, 11, 14), np.float32)])[None])
    sampled = torch.nn.functional.grid_sample(
        with_mask, torch.from_numpy(grid), mode="bilinear", padding_mode="zeros", align_corners=False
    )[0].numpy()
    image, mask = sampled[:3], sampled[3:]
    expected = image if fill is None else image * mask + (1 - mask) * np.array(fill, np.float32)[:, None, None]
    assert_close(result, expected, atol=1e-5)
