"""weight_norm and spectral_norm (hook API and parametrizations) and nn.utils.parametrize, against PyTorch."""

import warnings

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.nn.utils import parametrize
from tests.conftest import assert_close
from tests.nn.differential import compare_with_torch, to_ember

rng = np.random.default_rng(0)


def normal(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def _quietly(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return function(*args, **kwargs)


@pytest.fixture(autouse=True)
def _seeded(torch):
    """Layers start from each library's global generator: seeded, so every run checks the same weights
    (unseeded, the test order decided them, and a rare ill-conditioned draw missed the tolerance)."""
    torch.manual_seed(0)
    ember.manual_seed(0)


def _layers(framework, kind):
    nn_ = framework.nn
    return {
        "linear": lambda: nn_.Linear(5, 4),
        "conv": lambda: nn_.Conv2d(2, 3, 3),
        "transposed": lambda: nn_.ConvTranspose2d(2, 3, 3),
    }[kind]()


def _input(kind):
    return normal(3, 5) if kind == "linear" else normal(2, 2, 5, 5)


@pytest.mark.parametrize("kind", ["linear", "conv"])
@pytest.mark.parametrize("dim", [0, 1, None])
def test_hook_weight_norm_matches_torch(torch, kind, dim):
    torch_module = _quietly(torch.nn.utils.weight_norm, _layers(torch, kind), dim=dim)
    with pytest.warns(FutureWarning, match="parametrizations.weight_norm"):
        ember_module = nn.utils.weight_norm(_layers(ember, kind), dim=dim)
    assert list(ember_module.state_dict()) == list(torch_module.state_dict())
    compare_with_torch(torch, torch_module, ember_module, [_input(kind)])
    nn.utils.remove_weight_norm(ember_module)
    torch.nn.utils.remove_weight_norm(torch_module)
    assert list(ember_module.state_dict()) == list(torch_module.state_dict())
    assert_close(ember_module.weight, torch_module.weight, 1e-5, 1e-6)


@pytest.mark.parametrize("kind", ["linear", "conv", "transposed"])
@pytest.mark.parametrize("train", [True, False])
def test_hook_spectral_norm_matches_torch(torch, kind, train):
    torch_module = torch.nn.utils.spectral_norm(_layers(torch, kind), n_power_iterations=2)
    ember_module = nn.utils.spectral_norm(_layers(ember, kind), n_power_iterations=2)
    assert list(ember_module.state_dict()) == list(torch_module.state_dict())
    assert ember_module.weight_u.shape == tuple(torch_module.weight_u.shape)
    torch_module.train(train)
    ember_module.train(train)
    compare_with_torch(torch, torch_module, ember_module, [_input(kind)])
    assert_close(ember_module.weight_u, torch_module.weight_u, 1e-5, 1e-6, what="power-iteration vector u")
    nn.utils.remove_spectral_norm(ember_module)
    torch.nn.utils.remove_spectral_norm(torch_module)
    assert list(ember_module.state_dict()) == list(torch_module.state_dict())
    assert_close(ember_module.weight, torch_module.weight, 1e-5, 1e-6)


@pytest.mark.parametrize("kind", ["linear", "conv"])
def test_parametrized_weight_norm_matches_torch(torch, kind):
    torch_module = torch.nn.utils.parametrizations.weight_norm(_layers(torch, kind))
    ember_module = nn.utils.parametrizations.weight_norm(_layers(ember, kind))
    assert type(ember_module).__name__ == type(torch_module).__name__
    assert list(ember_module.state_dict()) == list(torch_module.state_dict())
    assert repr(ember_module) == repr(torch_module)
    compare_with_torch(torch, torch_module, ember_module, [_input(kind)])


def test_parametrized_weight_norm_loads_hook_api_state_dict(torch):
    old = _quietly(torch.nn.utils.weight_norm, torch.nn.Linear(5, 4))
    module = nn.utils.parametrizations.weight_norm(nn.Linear(5, 4))
    module.load_state_dict({key: to_ember(value) for key, value in old.state_dict().items()})
    assert_close(module.weight, old.weight, 1e-5, 1e-6)


@pytest.mark.parametrize("kind", ["linear", "conv", "transposed"])
@pytest.mark.parametrize("train", [True, False])
def test_parametrized_spectral_norm_matches_torch(torch, kind, train):
    torch_module = torch.nn.utils.parametrizations.spectral_norm(_layers(torch, kind))
    ember_module = nn.utils.parametrizations.spectral_norm(_layers(ember, kind))
    assert list(ember_module.state_dict()) == list(torch_module.state_dict())
    torch_module.train(train)
    ember_module.train(train)
    compare_with_torch(torch, torch_module, ember_module, [_input(kind)])
    assert_close(ember_module.parametrizations.weight[0]._v, torch_module.parametrizations.weight[0]._v, 1e-5, 1e-6)


def test_spectral_norm_of_a_weight_is_one():
    module = nn.utils.parametrizations.spectral_norm(nn.Linear(6, 4))
    for _ in range(30):
        weight = module.weight  # each access in training runs a power-iteration step
    assert abs(np.linalg.svd(weight.detach().numpy(), compute_uv=False)[0] - 1.0) < 1e-4


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu()


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(ember.tensor(2.0))

    def forward(self, X):
        return X * self.scale


def test_register_parametrization_chains_and_sets():
    module = nn.Linear(4, 4)
    parameter = module.weight
    parametrize.register_parametrization(module, "weight", Symmetric())
    assert parametrize.is_parametrized(module) and parametrize.is_parametrized(module, "weight")
    assert not parametrize.is_parametrized(module, "bias")
    assert module.parametrizations.weight.original is parameter  # optimizers keep working
    weight = module.weight.detach().numpy()
    assert np.allclose(weight, weight.T)
    parametrize.register_parametrization(module, "weight", Scaled())
    assert list(module.state_dict()) == ["bias", "parametrizations.weight.original", "parametrizations.weight.1.scale"]
    assert_close(module.weight, 2 * weight)
    target = ember.eye(4)
    parametrize.remove_parametrizations(module, "weight")  # keeps the value, drops both parametrizations
    assert_close(module.weight, 2 * weight)
    assert type(module) is nn.Linear and not hasattr(module, "parametrizations")
    assert list(module.state_dict()) == ["bias", "weight"]
    parametrize.register_parametrization(module, "weight", Symmetric())
    module.weight = target + ember.ones(4, 4).triu(1)  # right_inverse keeps the upper triangle
    assert_close(module.weight, ember.ones(4, 4))
    parametrize.remove_parametrizations(module, "weight", leave_parametrized=False)
    assert_close(module.weight, ember.ones(4, 4).triu())
    assert parametrize.type_before_parametrizations(module) is nn.Linear


def test_parametrization_gradients_and_cache():
    module = nn.Linear(3, 3)
    parametrize.register_parametrization(module, "weight", Symmetric())
    module(ember.randn(2, 3)).sum().backward()
    gradient = module.parametrizations.weight.original.grad.numpy()
    assert np.allclose(np.tril(gradient, -1), 0)  # the lower triangle is not used
    with parametrize.cached():
        assert module.weight is module.weight
    assert module.weight is not module.weight


def test_parametrize_errors():
    module = nn.Linear(3, 3)
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element"):
        parametrize.register_parametrization(module, "missing", Symmetric())
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        parametrize.remove_parametrizations(module, "weight")

    class Shrink(nn.Module):
        def forward(self, X):
            return X[:2]

    with pytest.raises(ValueError, match="may not change the shape"):
        parametrize.register_parametrization(module, "weight", Shrink())
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
        nn.utils.remove_weight_norm(nn.Linear(2, 2))
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found"):
        nn.utils.remove_spectral_norm(nn.Linear(2, 2))
    twice = nn.utils.spectral_norm(nn.Linear(2, 2))
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
        nn.utils.spectral_norm(twice)


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3)])
@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("use_trivialization", [True, False])
def test_orthogonal_matches_torch(torch, shape, orthogonal_map, use_trivialization):
    torch_module = torch.nn.Linear(shape[1], shape[0]).double()
    ember_module = nn.Linear(shape[1], shape[0]).double()
    torch.nn.utils.parametrizations.orthogonal(
        torch_module, orthogonal_map=orthogonal_map, use_trivialization=use_trivialization
    )
    nn.utils.parametrizations.orthogonal(
        ember_module, orthogonal_map=orthogonal_map, use_trivialization=use_trivialization
    )
    assert list(ember_module.state_dict()) == list(torch_module.state_dict())
    weight = ember_module.weight.detach().numpy()
    gram = weight @ weight.T if shape[0] < shape[1] else weight.T @ weight
    assert np.allclose(gram, np.eye(min(shape)), atol=1e-10), gram
    compare_with_torch(torch, torch_module, ember_module, [rng.standard_normal((2, shape[1]))], rtol=1e-9, atol=1e-10)


def test_orthogonal_assignment_and_errors():
    module = nn.utils.parametrizations.orthogonal(nn.Linear(3, 3))
    rotation = np.linalg.qr(rng.standard_normal((3, 3)))[0].astype(np.float32)
    module.weight = ember.from_numpy(rotation)
    assert_close(module.weight, rotation, 1e-5, 1e-5)
    fixed = nn.utils.parametrizations.orthogonal(nn.Linear(3, 3), use_trivialization=False)
    with pytest.raises(NotImplementedError, match="use_trivialization=False"):
        fixed.weight = ember.from_numpy(rotation)
    with pytest.raises(ValueError, match="orthogonal_map has to be one of"):
        nn.utils.parametrizations.orthogonal(nn.Linear(3, 3), orthogonal_map="qr")
    with pytest.raises(ValueError, match="Expected a matrix"):
        nn.utils.parametrizations.orthogonal(nn.Linear(3, 3), name="bias")
