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
  * Kumaraswamy.mode is the textbook mode (PyTorch 2.13 returns NaN).
  * Wishart.rsample has no retry loop for singular draws (possible only for p - 1 < df < p).
  * ContinuousBernoulli checks `probs` whenever validation is on (PyTorch only when validate_args
    is passed explicitly), and its KL divergences with Uniform are finite when the supports just
    touch (PyTorch returns inf at equal endpoints).
  * LKJCholesky.sample draws the onion method's Beta(i/2, ...) for row i; PyTorch 2.13 draws
    Beta(i - 1/2, ...), so its correlations for dim >= 3 do not follow the LKJ density it scores.
"""

from . import constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .constraint_registry import ConstraintRegistry, biject_to, transform_to
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .fishersnedecor import FisherSnedecor
from .gamma import Gamma
from .generalized_pareto import GeneralizedPareto
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .inverse_gamma import InverseGamma
from .kl import kl_divergence, register_kl
from .kumaraswamy import Kumaraswamy
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .log_normal import LogNormal
from .logistic_normal import LogisticNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .pareto import Pareto
from .poisson import Poisson
from .relaxed_bernoulli import LogitRelaxedBernoulli, RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .von_mises import VonMises
from .weibull import Weibull
from .wishart import Wishart
from .transforms import *  # noqa: F401,F403

__all__ = [
    "Bernoulli",
    "Beta",
    "Binomial",
    "Categorical",
    "Cauchy",
    "Chi2",
    "ConstraintRegistry",
    "ContinuousBernoulli",
    "Dirichlet",
    "Distribution",
    "Exponential",
    "ExponentialFamily",
    "FisherSnedecor",
    "Gamma",
    "GeneralizedPareto",
    "Geometric",
    "Gumbel",
    "HalfCauchy",
    "HalfNormal",
    "Independent",
    "InverseGamma",
    "Kumaraswamy",
    "LKJCholesky",
    "Laplace",
    "LogNormal",
    "LogisticNormal",
    "LogitRelaxedBernoulli",
    "LowRankMultivariateNormal",
    "MixtureSameFamily",
    "Multinomial",
    "MultivariateNormal",
    "NegativeBinomial",
    "Normal",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough",
    "Pareto",
    "Poisson",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "StudentT",
    "TransformedDistribution",
    "Uniform",
    "VonMises",
    "Weibull",
    "Wishart",
    "biject_to",
    "constraints",
    "kl_divergence",
    "register_kl",
    "transform_to",
    "transforms",
] + transforms.__all__
