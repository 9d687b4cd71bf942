"""ember.vision.models: torchvision's state_dict keys and shapes, parameter counts, weights from the local cache."""

import functools
import warnings

import numpy as np
import pytest

import ember
from ember.vision import models


def parameter_count(model):
    return sum(parameter.numel() for parameter in model.parameters())


@functools.cache
def built(builder):
    """One model per builder for the structural tests (VGG's 130M parameters take a while to draw)."""
    return builder(init_weights=False) if builder.__name__.startswith("vgg") else builder()


# torchvision's published parameter counts (its weights' meta["num_params"]).
@pytest.mark.parametrize(
    "builder, count",
    [
        (models.resnet18, 11689512),
        (models.resnet34, 21797672),
        (models.resnet50, 25557032),
        (models.alexnet, 61100840),
        (models.vgg11, 132863336),
        (models.vgg16_bn, 138365992),
        (models.mobilenet_v2, 3504872),
        (models.squeezenet1_0, 1248424),
        (models.squeezenet1_1, 1235496),
        (models.densenet121, 7978856),
    ],
)
def test_parameter_counts_match_torchvision(builder, count):
    assert parameter_count(built(builder)) == count


# A few of torchvision's state_dict keys with their shapes: the names a checkpoint must find.
@pytest.mark.parametrize(
    "builder, keys",
    [
        (
            models.resnet18,
            {
                "conv1.weight": (64, 3, 7, 7),
                "bn1.running_mean": (64,),
                "bn1.num_batches_tracked": (),
                "layer1.0.conv1.weight": (64, 64, 3, 3),
                "layer2.0.downsample.0.weight": (128, 64, 1, 1),
                "layer2.0.downsample.1.running_var": (128,),
                "layer4.1.bn2.bias": (512,),
                "fc.weight": (1000, 512),
                "fc.bias": (1000,),
            },
        ),
        (
            models.resnet50,
            {
                "layer1.0.downsample.0.weight": (256, 64, 1, 1),
                "layer1.0.conv3.weight": (256, 64, 1, 1),
                "layer3.5.bn3.weight": (1024,),
                "layer4.2.conv2.weight": (512, 512, 3, 3),
                "fc.weight": (1000, 2048),
            },
        ),
        (
            models.alexnet,
            {
                "features.0.weight": (64, 3, 11, 11),
                "features.3.weight": (192, 64, 5, 5),
                "features.10.weight": (256, 256, 3, 3),
                "classifier.1.weight": (4096, 9216),
                "classifier.4.weight": (4096, 4096),
                "classifier.6.weight": (1000, 4096),
            },
        ),
        (
            models.vgg11,
            {
                "features.0.weight": (64, 3, 3, 3),
                "features.18.weight": (512, 512, 3, 3),
                "classifier.0.weight": (4096, 25088),
                "classifier.6.bias": (1000,),
            },
        ),
        (
            models.vgg16_bn,
            {
                "features.1.running_mean": (64,),
                "features.40.weight": (512, 512, 3, 3),
                "features.41.num_batches_tracked": (),
                "classifier.3.weight": (4096, 4096),
            },
        ),
        (
            models.mobilenet_v2,
            {
                "features.0.0.weight": (32, 3, 3, 3),
                "features.1.conv.0.0.weight": (32, 1, 3, 3),
                "features.1.conv.1.weight": (16, 32, 1, 1),
                "features.2.conv.0.0.weight": (96, 16, 1, 1),
                "features.18.0.weight": (1280, 320, 1, 1),
                "classifier.1.weight": (1000, 1280),
            },
        ),
        (
            models.squeezenet1_1,
            {
                "features.0.weight": (64, 3, 3, 3),
                "features.3.squeeze.weight": (16, 64, 1, 1),
                "features.12.expand3x3.weight": (256, 64, 3, 3),
                "classifier.1.weight": (1000, 512, 1, 1),
            },
        ),
        (
            models.densenet121,
            {
                "features.conv0.weight": (64, 3, 7, 7),
                "features.denseblock1.denselayer1.norm1.running_var": (64,),
                "features.denseblock1.denselayer6.conv2.weight": (32, 128, 3, 3),
                "features.transition3.conv.weight": (512, 1024, 1, 1),
                "features.norm5.weight": (1024,),
                "classifier.weight": (1000, 1024),
            },
        ),
    ],
)
def test_state_dict_keys_match_torchvision(builder, keys):
    state = built(builder).state_dict()
    found = {key: tuple(state[key].shape) for key in keys if key in state}
    assert found == keys


def test_resnet18_state_dict_has_torchvisions_key_count_and_order():
    keys = list(built(models.resnet18).state_dict())
    assert len(keys) == 122  # 62 parameters and 60 batch-norm buffers
    assert keys[:6] == [
        "conv1.weight",
        "bn1.weight",
        "bn1.bias",
        "bn1.running_mean",
        "bn1.running_var",
        "bn1.num_batches_tracked",
    ]
    assert keys[-2:] == ["fc.weight", "fc.bias"]


def test_forward_shapes_and_training_step():
    ember.manual_seed(0)
    model = models.resnet18(num_classes=10)
    images = ember.randn(2, 3, 32, 32)
    logits = model(images)
    assert logits.shape == (2, 10)
    loss = ember.nn.functional.cross_entropy(logits, ember.tensor([1, 7]))
    loss.backward()
    assert model.conv1.weight.grad is not None and model.fc.bias.grad.shape == (10,)
    model.eval()
    with ember.no_grad():
        assert models.alexnet(num_classes=3).eval()(ember.randn(1, 3, 64, 64)).shape == (1, 3)


def test_zero_init_residual_and_builder_errors():
    model = models.resnet18(zero_init_residual=True)
    assert float(model.layer1[0].bn2.weight.abs().sum()) == 0.0
    with pytest.raises(ValueError, match="BasicBlock only supports groups=1"):
        models.ResNet(models.BasicBlock, [2, 2, 2, 2], groups=2)
    assert models.get_model("resnet18", num_classes=5).fc.out_features == 5
    assert "vgg16_bn" in models.list_models() and models.list_models(include="resnet*")[0] == "resnet101"


def test_weights_enums():
    assert models.ResNet50_Weights.DEFAULT is models.ResNet50_Weights.IMAGENET1K_V2
    assert models.ResNet18_Weights.DEFAULT.url == "https://download.pytorch.org/models/resnet18-f37072fd.pth"
    assert models.get_weight("ResNet18_Weights.IMAGENET1K_V1") is models.ResNet18_Weights.IMAGENET1K_V1
    assert models.ResNet18_Weights.verify("DEFAULT") is models.ResNet18_Weights.IMAGENET1K_V1
    assert models.get_model_weights("vgg16_bn") is models.VGG16_BN_Weights
    preprocess = models.ResNet18_Weights.DEFAULT.transforms()
    image = ember.rand(3, 300, 260)
    assert preprocess(image).shape == (3, 224, 224)
    with pytest.raises(ValueError, match="num_classes"):
        models.resnet18(weights="DEFAULT", num_classes=10)


def test_missing_weights_name_the_file_and_folder_and_never_download(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    monkeypatch.setattr("urllib.request.urlopen", lambda *a, **k: pytest.fail("tried to download"))
    with pytest.raises(FileNotFoundError) as error:
        models.resnet18(weights=models.ResNet18_Weights.DEFAULT)
    message = str(error.value)
    assert str(tmp_path / "hub" / "checkpoints" / "resnet18-f37072fd.pth") in message
    assert "https://download.pytorch.org/models/resnet18-f37072fd.pth" in message
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(FileNotFoundError):
            models.alexnet(pretrained=True)
    assert any("'pretrained' is deprecated" in str(warning.message) for warning in caught)


def test_weights_load_from_a_converted_npz_in_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    folder = tmp_path / "hub" / "checkpoints"
    folder.mkdir(parents=True)
    ember.manual_seed(1)
    source = models.resnet18()
    np.savez(folder / "resnet18-f37072fd.npz", **{key: value.numpy() for key, value in source.state_dict().items()})
    loaded = models.resnet18(weights="IMAGENET1K_V1")
    for key, value in source.state_dict().items():
        assert np.array_equal(loaded.state_dict()[key].numpy(), value.numpy()), key


@pytest.mark.parametrize("zip_format", [True, False], ids=["zip", "legacy"])
def test_torchvisions_pth_file_in_the_cache_loads_directly(tmp_path, monkeypatch, zip_format):
    """torchvision's published checkpoints are torch.save files (some still in the legacy format)."""
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    folder = tmp_path / "hub" / "checkpoints"
    folder.mkdir(parents=True)
    ember.manual_seed(2)
    source = models.resnet18()
    state = {key: torch.from_numpy(value.numpy().copy()) for key, value in source.state_dict().items()}
    torch.save(state, folder / "resnet18-f37072fd.pth", _use_new_zipfile_serialization=zip_format)
    loaded = models.resnet18(weights=models.ResNet18_Weights.IMAGENET1K_V1)
    for key, value in source.state_dict().items():
        assert np.array_equal(loaded.state_dict()[key].numpy(), value.numpy()), key


def _torch_resnet18_forward(torch, state, x):
    """ResNet-18 as torchvision defines it, written out with torch.nn.functional over a state_dict."""
    F = torch.nn.functional

    def conv(x, key, stride, padding):
        return F.conv2d(x, state[f"{key}.weight"], stride=stride, padding=padding)

    def bn(x, key):
        return F.batch_norm(
            x,
            state[f"{key}.running_mean"],
            state[f"{key}.running_var"],
            state[f"{key}.weight"],
            state[f"{key}.bias"],
            training=False,
            eps=1e-5,
        )

    x = F.max_pool2d(F.relu(bn(conv(x, "conv1", 2, 3), "bn1")), 3, 2, 1)
    for layer in range(1, 5):
        for block in range(2):
            prefix, stride = f"layer{layer}.{block}", 2 if layer > 1 and block == 0 else 1
            out = F.relu(bn(conv(x, f"{prefix}.conv1", stride, 1), f"{prefix}.bn1"))
            out = bn(conv(out, f"{prefix}.conv2", 1, 1), f"{prefix}.bn2")
            identity = x
            if f"{prefix}.downsample.0.weight" in state:
                identity = bn(conv(x, f"{prefix}.downsample.0", stride, 0), f"{prefix}.downsample.1")
            x = F.relu(out + identity)
    x = F.adaptive_avg_pool2d(x, 1).flatten(1)
    return F.linear(x, state["fc.weight"], state["fc.bias"])


def test_resnet18_computes_torchvisions_architecture():
    torch = pytest.importorskip("torch")
    ember.manual_seed(0)
    model = models.resnet18(num_classes=7)
    rng = np.random.default_rng(0)
    state = {}
    for key, value in model.state_dict().items():
        array = value.numpy()
        if key.endswith("running_mean"):
            array = rng.normal(0, 0.1, array.shape).astype(np.float32)
        elif key.endswith("running_var"):
            array = rng.uniform(0.5, 1.5, array.shape).astype(np.float32)
        elif key.endswith("bias") and ".bn" in key or "downsample.1.bias" in key:
            array = rng.normal(0, 0.1, array.shape).astype(np.float32)
        state[key] = array
    model.load_state_dict({key: ember.from_numpy(array.copy()) for key, array in state.items()})
    batch = rng.standard_normal((2, 3, 40, 40)).astype(np.float32)
    with torch.no_grad():
        expected = _torch_resnet18_forward(
            torch,
            {key: torch.from_numpy(array.copy()) for key, array in state.items() if array.dtype != np.int64},
            torch.from_numpy(batch),
        ).numpy()
    with ember.no_grad():
        actual = model.eval()(ember.from_numpy(batch)).numpy()
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-4)


def test_bottleneck_strides_in_the_3x3_convolution():
    block = models.resnet50().layer2[0]  # torchvision's "ResNet V1.5"
    assert block.conv1.stride == (1, 1) and block.conv2.stride == (2, 2) and block.downsample[0].stride == (2, 2)


def test_small_models_forward_and_densenet_renames_old_checkpoint_keys(tmp_path, monkeypatch):
    for builder in (models.mobilenet_v2, models.squeezenet1_0, models.densenet121):
        assert builder(num_classes=4).eval()(ember.randn(1, 3, 64, 64)).shape == (1, 4)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    folder = tmp_path / "hub" / "checkpoints"
    folder.mkdir(parents=True)
    source = models.densenet121()
    old_style = {
        key.replace("norm1.", "norm.1.").replace("conv2.", "conv.2."): value.numpy()
        for key, value in source.state_dict().items()
        if not key.endswith("num_batches_tracked")
    }
    assert "features.denseblock1.denselayer1.norm.1.weight" in old_style
    np.savez(folder / "densenet121-a639ec97.npz", **old_style)
    loaded = models.densenet121(weights="DEFAULT")
    key = "features.denseblock2.denselayer3.conv2.weight"
    assert np.array_equal(loaded.state_dict()[key].numpy(), source.state_dict()[key].numpy())


def test_conv2d_norm_activation_layout():
    from ember.vision.ops import Conv2dNormActivation

    block = Conv2dNormActivation(3, 8, kernel_size=5, stride=2)
    assert [type(layer).__name__ for layer in block] == ["Conv2d", "BatchNorm2d", "ReLU"]
    assert block[0].padding == (2, 2) and block[0].bias is None and block(ember.randn(1, 3, 9, 9)).shape == (1, 8, 5, 5)
    assert Conv2dNormActivation(3, 8, norm_layer=None)[0].bias is not None
