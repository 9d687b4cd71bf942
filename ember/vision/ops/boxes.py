"""torchvision.ops' box functions: formats, areas, IoU (differentiable, for box losses), clipping, and
non-maximum suppression. Boxes are (N, 4) tensors in (x1, y1, x2, y2) unless a format says otherwise."""

import ember

from ...ops import joining

__all__ = [
    "batched_nms",
    "box_area",
    "box_convert",
    "box_iou",
    "clip_boxes_to_image",
    "generalized_box_iou",
    "masks_to_boxes",
    "nms",
    "remove_small_boxes",
]

_FORMATS = ("xyxy", "xywh", "cxcywh")


def _upcast(values):
    """Products of coordinates in a type that does not overflow: float32/64, int32/64."""
    if values.is_floating_point():
        return values if values.dtype in (ember.float32, ember.float64) else values.float()
    return values if values.dtype in (ember.int32, ember.int64) else values.int()


def box_convert(boxes, in_fmt, out_fmt):
    """`boxes` from `in_fmt` to `out_fmt`, each one of 'xyxy', 'xywh', 'cxcywh' (centres and halves are
    true divisions: integer boxes give float ones; the rotated formats are not implemented in ember)."""
    if in_fmt not in _FORMATS or out_fmt not in _FORMATS:
        if {in_fmt, out_fmt} <= {*_FORMATS, "xywhr", "cxcywhr", "xyxyxyxy"}:
            raise NotImplementedError(f"box_convert between rotated formats ({in_fmt} -> {out_fmt}) in ember")
        raise ValueError(f"Unsupported Bounding Box Conversions for given in_fmt {in_fmt} and out_fmt {out_fmt}")
    if in_fmt == out_fmt:
        return boxes.clone()
    if in_fmt == "xywh":
        x, y, w, h = boxes.unbind(-1)
        boxes, in_fmt = joining.stack((x, y, x + w, y + h), dim=-1), "xyxy"
    elif in_fmt == "cxcywh":
        cx, cy, w, h = boxes.unbind(-1)
        boxes, in_fmt = joining.stack((cx - 0.5 * w, cy - 0.5 * h, cx + 0.5 * w, cy + 0.5 * h), dim=-1), "xyxy"
    if out_fmt == "xyxy":
        return boxes
    x1, y1, x2, y2 = boxes.unbind(-1)
    if out_fmt == "xywh":
        return joining.stack((x1, y1, x2 - x1, y2 - y1), dim=-1)
    return joining.stack(((x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1), dim=-1)


def box_area(boxes):
    """The area of each box."""
    boxes = _upcast(boxes)
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def _intersection_union(boxes1, boxes2):
    area1, area2 = box_area(boxes1), box_area(boxes2)
    top_left = ember.max(boxes1[:, None, :2], boxes2[:, :2])
    bottom_right = ember.min(boxes1[:, None, 2:], boxes2[:, 2:])
    sides = _upcast(bottom_right - top_left).clamp(min=0)
    intersection = sides[:, :, 0] * sides[:, :, 1]
    return intersection, area1[:, None] + area2 - intersection


def box_iou(boxes1, boxes2):
    """(N, M) intersection over union of every pair of boxes from `boxes1` (N) and `boxes2` (M)."""
    intersection, union = _intersection_union(boxes1, boxes2)
    return intersection / union


def generalized_box_iou(boxes1, boxes2):
    """(N, M) generalized IoU (Rezatofighi et al., 2019): IoU less the share of the smallest enclosing
    box that the union leaves empty; in [-1, 1], and informative for boxes that do not overlap."""
    intersection, union = _intersection_union(boxes1, boxes2)
    top_left = ember.min(boxes1[:, None, :2], boxes2[:, :2])
    bottom_right = ember.max(boxes1[:, None, 2:], boxes2[:, 2:])
    sides = _upcast(bottom_right - top_left).clamp(min=0)
    enclosing = sides[:, :, 0] * sides[:, :, 1]
    return intersection / union - (enclosing - union) / enclosing


def clip_boxes_to_image(boxes, size):
    """Boxes clipped to an image of `size` = (height, width)."""
    height, width = size
    xs, ys = boxes[..., 0::2].clamp(min=0, max=width), boxes[..., 1::2].clamp(min=0, max=height)
    return joining.stack((xs, ys), dim=boxes.dim()).reshape(boxes.shape)


def remove_small_boxes(boxes, min_size):
    """Indices of the boxes whose sides are both at least `min_size`."""
    widths, heights = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    return ember.where((widths >= min_size) & (heights >= min_size))[0]


def nms(boxes, scores, iou_threshold):
    """Greedy non-maximum suppression: from the highest score down, keep a box and drop every later one
    whose IoU with it exceeds `iou_threshold`. The kept indices (int64), by decreasing score."""
    if boxes.ndim != 2 or boxes.shape[-1] != 4:
        raise RuntimeError(f"boxes should be a 2d tensor of shape (N, 4), got {tuple(boxes.shape)}")
    if scores.ndim != 1 or scores.shape[0] != boxes.shape[0]:
        raise RuntimeError(
            f"scores should be a 1d tensor with one score per box, got {tuple(scores.shape)} for {boxes.shape[0]} boxes"
        )
    with ember.no_grad():
        order = scores.sort(descending=True, stable=True).indices.tolist()
        overlaps = box_iou(boxes, boxes).numpy() > iou_threshold
    suppressed, keep = set(), []
    for index in order:
        if index in suppressed:
            continue
        keep.append(index)
        suppressed.update(overlaps[index].nonzero()[0].tolist())
    return ember.tensor(keep, dtype=ember.int64)


def batched_nms(boxes, scores, idxs, iou_threshold):
    """nms within each category of `idxs` (boxes of different categories never suppress each other)."""
    if boxes.numel() == 0:
        return ember.empty((0,), dtype=ember.int64)
    with ember.no_grad():
        offsets = idxs.to(boxes) * (boxes.max() + 1)
        return nms(boxes + offsets[:, None], scores, iou_threshold)


def masks_to_boxes(masks):
    """The (N, 4) float boxes around the nonzero pixels of (N, H, W) masks (x2, y2 inclusive, as
    torchvision: the coordinates of the last pixel)."""
    if masks.numel() == 0:
        return ember.zeros((0, 4))
    boxes = ember.zeros((masks.shape[0], 4), dtype=ember.float32)
    for index, mask in enumerate(masks):
        ys, xs = ember.where(mask != 0)
        if xs.numel() == 0:
            raise RuntimeError(f"masks_to_boxes: mask {index} is empty (no nonzero pixel to bound)")
        boxes[index] = ember.stack([xs.min(), ys.min(), xs.max(), ys.max()]).float()
    return boxes
