"""The preprocessing pretrained classifiers expect (what `Weights.transforms()` returns)."""

from ... import _dtype
from ...nn.modules.module import Module
from ..transforms import functional as F
from ..transforms.functional import InterpolationMode

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)


class ImageClassification(Module):
    """Resize the smaller edge to resize_size, centre-crop crop_size, scale to [0, 1] floats, normalize."""

    def __init__(
        self,
        *,
        crop_size,
        resize_size=256,
        mean=IMAGENET_MEAN,
        std=IMAGENET_STD,
        interpolation=InterpolationMode.BILINEAR,
        antialias=True,
    ):
        super().__init__()
        self.crop_size, self.resize_size = [crop_size], [resize_size]
        self.mean, self.std = list(mean), list(std)
        self.interpolation, self.antialias = interpolation, antialias

    def forward(self, img):
        img = F.resize(img, self.resize_size, interpolation=self.interpolation, antialias=self.antialias)
        img = F.center_crop(img, self.crop_size)
        if not isinstance(img, F.Tensor):
            img = F.pil_to_tensor(img)
        img = F.convert_image_dtype(img, _dtype.float32)
        return F.normalize(img, mean=self.mean, std=self.std)

    def __repr__(self):
        return (
            f"{self.__class__.__name__}(\n    crop_size={self.crop_size}\n    resize_size={self.resize_size}\n"
            f"    mean={self.mean}\n    std={self.std}\n    interpolation={self.interpolation}\n)"
        )
