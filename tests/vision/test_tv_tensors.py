"""tv_tensors and the v2 transforms that move boxes, key points and masks with the pixels.

torchvision does not import beside the CPU torch wheel here, so expected coordinates are worked out
by hand from torchvision's documented kernels (boxes are continuous coordinates: an hflip maps x to
W - x; key points are pixel indices: W - 1 - x), and the pipeline tests check the property that
matters: after any chain of geometric transforms a box still bounds the pixels it bounded."""

import copy
import pickle

import numpy as np
import pytest

import ember
from ember.vision import tv_tensors as tv
from ember.vision.transforms import v2
from ember.vision.transforms.v2 import functional as F


def boxes(data, format="XYXY", canvas_size=(20, 30), **kwargs):
    return tv.BoundingBoxes(data, format=format, canvas_size=canvas_size, **kwargs)


# ------------------------------------------------------------------ the classes
def test_construction_rules():
    assert tv.Image(ember.zeros(4, 5)).shape == (1, 4, 5)
    with pytest.raises(ValueError):
        tv.Image(ember.zeros(5))
    with pytest.raises(ValueError):
        tv.Video(ember.zeros(3, 4, 5))
    assert boxes([1, 2, 3, 4]).shape == (1, 4)
    with pytest.raises(ValueError, match="1D or 2D"):
        boxes(ember.zeros(1, 1, 4))
    with pytest.raises(ValueError, match="floating point"):
        boxes([[1, 2, 3, 4, 5]], format="XYWHR")
    assert boxes([[1, 2, 3, 4]], format="cxcywh").format is tv.BoundingBoxFormat.CXCYWH
    with pytest.raises(ValueError, match="shape"):
        tv.KeyPoints(ember.zeros(2, 3), canvas_size=(4, 4))
    x = ember.ones(2, 2, requires_grad=True)
    assert tv.Image(x).requires_grad and not tv.Image([[1.0]]).requires_grad


def test_reprs():
    assert repr(boxes([[0, 1, 2, 3]])) == (
        "BoundingBoxes([[0, 1, 2, 3]], format=BoundingBoxFormat.XYXY, canvas_size=(20, 30), clamping_mode=soft)"
    )
    assert repr(tv.Image(ember.zeros(1, 1, 2))) == "Image([[[0., 0.]]], )"
    assert repr(tv.KeyPoints([1.0, 2.0], canvas_size=(3, 4))) == "KeyPoints([[1., 2.]], canvas_size=(3, 4))"


def test_ops_return_plain_tensors_except_the_few_that_keep_the_class():
    b = boxes([[0.0, 1.0, 2.0, 3.0]])
    for result in (b + 1, b * 2, b[0], b.sum(), ember.cat([b, b]), b.add_(0)):
        assert type(result) is ember.Tensor
    for result in (b.clone(), b.to(ember.float64), b.detach(), b.requires_grad_(False)):
        assert type(result) is tv.BoundingBoxes and result.canvas_size == (20, 30)
    with tv.set_return_type("TVTensor"):
        assert type(b + 1) is tv.BoundingBoxes and (b + 1).format is tv.BoundingBoxFormat.XYXY
    assert type(b + 1) is ember.Tensor
    tv.set_return_type("TVTensor")
    try:
        assert type(tv.Image(ember.zeros(1, 2, 2)) * 2) is tv.Image
    finally:
        tv.set_return_type("Tensor")


def test_wrap_copy_and_pickle_keep_the_metadata():
    b = boxes([[0.0, 1.0, 2.0, 3.0]], clamping_mode=None)
    wrapped = tv.wrap(ember.ones(2, 4), like=b, canvas_size=(5, 6))
    assert type(wrapped) is tv.BoundingBoxes and wrapped.canvas_size == (5, 6) and wrapped.clamping_mode is None
    assert type(tv.wrap(ember.ones(1, 2, 2), like=tv.Mask(ember.zeros(1, 2, 2)))) is tv.Mask
    for clone in (copy.deepcopy(b), pickle.loads(pickle.dumps(b))):
        assert type(clone) is tv.BoundingBoxes and clone.canvas_size == (20, 30) and clone.tolist() == b.tolist()
    with pytest.raises(TypeError, match="__wrap__"):
        tv.wrap(ember.ones(1), like=ember.ones(1))


# ------------------------------------------------------------------ kernels
@pytest.mark.parametrize(
    ("format", "data", "hflipped", "vflipped"),
    [
        ("XYXY", [2, 3, 10, 8], [20, 3, 28, 8], [2, 12, 10, 17]),
        ("XYWH", [2, 3, 8, 5], [20, 3, 8, 5], [2, 12, 8, 5]),
        ("CXCYWH", [6, 5, 8, 4], [24, 5, 8, 4], [6, 15, 8, 4]),
    ],
)
def test_flips_of_boxes_in_each_format(format, data, hflipped, vflipped):
    b = boxes([data], format=format)
    assert F.horizontal_flip(b).tolist() == [hflipped] and F.vertical_flip(b).tolist() == [vflipped]
    assert F.hflip(b).format is b.format and F.hflip(b).canvas_size == (20, 30)


def test_crop_pad_resize_of_boxes():
    b = boxes([[2, 3, 10, 8], [25, 15, 40, 30]])
    cropped = F.crop(b, 5, 4, 10, 12)  # shift by (4, 5), then clamp to the 10 x 12 canvas
    assert cropped.tolist() == [[0, 0, 6, 3], [12, 10, 12, 10]] and cropped.canvas_size == (10, 12)
    unclamped = F.crop(boxes([[2, 3, 10, 8]], clamping_mode=None), 5, 4, 10, 12)
    assert unclamped.tolist() == [[-2, -2, 6, 3]]
    padded = F.pad(b, [1, 2, 3, 4])  # left, top, right, bottom
    assert padded.tolist() == [[3, 5, 11, 10], [26, 17, 34, 26]] and padded.canvas_size == (26, 34)
    resized = F.resize(boxes([[2.0, 3.0, 10.0, 8.0]]), [10, 60])
    assert resized.tolist() == [[4.0, 1.5, 20.0, 4.0]] and resized.canvas_size == (10, 60)
    assert F.resize(boxes([[2.0, 3.0, 10.0, 8.0]]), 10).canvas_size == (10, 15)  # the smaller edge
    with pytest.raises(ValueError, match="Padding mode"):
        F.pad(b, 2, padding_mode="reflect")
    with pytest.raises(NotImplementedError, match="rotate.*BoundingBoxes"):
        F.rotate(b, 30.0)
    with pytest.raises(NotImplementedError, match="rotated"):
        F.hflip(boxes([[1.0, 2.0, 3.0, 4.0, 10.0]], format="XYWHR"))


def test_key_points_are_pixel_indices():
    points = tv.KeyPoints([[0.0, 0.0], [29.0, 19.0]], canvas_size=(20, 30))
    assert F.hflip(points).tolist() == [[29.0, 0.0], [0.0, 19.0]]
    assert F.vflip(points).tolist() == [[0.0, 19.0], [29.0, 0.0]]
    assert F.crop(points, 1, 2, 5, 5).tolist() == [[-2.0, -1.0], [27.0, 18.0]]
    assert F.pad(points, 3).canvas_size == (26, 36)
    assert F.resize(points, [40, 60]).tolist() == [[0.0, 0.0], [58.0, 38.0]]


def test_format_conversion_and_clamping():
    b = boxes([[2, 3, 11, 8]])
    assert F.convert_bounding_box_format(b, new_format="XYWH").tolist() == [[2, 3, 9, 5]]
    centre = F.convert_bounding_box_format(b, new_format=tv.BoundingBoxFormat.CXCYWH)
    assert centre.tolist() == [[6, 5, 9, 5]] and centre.format is tv.BoundingBoxFormat.CXCYWH  # floor for ints
    assert F.convert_bounding_box_format(centre, new_format="XYXY").tolist() == [[1, 2, 10, 7]]
    assert F.convert_bounding_box_format(ember.tensor([[1.0, 1.0, 3.0, 3.0]]), "XYXY", "CXCYWH").tolist() == [
        [2.0, 2.0, 2.0, 2.0]
    ]
    with pytest.raises(ValueError, match="old_format"):
        F.convert_bounding_box_format(ember.ones(1, 4), new_format="XYXY")
    outside = boxes([[-5.0, 2.0, 40.0, 25.0]])
    assert F.clamp_bounding_boxes(outside).tolist() == [[0.0, 2.0, 30.0, 20.0]]
    assert v2.ClampBoundingBoxes()(outside).tolist() == [[0.0, 2.0, 30.0, 20.0]]
    assert v2.ConvertBoundingBoxFormat("XYWH")(outside).tolist() == [[-5.0, 2.0, 45.0, 23.0]]


def test_masks_resample_by_nearest_neighbour():
    mask = tv.Mask(ember.tensor([[0, 0, 7, 7], [0, 0, 7, 7], [3, 3, 9, 9], [3, 3, 9, 9]], dtype=ember.uint8))
    resized = v2.Resize((3, 5), interpolation=v2.InterpolationMode.BILINEAR)(mask)
    assert type(resized) is tv.Mask and resized.shape == (3, 5)
    assert set(resized.unique().tolist()) <= {0, 3, 7, 9}  # labels, never averaged
    assert v2.ColorJitter(brightness=0.9)(mask) is mask  # colour transforms leave masks alone


# ------------------------------------------------------------------ transforms on whole samples
def _sample(rng):
    """A uint8 image with one white rectangle, and its box."""
    height, width = int(rng.integers(24, 40)), int(rng.integers(24, 40))
    x1, y1 = int(rng.integers(0, width - 8)), int(rng.integers(0, height - 8))
    x2, y2 = int(rng.integers(x1 + 4, width + 1)), int(rng.integers(y1 + 4, height + 1))
    pixels = np.zeros((3, height, width), np.uint8)
    pixels[:, y1:y2, x1:x2] = 255
    return tv.Image(ember.from_numpy(pixels)), boxes([[x1, y1, x2, y2]], canvas_size=(height, width))


def _white_region(image):
    ys, xs = np.nonzero(image.numpy()[0] > 127)
    return [int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1] if len(xs) else None


NEAREST = v2.InterpolationMode.NEAREST


def _transformed_samples(transform, rng_seed, count=12):
    """(seed, image, box, white region of the image) after `transform`, for `count` random samples."""
    rng = np.random.default_rng(rng_seed)
    for seed in range(count):
        image, box = _sample(rng)
        ember.manual_seed(seed)
        out_image, out_box = transform(image, box)
        yield seed, out_image, out_box, _white_region(out_image)


@pytest.mark.parametrize(
    "transform",
    [
        v2.RandomHorizontalFlip(p=1.0),
        v2.RandomVerticalFlip(p=1.0),
        v2.Pad([3, 1, 2, 5]),
        v2.CenterCrop(20),
        v2.RandomCrop(18),
        v2.RandomCrop(30, pad_if_needed=True),
        v2.Compose([v2.ColorJitter(0.3), v2.RandomHorizontalFlip(), v2.RandomCrop(20), v2.RandomVerticalFlip()]),
        v2.RandomApply([v2.RandomHorizontalFlip(p=1.0), v2.Pad(2)]),
        v2.RandomZoomOut(fill={tv.Image: (0, 0, 0), "others": 0}, side_range=(1.0, 2.5), p=0.8),
        v2.Compose([v2.RandomPhotometricDistort(p=1.0), v2.RandomZoomOut(p=1.0), v2.RandomHorizontalFlip()]),
        v2.RandomIoUCrop(),
    ],
    ids=repr,
)
def test_boxes_still_bound_their_pixels(transform):
    for seed, out_image, out_box, region in _transformed_samples(transform, 0):
        assert type(out_image) is tv.Image and type(out_box) is tv.BoundingBoxes
        assert out_box.canvas_size == tuple(out_image.shape[-2:])
        if region is not None and (out_box[:, 2:] > out_box[:, :2]).all():
            assert out_box.tolist() == [region], (seed, transform)


@pytest.mark.parametrize(
    "transform",
    [
        v2.RandomResizedCrop((32, 32), scale=(0.3, 1.0), interpolation=NEAREST),
        v2.Resize((48, 60), interpolation=NEAREST),
    ],
    ids=repr,
)
def test_resizing_moves_boxes_within_a_pixel(transform):
    """Coordinates scale exactly; the resampled pixels land on the nearest grid position."""
    for _, _, out_box, region in _transformed_samples(transform, 1):
        if region is not None and (out_box[:, 2:] - out_box[:, :2] >= 2).all():
            np.testing.assert_allclose(out_box.numpy()[0], region, atol=1.0)


def test_a_sample_draws_as_one_image_does():
    """Boxes and masks beside the image neither change the image's draws nor the stream after them."""
    image, box = _sample(np.random.default_rng(2))
    transform = v2.Compose([v2.ColorJitter(0.4, 0.4), v2.RandomResizedCrop(16), v2.RandomHorizontalFlip()])
    ember.manual_seed(3)
    alone = transform(image)
    after_alone = ember.rand(1)
    ember.manual_seed(3)
    together, _ = transform(image, {"boxes": box, "masks": tv.Mask(ember.zeros(1, *image.shape[-2:]))})
    assert ember.equal(alone, together) and ember.equal(ember.rand(1), after_alone)


def test_pixel_choice_and_pass_through():
    image, box = _sample(np.random.default_rng(3))
    plain = ember.zeros(3, 8, 8)
    flipped_image, untouched_plain, label = v2.RandomHorizontalFlip(p=1.0)(image, plain, 5)
    assert untouched_plain is plain and label == 5  # with an Image present, plain tensors pass
    first, second = v2.RandomHorizontalFlip(p=1.0)(ember.arange(4.0).reshape(1, 2, 2), ember.ones(1))
    assert first.tolist() == [[[1.0, 0.0], [3.0, 2.0]]] and second.tolist() == [1.0]  # the first plain tensor
    with pytest.raises(NotImplementedError, match="RandAugment.*BoundingBoxes"):
        v2.RandAugment()(image, box)


def test_to_dtype_to_image_and_to_pure_tensor():
    image, box = _sample(np.random.default_rng(4))
    mask = tv.Mask(ember.ones(1, *image.shape[-2:], dtype=ember.uint8))
    out = v2.ToDtype({tv.Image: ember.float32, tv.Mask: ember.int64, "others": None}, scale=True)(image, mask, box)
    assert out[0].dtype == ember.float32 and float(out[0].max()) == 1.0 and type(out[0]) is tv.Image
    assert out[1].dtype == ember.int64 and int(out[1].max()) == 1 and out[2] is box
    with pytest.raises(ValueError, match="No dtype was specified"):
        v2.ToDtype({tv.Image: ember.float32})(image, mask)
    assert v2.ToDtype(ember.float64)(image, mask)[1] is mask  # one dtype: images only
    assert type(v2.ToImage()(np.zeros((4, 5, 3), np.uint8))) is tv.Image
    pure = v2.ToPureTensor()({"image": image, "boxes": box, "n": 1})
    assert type(pure["image"]) is ember.Tensor and type(pure["boxes"]) is ember.Tensor and pure["n"] == 1


def test_sanitize_drops_degenerate_boxes_with_their_labels_and_masks():
    b = boxes([[0, 0, 10, 10], [5, 5, 5, 9], [2, 2, 40, 6], [3, 3, 4, 4]])
    target = {"boxes": b, "labels": ember.tensor([1, 2, 3, 4]), "masks": tv.Mask(ember.arange(4).reshape(4, 1, 1))}
    image = tv.Image(ember.zeros(3, 20, 30))
    _, kept = v2.SanitizeBoundingBoxes()(image, target)
    assert kept["boxes"].tolist() == [[0, 0, 10, 10], [3, 3, 4, 4]] and kept["labels"].tolist() == [1, 4]
    assert kept["masks"].flatten().tolist() == [0, 3] and type(kept["masks"]) is tv.Mask
    _, larger = v2.SanitizeBoundingBoxes(min_size=2)(image, target)
    assert larger["labels"].tolist() == [1]
    assert v2.SanitizeBoundingBoxes(labels_getter=None)({"boxes": b})["boxes"].shape == (2, 4)
    with pytest.raises(ValueError, match="Could not infer where the labels are"):
        v2.SanitizeBoundingBoxes()(image, {"boxes": b})


def test_detection_transforms():
    image, box = _sample(np.random.default_rng(5))
    mask = tv.Mask(ember.ones(1, *image.shape[-2:], dtype=ember.uint8))
    ember.manual_seed(0)
    distorted, same_box, same_mask = v2.RandomPhotometricDistort(p=1.0)(image, box, mask)
    assert type(distorted) is tv.Image and not ember.equal(distorted, image)
    assert same_box is box and same_mask is mask  # colour: annotations pass
    assert ember.equal(v2.RandomPhotometricDistort(p=0.0)(image), image)
    ember.manual_seed(1)
    zoomed, moved = v2.RandomZoomOut(fill=0, side_range=(2.0, 2.0), p=1.0)(image, box)
    height, width = image.shape[-2:]
    assert tuple(zoomed.shape[-2:]) == (2 * height, 2 * width) == moved.canvas_size
    assert F.get_size(zoomed) == [2 * height, 2 * width] and F.get_size(moved) == [2 * height, 2 * width]
    filled = v2.RandomZoomOut(fill={tv.Image: (10, 20, 30), "others": 0}, side_range=(3.0, 3.0), p=1.0)(image)
    corners = {tuple(filled[:, y, x].tolist()) for y in (0, -1) for x in (0, -1)}
    assert corners <= {(10, 20, 30)} | {tuple(image[:, 0, 0].tolist())} and (10, 20, 30) in corners
    with pytest.raises(ValueError, match="Invalid side range"):
        v2.RandomZoomOut(side_range=(0.5, 2.0))
    assert F.permute_channels(ember.arange(3.0).reshape(3, 1, 1), ember.tensor([2, 0, 1])).flatten().tolist() == [
        2.0,
        0.0,
        1.0,
    ]


def test_random_iou_crop_marks_boxes_it_cuts_away():
    image = tv.Image(ember.zeros(3, 60, 80, dtype=ember.uint8))
    b = boxes([[2, 2, 12, 12], [60, 40, 78, 58]], canvas_size=(60, 80))
    assert v2.RandomIoUCrop(sampler_options=[1.0])(image, b)[1] is b  # "leave as is" drawn
    ember.manual_seed(0)
    for _ in range(20):
        cropped_image, cropped = v2.RandomIoUCrop(sampler_options=[0.0])(image, b)
        assert cropped.canvas_size == tuple(cropped_image.shape[-2:])
        kept = [row for row in cropped.tolist() if row != [0, 0, 0, 0]]
        assert 1 <= len(kept) <= 2
    with pytest.raises(TypeError, match="bounding boxes"):
        v2.RandomIoUCrop()(image)
