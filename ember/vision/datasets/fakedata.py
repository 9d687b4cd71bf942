"""FakeData: random images, for trying a pipeline without data on disk."""

import ember

from ..transforms import functional
from .vision import VisionDataset

__all__ = ["FakeData"]


class FakeData(VisionDataset):
    """`size` random PIL images of `image_size` (C, H, W) with random labels in [0, num_classes).

    Each sample is drawn from its own generator seeded by `random_offset + index`, so the same index
    always gives the same image, as in torchvision. Difference: pixels are uniform in [0, 1) before
    conversion (torchvision draws normal values, which wrap around when made bytes).
    """

    def __init__(
        self,
        size=1000,
        image_size=(3, 224, 224),
        num_classes=10,
        transform=None,
        target_transform=None,
        random_offset=0,
    ):
        super().__init__(None, transform=transform, target_transform=target_transform)
        self.size, self.num_classes, self.image_size, self.random_offset = size, num_classes, image_size, random_offset

    def __getitem__(self, index):
        if index >= len(self):
            raise IndexError(f"{self.__class__.__name__} index out of range")
        generator = ember.Generator().manual_seed(index + self.random_offset)
        image = ember.rand(*self.image_size, generator=generator)
        target = int(ember.randint(0, self.num_classes, size=(1,), generator=generator).item())
        image = functional.to_pil_image(image)
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return image, target

    def __len__(self):
        return self.size
