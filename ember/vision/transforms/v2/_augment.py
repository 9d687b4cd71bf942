"""CutMix and MixUp: batch-level augmentations that mix pairs of images and their one-hot labels."""

import math

import ember

from ...._backend import np
from ...._tensor import Tensor, new_tensor


def _beta(alpha):
    """A Beta(alpha, alpha) draw, reproducible under ember.manual_seed (seeded from ember's generator)."""
    seed = int(ember.randint(0, 2**31 - 1, (1,)).item())
    return float(np.random.default_rng(seed).beta(alpha, alpha))


class _BaseMixUpCutMix:
    def __init__(self, *, alpha=1.0, num_classes=None, labels_getter="default"):
        if alpha <= 0:
            raise ValueError("Alpha param can't be zero.")
        if labels_getter != "default":
            raise NotImplementedError("ember supports labels_getter='default' only: call with (images, labels)")
        self.alpha, self.num_classes = float(alpha), num_classes

    def __call__(self, *inputs):
        images, labels = inputs if len(inputs) == 2 else inputs[0]
        if not isinstance(images, Tensor) or images.ndim != 4:
            raise ValueError(
                f"{type(self).__name__} expects a batch of images (B, C, H, W) and labels (B,); "
                f"got images of shape {getattr(images, 'shape', type(images))}"
            )
        if not isinstance(labels, Tensor) or labels.ndim != 1 or labels.dtype is not ember.int64:
            raise ValueError(
                f"The labels should be an int64 tensor of shape (batch_size,), got "
                f"{getattr(labels, 'dtype', type(labels))} {tuple(getattr(labels, 'shape', ()))}"
            )
        if labels.shape[0] != images.shape[0]:
            raise ValueError(
                f"The batch size of the images ({images.shape[0]}) and of the labels ({labels.shape[0]}) differ"
            )
        num_classes = self.num_classes if self.num_classes is not None else int(labels.max().item()) + 1
        label_dtype = images.dtype if images.dtype.is_floating_point else ember.float32
        one_hot = ember.nn.functional.one_hot(labels, num_classes=num_classes).to(label_dtype)
        return self._mix(images, one_hot)

    def _mix_labels(self, one_hot, lam):
        return one_hot * lam + one_hot.roll(1, 0) * (1.0 - lam)


class MixUp(_BaseMixUpCutMix):
    """Blend each image with the next one in the batch by lam ~ Beta(alpha, alpha); labels become soft.

    Example: `images, soft_labels = MixUp(num_classes=10)(images, labels)` after the DataLoader.
    """

    def _mix(self, images, one_hot):
        lam = _beta(self.alpha)
        mixed = images * lam + images.roll(1, 0) * (1.0 - lam)
        return mixed, self._mix_labels(one_hot, lam)


class CutMix(_BaseMixUpCutMix):
    """Paste a random box of the next image into each image; labels are weighted by the box's area."""

    def _mix(self, images, one_hot):
        lam = _beta(self.alpha)
        height, width = images.shape[-2:]
        center_x = int(ember.randint(0, width, (1,)).item())
        center_y = int(ember.randint(0, height, (1,)).item())
        ratio = 0.5 * math.sqrt(1.0 - lam)
        half_width, half_height = int(ratio * width), int(ratio * height)
        left, right = max(center_x - half_width, 0), min(center_x + half_width, width)
        top, bottom = max(center_y - half_height, 0), min(center_y + half_height, height)
        array = images.detach().numpy().copy()
        array[..., top:bottom, left:right] = np.roll(array, 1, axis=0)[..., top:bottom, left:right]
        lam_adjusted = 1.0 - (right - left) * (bottom - top) / (width * height)
        return new_tensor(array), self._mix_labels(one_hot, lam_adjusted)
