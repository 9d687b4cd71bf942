"""torch.func.replace_all_batch_norm_modules_, torch.func.debug_unwrap and
nn.utils.convert_conv2d/3d_weight_memory_format, against PyTorch."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def _model(lib):
    lib.manual_seed(0)
    nn = lib.nn
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Sequential(nn.BatchNorm1d(4, affine=False)))


def test_batch_norms_lose_their_running_statistics_as_in_torch():
    ours, theirs = _model(ember), _model(torch)
    assert ember.func.replace_all_batch_norm_modules_(ours) is ours
    torch.func.replace_all_batch_norm_modules_(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs)
    x = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)
    for mode in ("train", "eval"):  # eval too normalizes by the batch: no running statistics are left
        getattr(ours, mode)(), getattr(theirs, mode)()
        np.testing.assert_allclose(
            ours(ember.tensor(x)).detach().numpy(), theirs(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6
        )


def test_debug_unwrap_gives_the_tensor_back():
    x = ember.arange(3.0)
    assert ember.func.debug_unwrap(x) is x
    assert ember.func.vmap(lambda row: ember.func.debug_unwrap(row) * 2)(ember.ones(2, 3)).tolist() == [[2.0] * 3] * 2


@pytest.mark.parametrize(
    "convert, layers, memory_format",
    [
        ("convert_conv2d_weight_memory_format", ("Conv2d", "ConvTranspose2d", "Conv3d"), "channels_last"),
        ("convert_conv3d_weight_memory_format", ("Conv3d", "ConvTranspose3d", "Conv2d"), "channels_last_3d"),
    ],
)
def test_weight_memory_format_conversion_keeps_modules_parameters_and_values(convert, layers, memory_format):
    def build(lib):
        lib.manual_seed(0)
        return lib.nn.Sequential(*(getattr(lib.nn, name)(2, 2, 2) for name in layers))

    ours, theirs = build(ember), build(torch)
    weights = [layer.weight for layer in ours]
    before = [weight.detach().numpy().copy() for weight in weights]
    assert getattr(ember.nn.utils, convert)(ours, getattr(ember, memory_format)) is ours
    getattr(torch.nn.utils, convert)(theirs, getattr(torch, memory_format))
    for layer, weight, values, reference in zip(ours, weights, before, theirs):
        assert layer.weight is weight and isinstance(weight, ember.nn.Parameter)
        np.testing.assert_array_equal(weight.detach().numpy(), values)
        np.testing.assert_array_equal(values, reference.weight.detach().numpy())  # same seed, same weights
    x = np.random.default_rng(2).standard_normal((1, 2) + (4,) * (2 if "2d" in convert else 3)).astype(np.float32)
    first_ours, first_theirs = ours[0](ember.tensor(x)), theirs[0](torch.tensor(x))
    np.testing.assert_allclose(first_ours.detach().numpy(), first_theirs.detach().numpy(), rtol=1e-5, atol=1e-6)
