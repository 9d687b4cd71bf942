"""kl_divergence against torch's on the same parameters (values and gradients), the registry's
dispatch, and NotImplementedError for pairs without a rule."""

import numpy as np
import pytest

import ember

from ..conftest import assert_close

_R = np.random.default_rng(11)


def _positive(*shape, low=0.5, high=3.0):
    return _R.uniform(low, high, shape)


def _covariance(n, batch=()):
    a = _R.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


# name -> (build(D, p) for p, its params, build(D, q) for q, its params); the params of p and q are
# independent so that each has its own gradient
def _normal(D, p):
    return D.Normal(p["loc"], p["scale"])


NORMAL = (_normal, {"loc": _R.standard_normal(3), "scale": _positive(3)})
PAIRS = {
    "Normal-Normal": (NORMAL, (_normal, {"loc": _R.standard_normal(3), "scale": _positive(3)})),
    "Bernoulli-Bernoulli": (
        (lambda D, p: D.Bernoulli(probs=p["probs"]), {"probs": _R.uniform(0.1, 0.9, 3)}),
        (lambda D, p: D.Bernoulli(logits=p["logits"]), {"logits": _R.standard_normal(3)}),
    ),
    "Categorical-Categorical": (
        (lambda D, p: D.Categorical(probs=p["probs"]), {"probs": _positive(2, 4)}),
        (lambda D, p: D.Categorical(logits=p["logits"]), {"logits": _R.standard_normal((2, 4))}),
    ),
    "OneHotCategorical-OneHotCategorical": (
        (lambda D, p: D.OneHotCategorical(probs=p["probs"]), {"probs": _positive(2, 4)}),
        (lambda D, p: D.OneHotCategorical(probs=p["probs"]), {"probs": _positive(2, 4)}),
    ),
    "Beta-Beta": (
        (lambda D, p: D.Beta(p["a"], p["b"]), {"a": _positive(3), "b": _positive(3)}),
        (lambda D, p: D.Beta(p["a"], p["b"]), {"a": _positive(3), "b": _positive(3)}),
    ),
    "Gamma-Gamma": (
        (lambda D, p: D.Gamma(p["c"], p["r"]), {"c": _positive(3), "r": _positive(3)}),
        (lambda D, p: D.Gamma(p["c"], p["r"]), {"c": _positive(3), "r": _positive(3)}),
    ),
    "Dirichlet-Dirichlet": (
        (lambda D, p: D.Dirichlet(p["c"]), {"c": _positive(2, 4)}),
        (lambda D, p: D.Dirichlet(p["c"]), {"c": _positive(2, 4)}),
    ),
    "Exponential-Exponential": (
        (lambda D, p: D.Exponential(p["r"]), {"r": _positive(3)}),
        (lambda D, p: D.Exponential(p["r"]), {"r": _positive(3)}),
    ),
    "Laplace-Laplace": (
        (lambda D, p: D.Laplace(p["loc"], p["s"]), {"loc": _R.standard_normal(3), "s": _positive(3)}),
        (lambda D, p: D.Laplace(p["loc"], p["s"]), {"loc": _R.standard_normal(3), "s": _positive(3)}),
    ),
    "MultivariateNormal-MultivariateNormal": (
        (
            lambda D, p: D.MultivariateNormal(p["loc"], covariance_matrix=p["cov"]),
            {"loc": _R.standard_normal((2, 3)), "cov": _covariance(3)},
        ),
        (
            lambda D, p: D.MultivariateNormal(p["loc"], precision_matrix=p["prec"]),
            {"loc": _R.standard_normal(3), "prec": _covariance(3, (2,))},
        ),
    ),
    "Uniform-Uniform": (
        (
            lambda D, p: D.Uniform(p["low"], p["high"]),
            {"low": np.array([0.0, 0.5, -1.0]), "high": np.array([1.0, 2.0, 0.0])},
        ),
        (
            lambda D, p: D.Uniform(p["low"], p["high"]),
            {"low": np.array([-1.0, 0.0, -0.5]), "high": np.array([2.0, 1.0, 1.0])},
        ),
    ),
    "Poisson-Poisson": (
        (lambda D, p: D.Poisson(p["r"]), {"r": _positive(3)}),
        (lambda D, p: D.Poisson(p["r"]), {"r": _positive(3)}),
    ),
    "Binomial-Binomial": (
        (lambda D, p: D.Binomial(10, probs=p["probs"]), {"probs": _R.uniform(0.1, 0.9, 3)}),
        (lambda D, p: D.Binomial(10, logits=p["logits"]), {"logits": _R.standard_normal(3)}),
    ),
    "Geometric-Geometric": (
        (lambda D, p: D.Geometric(probs=p["probs"]), {"probs": _R.uniform(0.1, 0.9, 3)}),
        (lambda D, p: D.Geometric(probs=p["probs"]), {"probs": _R.uniform(0.1, 0.9, 3)}),
    ),
    "HalfNormal-HalfNormal": (
        (lambda D, p: D.HalfNormal(p["s"]), {"s": _positive(3)}),
        (lambda D, p: D.HalfNormal(p["s"]), {"s": _positive(3)}),
    ),
    "Cauchy-Cauchy": (
        (lambda D, p: D.Cauchy(p["loc"], p["s"]), {"loc": _R.standard_normal(3), "s": _positive(3)}),
        (lambda D, p: D.Cauchy(p["loc"], p["s"]), {"loc": _R.standard_normal(3), "s": _positive(3)}),
    ),
    "Independent-Independent": (
        (
            lambda D, p: D.Independent(D.Normal(p["loc"], p["s"]), 1),
            {"loc": _R.standard_normal((2, 3)), "s": _positive(2, 3)},
        ),
        (
            lambda D, p: D.Independent(D.Normal(p["loc"], p["s"]), 1),
            {"loc": _R.standard_normal((2, 3)), "s": _positive(2, 3)},
        ),
    ),
    "LogNormal-LogNormal": (
        (lambda D, p: D.LogNormal(p["loc"], p["s"]), {"loc": _R.standard_normal(3), "s": _positive(3)}),
        (lambda D, p: D.LogNormal(p["loc"], p["s"]), {"loc": _R.standard_normal(3), "s": _positive(3)}),
    ),
    "Chi2-Chi2 (Gamma)": (
        (lambda D, p: D.Chi2(p["df"]), {"df": _positive(3)}),
        (lambda D, p: D.Chi2(p["df"]), {"df": _positive(3)}),
    ),
    "Uniform-Normal": (
        (
            lambda D, p: D.Uniform(p["low"], p["high"]),
            {"low": np.array([0.0, 0.5, -1.0]), "high": np.array([1.0, 2.0, 0.0])},
        ),
        NORMAL,
    ),
    "Uniform-Exponential": (
        (
            lambda D, p: D.Uniform(p["low"], p["high"]),
            {"low": np.array([0.0, 0.5, -1.0]), "high": np.array([1.0, 2.0, 0.0])},
        ),
        (lambda D, p: D.Exponential(p["r"]), {"r": _positive(3)}),
    ),
    "Uniform-Gamma": (
        (
            lambda D, p: D.Uniform(p["low"], p["high"]),
            {"low": np.array([0.0, 0.5, -1.0]), "high": np.array([1.0, 2.0, 0.0])},
        ),
        (lambda D, p: D.Gamma(p["c"], p["r"]), {"c": _positive(3), "r": _positive(3)}),
    ),
    "Uniform-Beta": (
        (
            lambda D, p: D.Uniform(p["low"], p["high"]),
            {"low": np.array([0.0, 0.25, -1.0]), "high": np.array([1.0, 0.5, 0.0])},
        ),
        (lambda D, p: D.Beta(p["a"], p["b"]), {"a": _positive(3), "b": _positive(3)}),
    ),
    "Exponential-Gamma": (
        (lambda D, p: D.Exponential(p["r"]), {"r": _positive(3)}),
        (lambda D, p: D.Gamma(p["c"], p["r"]), {"c": _positive(3), "r": _positive(3)}),
    ),
    "Exponential-Normal": ((lambda D, p: D.Exponential(p["r"]), {"r": _positive(3)}), NORMAL),
    "Gamma-Exponential": (
        (lambda D, p: D.Gamma(p["c"], p["r"]), {"c": _positive(3), "r": _positive(3)}),
        (lambda D, p: D.Exponential(p["r"]), {"r": _positive(3)}),
    ),
    "Gamma-Normal": ((lambda D, p: D.Gamma(p["c"], p["r"]), {"c": _positive(3), "r": _positive(3)}), NORMAL),
    "Beta-Normal": ((lambda D, p: D.Beta(p["a"], p["b"]), {"a": _positive(3), "b": _positive(3)}), NORMAL),
    "Beta-Uniform": (
        (lambda D, p: D.Beta(p["a"], p["b"]), {"a": _positive(3), "b": _positive(3)}),
        (
            lambda D, p: D.Uniform(p["low"], p["high"]),
            {"low": np.array([0.0, -0.5, 0.2]), "high": np.array([1.0, 2.0, 1.0])},
        ),
    ),
    "Beta-Exponential": (
        (lambda D, p: D.Beta(p["a"], p["b"]), {"a": _positive(3), "b": _positive(3)}),
        (lambda D, p: D.Exponential(p["r"]), {"r": _positive(3)}),
    ),
    "Beta-Gamma": (
        (lambda D, p: D.Beta(p["a"], p["b"]), {"a": _positive(3), "b": _positive(3)}),
        (lambda D, p: D.Gamma(p["c"], p["r"]), {"c": _positive(3), "r": _positive(3)}),
    ),
    "Laplace-Normal": (
        (lambda D, p: D.Laplace(p["loc"], p["s"]), {"loc": _R.standard_normal(3), "s": _positive(3)}),
        NORMAL,
    ),
    "Normal-Laplace": (
        NORMAL,
        (lambda D, p: D.Laplace(p["loc"], p["s"]), {"loc": _R.standard_normal(3), "s": _positive(3)}),
    ),
    "Bernoulli-Poisson": (
        (lambda D, p: D.Bernoulli(probs=p["probs"]), {"probs": _R.uniform(0.1, 0.9, 3)}),
        (lambda D, p: D.Poisson(p["r"]), {"r": _positive(3)}),
    ),
    "Normal-Gamma (infinite)": (NORMAL, (lambda D, p: D.Gamma(p["c"], p["r"]), {"c": _positive(3), "r": _positive(3)})),
    "Exponential-Uniform (infinite)": (
        (lambda D, p: D.Exponential(p["r"]), {"r": _positive(3)}),
        (lambda D, p: D.Uniform(p["low"], p["high"]), {"low": np.zeros(3), "high": np.ones(3)}),
    ),
    "Poisson-Binomial (infinite)": (
        (lambda D, p: D.Poisson(p["r"]), {"r": _positive(3)}),
        (lambda D, p: D.Binomial(10, probs=p["probs"]), {"probs": _R.uniform(0.1, 0.9, 3)}),
    ),
    "Gumbel-Gumbel": (
        (lambda D, p: D.Gumbel(p["loc"], p["scale"]), {"loc": _R.standard_normal(3), "scale": _positive(3)}),
        (lambda D, p: D.Gumbel(p["loc"], p["scale"]), {"loc": _R.standard_normal(3), "scale": _positive(3)}),
    ),
    "Exponential-Gumbel": (
        (lambda D, p: D.Exponential(p["r"]), {"r": _positive(3)}),
        (lambda D, p: D.Gumbel(p["loc"], p["scale"]), {"loc": _R.standard_normal(3), "scale": _positive(3)}),
    ),
    "Gamma-Gumbel": (
        (lambda D, p: D.Gamma(p["c"], p["r"]), {"c": _positive(3), "r": _positive(3)}),
        (lambda D, p: D.Gumbel(p["loc"], p["scale"]), {"loc": _R.standard_normal(3), "scale": _positive(3)}),
    ),
    "Normal-Gumbel": (
        (_normal, {"loc": _R.standard_normal(3), "scale": _positive(3)}),
        (lambda D, p: D.Gumbel(p["loc"], p["scale"]), {"loc": _R.standard_normal(3), "scale": _positive(3)}),
    ),
    "Uniform-Gumbel": (
        (
            lambda D, p: D.Uniform(p["low"], p["high"]),
            {"low": np.array([-1.0, 0.6, 1.5]), "high": np.array([0.5, 2.0, 4.0])},
        ),
        (lambda D, p: D.Gumbel(p["loc"], p["scale"]), {"loc": _R.standard_normal(3), "scale": _positive(3)}),
    ),
    "Gumbel-Normal": (
        (lambda D, p: D.Gumbel(p["loc"], p["scale"]), {"loc": _R.standard_normal(3), "scale": _positive(3)}),
        (_normal, {"loc": _R.standard_normal(3), "scale": _positive(3)}),
    ),
    "Pareto-Pareto": (
        (
            lambda D, p: D.Pareto(p["scale"], p["alpha"]),
            {"scale": np.array([0.5, 1.0, 2.0]), "alpha": np.array([0.8, 1.5, 3.0])},
        ),
        (
            lambda D, p: D.Pareto(p["scale"], p["alpha"]),
            {"scale": _positive(3), "alpha": _positive(3, low=2.5, high=5.0)},
        ),
    ),
    "Pareto-Exponential": (
        (
            lambda D, p: D.Pareto(p["scale"], p["alpha"]),
            {"scale": np.array([0.5, 1.0, 2.0]), "alpha": np.array([0.8, 1.5, 3.0])},
        ),
        (lambda D, p: D.Exponential(p["r"]), {"r": _positive(3)}),
    ),
    "Pareto-Gamma": (
        (
            lambda D, p: D.Pareto(p["scale"], p["alpha"]),
            {"scale": np.array([0.5, 1.0, 2.0]), "alpha": np.array([0.8, 1.5, 3.0])},
        ),
        (lambda D, p: D.Gamma(p["c"], p["r"]), {"c": _positive(3), "r": _positive(3)}),
    ),
    "Pareto-Normal": (
        (
            lambda D, p: D.Pareto(p["scale"], p["alpha"]),
            {"scale": np.array([0.5, 1.0, 2.0]), "alpha": np.array([0.8, 1.5, 3.0])},
        ),
        (_normal, {"loc": _R.standard_normal(3), "scale": _positive(3)}),
    ),
    "Uniform-Pareto": (
        (
            lambda D, p: D.Uniform(p["low"], p["high"]),
            {"low": np.array([-1.0, 0.6, 1.5]), "high": np.array([0.5, 2.0, 4.0])},
        ),
        (
            lambda D, p: D.Pareto(p["scale"], p["alpha"]),
            {"scale": np.array([0.5, 1.0, 2.0]), "alpha": np.array([0.8, 1.5, 3.0])},
        ),
    ),
    "Gumbel-Beta (infinite)": (
        (lambda D, p: D.Gumbel(p["loc"], p["scale"]), {"loc": _R.standard_normal(3), "scale": _positive(3)}),
        (lambda D, p: D.Beta(p["a"], p["b"]), {"a": _positive(3), "b": _positive(3)}),
    ),
    "Gumbel-Exponential (infinite)": (
        (lambda D, p: D.Gumbel(p["loc"], p["scale"]), {"loc": _R.standard_normal(3), "scale": _positive(3)}),
        (lambda D, p: D.Exponential(p["r"]), {"r": _positive(3)}),
    ),
    "Gumbel-Gamma (infinite)": (
        (lambda D, p: D.Gumbel(p["loc"], p["scale"]), {"loc": _R.standard_normal(3), "scale": _positive(3)}),
        (lambda D, p: D.Gamma(p["c"], p["r"]), {"c": _positive(3), "r": _positive(3)}),
    ),
    "Gumbel-Pareto (infinite)": (
        (lambda D, p: D.Gumbel(p["loc"], p["scale"]), {"loc": _R.standard_normal(3), "scale": _positive(3)}),
        (
            lambda D, p: D.Pareto(p["scale"], p["alpha"]),
            {"scale": _positive(3), "alpha": _positive(3, low=2.5, high=5.0)},
        ),
    ),
    "Gumbel-Uniform (infinite)": (
        (lambda D, p: D.Gumbel(p["loc"], p["scale"]), {"loc": _R.standard_normal(3), "scale": _positive(3)}),
        (
            lambda D, p: D.Uniform(p["low"], p["high"]),
            {"low": np.array([-1.0, 0.6, 1.5]), "high": np.array([0.5, 2.0, 4.0])},
        ),
    ),
    "Beta-Pareto (infinite)": (
        (lambda D, p: D.Beta(p["a"], p["b"]), {"a": _positive(3), "b": _positive(3)}),
        (
            lambda D, p: D.Pareto(p["scale"], p["alpha"]),
            {"scale": _positive(3), "alpha": _positive(3, low=2.5, high=5.0)},
        ),
    ),
    "Exponential-Pareto (infinite)": (
        (lambda D, p: D.Exponential(p["r"]), {"r": _positive(3)}),
        (
            lambda D, p: D.Pareto(p["scale"], p["alpha"]),
            {"scale": _positive(3), "alpha": _positive(3, low=2.5, high=5.0)},
        ),
    ),
    "Gamma-Pareto (infinite)": (
        (lambda D, p: D.Gamma(p["c"], p["r"]), {"c": _positive(3), "r": _positive(3)}),
        (
            lambda D, p: D.Pareto(p["scale"], p["alpha"]),
            {"scale": _positive(3), "alpha": _positive(3, low=2.5, high=5.0)},
        ),
    ),
    "Laplace-Pareto (infinite)": (
        (lambda D, p: D.Laplace(p["loc"], p["scale"]), {"loc": _R.standard_normal(3), "scale": _positive(3)}),
        (
            lambda D, p: D.Pareto(p["scale"], p["alpha"]),
            {"scale": _positive(3), "alpha": _positive(3, low=2.5, high=5.0)},
        ),
    ),
    "Normal-Pareto (infinite)": (
        (_normal, {"loc": _R.standard_normal(3), "scale": _positive(3)}),
        (
            lambda D, p: D.Pareto(p["scale"], p["alpha"]),
            {"scale": _positive(3), "alpha": _positive(3, low=2.5, high=5.0)},
        ),
    ),
    "Pareto-Beta (infinite)": (
        (
            lambda D, p: D.Pareto(p["scale"], p["alpha"]),
            {"scale": _positive(3), "alpha": _positive(3, low=2.5, high=5.0)},
        ),
        (lambda D, p: D.Beta(p["a"], p["b"]), {"a": _positive(3), "b": _positive(3)}),
    ),
    "Pareto-Uniform (infinite)": (
        (
            lambda D, p: D.Pareto(p["scale"], p["alpha"]),
            {"scale": _positive(3), "alpha": _positive(3, low=2.5, high=5.0)},
        ),
        (
            lambda D, p: D.Uniform(p["low"], p["high"]),
            {"low": np.array([-1.0, 0.6, 1.5]), "high": np.array([0.5, 2.0, 4.0])},
        ),
    ),
    "LowRank-LowRank": (
        (
            lambda D, p: D.LowRankMultivariateNormal(p["loc"], p["W"], p["d"]),
            {"loc": _R.standard_normal((2, 3)), "W": _R.standard_normal((2, 3, 2)), "d": _positive(2, 3)},
        ),
        (
            lambda D, p: D.LowRankMultivariateNormal(p["loc"], p["W"], p["d"]),
            {"loc": _R.standard_normal((2, 3)), "W": _R.standard_normal((2, 3, 2)), "d": _positive(2, 3)},
        ),
    ),
    "LowRank-MultivariateNormal": (
        (
            lambda D, p: D.LowRankMultivariateNormal(p["loc"], p["W"], p["d"]),
            {"loc": _R.standard_normal((2, 3)), "W": _R.standard_normal((2, 3, 2)), "d": _positive(2, 3)},
        ),
        (
            lambda D, p: D.MultivariateNormal(p["loc"], covariance_matrix=p["cov"]),
            {"loc": _R.standard_normal((2, 3)), "cov": _covariance(3, (2,))},
        ),
    ),
    "MultivariateNormal-LowRank": (
        (
            lambda D, p: D.MultivariateNormal(p["loc"], covariance_matrix=p["cov"]),
            {"loc": _R.standard_normal((2, 3)), "cov": _covariance(3, (2,))},
        ),
        (
            lambda D, p: D.LowRankMultivariateNormal(p["loc"], p["W"], p["d"]),
            {"loc": _R.standard_normal((2, 3)), "W": _R.standard_normal((2, 3, 2)), "d": _positive(2, 3)},
        ),
    ),
    "ContinuousBernoulli-ContinuousBernoulli": (
        (lambda D, p: D.ContinuousBernoulli(probs=p["probs"]), {"probs": np.array([0.2, 0.4995, 0.8])}),
        (lambda D, p: D.ContinuousBernoulli(logits=p["logits"]), {"logits": _R.standard_normal(3)}),
    ),
    "Beta-ContinuousBernoulli": (
        (lambda D, p: D.Beta(p["a"], p["b"]), {"a": _positive(3), "b": _positive(3)}),
        (lambda D, p: D.ContinuousBernoulli(probs=p["probs"]), {"probs": _R.uniform(0.1, 0.9, 3)}),
    ),
    "Uniform-ContinuousBernoulli": (
        (
            lambda D, p: D.Uniform(p["low"], p["high"]),
            {"low": np.array([0.1, 0.3, -0.5]), "high": np.array([0.6, 0.9, 0.5])},  # the last one leaves [0, 1]
        ),
        (lambda D, p: D.ContinuousBernoulli(probs=p["probs"]), {"probs": _R.uniform(0.1, 0.9, 3)}),
    ),
    "ContinuousBernoulli-Exponential": (
        (lambda D, p: D.ContinuousBernoulli(probs=p["probs"]), {"probs": _R.uniform(0.1, 0.9, 3)}),
        (lambda D, p: D.Exponential(p["r"]), {"r": _positive(3)}),
    ),
    "ContinuousBernoulli-Normal": (
        (lambda D, p: D.ContinuousBernoulli(logits=p["logits"]), {"logits": _R.standard_normal(3)}),
        (_normal, {"loc": _R.standard_normal(3), "scale": _positive(3)}),
    ),
    "ContinuousBernoulli-Uniform": (
        (lambda D, p: D.ContinuousBernoulli(probs=p["probs"]), {"probs": _R.uniform(0.1, 0.9, 3)}),
        (
            lambda D, p: D.Uniform(p["low"], p["high"]),
            {"low": np.array([-0.5, -1.0, 0.2]), "high": np.array([1.5, 3.0, 2.0])},  # the last one misses [0, 0.2)
        ),
    ),
    "ContinuousBernoulli-Pareto (infinite)": (
        (lambda D, p: D.ContinuousBernoulli(probs=p["probs"]), {"probs": _R.uniform(0.1, 0.9, 3)}),
        (lambda D, p: D.Pareto(p["scale"], p["alpha"]), {"scale": _positive(3), "alpha": _positive(3)}),
    ),
    "Normal-ContinuousBernoulli (infinite)": (
        NORMAL,
        (lambda D, p: D.ContinuousBernoulli(probs=p["probs"]), {"probs": _R.uniform(0.1, 0.9, 3)}),
    ),
    "Gamma-ContinuousBernoulli (infinite)": (
        (lambda D, p: D.Gamma(p["c"], p["r"]), {"c": _positive(3), "r": _positive(3)}),
        (lambda D, p: D.ContinuousBernoulli(probs=p["probs"]), {"probs": _R.uniform(0.1, 0.9, 3)}),
    ),
}
EXPONENTIAL_FAMILIES = [
    "ContinuousBernoulli-ContinuousBernoulli",
    "Normal-Normal",
    "Bernoulli-Bernoulli",
    "Beta-Beta",
    "Gamma-Gamma",
    "Dirichlet-Dirichlet",
    "Exponential-Exponential",
    "Poisson-Poisson",
    "Chi2-Chi2 (Gamma)",
]


def _build(lib, side):
    build, params = side
    tensors = {key: lib.tensor(value, dtype=lib.float64, requires_grad=True) for key, value in params.items()}
    return build(lib.distributions, tensors), tensors


@pytest.mark.parametrize("name", list(PAIRS))
def test_kl_divergence_matches_torch(name, torch):
    p_side, q_side = PAIRS[name]
    our_p, our_p_params = _build(ember, p_side)
    our_q, our_q_params = _build(ember, q_side)
    their_p, their_p_params = _build(torch, p_side)
    their_q, their_q_params = _build(torch, q_side)
    ours = ember.distributions.kl_divergence(our_p, our_q)
    theirs = torch.distributions.kl_divergence(their_p, their_q)
    assert_close(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6, atol=1e-8, what=f"KL {name}")
    finite = np.isfinite(theirs.detach().numpy())
    if not finite.any() or not theirs.requires_grad:
        return
    their_leaves = list(their_p_params.values()) + list(their_q_params.values())
    our_leaves = list(our_p_params.values()) + list(our_q_params.values())
    their_grads = torch.autograd.grad(theirs[torch.tensor(finite)].sum(), their_leaves, allow_unused=True)
    our_grads = ember.autograd.grad(ours[ember.tensor(finite)].sum(), our_leaves, allow_unused=True)
    for index, (mine, reference) in enumerate(zip(our_grads, their_grads)):
        if reference is None:
            assert mine is None or not np.any(mine.numpy()), f"KL {name}: gradient {index} should be zero"
            continue
        assert_close(mine.numpy(), reference.numpy(), rtol=1e-6, atol=1e-8, what=f"KL {name} gradient {index}")


@pytest.mark.parametrize("name", EXPONENTIAL_FAMILIES)
def test_bregman_divergence_and_entropy_of_exponential_families_match_torchs_closed_forms(name, torch):
    """The generic ExponentialFamily rules (from `_natural_params` and `_log_normalizer` by autograd)
    agree with torch's closed forms for the same pair."""
    p_side, q_side = PAIRS[name]
    our_p, our_q = _build(ember, p_side)[0], _build(ember, q_side)[0]
    their_p, their_q = _build(torch, p_side)[0], _build(torch, q_side)[0]
    bregman = ember.distributions.kl._kl_expfamily_expfamily(our_p, our_q)
    assert_close(
        bregman.detach().numpy(),
        torch.distributions.kl_divergence(their_p, their_q).detach().numpy(),
        rtol=1e-6,
        atol=1e-8,
        what=f"Bregman KL {name}",
    )
    if type(our_p).__name__ in ("Beta", "Dirichlet", "Poisson"):
        return  # no closed-form carrier measure (nor in torch)
    generic_entropy = ember.distributions.ExponentialFamily.entropy(our_p)
    assert_close(
        generic_entropy.detach().numpy(),
        their_p.entropy().detach().numpy(),
        rtol=1e-6,
        atol=1e-8,
        what=f"ExponentialFamily entropy of {type(our_p).__name__}",
    )


def test_kl_of_a_distribution_with_itself_is_zero():
    p = ember.distributions.Dirichlet(ember.tensor([0.5, 1.0, 4.0]))
    assert abs(float(ember.distributions.kl_divergence(p, p))) < 1e-6


def test_kl_agrees_with_monte_carlo():
    p = ember.distributions.Gamma(ember.tensor(2.0, dtype=ember.float64), ember.tensor(1.5, dtype=ember.float64))
    q = ember.distributions.Normal(ember.tensor(1.0, dtype=ember.float64), ember.tensor(0.8, dtype=ember.float64))
    draws = p.sample((200_000,))
    estimate = float((p.log_prob(draws) - q.log_prob(draws)).mean())
    assert abs(float(ember.distributions.kl_divergence(p, q)) - estimate) < 0.02


def test_unregistered_pairs_raise_not_implemented_error_as_torch(torch):
    for make in (
        lambda D: (D.Normal(0.0, 1.0), D.Bernoulli(0.3)),
        lambda D: (D.Cauchy(0.0, 1.0), D.Normal(0.0, 1.0)),
        lambda D: (D.StudentT(3.0), D.StudentT(4.0)),
    ):
        with pytest.raises(NotImplementedError) as theirs:
            torch.distributions.kl_divergence(*make(torch.distributions))
        with pytest.raises(NotImplementedError) as ours:
            ember.distributions.kl_divergence(*make(ember.distributions))
        assert " ".join(str(ours.value).split()) == " ".join(str(theirs.value).split())


def test_register_kl_prefers_the_most_specific_pair():
    D = ember.distributions

    class MyNormal(D.Normal):
        pass

    p, q = MyNormal(0.0, 1.0), D.Normal(1.0, 1.0)
    assert float(D.kl_divergence(p, q)) == pytest.approx(0.5)

    @D.register_kl(MyNormal, D.Normal)
    def always_seven(p, q):
        return ember.tensor(7.0)

    try:
        assert float(D.kl_divergence(p, q)) == 7.0
        assert float(D.kl_divergence(q, p)) == pytest.approx(0.5)
    finally:
        del D.kl._KL_REGISTRY[MyNormal, D.Normal]
        D.kl._KL_MEMOIZE.clear()


def test_ambiguous_rules_warn():
    D = ember.distributions

    class A(D.Normal):
        pass

    class B(D.Normal):
        pass

    D.register_kl(A, D.Normal)(lambda p, q: ember.tensor(1.0))
    D.register_kl(D.Normal, B)(lambda p, q: ember.tensor(2.0))
    try:
        with pytest.warns(RuntimeWarning, match="Ambiguous kl_divergence"):
            D.kl_divergence(A(0.0, 1.0), B(0.0, 1.0))
    finally:
        del D.kl._KL_REGISTRY[A, D.Normal], D.kl._KL_REGISTRY[D.Normal, B]
        D.kl._KL_MEMOIZE.clear()


def test_register_kl_rejects_non_distributions():
    with pytest.raises(TypeError, match="Distribution subclass"):
        ember.distributions.register_kl(int, ember.distributions.Normal)


def test_continuous_bernoulli_and_uniform_on_the_same_interval_have_a_finite_kl(torch):
    """With supports that coincide the KL divergences are finite (torch 2.13 returns inf there):
    KL(CB || U(0, 1)) = -H(CB), checked with torch's entropy, and KL(U(0, 1) || CB) =
    -integral of log q over [0, 1], checked by the midpoint rule on torch's log_prob."""
    D = ember.distributions
    probs = [0.3, 0.8]
    cb, uniform = D.ContinuousBernoulli(ember.tensor(probs, dtype=ember.float64)), D.Uniform(0.0, 1.0)
    their_cb = torch.distributions.ContinuousBernoulli(torch.tensor(probs, dtype=torch.float64))
    assert_close(D.kl_divergence(cb, uniform).numpy(), -their_cb.entropy().numpy(), rtol=1e-6, what="KL(CB || U)")
    midpoints = torch.linspace(0.5 / 10_000, 1 - 0.5 / 10_000, 10_000, dtype=torch.float64)[:, None]
    integral = their_cb.log_prob(midpoints).mean(0).numpy()
    assert_close(D.kl_divergence(uniform, cb).numpy(), -integral, rtol=1e-6, what="KL(U || CB)")
