"""Samplers whose draws depend on their parameters (gamma, Dirichlet, Poisson, binomial) and the
reparameterized gradients of gamma and Dirichlet samples: after the same seed, ember's numbers are
PyTorch's bit for bit, and the generator stands where PyTorch's does (differential, needs torch)."""

import numpy as np
import pytest

import ember
from tests.test_rng_parity import assert_identical, both, check

torch = pytest.importorskip("torch")

FLOATS = ["float32", "float64"]


def _parameters(lib, dtype, *arrays):
    return [lib.tensor(np.asarray(array), dtype=getattr(lib, dtype)) for array in arrays]


def _concentrations(seed=0):
    """Both sides of alpha = 1 (boosted or not), alpha = 0, large alpha: every branch of the sampler."""
    rng = np.random.default_rng(seed)
    return np.concatenate([rng.uniform(0.01, 1, 60), rng.uniform(1, 20, 60), rng.uniform(20, 3000, 20), [0.0, 1.0]])


def _draw_then_rand(draw):
    """A draw followed by `rand`: the second shows that the generator advanced as PyTorch's did."""
    return lambda lib: (draw(lib).numpy(), lib.rand(5).numpy())


def _check_draws(draw, seed):
    (ours, our_next), (theirs, their_next) = both(_draw_then_rand(draw), seed)
    assert_identical(ours, theirs)
    assert_identical(our_next, their_next)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("seed", [0, 1])
def test_standard_gamma(dtype, seed):
    _check_draws(lambda lib: lib._standard_gamma(*_parameters(lib, dtype, _concentrations(seed))), seed)


@pytest.mark.parametrize("dtype", FLOATS)
def test_gamma_draws_continue_the_cached_normal(dtype):
    """A scalar normal draw leaves its second Box-Muller sample in the generator; the gamma sampler's
    first normal is that sample, in both libraries."""

    def run(lib):
        first = lib.normal(0.0, 1.0, (1,), dtype=getattr(lib, dtype))
        return lib.cat([first, lib._standard_gamma(*_parameters(lib, dtype, [2.5, 0.4, 7.0]))]).numpy()

    check(run)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("seed", [0, 2])
def test_poisson(dtype, seed):
    rng = np.random.default_rng(seed)
    rates = np.concatenate([rng.uniform(0, 10, 80), rng.uniform(10, 5000, 80), [0.0, 10.0, 1e6, 0.5]])
    _check_draws(lambda lib: lib.poisson(*_parameters(lib, dtype, rates.reshape(4, 41))), seed)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("seed", [0, 3])
def test_binomial(dtype, seed):
    """Inversion (count * p < 10) and BTRS, for p on both sides of 1/2, and the edge counts."""
    rng = np.random.default_rng(seed)
    counts = np.concatenate([rng.integers(0, 30, 80), rng.integers(30, 100_000, 80), [0, 7, 7, 1e7]])
    probs = np.concatenate([rng.uniform(0, 1, 160), [0.4, 0.0, 1.0, 0.999]])
    _check_draws(lambda lib: lib.binomial(*_parameters(lib, dtype, counts, probs)), seed)


def test_binomial_broadcasts_probabilities_over_counts():
    _check_draws(lambda lib: lib.binomial(lib.full((4, 3), 40.0), lib.tensor([0.1, 0.5, 0.8])), 0)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("categories", [2, 4])
def test_sample_dirichlet(dtype, categories):
    """PyTorch draws Dirichlet's gammas in double whatever the dtype, then normalizes each row."""
    concentration = np.random.default_rng(4).uniform(0.05, 30, (40, categories))
    _check_draws(lambda lib: lib._sample_dirichlet(*_parameters(lib, dtype, concentration)), 0)


def test_sample_dirichlet_of_many_categories_is_within_rounding_in_float64():
    """From 5 categories on, PyTorch's vectorized row sum adds in an order of its own (and of the
    CPU's vector width): the gammas are the same, their sums may differ in the last bit, and so the
    samples by a few units in the last place."""
    concentration = np.random.default_rng(4).uniform(0.05, 30, (40, 7))
    (ours, our_next), (theirs, their_next) = both(
        _draw_then_rand(lambda lib: lib._sample_dirichlet(lib.tensor(concentration))), 0
    )
    assert_identical(our_next, their_next)
    np.testing.assert_allclose(ours, theirs, rtol=4 * np.finfo(np.float64).eps, atol=0)


@pytest.mark.parametrize("dtype", FLOATS)
def test_standard_gamma_grad_is_torchs_approximation(dtype):
    """All three regions of PyTorch's approximation (x < 0.8, alpha > 8 near and away from the mean,
    the rational fit), from torch's own samples."""
    alpha = np.concatenate([_concentrations(5), [9.0, 50.0, 50.0, 3.0]])
    x = torch._standard_gamma(torch.tensor(alpha)).numpy()
    x[-3:] = [0.5, 50.0, 80.0]
    ours = ember._standard_gamma_grad(*_parameters(ember, dtype, alpha, x))
    theirs = torch._standard_gamma_grad(*_parameters(torch, dtype, alpha, x))
    assert_identical(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("categories", [2, 3, 6])
def test_dirichlet_grad_is_torchs_approximation(dtype, categories):
    """x near 0 and near 1 (Taylor), both concentrations large (saddle point) and the rational fit."""
    rng = np.random.default_rng(categories)
    concentration = np.concatenate(
        [
            rng.uniform(0.05, 1, (60, categories)),
            rng.uniform(1, 20, (60, categories)),
            rng.uniform(7, 60, (60, categories)),
        ]
    )
    x = torch._sample_dirichlet(torch.tensor(concentration)).numpy()
    total = concentration.sum(-1, keepdims=True).repeat(categories, -1)
    ours = ember._dirichlet_grad(*_parameters(ember, dtype, x, concentration, total))
    theirs = torch._dirichlet_grad(*_parameters(torch, dtype, x, concentration, total))
    assert_identical(ours.numpy(), theirs.numpy())


def _sample_and_gradients(lib, name, dtype, seed):
    """A distribution's rsample from seeded draws, and the gradient of a weighted sum of it."""
    rng = np.random.default_rng(seed)

    def parameter(low, high, shape):
        return lib.tensor(rng.uniform(low, high, shape), dtype=getattr(lib, dtype), requires_grad=True)

    params = {
        "Gamma": lambda: (parameter(0.2, 5, 4), parameter(0.5, 2, 4)),
        "Chi2": lambda: (parameter(0.5, 10, 4),),
        "StudentT": lambda: (parameter(1, 10, 4), parameter(-1, 1, 4)),
        "Beta": lambda: (parameter(0.3, 4, 4), parameter(0.3, 4, 4)),
        "Dirichlet": lambda: (parameter(0.3, 8, (2, 4)),),
    }[name]()
    sample = getattr(lib.distributions, name)(*params).rsample((3,))
    weights = lib.tensor(rng.uniform(0.5, 1.5, tuple(sample.shape)), dtype=sample.dtype)
    gradients = lib.autograd.grad((sample * weights).sum(), params)
    return [sample.detach().numpy()] + [gradient.numpy() for gradient in gradients]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", ["Gamma", "Chi2", "StudentT", "Beta", "Dirichlet"])
def test_rsample_values_and_gradients(name, dtype):
    """Samples are identical; gradients through the samplers' own derivatives (concentrations, Beta,
    Dirichlet) identical, those that also pass through ember's arithmetic (a rate, StudentT's df) to
    rounding."""
    ours, theirs = both(lambda lib: _sample_and_gradients(lib, name, dtype, 7), seed=7)
    assert_identical(ours[0], theirs[0])
    exact = {"Gamma": [1], "Chi2": [], "StudentT": [2], "Beta": [1, 2], "Dirichlet": [1]}[name]
    for index in range(1, len(ours)):
        if index in exact:
            assert_identical(ours[index], theirs[index])
        else:
            rtol = 1e-5 if dtype == "float32" else 1e-12
            np.testing.assert_allclose(ours[index], theirs[index], rtol=rtol)


@pytest.mark.parametrize("name", ["Poisson", "Binomial", "NegativeBinomial"])
def test_discrete_samples(name):
    def run(lib):
        rng = np.random.default_rng(1)
        make = {
            "Poisson": lambda: lib.distributions.Poisson(lib.tensor(rng.uniform(0, 40, 6))),
            "Binomial": lambda: lib.distributions.Binomial(lib.tensor([5.0, 50, 500]), lib.tensor([0.2, 0.5, 0.9])),
            "NegativeBinomial": lambda: lib.distributions.NegativeBinomial(
                lib.tensor([3.0, 30]), lib.tensor([0.3, 0.6])
            ),
        }[name]
        return make().sample((4,)).numpy(), lib.rand(3).numpy()

    (ours, our_next), (theirs, their_next) = both(run, seed=5)
    assert_identical(ours, theirs)
    assert_identical(our_next, their_next)


def test_an_explicit_generator_is_used_and_the_default_one_left_alone():
    def run(lib):
        generator = lib.Generator().manual_seed(11)
        rates = lib.tensor([3.0, 30.0])
        draws = [lib.poisson(rates, generator), lib._standard_gamma(rates, generator)]
        draws.append(lib.binomial(lib.tensor([20.0]), lib.tensor([0.3]), generator))
        return [draw.numpy() for draw in draws] + [lib.rand(2).numpy()]

    ours, theirs = both(run)
    for mine, reference in zip(ours, theirs, strict=True):
        assert_identical(mine, reference)


def test_errors_match_torch():
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="expected"):
            lib.binomial(lib.tensor([3.0]), lib.tensor([0.5], dtype=lib.float64))
        with pytest.raises(NotImplementedError, match="gamma_cpu"):
            lib._standard_gamma(lib.tensor([1, 2]))
        with pytest.raises(NotImplementedError, match="_standard_gamma_grad"):
            alpha = lib.tensor([2.0], requires_grad=True)
            (gradient,) = lib.autograd.grad(lib._standard_gamma(alpha).sum(), alpha, create_graph=True)
            gradient.backward()
