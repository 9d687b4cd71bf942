"""Every layer against PyTorch: same weights (copied through the state dict), same inputs, then the
outputs, the input gradients and the parameter gradients are compared; plus modes, errors and a
short training run."""

import numpy as np
import pytest

import ember
import ember.nn as nn
from tests.conftest import assert_close
from tests.nn.differential import compare_with_torch, copy_weights

rng = np.random.default_rng(0)


def normal(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def positive(*shape):
    return rng.uniform(0.1, 0.9, shape).astype(np.float32)


def labels(high, *shape):
    return rng.integers(0, high, shape).astype(np.int64)


# (id, builder taking the nn namespace, inputs). The same builder makes the torch and the ember module.
LAYER_CASES = [
    ("Linear", lambda nn_: nn_.Linear(4, 3), [normal(5, 4)]),
    ("Linear_nobias_3d", lambda nn_: nn_.Linear(4, 3, bias=False), [normal(2, 5, 4)]),
    ("Bilinear", lambda nn_: nn_.Bilinear(3, 4, 2), [normal(5, 3), normal(5, 4)]),
    ("Identity", lambda nn_: nn_.Identity(7, unused=1), [normal(3)]),
    ("Conv1d", lambda nn_: nn_.Conv1d(2, 4, 3, stride=2, padding=1), [normal(2, 2, 9)]),
    ("Conv2d", lambda nn_: nn_.Conv2d(3, 4, 3, stride=(2, 1), padding=1, dilation=(1, 2)), [normal(2, 3, 7, 8)]),
    ("Conv2d_groups_nobias", lambda nn_: nn_.Conv2d(4, 6, (3, 2), groups=2, bias=False), [normal(2, 4, 6, 5)]),
    ("Conv2d_same", lambda nn_: nn_.Conv2d(2, 3, 4, padding="same"), [normal(1, 2, 6, 6)]),
    ("Conv2d_reflect", lambda nn_: nn_.Conv2d(2, 3, 3, padding=1, padding_mode="reflect"), [normal(1, 2, 5, 5)]),
    ("Conv2d_unbatched", lambda nn_: nn_.Conv2d(2, 3, 3), [normal(2, 5, 5)]),
    (
        "ConvTranspose2d",
        lambda nn_: nn_.ConvTranspose2d(3, 2, 3, stride=2, padding=1, output_padding=1),
        [normal(2, 3, 4, 4)],
    ),
    ("ConvTranspose2d_groups", lambda nn_: nn_.ConvTranspose2d(4, 6, 2, groups=2), [normal(1, 4, 3, 3)]),
    ("MaxPool2d", lambda nn_: nn_.MaxPool2d(2), [normal(2, 3, 6, 6)]),
    ("MaxPool2d_stride_pad", lambda nn_: nn_.MaxPool2d(3, stride=2, padding=1, ceil_mode=True), [normal(1, 2, 7, 7)]),
    ("AvgPool2d", lambda nn_: nn_.AvgPool2d(3, stride=2, padding=1), [normal(2, 2, 7, 7)]),
    ("AvgPool2d_exclude_pad", lambda nn_: nn_.AvgPool2d(2, padding=1, count_include_pad=False), [normal(1, 2, 5, 5)]),
    ("AdaptiveAvgPool2d", lambda nn_: nn_.AdaptiveAvgPool2d((2, 3)), [normal(2, 3, 7, 8)]),
    ("AdaptiveAvgPool2d_global", lambda nn_: nn_.AdaptiveAvgPool2d(1), [normal(2, 3, 5, 5)]),
    ("MaxPool1d", lambda nn_: nn_.MaxPool1d(2), [normal(2, 3, 8)]),
    ("AvgPool1d", lambda nn_: nn_.AvgPool1d(3, stride=1), [normal(2, 3, 8)]),
    ("BatchNorm1d", lambda nn_: nn_.BatchNorm1d(4), [normal(8, 4)]),
    ("BatchNorm1d_3d", lambda nn_: nn_.BatchNorm1d(3, momentum=None), [normal(4, 3, 5)]),
    ("BatchNorm2d", lambda nn_: nn_.BatchNorm2d(3), [normal(4, 3, 5, 5)]),
    (
        "BatchNorm2d_no_affine",
        lambda nn_: nn_.BatchNorm2d(3, affine=False, track_running_stats=False),
        [normal(2, 3, 4, 4)],
    ),
    ("LayerNorm", lambda nn_: nn_.LayerNorm(6), [normal(3, 4, 6)]),
    ("LayerNorm_2d_shape", lambda nn_: nn_.LayerNorm((4, 6), eps=1e-3), [normal(3, 4, 6)]),
    ("GroupNorm", lambda nn_: nn_.GroupNorm(2, 4), [normal(3, 4, 5)]),
    ("InstanceNorm2d", lambda nn_: nn_.InstanceNorm2d(3, affine=True), [normal(2, 3, 4, 4)]),
    ("Embedding", lambda nn_: nn_.Embedding(10, 4), [labels(10, 3, 5)]),
    ("Embedding_padding", lambda nn_: nn_.Embedding(10, 4, padding_idx=0), [labels(3, 4, 6)]),
    ("Flatten", lambda nn_: nn_.Flatten(), [normal(2, 3, 4)]),
    ("Flatten_range", lambda nn_: nn_.Flatten(0, 1), [normal(2, 3, 4)]),
    ("Unflatten", lambda nn_: nn_.Unflatten(1, (2, 3)), [normal(4, 6)]),
    ("ReLU", lambda nn_: nn_.ReLU(), [normal(3, 4)]),
    ("LeakyReLU", lambda nn_: nn_.LeakyReLU(0.2), [normal(3, 4)]),
    ("ELU", lambda nn_: nn_.ELU(alpha=0.5), [normal(3, 4)]),
    ("GELU", lambda nn_: nn_.GELU(), [normal(3, 4)]),
    ("GELU_tanh", lambda nn_: nn_.GELU(approximate="tanh"), [normal(3, 4)]),
    ("SiLU", lambda nn_: nn_.SiLU(), [normal(3, 4)]),
    ("Sigmoid", lambda nn_: nn_.Sigmoid(), [normal(3, 4)]),
    ("Tanh", lambda nn_: nn_.Tanh(), [normal(3, 4)]),
    ("Softmax", lambda nn_: nn_.Softmax(dim=1), [normal(3, 4)]),
    ("LogSoftmax", lambda nn_: nn_.LogSoftmax(dim=-1), [normal(2, 3, 4)]),
    ("Softmin", lambda nn_: nn_.Softmin(dim=0), [normal(3, 4)]),
    ("Softmax2d", lambda nn_: nn_.Softmax2d(), [normal(2, 3, 2, 2)]),
    ("ReLU6", lambda nn_: nn_.ReLU6(), [normal(3, 4) * 5]),
    ("Hardtanh", lambda nn_: nn_.Hardtanh(-0.5, 0.7), [normal(3, 4)]),
    ("Softplus", lambda nn_: nn_.Softplus(beta=2.0), [normal(3, 4)]),
    ("Mish", lambda nn_: nn_.Mish(), [normal(3, 4)]),
    ("Hardswish", lambda nn_: nn_.Hardswish(), [normal(3, 4) * 3]),
    ("Hardsigmoid", lambda nn_: nn_.Hardsigmoid(), [normal(3, 4) * 3]),
    ("SELU", lambda nn_: nn_.SELU(), [normal(3, 4)]),
    ("CELU", lambda nn_: nn_.CELU(0.7), [normal(3, 4)]),
    ("PReLU", lambda nn_: nn_.PReLU(3), [normal(2, 3, 4)]),
    ("Softsign", lambda nn_: nn_.Softsign(), [normal(3, 4)]),
    ("Tanhshrink", lambda nn_: nn_.Tanhshrink(), [normal(3, 4)]),
    ("Hardshrink", lambda nn_: nn_.Hardshrink(0.3), [normal(3, 4)]),
    ("Softshrink", lambda nn_: nn_.Softshrink(0.3), [normal(3, 4)]),
    ("LogSigmoid", lambda nn_: nn_.LogSigmoid(), [normal(3, 4)]),
    ("GLU", lambda nn_: nn_.GLU(dim=1), [normal(3, 4)]),
    ("Threshold", lambda nn_: nn_.Threshold(0.1, 20.0), [normal(3, 4)]),
    ("ZeroPad2d", lambda nn_: nn_.ZeroPad2d((1, 2, 0, 1)), [normal(1, 2, 3, 3)]),
    ("ConstantPad1d", lambda nn_: nn_.ConstantPad1d(2, 3.5), [normal(2, 3, 4)]),
    ("ReflectionPad2d", lambda nn_: nn_.ReflectionPad2d(1), [normal(1, 2, 3, 4)]),
    ("ReplicationPad1d", lambda nn_: nn_.ReplicationPad1d((2, 1)), [normal(2, 3, 4)]),
    ("CircularPad2d", lambda nn_: nn_.CircularPad2d(1), [normal(1, 2, 3, 3)]),
    ("PixelShuffle", lambda nn_: nn_.PixelShuffle(2), [normal(2, 8, 3, 3)]),
    ("PixelUnshuffle", lambda nn_: nn_.PixelUnshuffle(2), [normal(2, 2, 4, 6)]),
    ("Upsample_nearest", lambda nn_: nn_.Upsample(scale_factor=2), [normal(1, 2, 3, 3)]),
    (
        "Upsample_bilinear",
        lambda nn_: nn_.Upsample(size=(5, 7), mode="bilinear", align_corners=False),
        [normal(1, 2, 3, 4)],
    ),
    ("UpsamplingBilinear2d", lambda nn_: nn_.UpsamplingBilinear2d(scale_factor=2), [normal(1, 1, 3, 3)]),
    ("Unfold", lambda nn_: nn_.Unfold(2, padding=1, stride=2), [normal(2, 3, 5, 5)]),
    ("Fold", lambda nn_: nn_.Fold((4, 5), 2), [normal(2, 12, 12)]),
    ("LocalResponseNorm", lambda nn_: nn_.LocalResponseNorm(3), [normal(2, 5, 3, 3)]),
    ("CosineSimilarity", lambda nn_: nn_.CosineSimilarity(dim=1), [normal(4, 5), normal(4, 5)]),
    ("PairwiseDistance", lambda nn_: nn_.PairwiseDistance(p=1.5), [normal(4, 5), normal(4, 5)]),
    ("RMSNorm", lambda nn_: nn_.RMSNorm(6, eps=1e-5), [normal(3, 6)]),
    ("Dropout_eval", lambda nn_: nn_.Dropout(0.3).eval(), [normal(3, 4)]),
    ("Sequential_mlp", lambda nn_: nn_.Sequential(nn_.Linear(4, 8), nn_.Tanh(), nn_.Linear(8, 2)), [normal(5, 4)]),
    (
        "Sequential_lenet",
        lambda nn_: nn_.Sequential(
            nn_.Conv2d(1, 4, 5, padding=2),
            nn_.ReLU(),
            nn_.MaxPool2d(2),
            nn_.Conv2d(4, 6, 3),
            nn_.BatchNorm2d(6),
            nn_.ReLU(),
            nn_.AdaptiveAvgPool2d(2),
            nn_.Flatten(),
            nn_.Linear(24, 3),
        ),
        [normal(2, 1, 12, 12)],
    ),
]

LOSS_CASES = [
    ("MSELoss", lambda nn_: nn_.MSELoss(), [normal(4, 3), normal(4, 3)]),
    ("MSELoss_sum", lambda nn_: nn_.MSELoss(reduction="sum"), [normal(4, 3), normal(4, 3)]),
    ("MSELoss_none", lambda nn_: nn_.MSELoss(reduction="none"), [normal(4, 3), normal(4, 3)]),
    ("L1Loss", lambda nn_: nn_.L1Loss(), [normal(4, 3), normal(4, 3)]),
    ("SmoothL1Loss", lambda nn_: nn_.SmoothL1Loss(beta=0.5), [normal(4, 3), normal(4, 3)]),
    ("HuberLoss", lambda nn_: nn_.HuberLoss(delta=0.7), [normal(4, 3), normal(4, 3)]),
    ("CrossEntropyLoss", lambda nn_: nn_.CrossEntropyLoss(), [normal(6, 5), labels(5, 6)]),
    ("CrossEntropyLoss_spatial", lambda nn_: nn_.CrossEntropyLoss(), [normal(2, 4, 3, 3), labels(4, 2, 3, 3)]),
    (
        "CrossEntropyLoss_ignore_index",
        lambda nn_: nn_.CrossEntropyLoss(ignore_index=2),
        [normal(8, 4), np.array([0, 2, 1, 2, 3, 3, 2, 1])],
    ),
    (
        "CrossEntropyLoss_label_smoothing",
        lambda nn_: nn_.CrossEntropyLoss(label_smoothing=0.2),
        [normal(6, 5), labels(5, 6)],
    ),
    (
        "CrossEntropyLoss_probabilities",
        lambda nn_: nn_.CrossEntropyLoss(),
        [normal(6, 5), np.full((6, 5), 0.2, np.float32)],
    ),
    ("NLLLoss", lambda nn_: nn_.NLLLoss(), [normal(6, 5), labels(5, 6)]),
    ("NLLLoss_sum_ignore", lambda nn_: nn_.NLLLoss(reduction="sum", ignore_index=1), [normal(6, 3), labels(3, 6)]),
    ("BCELoss", lambda nn_: nn_.BCELoss(), [positive(4, 3), positive(4, 3)]),
    ("BCEWithLogitsLoss", lambda nn_: nn_.BCEWithLogitsLoss(), [normal(4, 3), positive(4, 3)]),
    ("KLDivLoss", lambda nn_: nn_.KLDivLoss(reduction="batchmean"), [normal(4, 3), positive(4, 3)]),
]


@pytest.mark.parametrize("name, build, inputs", LAYER_CASES + LOSS_CASES, ids=[c[0] for c in LAYER_CASES + LOSS_CASES])
def test_layer_matches_torch(torch, name, build, inputs):
    torch_module = build(torch.nn)
    ember_module = build(nn)
    assert list(ember_module.state_dict()) == list(torch_module.state_dict())
    assert repr(ember_module) == repr(torch_module)
    compare_with_torch(torch, torch_module, ember_module, inputs)
    for key, value in torch_module.state_dict().items():  # running statistics too
        assert_close(ember_module.state_dict()[key], value, 1e-4, 1e-5, what=f"after forward: {key}")


@pytest.mark.parametrize("loss", ["CrossEntropyLoss", "NLLLoss"])
def test_class_weights_match_torch(torch, loss):
    weight = np.array([0.5, 2.0, 1.0, 0.1, 3.0], np.float32)
    torch_loss = getattr(torch.nn, loss)(weight=torch.from_numpy(weight), ignore_index=3)
    ember_loss = getattr(nn, loss)(weight=ember.from_numpy(weight), ignore_index=3)
    assert list(ember_loss.state_dict()) == list(torch_loss.state_dict()) == ["weight"]
    compare_with_torch(torch, torch_loss, ember_loss, [normal(7, 5), np.array([0, 1, 3, 4, 2, 3, 1])])


def test_bce_with_logits_pos_weight_matches_torch(torch):
    pos_weight = np.array([1.0, 3.0, 0.5], np.float32)
    weight = np.array([2.0, 1.0, 1.0], np.float32)
    torch_loss = torch.nn.BCEWithLogitsLoss(weight=torch.from_numpy(weight), pos_weight=torch.from_numpy(pos_weight))
    ember_loss = nn.BCEWithLogitsLoss(weight=ember.from_numpy(weight), pos_weight=ember.from_numpy(pos_weight))
    compare_with_torch(torch, torch_loss, ember_loss, [normal(4, 3), positive(4, 3)])


def test_conv_transpose_output_size(torch):
    torch_module, ember_module = torch.nn.ConvTranspose2d(2, 3, 3, stride=2), nn.ConvTranspose2d(2, 3, 3, stride=2)
    copy_weights(torch_module, ember_module)
    x = normal(1, 2, 4, 4)
    expected = torch_module(torch.from_numpy(x), output_size=[10, 10])
    assert_close(ember_module(ember.from_numpy(x), output_size=[10, 10]), expected, 1e-4, 1e-5)
    with pytest.raises(ValueError, match="requested an output size of \\[12, 12\\], but valid sizes range from"):
        ember_module(ember.from_numpy(x), output_size=[12, 12])


# ---------------------------------------------------------------------- modes
def test_batch_norm_running_statistics_and_eval_mode(torch):
    torch_module, ember_module = torch.nn.BatchNorm1d(3, momentum=0.3), nn.BatchNorm1d(3, momentum=0.3)
    for _ in range(3):
        x = normal(6, 3) * 2 + 1
        torch_module(torch.from_numpy(x))
        ember_module(ember.from_numpy(x))
    assert ember_module.num_batches_tracked.item() == 3
    for key in ("running_mean", "running_var"):
        assert_close(getattr(ember_module, key), getattr(torch_module, key), 1e-5, 1e-6, what=key)
    torch_module.eval()
    ember_module.eval()
    x = normal(2, 3)
    assert_close(ember_module(ember.from_numpy(x)), torch_module(torch.from_numpy(x)), 1e-5, 1e-6)
    assert ember_module.num_batches_tracked.item() == 3  # eval does not count batches
    with pytest.raises(ValueError, match="expected 4D input \\(got 2D input\\)"):
        nn.BatchNorm2d(3)(ember.zeros(2, 3))
    with pytest.raises(ValueError, match="expected 2D or 3D input \\(got 4D input\\)"):
        nn.BatchNorm1d(3)(ember.zeros(2, 3, 1, 1))


def test_batch_norm_cumulative_average_when_momentum_is_none():
    module = nn.BatchNorm1d(2, momentum=None)
    batches = [normal(5, 2), normal(5, 2) + 3]
    for batch in batches:
        module(ember.from_numpy(batch))
    assert_close(module.running_mean, np.mean([b.mean(0) for b in batches], axis=0), 1e-5, 1e-6)


def test_batch_norm_loads_old_checkpoints_without_num_batches_tracked():
    module = nn.BatchNorm1d(2)
    state = module.state_dict()
    del state["num_batches_tracked"]
    state._metadata[""] = {"version": 1}
    module.load_state_dict(state)  # version 1 checkpoints are missing the counter: not an error
    state._metadata[""] = {"version": 2}
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "num_batches_tracked"'):
        module.load_state_dict(state)


def test_dropout_training_and_eval():
    layer = nn.Dropout(p=0.4)
    x = ember.ones(200, 100)
    y = layer(x)
    kept = y.numpy() != 0
    assert kept.mean() == pytest.approx(0.6, abs=0.02)
    assert_close(y.numpy()[kept], np.full(kept.sum(), 1 / 0.6, np.float32))
    layer.eval()
    assert_close(layer(x), x)
    assert repr(layer) == "Dropout(p=0.4, inplace=False)"
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)


def test_embedding_from_pretrained_and_padding_gradient(torch):
    table = ember.from_numpy(normal(5, 3))
    frozen = nn.Embedding.from_pretrained(table)
    assert not frozen.weight.requires_grad
    assert frozen.weight.data_ptr() == table.data_ptr()
    trainable = nn.Embedding.from_pretrained(table, freeze=False, padding_idx=1)
    trainable(ember.tensor([1, 2, 1])).sum().backward()
    assert_close(trainable.weight.grad[1], np.zeros(3, np.float32))  # padding row gets no gradient
    assert_close(trainable.weight.grad[2], np.ones(3, np.float32))
    with pytest.raises(AssertionError, match="Embeddings parameter is expected to be 2-dimensional"):
        nn.Embedding.from_pretrained(ember.zeros(3))


# ---------------------------------------------------------------------- argument checks
@pytest.mark.parametrize(
    "build, error, message",
    [
        (lambda: nn.Conv2d(3, 4, 3, groups=2), ValueError, "in_channels must be divisible by groups"),
        (lambda: nn.Conv2d(4, 3, 3, groups=2), ValueError, "out_channels must be divisible by groups"),
        (lambda: nn.Conv2d(4, 4, 3, groups=0), ValueError, "groups must be a positive integer"),
        (lambda: nn.Conv2d(1, 1, 3, padding="full"), ValueError, "Invalid padding string 'full'"),
        (
            lambda: nn.Conv2d(1, 1, 3, stride=2, padding="same"),
            ValueError,
            "padding='same' is not supported for strided convolutions",
        ),
        (lambda: nn.Conv2d(1, 1, 3, padding_mode="mirror"), ValueError, "padding_mode must be one of"),
        (lambda: nn.GroupNorm(3, 4), ValueError, "num_channels must be divisible by num_groups"),
        (lambda: nn.Unflatten(1, (2, "3")), TypeError, "unflattened_size must be tuple of ints"),
        (lambda: nn.Softmax2d()(ember.zeros(2, 2)), ValueError, "Softmax2d: expected input to be 3D or 4D, got 2D"),
    ],
)
def test_argument_errors(build, error, message):
    with pytest.raises(error, match=message):
        build()


def test_legacy_size_average_maps_to_reduction():
    with pytest.warns(
        UserWarning, match="size_average and reduce args will be deprecated, please use reduction='sum' instead"
    ):
        loss = nn.MSELoss(size_average=False)
    assert loss.reduction == "sum"


# ---------------------------------------------------------------------- training
def test_mlp_learns_a_synthetic_problem():
    """Two spirals-like rings: a small MLP trained with SGD must reach a low loss and high accuracy."""
    ember.manual_seed(0)
    generator = np.random.default_rng(0)
    angles = generator.uniform(0, 2 * np.pi, 256)
    radius = np.where(np.arange(256) % 2 == 0, 1.0, 2.0) + generator.normal(0, 0.1, 256)
    points = np.stack([radius * np.cos(angles), radius * np.sin(angles)], 1).astype(np.float32)
    targets = (np.arange(256) % 2).astype(np.int64)
    x, y = ember.from_numpy(points), ember.from_numpy(targets)
    model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2))
    criterion = nn.CrossEntropyLoss()
    optimizer_class = getattr(getattr(ember, "optim", None), "SGD", None)
    optimizer = optimizer_class(model.parameters(), lr=0.1, momentum=0.9) if optimizer_class else None
    first_loss = None
    for _ in range(300):
        loss = criterion(model(x), y)
        first_loss = first_loss if first_loss is not None else loss.item()
        model.zero_grad()
        loss.backward()
        if optimizer is not None:
            optimizer.step()
        else:
            with ember.no_grad():
                for param in model.parameters():
                    param -= 0.1 * param.grad
    final_loss = criterion(model(x), y).item()
    accuracy = (model(x).argmax(1) == y).float().mean().item()
    assert first_loss > 0.6
    assert final_loss < 0.05, f"loss {first_loss:.3f} -> {final_loss:.3f}"
    assert accuracy > 0.99
