"""torchvision.ops' box functions (ember/vision/ops/boxes.py), against independent NumPy references
of torchvision's documented definitions (torchvision does not import beside the CPU torch here)."""

import numpy as np
import pytest

import ember
from ember.vision import ops


def random_boxes(rng, count, dtype=np.float64):
    corner = rng.uniform(0, 50, (count, 2))
    return np.concatenate([corner, corner + rng.uniform(1, 30, (count, 2))], 1).astype(dtype)


def test_iou_and_generalized_iou_values():
    rng = np.random.default_rng(0)
    a, b = random_boxes(rng, 6), random_boxes(rng, 5)
    expected = np.zeros((6, 5, 2))
    for i in range(6):
        for j in range(5):
            expected[i, j] = iou_reference_pair(a[i], b[j])
    np.testing.assert_allclose(ops.box_iou(ember.tensor(a), ember.tensor(b)).numpy(), expected[..., 0], rtol=1e-12)
    giou = ops.generalized_box_iou(ember.tensor(a), ember.tensor(b)).numpy()
    np.testing.assert_allclose(giou, expected[..., 1], rtol=1e-12)
    assert giou.min() >= -1 and giou.max() <= 1


def iou_reference_pair(p, q):
    w = max(0.0, min(p[2], q[2]) - max(p[0], q[0]))
    h = max(0.0, min(p[3], q[3]) - max(p[1], q[1]))
    inter = w * h
    union = (p[2] - p[0]) * (p[3] - p[1]) + (q[2] - q[0]) * (q[3] - q[1]) - inter
    enclosing = (max(p[2], q[2]) - min(p[0], q[0])) * (max(p[3], q[3]) - min(p[1], q[1]))
    return inter / union, inter / union - (enclosing - union) / enclosing


@pytest.mark.parametrize("function", [ops.box_iou, ops.generalized_box_iou])
def test_iou_gradients(function):
    """What a GIoU box loss trains through (random boxes: no ties at the min/max kinks)."""
    rng = np.random.default_rng(1)
    a = ember.tensor(random_boxes(rng, 4), requires_grad=True)
    b = ember.tensor(random_boxes(rng, 3), requires_grad=True)
    assert ember.autograd.gradcheck(function, (a, b))
    assert ember.autograd.gradgradcheck(function, (a, b))


def nms_reference(boxes, scores, threshold):
    order = sorted(range(len(scores)), key=lambda i: -scores[i])  # stable for ties
    keep, suppressed = [], set()
    for i in order:
        if i not in suppressed:
            keep.append(i)
            suppressed |= {j for j in order if iou_reference_pair(boxes[i], boxes[j])[0] > threshold}
    return keep


@pytest.mark.parametrize("threshold", [0.0, 0.2, 0.5, 0.9])
def test_nms_keeps_what_greedy_suppression_keeps(threshold):
    rng = np.random.default_rng(2)
    boxes = random_boxes(rng, 40, np.float32)
    scores = rng.random(40).astype(np.float32)
    scores[5] = scores[7]  # a tie: the earlier index goes first
    kept = ops.nms(ember.from_numpy(boxes), ember.from_numpy(scores), threshold)
    assert kept.dtype == ember.int64 and kept.tolist() == nms_reference(boxes, scores, threshold)


def test_batched_nms_never_suppresses_across_categories():
    boxes = ember.tensor([[0.0, 0.0, 10.0, 10.0], [1.0, 1.0, 10.0, 10.0], [0.0, 0.0, 10.0, 10.0]])
    scores = ember.tensor([0.9, 0.8, 0.7])
    assert ops.nms(boxes, scores, 0.5).tolist() == [0]
    assert ops.batched_nms(boxes, scores, ember.tensor([0, 0, 1]), 0.5).tolist() == [0, 2]
    assert ops.batched_nms(ember.zeros(0, 4), ember.zeros(0), ember.zeros(0, dtype=ember.int64), 0.5).tolist() == []
    with pytest.raises(RuntimeError, match="one score per box"):
        ops.nms(boxes, scores[:2], 0.5)


def test_box_convert_area_clip_and_small_boxes():
    boxes = ember.tensor([[1, 2, 5, 7]])
    assert ops.box_convert(boxes, "xyxy", "cxcywh").tolist() == [[3.0, 4.5, 4.0, 5.0]]  # true division
    assert ops.box_convert(boxes, "xyxy", "xywh").tolist() == [[1, 2, 4, 5]]
    rng = np.random.default_rng(3)
    random = ember.tensor(random_boxes(rng, 5))
    for middle in ("xywh", "cxcywh"):
        back = ops.box_convert(ops.box_convert(random, "xyxy", middle), middle, "xyxy")
        np.testing.assert_allclose(back.numpy(), random.numpy(), rtol=1e-12)
    np.testing.assert_allclose(
        ops.box_convert(ops.box_convert(random, "xywh", "cxcywh"), "cxcywh", "xywh").numpy(), random.numpy(), atol=1e-12
    )
    with pytest.raises(ValueError, match="Unsupported"):
        ops.box_convert(boxes, "xyxy", "yxyx")
    assert ops.box_area(ember.tensor([[0, 0, 200, 200]], dtype=ember.uint8)).tolist() == [40000]  # upcast
    clipped = ops.clip_boxes_to_image(ember.tensor([[-3.0, 2.0, 40.0, 25.0]]), (20, 30))
    assert clipped.tolist() == [[0.0, 2.0, 30.0, 20.0]]
    assert ops.remove_small_boxes(ember.tensor([[0.0, 0, 5, 5], [0, 0, 1, 9], [2, 2, 4, 9]]), 2).tolist() == [0, 2]


def test_masks_to_boxes():
    masks = ember.zeros(2, 6, 8, dtype=ember.bool)
    masks[0, 1:4, 2:7] = True
    masks[1, 5, 0] = True
    assert ops.masks_to_boxes(masks).tolist() == [[2.0, 1.0, 6.0, 3.0], [0.0, 5.0, 0.0, 5.0]]
    assert ops.masks_to_boxes(ember.zeros(0, 3, 3)).shape == (0, 4)
    with pytest.raises(RuntimeError, match="empty"):
        ops.masks_to_boxes(ember.zeros(1, 3, 3))
