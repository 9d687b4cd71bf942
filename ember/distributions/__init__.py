"""ember.distributions: what `torch.distributions` gives, on ember's tensor ops.

`log_prob`, `cdf`, `entropy` and `rsample` are built from differentiable ember ops, so gradients
flow to the parameters (reparameterized sampling where `has_rsample` is True). Draws come from
ember's default generator, so `ember.manual_seed` makes them repeatable.

Differences from PyTorch:
  * Gamma/Chi2/StudentT `rsample`: the gradient of a gamma draw in its concentration is computed
    exactly (PyTorch uses an approximation, within ~1e-3 of it).
  * Dirichlet/Beta `rsample`: gradients go through normalized gamma draws rather than PyTorch's
    implicit Dirichlet gradient: unbiased with the same expectation, different draw by draw.
  * Draws themselves differ from PyTorch's (another generator).
  * Not provided: the distributions not listed in `__all__` (Gumbel, Pareto, Weibull, VonMises,
    LowRankMultivariateNormal, Multinomial, MixtureSameFamily, ...), CatTransform, StackTransform,
    CorrCholeskyTransform.
"""

from . import constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .constraint_registry import ConstraintRegistry, biject_to, transform_to
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .half_normal import HalfNormal
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .relaxed_bernoulli import LogitRelaxedBernoulli, RelaxedBernoulli
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F401,F403
from .uniform import Uniform

__all__ = [
    "Bernoulli",
    "Beta",
    "Binomial",
    "Categorical",
    "Cauchy",
    "Chi2",
    "ConstraintRegistry",
    "Dirichlet",
    "Distribution",
    "Exponential",
    "ExponentialFamily",
    "Gamma",
    "Geometric",
    "HalfNormal",
    "Independent",
    "Laplace",
    "LogNormal",
    "LogitRelaxedBernoulli",
    "MultivariateNormal",
    "Normal",
    "OneHotCategorical",
    "Poisson",
    "RelaxedBernoulli",
    "StudentT",
    "TransformedDistribution",
    "Uniform",
    "biject_to",
    "constraints",
    "kl_divergence",
    "register_kl",
    "transform_to",
    "transforms",
] + transforms.__all__
