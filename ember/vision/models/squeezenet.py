"""SqueezeNet 1.0 and 1.1 (Iandola et al., 2016) with torchvision's module names."""

from functools import partial

import ember

from ... import nn
from ._api import Weights, WeightsEnum, check_num_classes, handle_legacy_pretrained, load_into
from ._presets import ImageClassification

__all__ = ["SqueezeNet", "Fire", "SqueezeNet1_0_Weights", "SqueezeNet1_1_Weights", "squeezenet1_0", "squeezenet1_1"]


class Fire(nn.Module):
    """A 1x1 squeeze, then 1x1 and 3x3 expansions concatenated along channels."""

    def __init__(self, inplanes, squeeze_planes, expand1x1_planes, expand3x3_planes):
        super().__init__()
        self.inplanes = inplanes
        self.squeeze = nn.Conv2d(inplanes, squeeze_planes, kernel_size=1)
        self.squeeze_activation = nn.ReLU(inplace=True)
        self.expand1x1 = nn.Conv2d(squeeze_planes, expand1x1_planes, kernel_size=1)
        self.expand1x1_activation = nn.ReLU(inplace=True)
        self.expand3x3 = nn.Conv2d(squeeze_planes, expand3x3_planes, kernel_size=3, padding=1)
        self.expand3x3_activation = nn.ReLU(inplace=True)

    def forward(self, x):
        x = self.squeeze_activation(self.squeeze(x))
        return ember.cat(
            [self.expand1x1_activation(self.expand1x1(x)), self.expand3x3_activation(self.expand3x3(x))], 1
        )


class SqueezeNet(nn.Module):
    """SqueezeNet `version` "1_0" or "1_1": Fire modules, then a 1x1 convolution per class, averaged."""

    def __init__(self, version="1_0", num_classes=1000, dropout=0.5):
        super().__init__()
        self.num_classes = num_classes
        pool = partial(nn.MaxPool2d, kernel_size=3, stride=2, ceil_mode=True)
        if version == "1_0":
            self.features = nn.Sequential(
                nn.Conv2d(3, 96, kernel_size=7, stride=2),
                nn.ReLU(inplace=True),
                pool(),
                Fire(96, 16, 64, 64),
                Fire(128, 16, 64, 64),
                Fire(128, 32, 128, 128),
                pool(),
                Fire(256, 32, 128, 128),
                Fire(256, 48, 192, 192),
                Fire(384, 48, 192, 192),
                Fire(384, 64, 256, 256),
                pool(),
                Fire(512, 64, 256, 256),
            )
        elif version == "1_1":
            self.features = nn.Sequential(
                nn.Conv2d(3, 64, kernel_size=3, stride=2),
                nn.ReLU(inplace=True),
                pool(),
                Fire(64, 16, 64, 64),
                Fire(128, 16, 64, 64),
                pool(),
                Fire(128, 32, 128, 128),
                Fire(256, 32, 128, 128),
                pool(),
                Fire(256, 48, 192, 192),
                Fire(384, 48, 192, 192),
                Fire(384, 64, 256, 256),
                Fire(512, 64, 256, 256),
            )
        else:
            raise ValueError(f"Unsupported SqueezeNet version {version}: 1_0 or 1_1 expected")
        final_conv = nn.Conv2d(512, num_classes, kernel_size=1)
        self.classifier = nn.Sequential(
            nn.Dropout(p=dropout), final_conv, nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d((1, 1))
        )
        for module in self.modules():
            if isinstance(module, nn.Conv2d):
                if module is final_conv:
                    nn.init.normal_(module.weight, mean=0.0, std=0.01)
                else:
                    nn.init.kaiming_uniform_(module.weight)
                if module.bias is not None:
                    nn.init.constant_(module.bias, 0)

    def forward(self, x):
        return self.classifier(self.features(x)).flatten(1)


def _weights(filename, min_size, num_params):
    return Weights(
        url=f"https://download.pytorch.org/models/{filename}",
        transforms=partial(ImageClassification, crop_size=224),
        meta={"num_classes": 1000, "min_size": min_size, "dataset": "ImageNet-1K", "num_params": num_params},
    )


class SqueezeNet1_0_Weights(WeightsEnum):
    """Pretrained ImageNet-1K weights of `squeezenet1_0`, read from the local cache (never downloaded); `DEFAULT` is
    `IMAGENET1K_V1`.
    """

    IMAGENET1K_V1 = _weights("squeezenet1_0-b66bff10.pth", (21, 21), 1248424)
    DEFAULT = IMAGENET1K_V1


class SqueezeNet1_1_Weights(WeightsEnum):
    """Pretrained ImageNet-1K weights of `squeezenet1_1`, read from the local cache (never downloaded); `DEFAULT` is
    `IMAGENET1K_V1`.
    """

    IMAGENET1K_V1 = _weights("squeezenet1_1-b8a52dc0.pth", (17, 17), 1235496)
    DEFAULT = IMAGENET1K_V1


def _squeezenet(version, weights_enum, weights, progress, kwargs):
    weights = weights_enum.verify(handle_legacy_pretrained(weights, kwargs, weights_enum.IMAGENET1K_V1))
    check_num_classes(weights, kwargs)
    state = None if weights is None else weights.get_state_dict(progress)
    model = SqueezeNet(version, **kwargs)
    if state is not None:
        load_into(model, state)
    return model


def squeezenet1_0(*, weights=None, progress=True, **kwargs):
    """SqueezeNet 1.0 (weights from the local cache only)."""
    return _squeezenet("1_0", SqueezeNet1_0_Weights, weights, progress, kwargs)


def squeezenet1_1(*, weights=None, progress=True, **kwargs):
    """SqueezeNet 1.1: 2.4x less computation than 1.0 for the same accuracy."""
    return _squeezenet("1_1", SqueezeNet1_1_Weights, weights, progress, kwargs)
