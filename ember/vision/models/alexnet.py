"""AlexNet (Krizhevsky et al., 2012; torchvision's "one weird trick" variant), torchvision's module names."""

from functools import partial

from ... import nn
from ._api import Weights, WeightsEnum, check_num_classes, handle_legacy_pretrained, load_into
from ._presets import ImageClassification

__all__ = ["AlexNet", "AlexNet_Weights", "alexnet"]


class AlexNet(nn.Module):
    """Five convolutions (`features`), a 6x6 adaptive pool and three fully connected layers (`classifier`)."""

    def __init__(self, num_classes=1000, dropout=0.5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, kernel_size=11, stride=4, padding=2),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(64, 192, kernel_size=5, padding=2),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(192, 384, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(384, 256, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(256, 256, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
        )
        self.avgpool = nn.AdaptiveAvgPool2d((6, 6))
        self.classifier = nn.Sequential(
            nn.Dropout(p=dropout),
            nn.Linear(256 * 6 * 6, 4096),
            nn.ReLU(inplace=True),
            nn.Dropout(p=dropout),
            nn.Linear(4096, 4096),
            nn.ReLU(inplace=True),
            nn.Linear(4096, num_classes),
        )

    def forward(self, x):
        return self.classifier(self.avgpool(self.features(x)).flatten(1))


class AlexNet_Weights(WeightsEnum):
    """Pretrained ImageNet-1K weights of `alexnet`, read from the local cache (never downloaded); `DEFAULT` is
    `IMAGENET1K_V1`.
    """

    IMAGENET1K_V1 = Weights(
        url="https://download.pytorch.org/models/alexnet-owt-7be5be79.pth",
        transforms=partial(ImageClassification, crop_size=224),
        meta={"num_classes": 1000, "min_size": (63, 63), "dataset": "ImageNet-1K", "num_params": 61100840},
    )
    DEFAULT = IMAGENET1K_V1


def alexnet(*, weights=None, progress=True, **kwargs):
    """AlexNet. weights: None or AlexNet_Weights (loaded from the local cache only, never downloaded)."""
    weights = AlexNet_Weights.verify(handle_legacy_pretrained(weights, kwargs, AlexNet_Weights.IMAGENET1K_V1))
    check_num_classes(weights, kwargs)
    state = None if weights is None else weights.get_state_dict(progress)  # fail before building
    model = AlexNet(**kwargs)
    if state is not None:
        load_into(model, state)
    return model
