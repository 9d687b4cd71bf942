"""Sampling: shapes and dtypes as torch's, ember's seed, samples in the support, empirical moments
near torch's moments, and reparameterized gradients (pathwise) checked against independent
computations: the implicit gradient from torch's cdf, torch's gamma gradient, finite differences,
and Monte Carlo estimates of d E[f(x)] / d theta."""

import numpy as np
import pytest

import ember

from ..conftest import assert_close
from .cases import CASES, CASES_BY_NAME, build, numpy

SHAPES = [(), (5,), (2, 3)]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_sample_shapes_and_dtypes_match_torch(case, torch):
    ours, our_params = build(case, ember, "float32", requires_grad=True)
    theirs, _ = build(case, torch, "float32", requires_grad=True)
    for shape in SHAPES:
        mine, reference = ours.sample(shape), theirs.sample(torch.Size(shape))
        assert mine.shape == tuple(reference.shape), f"{case.name}.sample({shape})"
        assert str(mine.dtype) == str(reference.dtype), f"{case.name}.sample dtype"
        assert not mine.requires_grad
        if theirs.has_rsample:
            drawn = ours.rsample(shape)
            assert drawn.shape == tuple(reference.shape) and str(drawn.dtype) == str(reference.dtype)
            assert drawn.requires_grad, f"{case.name}.rsample is not attached to the parameters"
    if not theirs.has_rsample:
        with pytest.raises(NotImplementedError):
            ours.rsample()


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_manual_seed_makes_sampling_repeatable(case):
    distribution, _ = build(case, ember)
    ember.manual_seed(7)
    first = distribution.sample((4,))
    ember.manual_seed(7)
    second = distribution.sample((4,))
    third = distribution.sample((4,))
    assert np.array_equal(numpy(first), numpy(second))
    assert not np.array_equal(numpy(second), numpy(third)) or case.name.startswith("Bernoulli")


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_samples_lie_in_the_support(case, torch):
    distribution, _ = build(case, ember)
    reference, _ = build(case, torch)
    samples = distribution.sample((200,))
    inside = reference.support.check(torch.tensor(numpy(samples)))
    assert bool(inside.all()), f"{case.name}: samples outside {reference.support}"


# sample variances too noisy to compare (infinite or barely finite fourth moments)
HEAVY_TAILED = {"StudentT", "Cauchy", "LogNormal", "InverseGamma", "FisherSnedecor", "Pareto"}
CIRCULAR = {"VonMises"}  # mean and variance are circular: checked in test_von_mises_circular_moments


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_empirical_moments_match_torchs_moments(case, torch):
    if case.name in CIRCULAR:
        pytest.skip(f"{case.name}'s moments are circular")
    reference, _ = build(case, torch)
    try:
        mean, variance = numpy(reference.mean), numpy(reference.variance)
    except NotImplementedError:
        pytest.skip(f"torch's {case.name} has no mean/variance")
    count = 40_000
    samples = numpy(build(case, ember)[0].sample((count,)))
    finite = np.isfinite(mean) & np.isfinite(variance)
    if not finite.any():
        pytest.skip(f"{case.name} has no finite moments")
    standard_error = np.sqrt(variance / count)
    error = np.abs(samples.mean(0) - mean)
    assert np.all((error <= 6 * standard_error + 1e-9)[finite]), (
        f"{case.name}: sample means {samples.mean(0)[finite]} vs {mean[finite]}"
    )
    if case.name not in HEAVY_TAILED:
        relative = np.abs(samples.var(0) - variance) / np.maximum(variance, 1e-12)
        assert np.all((relative < 0.1)[finite]), f"{case.name}: sample variances {samples.var(0)} vs {variance}"


def test_categorical_frequencies_follow_probs():
    probs = ember.tensor([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])
    draws = numpy(ember.distributions.Categorical(probs).sample((20_000,)))
    frequencies = np.stack([np.bincount(draws[:, row], minlength=3) / len(draws) for row in range(2)])
    assert np.allclose(frequencies, numpy(probs), atol=0.015), frequencies


# ---------------------------------------------------------------- pathwise gradients
IMPLICIT_CASES = [
    "Normal",
    "Normal-broadcast",
    "Laplace",
    "Exponential",
    "Cauchy",
    "Uniform",
    "LogNormal",
    "HalfNormal",
    "ContinuousBernoulli-probs",
]


@pytest.mark.parametrize("name", IMPLICIT_CASES)
def test_rsample_gradient_is_the_implicit_quantile_gradient(name, torch):
    """A reparameterized draw x keeps its quantile F(x; theta) as theta moves, so
    dx/dtheta = -(dF/dtheta) / p(x): computed here by torch's autograd through its cdf."""
    case = CASES_BY_NAME[name]
    ours, our_params = build(case, ember, requires_grad=True)
    theirs, their_params = build(case, torch, requires_grad=True)
    draws = ours.rsample((6,))
    weights = np.random.default_rng(1).uniform(0.5, 1.5, tuple(draws.shape))
    names = list(case.params)
    our_grads = ember.autograd.grad((draws * ember.tensor(weights)).sum(), [our_params[key] for key in names])
    fixed_draws = torch.tensor(numpy(draws))
    density = theirs.log_prob(fixed_draws).exp().detach()
    implicit = -(torch.tensor(weights) * theirs.cdf(fixed_draws) / density).sum()
    their_grads = torch.autograd.grad(implicit, [their_params[key] for key in names])
    for key, mine, reference in zip(names, our_grads, their_grads):
        assert_close(numpy(mine), numpy(reference), rtol=1e-6, atol=1e-8, what=f"{name}.rsample d/d{key}")


def test_gamma_rsample_gradient_matches_torchs_standard_gamma_grad(torch):
    concentration = ember.tensor([0.05, 0.3, 1.0, 2.5, 10.0, 150.0, 4000.0], dtype=ember.float64, requires_grad=True)
    rate = ember.tensor([1.0, 2.0, 0.5, 1.0, 3.0, 1.0, 0.1], dtype=ember.float64, requires_grad=True)
    draws = ember.distributions.Gamma(concentration, rate).rsample((50,))
    grad_concentration, grad_rate = ember.autograd.grad(draws.sum(), [concentration, rate])
    standard = torch.tensor(numpy(draws * rate))
    expected = torch._standard_gamma_grad(torch.tensor(numpy(concentration)).expand_as(standard), standard)
    expected = (expected / torch.tensor(numpy(rate))).sum(0)
    # the same approximation as torch's (element by element, up to the summation's rounding)
    assert_close(numpy(grad_concentration), expected.numpy(), rtol=1e-13, atol=0, what="d draws / d concentration")
    assert_close(numpy(grad_rate), -numpy((draws / rate).sum(0)), rtol=1e-10, what="d draws / d rate")


def test_gamma_rsample_gradient_matches_finite_differences_of_the_cdf():
    """dx/dalpha = -(dP/dalpha) / p(x), with dP/dalpha by central differences of the regularized
    incomplete gamma function P (ember.special.gammainc) and p the density: PyTorch's approximation,
    which ember computes, is this derivative to about 1e-3 (here, better than 1e-4)."""
    alphas = np.array([0.02, 0.2, 0.9, 3.0, 25.0, 400.0])
    concentration = ember.tensor(alphas, requires_grad=True)
    draws = ember.distributions.Gamma(concentration, 1.0).rsample((20,))
    (gradient,) = ember.autograd.grad(draws.sum(), [concentration])
    x = numpy(draws)
    step = 1e-5 * alphas
    upper = numpy(ember.special.gammainc(ember.tensor(alphas + step).expand(x.shape), ember.tensor(x)))
    lower = numpy(ember.special.gammainc(ember.tensor(alphas - step).expand(x.shape), ember.tensor(x)))
    density = numpy(ember.distributions.Gamma(ember.tensor(alphas), 1.0).log_prob(ember.tensor(x)).exp())
    expected = (-(upper - lower) / (2 * step) / density).sum(0)
    assert_close(numpy(gradient), expected, rtol=1e-4, atol=1e-8, what="d draws / d concentration")


def test_gamma_rsample_has_no_second_derivative_as_in_torch():
    concentration = ember.tensor([2.0], requires_grad=True)
    draws = ember.distributions.Gamma(concentration, 1.0).rsample()
    (gradient,) = ember.autograd.grad(draws.sum(), [concentration], create_graph=True)
    with pytest.raises(NotImplementedError, match="_standard_gamma_grad"):
        ember.autograd.grad(gradient.sum(), [concentration])


def _monte_carlo_gradient(make, params, function, count=200_000):
    """d/dparams of the sample mean of function(rsample) over `count` draws."""
    draws = make(*params).rsample((count,))
    return ember.autograd.grad(function(draws).mean(), params)


@pytest.mark.parametrize(
    "name, make, function, values",
    [
        ("Beta", lambda a, b: ember.distributions.Beta(a, b), lambda x: x**2, ([0.7, 2.0, 5.0], [1.5, 0.6, 3.0])),
        (
            "Dirichlet",
            lambda c: ember.distributions.Dirichlet(c),
            lambda x: (x**2 * ember.tensor([1.0, 2.0, 3.0])).sum(-1),
            ([[0.7, 2.0, 5.0], [1.5, 0.6, 3.0]],),
        ),
        ("Gamma", lambda c, r: ember.distributions.Gamma(c, r), lambda x: x**2, ([0.4, 2.0, 7.0], [1.0, 0.5, 2.0])),
        ("Chi2", lambda df: ember.distributions.Chi2(df), lambda x: x.sqrt(), ([1.5, 4.0, 9.0],)),
        (
            "StudentT",
            lambda df, loc, scale: ember.distributions.StudentT(df, loc, scale),
            lambda x: x**2,
            ([5.0, 7.0, 12.0], [0.5, -1.0, 0.0], [1.0, 2.0, 0.5]),
        ),
    ],
)
def test_rsample_gradients_are_unbiased(name, make, function, values, torch):
    """The mean of pathwise gradients estimates d E[f(x)] / d theta, which torch gives exactly
    here from its moments (E[x^2] = variance + mean^2; E[sqrt(x)] of Chi2 by lgamma)."""
    ember.manual_seed(3)
    ours = [ember.tensor(value, dtype=ember.float64, requires_grad=True) for value in values]
    estimates = _monte_carlo_gradient(make, ours, function)
    theirs = [torch.tensor(value, dtype=torch.float64, requires_grad=True) for value in values]
    reference = getattr(torch.distributions, name)(*theirs)
    if name == "Chi2":  # E[sqrt(x)] = sqrt(2) Gamma((df + 1) / 2) / Gamma(df / 2)
        (df,) = theirs
        expectation = (2**0.5 * ((df + 1) / 2).lgamma().exp() / (df / 2).lgamma().exp()).mean()
    elif name == "Dirichlet":
        second_moment = reference.variance + reference.mean**2
        expectation = (second_moment * torch.tensor([1.0, 2.0, 3.0])).sum(-1).mean()
    else:
        expectation = (reference.variance + reference.mean**2).mean()
    exact = torch.autograd.grad(expectation, theirs)
    for index, (estimate, truth) in enumerate(zip(estimates, exact)):
        assert_close(numpy(estimate), truth.numpy(), rtol=0.05, atol=0.01, what=f"{name} gradient {index}")


@pytest.mark.parametrize(
    "name", ["MultivariateNormal-covariance", "MultivariateNormal-precision", "MultivariateNormal-scale_tril"]
)
def test_multivariate_normal_rsample_gradient_matches_torch_on_the_same_noise(name, torch):
    case = CASES_BY_NAME[name]
    ours, our_params = build(case, ember, requires_grad=True)
    theirs, their_params = build(case, torch, requires_grad=True)
    draws = ours.rsample((5,))
    # recover the standard normal noise: eps = L^-1 (x - loc)
    scale_tril = numpy(ours.scale_tril)
    noise = np.linalg.solve(scale_tril, (numpy(draws) - numpy(ours.loc))[..., None])
    their_draws = theirs.loc + (theirs.scale_tril @ torch.tensor(noise)).squeeze(-1)
    assert_close(numpy(draws), their_draws.detach().numpy(), rtol=1e-8, atol=1e-10, what=f"{name} draws")
    names = list(case.params)
    our_grads = ember.autograd.grad(draws.sum(), [our_params[key] for key in names])
    their_grads = torch.autograd.grad(their_draws.sum(), [their_params[key] for key in names])
    for key, mine, reference in zip(names, our_grads, their_grads):
        assert_close(numpy(mine), numpy(reference), rtol=1e-6, atol=1e-8, what=f"{name}.rsample d/d{key}")


def test_relaxed_bernoulli_rsample_gradient_matches_torch_on_the_same_noise(torch):
    probs = ember.tensor([0.2, 0.5, 0.9], dtype=ember.float64, requires_grad=True)
    draws = ember.distributions.RelaxedBernoulli(ember.tensor(0.6, dtype=ember.float64), probs=probs).rsample((4,))
    their_probs = torch.tensor(numpy(probs), requires_grad=True)
    logistic_noise = torch.logit(torch.tensor(numpy(draws))) * 0.6 - torch.logit(their_probs.detach())
    their_draws = torch.sigmoid((logistic_noise + torch.logit(their_probs)) / 0.6)
    (mine,) = ember.autograd.grad(draws.sum(), [probs])
    (reference,) = torch.autograd.grad(their_draws.sum(), [their_probs])
    assert_close(numpy(mine), reference.numpy(), rtol=1e-6, what="RelaxedBernoulli.rsample d/dprobs")


def test_von_mises_circular_moments():
    """E[cos(x - loc)] = I1(kappa) / I0(kappa) = 1 - variance, and draws lie in [-pi, pi)."""
    loc, kappa = ember.tensor([0.3, 3.0, -2.9]), ember.tensor([0.2, 2.0, 30.0])
    distribution = ember.distributions.VonMises(loc, kappa)
    draws = distribution.sample((40_000,))
    assert float(draws.min()) >= -np.pi and float(draws.max()) < np.pi
    mean_resultant = numpy((draws - loc).cos().mean(0))
    assert_close(mean_resultant, 1 - numpy(distribution.variance), atol=0.015, what="E[cos(x - loc)]")


@pytest.mark.parametrize("dim", [2, 4])
def test_lkj_cholesky_correlations_have_the_lkj_beta_marginal(dim):
    """Under LKJ(dim, eta) every correlation r of L L^T has (r + 1) / 2 ~ Beta(a, a) with
    a = eta - 1 + dim / 2 (Lewandowski et al. 2009): mean 0, variance 1 / (2a + 1), and
    E[r^4] = 3 / ((2a + 1)(2a + 3)). (torch 2.13's sampler fails this for dim 4, rows >= 2.)"""
    concentration = np.array([0.5, 1.0, 3.0])
    ember.manual_seed(11)
    factors = numpy(ember.distributions.LKJCholesky(dim, ember.tensor(concentration)).sample((40_000,)))
    matrices = factors @ np.swapaxes(factors, -1, -2)
    a = concentration - 1 + dim / 2
    variance, fourth = 1 / (2 * a + 1), 3 / ((2 * a + 1) * (2 * a + 3))
    for row in range(1, dim):
        for column in range(row):
            r = matrices[..., row, column]
            where = f"LKJ({dim}) correlation ({row}, {column})"
            assert np.all(np.abs(r.mean(0)) < 6 * np.sqrt(variance / len(r))), f"{where} mean {r.mean(0)}"
            assert_close(r.var(0), variance, rtol=0.04, what=f"{where} variance")
            assert_close((r**4).mean(0), fourth, rtol=0.08, what=f"{where} fourth moment")
