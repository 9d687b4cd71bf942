"""`kl_divergence(p, q)`: KL(p || q) = E_p[log p(x) - log q(x)], one number per batch element,
from a registry of closed forms keyed by the pair of distribution classes.

`register_kl(TypeP, TypeQ)` adds a rule; `kl_divergence` picks the most specific registered pair
for the classes of p and q (through their base classes) and raises NotImplementedError when none
fits. Two exponential families of one kind fall back on the Bregman divergence of their log
normalizer, computed by autograd.
"""

import math

from .. import ops as _ops
from ..autograd import grad
from ..linalg import solve
from ..nn.functional import softplus
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .laplace import Laplace
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import sum_rightmost
from .._warn import warn as _warn

__all__ = ["register_kl", "kl_divergence"]

_KL_REGISTRY = {}  # (type_p, type_q) -> function(p, q)
_KL_MEMOIZE = {}  # (type(p), type(q)) -> the function chosen for them
_EULER_GAMMA = 0.57721566490153286060
_HALF_LOG_TWO_PI = 0.5 * math.log(2 * math.pi)


def register_kl(type_p, type_q):
    """Decorator registering `function(p, q)` as KL(p || q) for p of class `type_p` and q of class
    `type_q` (subclasses included, unless a more specific pair is registered)::

        @register_kl(Normal, Normal)
        def kl_normal_normal(p, q):
            ...
    """
    for name, value in (("type_p", type_p), ("type_q", type_q)):
        if not (isinstance(value, type) and issubclass(value, Distribution)):
            raise TypeError(f"Expected {name} to be a Distribution subclass but got {value}")

    def decorator(function):
        _KL_REGISTRY[type_p, type_q] = function
        _KL_MEMOIZE.clear()
        return function

    return decorator


def _dispatch_kl(type_p, type_q):
    """The rule of the most specific registered pair, comparing p's class first (and, to detect
    ambiguity, q's class first)."""
    matches = [
        (super_p, super_q)
        for super_p, super_q in _KL_REGISTRY
        if issubclass(type_p, super_p) and issubclass(type_q, super_q)
    ]
    if not matches:
        return NotImplemented
    mro_p, mro_q = type_p.__mro__, type_q.__mro__
    left = min(matches, key=lambda pair: (mro_p.index(pair[0]), mro_q.index(pair[1])))
    right = min(matches, key=lambda pair: (mro_q.index(pair[1]), mro_p.index(pair[0])))
    if _KL_REGISTRY[left] is not _KL_REGISTRY[right]:
        _warn(
            f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). Please "
            f"register_kl({left[0].__name__}, {right[1].__name__})",
            RuntimeWarning,
        )
    return _KL_REGISTRY[left]


def kl_divergence(p, q):
    """KL(p || q) per batch element (the batch shapes of p and q broadcast).

    Raises NotImplementedError when no rule is registered for the classes of p and q.
    """
    key = type(p), type(q)
    try:
        function = _KL_MEMOIZE[key]
    except KeyError:
        function = _KL_MEMOIZE[key] = _dispatch_kl(*key)
    if function is NotImplemented:
        raise NotImplementedError(
            f"No KL(p || q) is implemented for p type {type(p).__name__} and q type {type(q).__name__}"
        )
    return function(p, q)


def _infinite_like(tensor):
    return _ops.full_like(tensor, float("inf"))


def _where_infinite(condition, result):
    return _ops.where(condition, float("inf"), result)


# ---------------------------------------------------------------- pairs of one family
@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    # p log(p / q) + (1 - p) log((1 - p) / (1 - q)), written with logits; infinite where q puts no mass
    heads = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    heads = _ops.where(p.probs == 0, 0.0, _where_infinite(q.probs == 0, heads))
    tails = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    tails = _ops.where(p.probs == 1, 0.0, _where_infinite(q.probs == 1, tails))
    return heads + tails


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    total_p = p.concentration1 + p.concentration0
    total_q = q.concentration1 + q.concentration0
    log_beta_q = q.concentration1.lgamma() + q.concentration0.lgamma() - total_q.lgamma()
    log_beta_p = p.concentration1.lgamma() + p.concentration0.lgamma() - total_p.lgamma()
    return (
        log_beta_q
        - log_beta_p
        + (p.concentration1 - q.concentration1) * p.concentration1.digamma()
        + (p.concentration0 - q.concentration0) * p.concentration0.digamma()
        + (total_q - total_p) * total_p.digamma()
    )


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    return _where_infinite(p.total_count > q.total_count, kl)


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    terms = p.probs * (p.logits - q.logits)
    terms = _where_infinite(q.probs == 0, terms)
    terms = _ops.where(p.probs == 0, 0.0, terms)
    return terms.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    numerator = (p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)
    return (numerator / (4 * p.scale * q.scale)).log()


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    total_p = p.concentration.sum(-1)
    total_q = q.concentration.sum(-1)
    log_normalizers = (
        total_p.lgamma() - total_q.lgamma() - (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    )
    expected_log = p.concentration.digamma() - total_p.digamma().unsqueeze(-1)
    return log_normalizers + ((p.concentration - q.concentration) * expected_log).sum(-1)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    return rate_ratio - 1 - rate_ratio.log()


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """The Bregman divergence of the log normalizer A: A(theta_q) - A(theta_p) -
    <theta_q - theta_p, grad A(theta_p)>."""
    if type(p) is not type(q):
        raise NotImplementedError(
            "The cross KL-divergence between different exponential families cannot be "
            "computed using Bregman divergences"
        )
    natural_p = [param.detach().requires_grad_() for param in p._natural_params]
    natural_q = q._natural_params
    log_normalizer_p = p._log_normalizer(*natural_p)
    gradients = grad(log_normalizer_p.sum(), natural_p, create_graph=True)
    result = q._log_normalizer(*natural_q) - log_normalizer_p
    for param_p, param_q, gradient in zip(natural_p, natural_q, gradients):
        result = result - sum_rightmost((param_q - param_p) * gradient, len(q.event_shape))
    return result


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    return (
        q.concentration * (p.rate / q.rate).log()
        + q.concentration.lgamma()
        - p.concentration.lgamma()
        + (p.concentration - q.concentration) * p.concentration.digamma()
        + (q.rate - p.rate) * (p.concentration / p.rate)
    )


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    variance_ratio = (p.scale / q.scale).pow(2)
    return 0.5 * (variance_ratio - 1 - variance_ratio.log())


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError(
            "KL between Independent distributions with different reinterpreted_batch_ndims is not implemented"
        )
    return sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    distance = (p.loc - q.loc).abs()
    return -scale_ratio.log() + distance / q.scale + scale_ratio * (-distance / p.scale).exp() - 1


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two Multivariate Normals with different event shapes cannot be computed"
        )
    half_log_det_ratio = q._half_log_det() - p._half_log_det()
    # trace(Sigma_q^-1 Sigma_p) = |L_q^-1 L_p|_F^2
    scale_p, scale_q = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    shape = _ops.broadcast_shapes(scale_p.shape, scale_q.shape)
    whitened = solve(scale_q.expand(shape).tril(), scale_p.expand(shape))
    trace = whitened.pow(2).sum((-2, -1))
    mahalanobis = _batch_mahalanobis(scale_q, q.loc - p.loc)
    return half_log_det_ratio + 0.5 * (trace + mahalanobis - p.event_shape[0])


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    variance_ratio = (p.scale / q.scale).pow(2)
    squared_distance = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (variance_ratio + squared_distance - 1 - variance_ratio.log())


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if p.transforms != q.transforms:
        raise NotImplementedError("KL between TransformedDistributions with different transforms is not implemented")
    if p.event_shape != q.event_shape:
        raise NotImplementedError("KL between TransformedDistributions with different event shapes is not implemented")
    # the same bijection leaves KL unchanged; sum over event dims the transforms added
    extra_event_dims = len(p.event_shape) - len(p.base_dist.event_shape)
    return sum_rightmost(kl_divergence(p.base_dist, q.base_dist), extra_event_dims)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return _where_infinite((q.low > p.low) | (q.high < p.high), result)


# ---------------------------------------------------------------- pairs of different families
# KL(p || q) = -H(p) - E_p[log q(x)]; each rule below states E_p[log q] through p's moments.


def _normal_cross_entropy(mean, variance, q):
    """-E[log q(x)] for a Normal q and any p with this mean and variance."""
    return _HALF_LOG_TWO_PI + q.scale.log() + (variance + (mean - q.loc).pow(2)) / (2 * q.scale.pow(2))


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    return -p.entropy() - p.probs * q.rate.log() + q.rate


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    expected_log = p.concentration1.digamma() - (p.concentration1 + p.concentration0).digamma()
    return (
        -p.entropy()
        - q.concentration * q.rate.log()
        + q.concentration.lgamma()
        - (q.concentration - 1) * expected_log
        + q.rate * p.mean
    )


@register_kl(Beta, Normal)
def _kl_beta_normal(p, q):
    return -p.entropy() + _normal_cross_entropy(p.mean, p.variance, q)


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    return _where_infinite((q.low > 0) | (q.high < 1), result)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    expected_log = -p.rate.log() - _EULER_GAMMA
    return (
        -p.entropy()
        - q.concentration * q.rate.log()
        + q.concentration.lgamma()
        - (q.concentration - 1) * expected_log
        + q.rate / p.rate
    )


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    return -p.entropy() + _normal_cross_entropy(p.mean, p.variance, q)


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    return -p.entropy() + _normal_cross_entropy(p.mean, p.variance, q)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    return -p.entropy() + _normal_cross_entropy(p.loc, p.variance, q)


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    # E|x - m| for x ~ Normal(mu, s), d = mu - m: s sqrt(2 / pi) exp(-d^2 / (2 s^2)) + d erf(d / (s sqrt 2))
    distance = p.loc - q.loc
    expected_distance = p.scale * math.sqrt(2 / math.pi) * (
        -distance.pow(2) / (2 * p.scale.pow(2))
    ).exp() + distance * _ops.erf(distance / (p.scale * math.sqrt(2)))
    return -p.entropy() + (2 * q.scale).log() + expected_distance / q.scale


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    width = p.high - p.low
    # E[log x] and E[log(1 - x)] for x uniform on [low, high]
    expected_log = (_ops.xlogy(p.high, p.high) - _ops.xlogy(p.low, p.low)) / width - 1
    one_minus_low, one_minus_high = 1 - p.low, 1 - p.high
    expected_log_complement = (
        _ops.xlogy(one_minus_low, one_minus_low) - _ops.xlogy(one_minus_high, one_minus_high)
    ) / width - 1
    log_beta = q.concentration1.lgamma() + q.concentration0.lgamma() - (q.concentration1 + q.concentration0).lgamma()
    result = (
        -width.log()
        + log_beta
        - (q.concentration1 - 1) * expected_log
        - (q.concentration0 - 1) * expected_log_complement
    )
    return _where_infinite((p.high > 1) | (p.low < 0), result)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return _where_infinite(p.low < 0, result)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    width = p.high - p.low
    expected_log = (_ops.xlogy(p.high, p.high) - _ops.xlogy(p.low, p.low)) / width - 1
    result = (
        -width.log()
        - q.concentration * q.rate.log()
        + q.concentration.lgamma()
        - (q.concentration - 1) * expected_log
        + q.rate * (p.high + p.low) / 2
    )
    return _where_infinite(p.low < 0, result)


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    return -p.entropy() + _normal_cross_entropy(p.mean, p.variance, q)


# ---------------------------------------------------------------- Gumbel, Pareto, low-rank normals
def _gumbel_cross_entropy(mean, expected_exp, q):
    """-E[log q(x)] for a Gumbel q, from p's mean and E_p[exp(-x / q.scale)]."""
    return q.scale.log() + (mean - q.loc) / q.scale + (q.loc / q.scale).exp() * expected_exp


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    # x = loc + scale G with G standard Gumbel: E[exp(-t G)] = Gamma(1 + t)
    ratio = p.scale / q.scale
    expected_exp = (-p.loc / q.scale + (1 + ratio).lgamma()).exp()
    return -p.entropy() + _gumbel_cross_entropy(p.mean, expected_exp, q)


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    expected_exp = p.rate / (p.rate + q.scale.reciprocal())
    return -p.entropy() + _gumbel_cross_entropy(p.mean, expected_exp, q)


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    expected_exp = (1 + (q.scale * p.rate).reciprocal()).pow(-p.concentration)
    return -p.entropy() + _gumbel_cross_entropy(p.mean, expected_exp, q)


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    expected_exp = (-p.loc / q.scale + p.scale.pow(2) / (2 * q.scale.pow(2))).exp()
    return -p.entropy() + _gumbel_cross_entropy(p.loc, expected_exp, q)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    expected_exp = q.scale * ((-p.low / q.scale).exp() - (-p.high / q.scale).exp()) / (p.high - p.low)
    return -p.entropy() + _gumbel_cross_entropy(p.mean, expected_exp, q)


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p, q):
    return -p.entropy() + _normal_cross_entropy(p.mean, p.variance, q)


def _pareto_expected_log(p):
    """E[log x] for x ~ Pareto(scale, alpha): log(scale) + 1 / alpha."""
    return p.scale.log() + p.alpha.reciprocal()


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    result = (p.alpha / q.alpha).log() + q.alpha * (p.scale / q.scale).log() + q.alpha / p.alpha - 1
    return _where_infinite(p.scale < q.scale, result)


def _pareto_moments(p, finite_from):
    """(mean, variance, moments infinite) of a Pareto p, where the moments used are infinite for
    alpha <= finite_from; computed with a safe alpha there, so that gradients stay 0, not NaN."""
    infinite = p.alpha <= finite_from
    alpha = _ops.where(infinite, finite_from + 1.0, p.alpha)
    mean = alpha * p.scale / (alpha - 1)
    variance = p.scale.pow(2) * alpha / ((alpha - 1).pow(2) * (alpha - 2))
    return mean, variance, infinite


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    mean, _, infinite = _pareto_moments(p, 1)
    return _where_infinite(infinite, -p.entropy() - q.rate.log() + q.rate * mean)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    mean, _, infinite = _pareto_moments(p, 1)
    result = (
        -p.entropy()
        - q.concentration * q.rate.log()
        + q.concentration.lgamma()
        - (q.concentration - 1) * _pareto_expected_log(p)
        + q.rate * mean
    )
    return _where_infinite(infinite, result)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    mean, variance, infinite = _pareto_moments(p, 2)
    return _where_infinite(infinite, -p.entropy() + _normal_cross_entropy(mean, variance, q))


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    width = p.high - p.low
    expected_log = (_ops.xlogy(p.high, p.high) - _ops.xlogy(p.low, p.low)) / width - 1
    result = -width.log() - q.alpha.log() - q.alpha * q.scale.log() + (q.alpha + 1) * expected_log
    return _where_infinite(p.low < q.scale, result)


def _as_full_normal(distribution):
    """A LowRankMultivariateNormal as the MultivariateNormal with its covariance."""
    if isinstance(distribution, LowRankMultivariateNormal):
        return MultivariateNormal(distribution.loc, covariance_matrix=distribution.covariance_matrix)
    return distribution


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
@register_kl(LowRankMultivariateNormal, MultivariateNormal)
@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_normals(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two (Low Rank) Multivariate Normals with different event shapes cannot be computed"
        )
    return _kl_multivariatenormal_multivariatenormal(_as_full_normal(p), _as_full_normal(q))


# ---------------------------------------------------------------- ContinuousBernoulli
# log q(x) of a ContinuousBernoulli is x logit + log(1 - p) + log C(p): linear in x, so E_p[log q]
# needs only p's mean.
def _expected_continuous_bernoulli_log_density(mean, q):
    return mean * q.logits + (-q.probs).log1p() + q._cont_bern_log_norm()


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    return -p.entropy() - _expected_continuous_bernoulli_log_density(p.mean, q)


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return -p.entropy() - _expected_continuous_bernoulli_log_density(p.mean, q)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    result = -p.entropy() - _expected_continuous_bernoulli_log_density(p.mean, q)
    return _where_infinite((p.low < 0) | (p.high > 1), result)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p, q):
    second_moment_about_q = p.variance + (p.mean - q.loc).pow(2)
    return -p.entropy() + _HALF_LOG_TWO_PI + q.scale.log() + second_moment_about_q / (2 * q.scale.pow(2))


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    return _where_infinite((q.low > 0) | (q.high < 1), result)


# ---------------------------------------------------------------- support of p outside that of q
def _infinite_kl(parameter_name):
    def kl(p, q):
        return _infinite_like(getattr(p, parameter_name))

    return kl


for _type_p, _parameter, _types_q in (
    (Beta, "concentration1", (Pareto,)),
    (ContinuousBernoulli, "probs", (Pareto,)),
    (Exponential, "rate", (Beta, ContinuousBernoulli, Uniform, Pareto)),
    (Gamma, "concentration", (Beta, ContinuousBernoulli, Uniform, Pareto)),
    (Gumbel, "loc", (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform)),
    (Laplace, "loc", (Beta, ContinuousBernoulli, Exponential, Gamma, Uniform, Pareto)),
    (Normal, "loc", (Beta, ContinuousBernoulli, Exponential, Gamma, Uniform, Pareto)),
    (Pareto, "scale", (Beta, ContinuousBernoulli, Uniform)),
    (Poisson, "rate", (Bernoulli, Binomial)),
):
    for _type_q in _types_q:
        register_kl(_type_p, _type_q)(_infinite_kl(_parameter))
