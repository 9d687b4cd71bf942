"""MobileNetV2 (Sandler et al., 2018) with torchvision's module names."""

from functools import partial

from ... import nn
from ...nn import functional as F
from ..ops.misc import Conv2dNormActivation
from ._api import Weights, WeightsEnum, check_num_classes, handle_legacy_pretrained, load_into
from ._presets import ImageClassification

__all__ = ["MobileNetV2", "InvertedResidual", "MobileNet_V2_Weights", "mobilenet_v2"]


def _make_divisible(value, divisor, min_value=None):
    """Round a channel count to a multiple of `divisor`, never more than 10% below `value`."""
    min_value = min_value or divisor
    rounded = max(min_value, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded


class InvertedResidual(nn.Module):
    """1x1 expansion, 3x3 depthwise, 1x1 linear projection; a shortcut when the shape is kept."""

    def __init__(self, inp, oup, stride, expand_ratio, norm_layer=None):
        super().__init__()
        if stride not in (1, 2):
            raise ValueError(f"stride should be 1 or 2 instead of {stride}")
        norm_layer = norm_layer or nn.BatchNorm2d
        hidden_dim = round(inp * expand_ratio)
        self.stride = stride
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(
                Conv2dNormActivation(inp, hidden_dim, kernel_size=1, norm_layer=norm_layer, activation_layer=nn.ReLU6)
            )
        layers += [
            Conv2dNormActivation(
                hidden_dim,
                hidden_dim,
                stride=stride,
                groups=hidden_dim,
                norm_layer=norm_layer,
                activation_layer=nn.ReLU6,
            ),
            nn.Conv2d(hidden_dim, oup, 1, 1, 0, bias=False),
            norm_layer(oup),
        ]
        self.conv = nn.Sequential(*layers)
        self.out_channels = oup
        self._is_cn = stride > 1

    def forward(self, x):
        return x + self.conv(x) if self.use_res_connect else self.conv(x)


class MobileNetV2(nn.Module):
    """MobileNetV2: `features` (a stem, 17 inverted residual blocks, a 1x1 head) and `classifier`."""

    def __init__(
        self,
        num_classes=1000,
        width_mult=1.0,
        inverted_residual_setting=None,
        round_nearest=8,
        block=None,
        norm_layer=None,
        dropout=0.2,
    ):
        super().__init__()
        block = block or InvertedResidual
        norm_layer = norm_layer or nn.BatchNorm2d
        setting = inverted_residual_setting or [
            [1, 16, 1, 1],
            [6, 24, 2, 2],
            [6, 32, 3, 2],
            [6, 64, 4, 2],
            [6, 96, 3, 1],
            [6, 160, 3, 2],
            [6, 320, 1, 1],
        ]
        if len(setting) == 0 or len(setting[0]) != 4:
            raise ValueError(f"inverted_residual_setting should be non-empty or a 4-element list, got {setting}")
        input_channel = _make_divisible(32 * width_mult, round_nearest)
        self.last_channel = _make_divisible(1280 * max(1.0, width_mult), round_nearest)
        features = [Conv2dNormActivation(3, input_channel, stride=2, norm_layer=norm_layer, activation_layer=nn.ReLU6)]
        for expansion, channels, repeats, first_stride in setting:
            output_channel = _make_divisible(channels * width_mult, round_nearest)
            for index in range(repeats):
                features.append(
                    block(
                        input_channel,
                        output_channel,
                        first_stride if index == 0 else 1,
                        expand_ratio=expansion,
                        norm_layer=norm_layer,
                    )
                )
                input_channel = output_channel
        features.append(
            Conv2dNormActivation(
                input_channel, self.last_channel, kernel_size=1, norm_layer=norm_layer, activation_layer=nn.ReLU6
            )
        )
        self.features = nn.Sequential(*features)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout), nn.Linear(self.last_channel, num_classes))
        for module in self.modules():
            if isinstance(module, nn.Conv2d):
                nn.init.kaiming_normal_(module.weight, mode="fan_out")
                if module.bias is not None:
                    nn.init.zeros_(module.bias)
            elif isinstance(module, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.ones_(module.weight)
                nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Linear):
                nn.init.normal_(module.weight, 0, 0.01)
                nn.init.zeros_(module.bias)

    def forward(self, x):
        x = F.adaptive_avg_pool2d(self.features(x), (1, 1))
        return self.classifier(x.flatten(1))


def _weights(filename, resize_size):
    return Weights(
        url=f"https://download.pytorch.org/models/{filename}",
        transforms=partial(ImageClassification, crop_size=224, resize_size=resize_size),
        meta={"num_classes": 1000, "min_size": (1, 1), "dataset": "ImageNet-1K", "num_params": 3504872},
    )


class MobileNet_V2_Weights(WeightsEnum):
    """Pretrained ImageNet-1K weights of `mobilenet_v2`, read from the local cache (never downloaded); `DEFAULT` is
    `IMAGENET1K_V2`.
    """

    IMAGENET1K_V1 = _weights("mobilenet_v2-b0353104.pth", 256)
    IMAGENET1K_V2 = _weights("mobilenet_v2-7ebf99e0.pth", 232)
    DEFAULT = IMAGENET1K_V2


def mobilenet_v2(*, weights=None, progress=True, **kwargs):
    """MobileNetV2. weights: None or MobileNet_V2_Weights (loaded from the local cache only)."""
    weights = MobileNet_V2_Weights.verify(handle_legacy_pretrained(weights, kwargs, MobileNet_V2_Weights.IMAGENET1K_V1))
    check_num_classes(weights, kwargs)
    state = None if weights is None else weights.get_state_dict(progress)
    model = MobileNetV2(**kwargs)
    if state is not None:
        load_into(model, state)
    return model
