"""One row per distribution (and parametrization) for the differential tests: how to build it in
either library from the same parameters, the parameters themselves (float64 NumPy arrays, the
differentiable ones first), and values inside its support for log_prob / cdf.

`build(D, p)` receives `ember.distributions` or `torch.distributions` as D and the parameters as
that library's tensors, so one lambda states the distribution for both.
"""

from typing import Callable, NamedTuple

import numpy as np

import ember


class Case(NamedTuple):
    name: str
    build: Callable
    params: dict  # differentiable parameters: name -> float64 array
    values: Callable  # values(rng, params) -> array in the support (sample dims + batch + event)
    fixed: dict = {}  # parameters without gradient (total_count, temperature)
    rtol: dict = {}  # method -> a looser relative tolerance against torch, with the reason in the case
    differs: dict = {}  # method -> why ember deliberately differs from torch there (not compared)


def _rng():
    return np.random.default_rng(20240611)


_R = _rng()


def _positive(*shape, low=0.5, high=2.0):
    return _R.uniform(low, high, shape)


def _covariance(n):
    a = _R.standard_normal((n, n))
    return a @ a.T + n * np.eye(n)


def _covariances(rng, batch, n):
    a = rng.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + np.eye(n)


def _scale_tril(n):
    lower = np.tril(_R.standard_normal((n, n)), -1)
    return lower + np.diag(_R.uniform(0.5, 2.0, n))


def _corr_choleskys(rng, batch, n):
    """Cholesky factors of random n x n correlation matrices: lower triangular, positive diagonal,
    rows scaled to unit length."""
    lower = np.tril(rng.standard_normal(batch + (n, n)), -1) + np.eye(n) * rng.uniform(0.3, 2.0, batch + (n, 1))
    return lower / np.linalg.norm(lower, axis=-1, keepdims=True)


def _one_hot(rng, shape, k):
    return np.eye(k)[rng.integers(0, k, shape)]


CASES = [
    Case(
        "Normal",
        lambda D, p: D.Normal(p["loc"], p["scale"]),
        {"loc": _R.standard_normal(3), "scale": _positive(3)},
        lambda rng, p: rng.standard_normal((4, 3)),
    ),
    Case(
        "Normal-broadcast",
        lambda D, p: D.Normal(p["loc"], p["scale"]),
        {"loc": _R.standard_normal((2, 1)), "scale": _positive(3)},
        lambda rng, p: rng.standard_normal((4, 2, 3)),
    ),
    Case(
        "Bernoulli-probs",
        lambda D, p: D.Bernoulli(probs=p["probs"]),
        {"probs": _R.uniform(0.1, 0.9, 3)},
        lambda rng, p: rng.integers(0, 2, (4, 3)).astype(np.float64),
    ),
    Case(
        "Bernoulli-logits",
        lambda D, p: D.Bernoulli(logits=p["logits"]),
        {"logits": _R.standard_normal(3) * 2},
        lambda rng, p: rng.integers(0, 2, (4, 3)).astype(np.float64),
    ),
    Case(
        "Categorical-probs",
        lambda D, p: D.Categorical(probs=p["probs"]),
        {"probs": _positive(2, 4)},
        lambda rng, p: rng.integers(0, 4, (5, 2)),
    ),
    Case(
        "Categorical-logits",
        lambda D, p: D.Categorical(logits=p["logits"]),
        {"logits": _R.standard_normal((2, 4))},
        lambda rng, p: rng.integers(0, 4, (5, 2)),
    ),
    Case(
        "OneHotCategorical",
        lambda D, p: D.OneHotCategorical(probs=p["probs"]),
        {"probs": _positive(2, 4)},
        lambda rng, p: _one_hot(rng, (5, 2), 4),
    ),
    Case(
        "Uniform",
        lambda D, p: D.Uniform(p["low"], p["high"]),
        {"low": np.array([-1.0, 0.0, 2.0]), "high": np.array([0.5, 3.0, 2.5])},
        lambda rng, p: p["low"] + rng.uniform(0.01, 0.99, (4, 3)) * (p["high"] - p["low"]),
    ),
    Case(
        "Beta",
        lambda D, p: D.Beta(p["concentration1"], p["concentration0"]),
        {"concentration1": _positive(3, low=0.5, high=3.0), "concentration0": _positive(3, low=0.5, high=3.0)},
        lambda rng, p: rng.uniform(0.05, 0.95, (4, 3)),
    ),
    Case(
        "Gamma",
        lambda D, p: D.Gamma(p["concentration"], p["rate"]),
        {"concentration": _positive(3, low=0.5, high=3.0), "rate": _positive(3)},
        lambda rng, p: rng.uniform(0.1, 5.0, (4, 3)),
    ),
    Case(
        "Dirichlet",
        lambda D, p: D.Dirichlet(p["concentration"]),
        {"concentration": _positive(2, 4, low=0.5, high=3.0)},
        lambda rng, p: rng.dirichlet(np.ones(4), (5, 2)),
    ),
    Case(
        "Exponential",
        lambda D, p: D.Exponential(p["rate"]),
        {"rate": _positive(3)},
        lambda rng, p: rng.uniform(0.0, 5.0, (4, 3)),
    ),
    Case(
        "Laplace",
        lambda D, p: D.Laplace(p["loc"], p["scale"]),
        {"loc": _R.standard_normal(3), "scale": _positive(3)},
        lambda rng, p: rng.standard_normal((4, 3)) * 2,
    ),
    Case(
        "MultivariateNormal-covariance",
        lambda D, p: D.MultivariateNormal(p["loc"], covariance_matrix=p["cov"]),
        {"loc": _R.standard_normal((2, 3)), "cov": _covariance(3)},
        lambda rng, p: rng.standard_normal((4, 2, 3)),
    ),
    Case(
        "MultivariateNormal-precision",
        lambda D, p: D.MultivariateNormal(p["loc"], precision_matrix=p["prec"]),
        {"loc": _R.standard_normal(3), "prec": _covariance(3)},
        lambda rng, p: rng.standard_normal((4, 3)),
    ),
    Case(
        "MultivariateNormal-scale_tril",
        lambda D, p: D.MultivariateNormal(p["loc"], scale_tril=p["tril"]),
        {"loc": _R.standard_normal((2, 3)), "tril": _scale_tril(3)},
        lambda rng, p: rng.standard_normal((4, 2, 3)),
    ),
    Case(
        "Independent",
        lambda D, p: D.Independent(D.Normal(p["loc"], p["scale"]), 1),
        {"loc": _R.standard_normal((2, 3)), "scale": _positive(2, 3)},
        lambda rng, p: rng.standard_normal((4, 2, 3)),
    ),
    Case(
        "TransformedDistribution",
        lambda D, p: D.TransformedDistribution(
            D.Normal(p["loc"], p["scale"]), [D.ExpTransform(), D.AffineTransform(1.0, 2.0)]
        ),
        {"loc": _R.standard_normal(3), "scale": _positive(3)},
        lambda rng, p: 1.0 + 2.0 * np.exp(rng.standard_normal((4, 3))),
    ),
    Case(
        "TransformedDistribution-stick-breaking",
        lambda D, p: D.TransformedDistribution(D.Normal(p["loc"], p["scale"]), D.StickBreakingTransform()),
        {"loc": _R.standard_normal((2, 3)), "scale": _positive(2, 3)},
        lambda rng, p: rng.dirichlet(np.ones(4), (5, 2)),
    ),
    Case(
        "LogNormal",
        lambda D, p: D.LogNormal(p["loc"], p["scale"]),
        {"loc": _R.standard_normal(3), "scale": _positive(3, low=0.3, high=1.0)},
        lambda rng, p: np.exp(rng.standard_normal((4, 3))),
    ),
    Case(
        "Poisson",
        lambda D, p: D.Poisson(p["rate"]),
        {"rate": _positive(3, low=0.5, high=5.0)},
        lambda rng, p: rng.integers(0, 8, (4, 3)).astype(np.float64),
    ),
    Case(
        "Binomial-probs",
        lambda D, p: D.Binomial(p["total_count"], probs=p["probs"]),
        {"probs": _R.uniform(0.1, 0.9, 3)},
        lambda rng, p: rng.integers(0, 11, (4, 3)).astype(np.float64),
        fixed={"total_count": np.array([10.0, 10.0, 10.0])},
    ),
    Case(
        "Binomial-logits",
        lambda D, p: D.Binomial(p["total_count"], logits=p["logits"]),
        {"logits": _R.standard_normal(3)},
        lambda rng, p: rng.integers(0, 6, (4, 3)).astype(np.float64),
        fixed={"total_count": np.array([5.0, 7.0, 9.0])},
    ),
    Case(
        "Geometric",
        lambda D, p: D.Geometric(probs=p["probs"]),
        {"probs": _R.uniform(0.1, 0.9, 3)},
        lambda rng, p: rng.integers(0, 6, (4, 3)).astype(np.float64),
    ),
    Case(
        "Geometric-logits",
        lambda D, p: D.Geometric(logits=p["logits"]),
        {"logits": _R.standard_normal(3)},
        lambda rng, p: rng.integers(0, 6, (4, 3)).astype(np.float64),
    ),
    Case(
        "Cauchy",
        lambda D, p: D.Cauchy(p["loc"], p["scale"]),
        {"loc": _R.standard_normal(3), "scale": _positive(3)},
        lambda rng, p: rng.standard_normal((4, 3)) * 3,
    ),
    Case(
        "StudentT",
        lambda D, p: D.StudentT(p["df"], p["loc"], p["scale"]),
        {"df": np.array([0.8, 1.5, 3.0]), "loc": _R.standard_normal(3), "scale": _positive(3)},
        lambda rng, p: rng.standard_normal((4, 3)) * 2,
    ),
    Case(
        "Chi2",
        lambda D, p: D.Chi2(p["df"]),
        {"df": _positive(3, low=1.0, high=5.0)},
        lambda rng, p: rng.uniform(0.1, 5.0, (4, 3)),
    ),
    Case(
        "HalfNormal",
        lambda D, p: D.HalfNormal(p["scale"]),
        {"scale": _positive(3)},
        lambda rng, p: np.abs(rng.standard_normal((4, 3))),
    ),
    Case(
        "RelaxedBernoulli",
        lambda D, p: D.RelaxedBernoulli(p["temperature"], probs=p["probs"]),
        {"probs": _R.uniform(0.1, 0.9, 3)},
        lambda rng, p: rng.uniform(0.05, 0.95, (4, 3)),
        fixed={"temperature": np.array(0.7)},
    ),
]

CASES += [
    Case(
        "Gumbel",
        lambda D, p: D.Gumbel(p["loc"], p["scale"]),
        {"loc": _R.standard_normal(3), "scale": _positive(3)},
        lambda rng, p: p["loc"] + rng.uniform(-1.0, 3.0, (4, 3)) * p["scale"],
    ),
    Case(
        "Pareto",
        lambda D, p: D.Pareto(p["scale"], p["alpha"]),
        {"scale": _positive(3), "alpha": np.array([0.7, 1.5, 3.0])},
        lambda rng, p: p["scale"] + rng.uniform(0.0, 3.0, (4, 3)),
    ),
    Case(
        "Weibull",
        lambda D, p: D.Weibull(p["scale"], p["concentration"]),
        {"scale": _positive(3), "concentration": np.array([0.7, 1.5, 3.0])},
        lambda rng, p: rng.uniform(0.1, 3.0, (4, 3)),
    ),
    Case(
        "HalfCauchy",
        lambda D, p: D.HalfCauchy(p["scale"]),
        {"scale": _positive(3)},
        lambda rng, p: np.abs(rng.standard_normal((4, 3))) * 2,
    ),
    Case(
        "InverseGamma",
        lambda D, p: D.InverseGamma(p["concentration"], p["rate"]),
        {"concentration": np.array([0.8, 1.5, 3.0]), "rate": _positive(3)},
        lambda rng, p: rng.uniform(0.1, 3.0, (4, 3)),
    ),
    Case(
        "Kumaraswamy",
        lambda D, p: D.Kumaraswamy(p["concentration1"], p["concentration0"]),
        {"concentration1": np.array([0.7, 2.0, 3.0]), "concentration0": np.array([2.0, 0.8, 3.0])},
        lambda rng, p: rng.uniform(0.05, 0.95, (4, 3)),
        differs={"mode": "torch 2.13's Kumaraswamy.mode is NaN even where the mode exists"},
    ),
    Case(
        "FisherSnedecor",
        lambda D, p: D.FisherSnedecor(p["df1"], p["df2"]),
        {"df1": np.array([1.5, 3.0, 6.0]), "df2": np.array([4.5, 5.0, 9.0])},
        lambda rng, p: rng.uniform(0.1, 4.0, (4, 3)),
    ),
    Case(
        "VonMises",
        lambda D, p: D.VonMises(p["loc"], p["concentration"]),
        {"loc": _R.uniform(-3, 3, 3), "concentration": np.array([0.1, 1.5, 20.0])},
        lambda rng, p: rng.uniform(-np.pi, np.pi, (4, 3)),
        # torch's Bessel functions are polynomial fits good to ~1e-5 (ember's i0e/i1e to ~1e-15)
        rtol={"variance": 1e-4, "stddev": 1e-4},
    ),
    Case(
        "NegativeBinomial-probs",
        lambda D, p: D.NegativeBinomial(p["total_count"], probs=p["probs"]),
        {"probs": _R.uniform(0.1, 0.9, 3)},
        lambda rng, p: rng.integers(0, 8, (4, 3)).astype(np.float64),
        fixed={"total_count": np.array([1.0, 2.5, 6.0])},
    ),
    Case(
        "NegativeBinomial-logits",
        lambda D, p: D.NegativeBinomial(p["total_count"], logits=p["logits"]),
        {"logits": _R.standard_normal(3)},
        lambda rng, p: rng.integers(0, 8, (4, 3)).astype(np.float64),
        fixed={"total_count": np.array([1.0, 2.5, 6.0])},
    ),
    Case(
        "Multinomial",
        lambda D, p: D.Multinomial(5, probs=p["probs"]),
        {"probs": _positive(2, 4)},
        lambda rng, p: rng.multinomial(5, [0.25] * 4, (3, 2)).astype(np.float64),
    ),
    Case(
        "Multinomial-logits",
        lambda D, p: D.Multinomial(3, logits=p["logits"]),
        {"logits": _R.standard_normal(4)},
        lambda rng, p: rng.multinomial(3, [0.25] * 4, (3,)).astype(np.float64),
    ),
    Case(
        "LowRankMultivariateNormal",
        lambda D, p: D.LowRankMultivariateNormal(p["loc"], p["cov_factor"], p["cov_diag"]),
        {"loc": _R.standard_normal((2, 3)), "cov_factor": _R.standard_normal((2, 3, 2)), "cov_diag": _positive(2, 3)},
        lambda rng, p: rng.standard_normal((4, 2, 3)),
    ),
    Case(
        "LowRankMultivariateNormal-broadcast",
        lambda D, p: D.LowRankMultivariateNormal(p["loc"], p["cov_factor"], p["cov_diag"]),
        {"loc": _R.standard_normal((2, 3)), "cov_factor": _R.standard_normal((3, 1)), "cov_diag": _positive(3)},
        lambda rng, p: rng.standard_normal((4, 2, 3)),
    ),
    Case(
        "LogisticNormal",
        lambda D, p: D.LogisticNormal(p["loc"], p["scale"]),
        {"loc": _R.standard_normal((2, 3)), "scale": _positive(2, 3)},
        lambda rng, p: rng.dirichlet(np.ones(4), (5, 2)),
    ),
    Case(
        "RelaxedOneHotCategorical",
        lambda D, p: D.RelaxedOneHotCategorical(p["temperature"], probs=p["probs"]),
        {"probs": _positive(2, 4)},
        lambda rng, p: rng.dirichlet(np.ones(4), (5, 2)),
        fixed={"temperature": np.array(0.7)},
    ),
    Case(
        "RelaxedOneHotCategorical-logits",
        lambda D, p: D.RelaxedOneHotCategorical(p["temperature"], logits=p["logits"]),
        {"logits": _R.standard_normal(3)},
        lambda rng, p: rng.dirichlet(np.ones(3), (5,)),
        fixed={"temperature": np.array(1.3)},
    ),
    Case(
        "OneHotCategoricalStraightThrough",
        lambda D, p: D.OneHotCategoricalStraightThrough(probs=p["probs"]),
        {"probs": _positive(2, 4)},
        lambda rng, p: _one_hot(rng, (5, 2), 4),
    ),
    Case(
        "MixtureSameFamily",
        lambda D, p: D.MixtureSameFamily(D.Categorical(logits=p["logits"]), D.Normal(p["loc"], p["scale"])),
        {"logits": _R.standard_normal((2, 3)), "loc": _R.standard_normal((2, 3)), "scale": _positive(2, 3)},
        lambda rng, p: rng.standard_normal((4, 2)),
    ),
    Case(
        "MixtureSameFamily-multivariate",
        lambda D, p: D.MixtureSameFamily(
            D.Categorical(probs=p["probs"]), D.Independent(D.Normal(p["loc"], p["scale"]), 1)
        ),
        {"probs": _positive(3), "loc": _R.standard_normal((3, 2)), "scale": _positive(3, 2)},
        lambda rng, p: rng.standard_normal((4, 2)),
    ),
]

CASES += [
    Case(
        "Wishart-covariance",
        lambda D, p: D.Wishart(p["df"], covariance_matrix=p["cov"]),
        {"df": np.array([3.5, 6.0]), "cov": np.stack([_covariance(3), _covariance(3)])},
        lambda rng, p: _covariances(rng, (4, 2), 3),
    ),
    Case(
        "Wishart-scale_tril",
        lambda D, p: D.Wishart(p["df"], scale_tril=p["scale_tril"]),
        {"df": np.array(4.0)},
        lambda rng, p: _covariances(rng, (4,), 2),
        # fixed: torch's cholesky_solve sends gradient to the unused upper triangle of scale_tril
        fixed={"scale_tril": _scale_tril(2)},
    ),
]

CASES += [
    Case(
        "ContinuousBernoulli-probs",
        lambda D, p: D.ContinuousBernoulli(probs=p["probs"]),
        {"probs": np.array([0.1, 0.3, 0.4995, 0.5005, 0.7, 0.95])},  # two inside the Taylor region
        lambda rng, p: rng.uniform(0.01, 0.99, (4, 6)),
    ),
    Case(
        "ContinuousBernoulli-logits",
        lambda D, p: D.ContinuousBernoulli(logits=p["logits"]),
        {"logits": _R.standard_normal((2, 3)) * 2},
        lambda rng, p: rng.uniform(0.01, 0.99, (4, 2, 3)),
    ),
    Case(
        "LKJCholesky",
        lambda D, p: D.LKJCholesky(3, p["concentration"]),
        {"concentration": np.array([0.5, 1.0, 2.5])},
        lambda rng, p: _corr_choleskys(rng, (4, 3), 3),
    ),
    Case(
        "LKJCholesky-scalar",
        lambda D, p: D.LKJCholesky(2, p["concentration"]),
        {"concentration": np.array(1.7)},
        lambda rng, p: _corr_choleskys(rng, (4,), 2),
    ),
]

CASES_BY_NAME = {case.name: case for case in CASES}


def tensors(lib, arrays, dtype_name="float64", requires_grad=False):
    """The arrays as `lib` tensors (integer arrays keep an int64 dtype and never require grad)."""
    result = {}
    for name, array in arrays.items():
        if np.asarray(array).dtype.kind in "iu":
            result[name] = lib.tensor(np.asarray(array), dtype=lib.int64)
        else:
            result[name] = lib.tensor(np.asarray(array), dtype=getattr(lib, dtype_name), requires_grad=requires_grad)
    return result


def build(case, lib, dtype_name="float64", requires_grad=False):
    """(distribution, its differentiable parameter tensors) for `case` in `lib` (ember or torch)."""
    params = tensors(lib, case.params, dtype_name, requires_grad)
    fixed = tensors(lib, case.fixed, dtype_name)
    return case.build(lib.distributions, {**params, **fixed}), params


def values(case, lib, dtype_name="float64"):
    """Values in the support of `case`, the same for both libraries."""
    array = np.asarray(case.values(_rng(), case.params))
    if array.dtype.kind in "iu":
        return lib.tensor(array, dtype=lib.int64)
    return lib.tensor(array, dtype=getattr(lib, dtype_name))


def numpy(tensor):
    return tensor.detach().numpy()


def is_ember(lib):
    return lib is ember
