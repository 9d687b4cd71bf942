"""VGG (Simonyan & Zisserman, 2014), with and without batch norm, with torchvision's module names."""

from functools import partial

from ... import nn
from ._api import Weights, WeightsEnum, check_num_classes, handle_legacy_pretrained, load_into
from ._presets import ImageClassification

__all__ = [
    "VGG",
    "make_layers",
    "cfgs",
    "vgg11",
    "vgg11_bn",
    "vgg13",
    "vgg13_bn",
    "vgg16",
    "vgg16_bn",
    "vgg19",
    "vgg19_bn",
    "VGG11_Weights",
    "VGG11_BN_Weights",
    "VGG13_Weights",
    "VGG13_BN_Weights",
    "VGG16_Weights",
    "VGG16_BN_Weights",
    "VGG19_Weights",
    "VGG19_BN_Weights",
]


class VGG(nn.Module):
    """`features` (convolutions), a 7x7 adaptive pool and three fully connected layers with dropout."""

    def __init__(self, features, num_classes=1000, init_weights=True, dropout=0.5):
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, 4096),
            nn.ReLU(True),
            nn.Dropout(p=dropout),
            nn.Linear(4096, 4096),
            nn.ReLU(True),
            nn.Dropout(p=dropout),
            nn.Linear(4096, num_classes),
        )
        if init_weights:
            for module in self.modules():
                if isinstance(module, nn.Conv2d):
                    nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")
                    if module.bias is not None:
                        nn.init.constant_(module.bias, 0)
                elif isinstance(module, nn.BatchNorm2d):
                    nn.init.constant_(module.weight, 1)
                    nn.init.constant_(module.bias, 0)
                elif isinstance(module, nn.Linear):
                    nn.init.normal_(module.weight, 0, 0.01)
                    nn.init.constant_(module.bias, 0)

    def forward(self, x):
        return self.classifier(self.avgpool(self.features(x)).flatten(1))


def make_layers(cfg, batch_norm=False):
    """The convolutional part from a configuration: numbers are 3x3 conv widths, "M" a 2x2 max pool."""
    layers, in_channels = [], 3
    for value in cfg:
        if value == "M":
            layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
            continue
        conv = nn.Conv2d(in_channels, value, kernel_size=3, padding=1)
        layers += [conv, nn.BatchNorm2d(value), nn.ReLU(inplace=True)] if batch_norm else [conv, nn.ReLU(inplace=True)]
        in_channels = value
    return nn.Sequential(*layers)


cfgs = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512, 512, 512, 512, "M"],
}


def _weights(filename, num_params):
    return Weights(
        url=f"https://download.pytorch.org/models/{filename}",
        transforms=partial(ImageClassification, crop_size=224),
        meta={"num_classes": 1000, "min_size": (32, 32), "dataset": "ImageNet-1K", "num_params": num_params},
    )


class VGG11_Weights(WeightsEnum):
    """Pretrained ImageNet-1K weights of `vgg11`, read from the local cache (never downloaded); `DEFAULT` is
    `IMAGENET1K_V1`.
    """

    IMAGENET1K_V1 = _weights("vgg11-8a719046.pth", 132863336)
    DEFAULT = IMAGENET1K_V1


class VGG11_BN_Weights(WeightsEnum):
    """Pretrained ImageNet-1K weights of `vgg11_bn`, read from the local cache (never downloaded); `DEFAULT` is
    `IMAGENET1K_V1`.
    """

    IMAGENET1K_V1 = _weights("vgg11_bn-6002323d.pth", 132868840)
    DEFAULT = IMAGENET1K_V1


class VGG13_Weights(WeightsEnum):
    """Pretrained ImageNet-1K weights of `vgg13`, read from the local cache (never downloaded); `DEFAULT` is
    `IMAGENET1K_V1`.
    """

    IMAGENET1K_V1 = _weights("vgg13-19584684.pth", 133047848)
    DEFAULT = IMAGENET1K_V1


class VGG13_BN_Weights(WeightsEnum):
    """Pretrained ImageNet-1K weights of `vgg13_bn`, read from the local cache (never downloaded); `DEFAULT` is
    `IMAGENET1K_V1`.
    """

    IMAGENET1K_V1 = _weights("vgg13_bn-abd245e5.pth", 133053736)
    DEFAULT = IMAGENET1K_V1


class VGG16_Weights(WeightsEnum):
    """Pretrained ImageNet-1K weights of `vgg16`, read from the local cache (never downloaded); `DEFAULT` is
    `IMAGENET1K_V1`.
    """

    IMAGENET1K_V1 = _weights("vgg16-397923af.pth", 138357544)
    DEFAULT = IMAGENET1K_V1


class VGG16_BN_Weights(WeightsEnum):
    """Pretrained ImageNet-1K weights of `vgg16_bn`, read from the local cache (never downloaded); `DEFAULT` is
    `IMAGENET1K_V1`.
    """

    IMAGENET1K_V1 = _weights("vgg16_bn-6c64b313.pth", 138365992)
    DEFAULT = IMAGENET1K_V1


class VGG19_Weights(WeightsEnum):
    """Pretrained ImageNet-1K weights of `vgg19`, read from the local cache (never downloaded); `DEFAULT` is
    `IMAGENET1K_V1`.
    """

    IMAGENET1K_V1 = _weights("vgg19-dcbb9e9d.pth", 143667240)
    DEFAULT = IMAGENET1K_V1


class VGG19_BN_Weights(WeightsEnum):
    """Pretrained ImageNet-1K weights of `vgg19_bn`, read from the local cache (never downloaded); `DEFAULT` is
    `IMAGENET1K_V1`.
    """

    IMAGENET1K_V1 = _weights("vgg19_bn-c79401a0.pth", 143678248)
    DEFAULT = IMAGENET1K_V1


def _vgg(cfg, batch_norm, weights_enum, weights, progress, kwargs):
    weights = weights_enum.verify(handle_legacy_pretrained(weights, kwargs, weights_enum.IMAGENET1K_V1))
    check_num_classes(weights, kwargs)
    state = None
    if weights is not None:
        state = weights.get_state_dict(progress)  # fail before drawing 130M random numbers
        kwargs["init_weights"] = False
    model = VGG(make_layers(cfgs[cfg], batch_norm=batch_norm), **kwargs)
    if state is not None:
        load_into(model, state)
    return model


def vgg11(*, weights=None, progress=True, **kwargs):
    """VGG-11 (configuration "A"). weights: None or VGG11_Weights (loaded from the local cache only)."""
    return _vgg("A", False, VGG11_Weights, weights, progress, kwargs)


def vgg11_bn(*, weights=None, progress=True, **kwargs):
    """VGG-11 with batch norm."""
    return _vgg("A", True, VGG11_BN_Weights, weights, progress, kwargs)


def vgg13(*, weights=None, progress=True, **kwargs):
    """VGG-13 (configuration "B")."""
    return _vgg("B", False, VGG13_Weights, weights, progress, kwargs)


def vgg13_bn(*, weights=None, progress=True, **kwargs):
    """VGG-13 with batch norm."""
    return _vgg("B", True, VGG13_BN_Weights, weights, progress, kwargs)


def vgg16(*, weights=None, progress=True, **kwargs):
    """VGG-16 (configuration "D")."""
    return _vgg("D", False, VGG16_Weights, weights, progress, kwargs)


def vgg16_bn(*, weights=None, progress=True, **kwargs):
    """VGG-16 with batch norm."""
    return _vgg("D", True, VGG16_BN_Weights, weights, progress, kwargs)


def vgg19(*, weights=None, progress=True, **kwargs):
    """VGG-19 (configuration "E")."""
    return _vgg("E", False, VGG19_Weights, weights, progress, kwargs)


def vgg19_bn(*, weights=None, progress=True, **kwargs):
    """VGG-19 with batch norm."""
    return _vgg("E", True, VGG19_BN_Weights, weights, progress, kwargs)
