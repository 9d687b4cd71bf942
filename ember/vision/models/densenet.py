"""DenseNet (Huang et al., 2016) with torchvision's module names (features.denseblock1.denselayer1.norm1...)."""

import re
from collections import OrderedDict
from functools import partial

import ember

from ... import nn
from ...nn import functional as F
from ._api import Weights, WeightsEnum, check_num_classes, handle_legacy_pretrained, load_into
from ._presets import ImageClassification

__all__ = [
    "DenseNet",
    "DenseNet121_Weights",
    "DenseNet161_Weights",
    "DenseNet169_Weights",
    "DenseNet201_Weights",
    "densenet121",
    "densenet161",
    "densenet169",
    "densenet201",
]


class _DenseLayer(nn.Module):
    """BN-ReLU-1x1 conv (bottleneck) then BN-ReLU-3x3 conv: `growth_rate` new channels from all previous ones."""

    def __init__(self, num_input_features, growth_rate, bn_size, drop_rate, memory_efficient=False):
        super().__init__()
        self.norm1 = nn.BatchNorm2d(num_input_features)
        self.relu1 = nn.ReLU(inplace=True)
        self.conv1 = nn.Conv2d(num_input_features, bn_size * growth_rate, kernel_size=1, stride=1, bias=False)
        self.norm2 = nn.BatchNorm2d(bn_size * growth_rate)
        self.relu2 = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(bn_size * growth_rate, growth_rate, kernel_size=3, stride=1, padding=1, bias=False)
        self.drop_rate = float(drop_rate)
        self.memory_efficient = memory_efficient  # accepted; ember does not checkpoint here

    def forward(self, input):
        features = ember.cat([input] if isinstance(input, ember.Tensor) else list(input), 1)
        bottleneck = self.conv1(self.relu1(self.norm1(features)))
        new_features = self.conv2(self.relu2(self.norm2(bottleneck)))
        if self.drop_rate > 0:
            new_features = F.dropout(new_features, p=self.drop_rate, training=self.training)
        return new_features


class _DenseBlock(nn.ModuleDict):
    def __init__(self, num_layers, num_input_features, bn_size, growth_rate, drop_rate, memory_efficient=False):
        super().__init__()
        for index in range(num_layers):
            self.add_module(
                f"denselayer{index + 1}",
                _DenseLayer(
                    num_input_features + index * growth_rate, growth_rate, bn_size, drop_rate, memory_efficient
                ),
            )

    def forward(self, init_features):
        features = [init_features]
        for layer in self.values():
            features.append(layer(features))
        return ember.cat(features, 1)


class _Transition(nn.Sequential):
    def __init__(self, num_input_features, num_output_features):
        super().__init__()
        self.norm = nn.BatchNorm2d(num_input_features)
        self.relu = nn.ReLU(inplace=True)
        self.conv = nn.Conv2d(num_input_features, num_output_features, kernel_size=1, stride=1, bias=False)
        self.pool = nn.AvgPool2d(kernel_size=2, stride=2)


class DenseNet(nn.Module):
    """DenseNet-BC: a stem, dense blocks joined by halving transitions, a final BN, a linear classifier."""

    def __init__(
        self,
        growth_rate=32,
        block_config=(6, 12, 24, 16),
        num_init_features=64,
        bn_size=4,
        drop_rate=0,
        num_classes=1000,
        memory_efficient=False,
    ):
        super().__init__()
        self.features = nn.Sequential(
            OrderedDict(
                [
                    ("conv0", nn.Conv2d(3, num_init_features, kernel_size=7, stride=2, padding=3, bias=False)),
                    ("norm0", nn.BatchNorm2d(num_init_features)),
                    ("relu0", nn.ReLU(inplace=True)),
                    ("pool0", nn.MaxPool2d(kernel_size=3, stride=2, padding=1)),
                ]
            )
        )
        num_features = num_init_features
        for index, num_layers in enumerate(block_config):
            self.features.add_module(
                f"denseblock{index + 1}",
                _DenseBlock(num_layers, num_features, bn_size, growth_rate, drop_rate, memory_efficient),
            )
            num_features += num_layers * growth_rate
            if index != len(block_config) - 1:
                self.features.add_module(f"transition{index + 1}", _Transition(num_features, num_features // 2))
                num_features //= 2
        self.features.add_module("norm5", nn.BatchNorm2d(num_features))
        self.classifier = nn.Linear(num_features, num_classes)
        for module in self.modules():
            if isinstance(module, nn.Conv2d):
                nn.init.kaiming_normal_(module.weight)
            elif isinstance(module, nn.BatchNorm2d):
                nn.init.constant_(module.weight, 1)
                nn.init.constant_(module.bias, 0)
            elif isinstance(module, nn.Linear):
                nn.init.constant_(module.bias, 0)

    def forward(self, x):
        out = F.adaptive_avg_pool2d(F.relu(self.features(x)), (1, 1))
        return self.classifier(out.flatten(1))


# The original checkpoints name layers "norm.1", "conv.2", ...; torchvision renames them on loading.
_OLD_KEY = re.compile(
    r"^(.*denselayer\d+\.(?:norm|relu|conv))\."
    r"((?:[12])\.(?:weight|bias|running_mean|running_var|num_batches_tracked))$"
)


def _renamed(state):
    return {(_OLD_KEY.sub(lambda match: match.group(1) + match.group(2), key)): value for key, value in state.items()}


def _weights(filename, num_params):
    return Weights(
        url=f"https://download.pytorch.org/models/{filename}",
        transforms=partial(ImageClassification, crop_size=224),
        meta={"num_classes": 1000, "min_size": (29, 29), "dataset": "ImageNet-1K", "num_params": num_params},
    )


class DenseNet121_Weights(WeightsEnum):
    """Pretrained ImageNet-1K weights of `densenet121`, read from the local cache (never downloaded); `DEFAULT` is
    `IMAGENET1K_V1`.
    """

    IMAGENET1K_V1 = _weights("densenet121-a639ec97.pth", 7978856)
    DEFAULT = IMAGENET1K_V1


class DenseNet161_Weights(WeightsEnum):
    """Pretrained ImageNet-1K weights of `densenet161`, read from the local cache (never downloaded); `DEFAULT` is
    `IMAGENET1K_V1`.
    """

    IMAGENET1K_V1 = _weights("densenet161-8d451a50.pth", 28681000)
    DEFAULT = IMAGENET1K_V1


class DenseNet169_Weights(WeightsEnum):
    """Pretrained ImageNet-1K weights of `densenet169`, read from the local cache (never downloaded); `DEFAULT` is
    `IMAGENET1K_V1`.
    """

    IMAGENET1K_V1 = _weights("densenet169-b2777c0a.pth", 14149480)
    DEFAULT = IMAGENET1K_V1


class DenseNet201_Weights(WeightsEnum):
    """Pretrained ImageNet-1K weights of `densenet201`, read from the local cache (never downloaded); `DEFAULT` is
    `IMAGENET1K_V1`.
    """

    IMAGENET1K_V1 = _weights("densenet201-c1103571.pth", 20013928)
    DEFAULT = IMAGENET1K_V1


def _densenet(growth_rate, block_config, num_init_features, weights_enum, weights, progress, kwargs):
    weights = weights_enum.verify(handle_legacy_pretrained(weights, kwargs, weights_enum.IMAGENET1K_V1))
    check_num_classes(weights, kwargs)
    state = None if weights is None else _renamed(weights.get_state_dict(progress))
    model = DenseNet(growth_rate, block_config, num_init_features, **kwargs)
    if state is not None:
        load_into(model, state)
    return model


def densenet121(*, weights=None, progress=True, **kwargs):
    """DenseNet-121 (weights from the local cache only; old-style checkpoint keys are renamed as torchvision)."""
    return _densenet(32, (6, 12, 24, 16), 64, DenseNet121_Weights, weights, progress, kwargs)


def densenet161(*, weights=None, progress=True, **kwargs):
    """DenseNet-161."""
    return _densenet(48, (6, 12, 36, 24), 96, DenseNet161_Weights, weights, progress, kwargs)


def densenet169(*, weights=None, progress=True, **kwargs):
    """DenseNet-169."""
    return _densenet(32, (6, 12, 32, 32), 64, DenseNet169_Weights, weights, progress, kwargs)


def densenet201(*, weights=None, progress=True, **kwargs):
    """DenseNet-201."""
    return _densenet(32, (6, 12, 48, 32), 64, DenseNet201_Weights, weights, progress, kwargs)
