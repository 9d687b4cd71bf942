"""nn.init and the default initialisation of each layer (PyTorch's distributions and bounds)."""

import math
import warnings

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.nn import init
from tests.conftest import assert_close


def values(tensor):
    return tensor.detach().numpy().astype(np.float64)


# ---------------------------------------------------------------------- gains and fans
@pytest.mark.parametrize(
    "nonlinearity, param",
    [
        ("linear", None),
        ("conv2d", None),
        ("conv_transpose3d", None),
        ("sigmoid", None),
        ("tanh", None),
        ("relu", None),
        ("leaky_relu", None),
        ("leaky_relu", 0.2),
        ("leaky_relu", math.sqrt(5)),
        ("selu", None),
    ],
)
def test_calculate_gain_matches_torch(torch, nonlinearity, param):
    assert init.calculate_gain(nonlinearity, param) == pytest.approx(torch.nn.init.calculate_gain(nonlinearity, param))


def test_calculate_gain_errors():
    with pytest.raises(ValueError, match="Unsupported nonlinearity softmax"):
        init.calculate_gain("softmax")
    with pytest.raises(ValueError, match="negative_slope True not a valid number"):
        init.calculate_gain("leaky_relu", True)


@pytest.mark.parametrize("shape, expected", [((3, 5), (5, 3)), ((6, 4, 3, 3), (36, 54)), ((2, 3, 7), (21, 14))])
def test_fan_in_and_fan_out(shape, expected):
    assert init._calculate_fan_in_and_fan_out(ember.empty(shape)) == expected


def test_fan_needs_two_dimensions():
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed for tensor with fewer than 2"):
        init.xavier_uniform_(ember.empty(5))
    with pytest.raises(ValueError, match="Mode fan_avg not supported, please use one of"):
        init.kaiming_uniform_(ember.empty(2, 2), mode="fan_avg")


# ---------------------------------------------------------------------- distributions
def test_uniform_and_normal_fill_in_place_without_recording():
    weight = nn.Parameter(ember.empty(200, 300))
    assert init.uniform_(weight, -0.5, 2.0) is weight
    assert weight.is_leaf and weight.grad_fn is None and weight.requires_grad
    sample = values(weight)
    assert -0.5 <= sample.min() < -0.49 and 1.99 < sample.max() < 2.0
    assert sample.mean() == pytest.approx(0.75, abs=0.01)
    assert weight.dtype == ember.float32
    init.normal_(weight, mean=1.0, std=3.0)
    sample = values(weight)
    assert sample.mean() == pytest.approx(1.0, abs=0.03)
    assert sample.std() == pytest.approx(3.0, rel=0.01)


def test_trunc_normal_stays_inside_bounds():
    tensor = ember.empty(100, 100)
    init.trunc_normal_(tensor, mean=0.0, std=1.0, a=-0.5, b=1.0)
    sample = values(tensor)
    assert sample.min() >= -0.5 and sample.max() <= 1.0
    assert sample.min() < -0.49 and sample.max() > 0.99
    # the truncated normal on [-0.5, 1] has mean (phi(-0.5) - phi(1)) / (Phi(1) - Phi(-0.5))
    phi = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda x: 0.5 * (1 + math.erf(x / math.sqrt(2)))  # noqa: E731
    assert sample.mean() == pytest.approx((phi(-0.5) - phi(1.0)) / (cdf(1.0) - cdf(-0.5)), abs=0.01)


def test_seeded_generator_makes_init_repeatable():
    ember.manual_seed(123)
    first = init.kaiming_uniform_(ember.empty(4, 5)).clone()
    ember.manual_seed(123)
    second = init.kaiming_uniform_(ember.empty(4, 5))
    assert_close(first, second, rtol=0, atol=0)
    generator = ember.Generator().manual_seed(7)
    third = init.normal_(ember.empty(3), generator=generator).clone()
    generator.manual_seed(7)
    assert_close(init.normal_(ember.empty(3), generator=generator), third, rtol=0, atol=0)


@pytest.mark.parametrize(
    "mode, nonlinearity, a",
    [("fan_in", "leaky_relu", 0), ("fan_out", "relu", 0), ("fan_in", "leaky_relu", math.sqrt(5))],
)
def test_kaiming_uniform_bound_and_normal_std(mode, nonlinearity, a):
    tensor = ember.empty(64, 32, 3, 3)
    fan = 32 * 9 if mode == "fan_in" else 64 * 9
    std = init.calculate_gain(nonlinearity, a) / math.sqrt(fan)
    init.kaiming_uniform_(tensor, a=a, mode=mode, nonlinearity=nonlinearity)
    sample = values(tensor)
    bound = math.sqrt(3) * std
    assert np.abs(sample).max() <= bound * (1 + 1e-6)
    assert np.abs(sample).max() > 0.99 * bound
    assert sample.std() == pytest.approx(std, rel=0.02)
    init.kaiming_normal_(tensor, a=a, mode=mode, nonlinearity=nonlinearity)
    assert values(tensor).std() == pytest.approx(std, rel=0.02)


def test_kaiming_on_empty_tensor_warns():
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_uniform_(ember.empty(0, 3))


def test_xavier_bounds():
    tensor = ember.empty(300, 200)
    init.xavier_uniform_(tensor, gain=2.0)
    bound = 2.0 * math.sqrt(6.0 / 500)
    sample = values(tensor)
    assert np.abs(sample).max() <= bound and np.abs(sample).max() > 0.99 * bound
    init.xavier_normal_(tensor)
    assert values(tensor).std() == pytest.approx(math.sqrt(2.0 / 500), rel=0.02)


def test_deterministic_fills_match_torch(torch):
    for name, args in (("constant_", (0.3,)), ("ones_", ()), ("zeros_", ()), ("eye_", ())):
        ember_tensor, torch_tensor = ember.empty(3, 4), torch.empty(3, 4)
        getattr(init, name)(ember_tensor, *args)
        getattr(torch.nn.init, name)(torch_tensor, *args)
        assert_close(ember_tensor, torch_tensor, rtol=0, atol=0, what=name)
    for shape, groups in (((4, 2, 3), 1), ((6, 3, 3, 3), 2), ((2, 2, 3, 3, 3), 1)):
        ember_tensor, torch_tensor = ember.empty(*shape), torch.empty(*shape)
        init.dirac_(ember_tensor, groups)
        torch.nn.init.dirac_(torch_tensor, groups)
        assert_close(ember_tensor, torch_tensor, rtol=0, atol=0, what=f"dirac_ {shape}")
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.eye_(ember.empty(2, 2, 2))


def test_orthogonal_rows_or_columns_are_orthonormal():
    pytest.importorskip("ember.linalg")
    if not hasattr(ember.linalg, "qr"):
        pytest.skip("ember.linalg.qr is not available yet")
    for shape in ((3, 5), (6, 2), (4, 2, 2)):
        tensor = ember.empty(*shape)
        init.orthogonal_(tensor, gain=2.0)
        flat = values(tensor).reshape(shape[0], -1)
        product = flat @ flat.T if shape[0] <= flat.shape[1] else flat.T @ flat
        assert_close(product, 4.0 * np.eye(product.shape[0]), atol=1e-5)


def test_sparse_zeros_a_fraction_of_each_column():
    tensor = ember.empty(10, 6)
    init.sparse_(tensor, sparsity=0.3, std=0.5)
    sample = values(tensor)
    assert ((sample == 0).sum(axis=0) >= 3).all()


def test_deprecated_aliases_warn():
    with pytest.warns(FutureWarning, match="nn.init.uniform` is now deprecated in favor of `nn.init.uniform_`"):
        init.uniform(ember.empty(2))


# ---------------------------------------------------------------------- default layer initialisation
def _check_uniform(tensor, bound, what):
    sample = values(tensor)
    assert np.abs(sample).max() <= bound * (1 + 1e-6), f"{what}: outside U(-{bound}, {bound})"
    if sample.size >= 200:  # the sample reaches close to the bound and spreads like a uniform
        assert np.abs(sample).max() > 0.95 * bound, what
        assert sample.std() == pytest.approx(bound / math.sqrt(3), rel=0.08), what


def test_linear_and_conv_defaults_are_pytorchs():
    linear = nn.Linear(50, 40)
    _check_uniform(linear.weight, 1 / math.sqrt(50), "Linear.weight")
    _check_uniform(linear.bias, 1 / math.sqrt(50), "Linear.bias")
    conv = nn.Conv2d(8, 16, 3)
    _check_uniform(conv.weight, 1 / math.sqrt(8 * 9), "Conv2d.weight")
    _check_uniform(conv.bias, 1 / math.sqrt(8 * 9), "Conv2d.bias")
    grouped = nn.Conv1d(8, 16, 5, groups=4)
    _check_uniform(grouped.weight, 1 / math.sqrt(2 * 5), "grouped Conv1d.weight")
    transposed = nn.ConvTranspose2d(8, 6, 3)
    assert transposed.weight.shape == (8, 6, 3, 3)
    _check_uniform(transposed.weight, 1 / math.sqrt(6 * 9), "ConvTranspose2d.weight")  # fan_in is dim 1
    bilinear = nn.Bilinear(20, 30, 10)
    _check_uniform(bilinear.weight, 1 / math.sqrt(20), "Bilinear.weight")


def test_default_spread_matches_torch(torch):
    ember_weight = values(nn.Linear(100, 200).weight)
    torch_weight = torch.nn.Linear(100, 200).weight.detach().numpy()
    assert ember_weight.std() == pytest.approx(torch_weight.std(), rel=0.05)
    assert np.abs(ember_weight).max() == pytest.approx(np.abs(torch_weight).max(), rel=0.01)


def test_recurrent_defaults_are_pytorchs():
    for module in (
        nn.RNN(10, 20, num_layers=2),
        nn.LSTM(10, 20, bidirectional=True),
        nn.GRU(10, 20),
        nn.LSTMCell(10, 20),
        nn.GRUCell(10, 20),
    ):
        for name, param in module.named_parameters():
            _check_uniform(param, 1 / math.sqrt(20), f"{type(module).__name__}.{name}")


def test_embedding_and_normalisation_defaults():
    embedding = nn.Embedding(300, 20, padding_idx=3)
    sample = values(embedding.weight)
    assert (sample[3] == 0).all()
    assert sample.std() == pytest.approx(1.0, rel=0.05)
    assert nn.Embedding(5, 2, padding_idx=-1).padding_idx == 4
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(5, 2, padding_idx=5)
    for module in (nn.BatchNorm1d(4), nn.LayerNorm(4), nn.GroupNorm(2, 4)):
        assert_close(module.weight, np.ones(4, np.float32))
        assert_close(module.bias, np.zeros(4, np.float32))
    batch_norm = nn.BatchNorm2d(3)
    assert_close(batch_norm.running_var, np.ones(3, np.float32))
    assert batch_norm.num_batches_tracked.dtype == ember.int64 and batch_norm.num_batches_tracked.item() == 0
    prelu = nn.PReLU(3, init=0.1)
    assert_close(prelu.weight, np.full(3, 0.1, np.float32))


def test_dtype_argument_of_layers():
    layer = nn.Linear(3, 2, dtype=ember.float64)
    assert layer.weight.dtype == ember.float64 and layer.bias.dtype == ember.float64
    assert nn.Conv2d(1, 1, 2, dtype=ember.float64).weight.dtype == ember.float64
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert nn.LSTM(2, 3, dtype=ember.float64).weight_hh_l0.dtype == ember.float64
