"""ResNet (He et al., 2015) with torchvision's module names, so state_dict keys match torchvision's."""

from functools import partial

from ... import nn
from ._api import Weights, WeightsEnum, check_num_classes, handle_legacy_pretrained, load_into
from ._presets import ImageClassification

__all__ = [
    "ResNet",
    "BasicBlock",
    "Bottleneck",
    "resnet18",
    "resnet34",
    "resnet50",
    "resnet101",
    "resnet152",
    "resnext50_32x4d",
    "wide_resnet50_2",
    "ResNet18_Weights",
    "ResNet34_Weights",
    "ResNet50_Weights",
    "ResNet101_Weights",
    "ResNet152_Weights",
]


def conv3x3(in_planes, out_planes, stride=1, groups=1, dilation=1):
    """3x3 convolution with padding (no bias: a batch norm follows)."""
    return nn.Conv2d(
        in_planes,
        out_planes,
        kernel_size=3,
        stride=stride,
        padding=dilation,
        groups=groups,
        bias=False,
        dilation=dilation,
    )


def conv1x1(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    """Two 3x3 convolutions with a shortcut (ResNet-18/34)."""

    expansion = 1

    def __init__(
        self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1, norm_layer=None
    ):
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2d
        if groups != 1 or base_width != 64:
            raise ValueError("BasicBlock only supports groups=1 and base_width=64")
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class Bottleneck(nn.Module):
    """1x1 reduce, 3x3 (strided here, as torchvision's "ResNet V1.5"), 1x1 expand, with a shortcut (ResNet-50+)."""

    expansion = 4

    def __init__(
        self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1, norm_layer=None
    ):
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2d
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = norm_layer(width)
        self.conv2 = conv3x3(width, width, stride, groups, dilation)
        self.bn2 = norm_layer(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + identity)


class ResNet(nn.Module):
    """A ResNet of `block`s, `layers` = blocks per stage (e.g. BasicBlock, [2, 2, 2, 2] for ResNet-18).

    Args as torchvision: num_classes, zero_init_residual, groups, width_per_group,
    replace_stride_with_dilation, norm_layer. Initialisation as torchvision (Kaiming normal, fan_out).
    """

    def __init__(
        self,
        block,
        layers,
        num_classes=1000,
        zero_init_residual=False,
        groups=1,
        width_per_group=64,
        replace_stride_with_dilation=None,
        norm_layer=None,
    ):
        super().__init__()
        self._norm_layer = norm_layer or nn.BatchNorm2d
        self.inplanes = 64
        self.dilation = 1
        replace_stride_with_dilation = replace_stride_with_dilation or [False, False, False]
        if len(replace_stride_with_dilation) != 3:
            raise ValueError(
                f"replace_stride_with_dilation should be None or a 3-element tuple, got {replace_stride_with_dilation}"
            )
        self.groups = groups
        self.base_width = width_per_group
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = self._norm_layer(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2, dilate=replace_stride_with_dilation[0])
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2, dilate=replace_stride_with_dilation[1])
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2, dilate=replace_stride_with_dilation[2])
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)
        for module in self.modules():
            if isinstance(module, nn.Conv2d):
                nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(module, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(module.weight, 1)
                nn.init.constant_(module.bias, 0)
        if zero_init_residual:  # each residual branch starts as zero, so each block starts as the identity
            for module in self.modules():
                if isinstance(module, Bottleneck) and module.bn3.weight is not None:
                    nn.init.constant_(module.bn3.weight, 0)
                elif isinstance(module, BasicBlock) and module.bn2.weight is not None:
                    nn.init.constant_(module.bn2.weight, 0)

    def _make_layer(self, block, planes, blocks, stride=1, dilate=False):
        norm_layer = self._norm_layer
        downsample = None
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                conv1x1(self.inplanes, planes * block.expansion, stride), norm_layer(planes * block.expansion)
            )
        layers = [
            block(
                self.inplanes, planes, stride, downsample, self.groups, self.base_width, previous_dilation, norm_layer
            )
        ]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(
                block(
                    self.inplanes,
                    planes,
                    groups=self.groups,
                    base_width=self.base_width,
                    dilation=self.dilation,
                    norm_layer=norm_layer,
                )
            )
        return nn.Sequential(*layers)

    def _forward_impl(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(self.avgpool(x).flatten(1))

    def forward(self, x):
        return self._forward_impl(x)


_IMAGENET = {"num_classes": 1000, "min_size": (1, 1), "dataset": "ImageNet-1K"}


def _weights(filename, resize_size=256, **meta):
    return Weights(
        url=f"https://download.pytorch.org/models/{filename}",
        transforms=partial(ImageClassification, crop_size=224, resize_size=resize_size),
        meta={**_IMAGENET, **meta},
    )


class ResNet18_Weights(WeightsEnum):
    """Pretrained ImageNet-1K weights of `resnet18`, read from the local cache (never downloaded); `DEFAULT` is
    `IMAGENET1K_V1`.
    """

    IMAGENET1K_V1 = _weights("resnet18-f37072fd.pth", num_params=11689512)
    DEFAULT = IMAGENET1K_V1


class ResNet34_Weights(WeightsEnum):
    """Pretrained ImageNet-1K weights of `resnet34`, read from the local cache (never downloaded); `DEFAULT` is
    `IMAGENET1K_V1`.
    """

    IMAGENET1K_V1 = _weights("resnet34-b627a593.pth", num_params=21797672)
    DEFAULT = IMAGENET1K_V1


class ResNet50_Weights(WeightsEnum):
    """Pretrained ImageNet-1K weights of `resnet50`, read from the local cache (never downloaded); `DEFAULT` is
    `IMAGENET1K_V2`.
    """

    IMAGENET1K_V1 = _weights("resnet50-0676ba61.pth", num_params=25557032)
    IMAGENET1K_V2 = _weights("resnet50-11ad3fa6.pth", resize_size=232, num_params=25557032)
    DEFAULT = IMAGENET1K_V2


class ResNet101_Weights(WeightsEnum):
    """Pretrained ImageNet-1K weights of `resnet101`, read from the local cache (never downloaded); `DEFAULT` is
    `IMAGENET1K_V2`.
    """

    IMAGENET1K_V1 = _weights("resnet101-63fe2227.pth", num_params=44549160)
    IMAGENET1K_V2 = _weights("resnet101-cd907fc2.pth", resize_size=232, num_params=44549160)
    DEFAULT = IMAGENET1K_V2


class ResNet152_Weights(WeightsEnum):
    """Pretrained ImageNet-1K weights of `resnet152`, read from the local cache (never downloaded); `DEFAULT` is
    `IMAGENET1K_V2`.
    """

    IMAGENET1K_V1 = _weights("resnet152-394f9c45.pth", num_params=60192808)
    IMAGENET1K_V2 = _weights("resnet152-f82ba261.pth", resize_size=232, num_params=60192808)
    DEFAULT = IMAGENET1K_V2


def _resnet(block, layers, weights_enum, weights, progress, kwargs):
    weights = weights_enum.verify(handle_legacy_pretrained(weights, kwargs, weights_enum.IMAGENET1K_V1))
    check_num_classes(weights, kwargs)
    state = None if weights is None else weights.get_state_dict(progress)  # fail before building
    model = ResNet(block, layers, **kwargs)
    if state is not None:
        load_into(model, state)
    return model


def resnet18(*, weights=None, progress=True, **kwargs):
    """ResNet-18. weights: None, a ResNet18_Weights member or its name (loaded from the local cache only)."""
    return _resnet(BasicBlock, [2, 2, 2, 2], ResNet18_Weights, weights, progress, kwargs)


def resnet34(*, weights=None, progress=True, **kwargs):
    """ResNet-34 (see resnet18 for `weights`)."""
    return _resnet(BasicBlock, [3, 4, 6, 3], ResNet34_Weights, weights, progress, kwargs)


def resnet50(*, weights=None, progress=True, **kwargs):
    """ResNet-50 (see resnet18 for `weights`)."""
    return _resnet(Bottleneck, [3, 4, 6, 3], ResNet50_Weights, weights, progress, kwargs)


def resnet101(*, weights=None, progress=True, **kwargs):
    """ResNet-101 (see resnet18 for `weights`)."""
    return _resnet(Bottleneck, [3, 4, 23, 3], ResNet101_Weights, weights, progress, kwargs)


def resnet152(*, weights=None, progress=True, **kwargs):
    """ResNet-152 (see resnet18 for `weights`)."""
    return _resnet(Bottleneck, [3, 8, 36, 3], ResNet152_Weights, weights, progress, kwargs)


def resnext50_32x4d(*, weights=None, progress=True, **kwargs):
    """ResNeXt-50 32x4d (no pretrained weights in ember's table)."""
    if weights is not None or kwargs.get("pretrained"):
        raise NotImplementedError("ember.vision has no weights table for resnext50_32x4d; pass weights=None")
    kwargs.pop("pretrained", None)
    return ResNet(Bottleneck, [3, 4, 6, 3], groups=32, width_per_group=4, **kwargs)


def wide_resnet50_2(*, weights=None, progress=True, **kwargs):
    """Wide ResNet-50-2 (no pretrained weights in ember's table)."""
    if weights is not None or kwargs.get("pretrained"):
        raise NotImplementedError("ember.vision has no weights table for wide_resnet50_2; pass weights=None")
    kwargs.pop("pretrained", None)
    return ResNet(Bottleneck, [3, 4, 6, 3], width_per_group=64 * 2, **kwargs)
