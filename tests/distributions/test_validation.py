"""Constraints (repr, check, event_dim) against torch's, and validation as torch's: invalid
parameters and values outside the support raise ValueError naming them, unless validation is off;
plus reaching ember.distributions as `torch.distributions` through compat."""

import subprocess
import sys

import numpy as np
import pytest

import ember

from .cases import CASES, CASES_BY_NAME, build, values


def _constraints(C):
    return [
        C.real,
        C.positive,
        C.nonnegative,
        C.unit_interval,
        C.simplex,
        C.boolean,
        C.one_hot,
        C.integer_interval(0, 3),
        C.nonnegative_integer,
        C.positive_integer,
        C.positive_definite,
        C.positive_semidefinite,
        C.lower_cholesky,
        C.lower_triangular,
        C.corr_cholesky,
        C.square,
        C.symmetric,
        C.interval(-1.0, 2.0),
        C.half_open_interval(0.0, 1.0),
        C.greater_than(1.5),
        C.greater_than_eq(1.5),
        C.less_than(0.5),
        C.independent(C.real, 1),
        C.independent(C.positive, 2),
        C.real_vector,
        C.multinomial(4),
        C.stack([C.positive, C.real, C.unit_interval], -1),
    ]


def _values(lib):
    matrices = np.array(
        [
            [[2.0, 0.0], [0.5, 1.0]],
            [[1.0, 0.5], [0.5, 1.0]],
            [[1.0, 2.0], [2.0, 1.0]],
            [[0.0, 0.0], [0.0, 0.0]],
            [[1.0, 0.0], [0.0, 1.0]],
            [[0.6, 0.0], [0.6, 0.8]],
        ]
    )
    vectors = np.array(
        [
            [0.2, 0.3, 0.5],
            [0.0, 1.0, 0.0],
            [1.0, 1.0, 0.0],
            [-0.1, 0.6, 0.5],
            [1.0, 2.0, 1.0],
            [np.nan, 0.0, 1.0],
            [1.5, 0.0, 2.0],
        ]
    )
    return [lib.tensor(matrices), lib.tensor(vectors)]


def test_constraints_match_torch(torch):
    ours, theirs = _constraints(ember.distributions.constraints), _constraints(torch.distributions.constraints)
    for mine, reference in zip(ours, theirs):
        assert repr(mine) == repr(reference)
        assert mine.event_dim == reference.event_dim and mine.is_discrete == reference.is_discrete, repr(mine)
        for our_value, their_value in zip(_values(ember), _values(torch)):
            if our_value.dim() < mine.event_dim or (mine.event_dim == 2 and our_value.dim() != 3):
                continue
            expected = reference.check(their_value).numpy()
            actual = mine.check(our_value).numpy()
            assert np.array_equal(actual, expected), f"{mine!r}.check: {actual} vs torch's {expected}"


def test_cat_constraint_checks_each_piece_as_torch(torch):
    ours = ember.distributions.constraints.cat([ember.distributions.constraints.positive] * 2, -1, [1, 2])
    C = torch.distributions.constraints
    theirs = C.cat([C.positive] * 2, -1, [1, 2])
    assert repr(ours) == repr(theirs) and ours.event_dim == theirs.event_dim
    assert np.array_equal(ours.check(_values(ember)[1]).numpy(), theirs.check(_values(torch)[1]).numpy())


def test_dependent_constraints_cannot_be_checked():
    C = ember.distributions.constraints
    assert C.is_dependent(C.dependent) and not C.is_dependent(C.real)
    assert C.is_dependent(ember.distributions.Uniform.support)
    with pytest.raises(ValueError, match="Cannot determine validity of dependent constraint"):
        C.dependent.check(ember.zeros(2))
    with pytest.raises(NotImplementedError):
        C.dependent.event_dim


# case name -> a parameter replaced by a value outside its constraint
INVALID = {
    "Normal": ("scale", [1.0, -1.0, 2.0]),
    "Bernoulli-probs": ("probs", [0.5, 1.5, 0.2]),
    "Categorical-probs": ("probs", [[1.0, -1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]),
    "Beta": ("concentration1", [1.0, 0.0, 2.0]),
    "Gamma": ("rate", [1.0, -2.0, 1.0]),
    "Dirichlet": ("concentration", [[1.0, 1.0, -1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]),
    "Exponential": ("rate", [0.0, 1.0, 1.0]),
    "Laplace": ("scale", [np.nan, 1.0, 1.0]),
    "Uniform": ("high", [-2.0, 3.0, 2.5]),
    "MultivariateNormal-covariance": ("cov", [[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
    "MultivariateNormal-scale_tril": ("tril", [[1.0, 0.5, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
    "Poisson": ("rate", [1.0, -1.0, 1.0]),
    "Binomial-probs": ("probs", [1.2, 0.5, 0.5]),
    "Geometric": ("probs", [0.0, 0.5, 0.5]),
    "Cauchy": ("scale", [-1.0, 1.0, 1.0]),
    "StudentT": ("df", [-1.0, 1.0, 1.0]),
    "Chi2": ("df", [1.0, 0.0, 1.0]),
    "HalfNormal": ("scale", [-1.0, 1.0, 1.0]),
    "LogNormal": ("scale", [-1.0, 1.0, 1.0]),
    "RelaxedBernoulli": ("probs", [1.5, 0.5, 0.5]),
}


def _with(case, name, value):
    return case._replace(params={**case.params, name: np.array(value)})


def _error(function):
    try:
        function()
    except ValueError as error:
        return error
    return None


@pytest.mark.parametrize("name", list(INVALID))
def test_invalid_parameters_raise_value_error_as_torch(name, torch):
    case = _with(CASES_BY_NAME[name], *INVALID[name])
    theirs = _error(lambda: build(case, torch))
    ours = _error(lambda: build(case, ember))
    assert theirs is not None and ours is not None, f"{name}: ember raised {ours!r}, torch {theirs!r}"
    assert str(ours) == str(theirs)


@pytest.mark.parametrize("probs", [1.5, -0.2])
def test_continuous_bernoulli_checks_probs_before_clamping_them(probs, torch):
    with pytest.raises(ValueError):
        torch.distributions.ContinuousBernoulli(torch.tensor([probs]), validate_args=True)
    with pytest.raises(ValueError, match="probs must lie in \\[0, 1\\]"):
        ember.distributions.ContinuousBernoulli(ember.tensor([probs]), validate_args=True)
    # torch checks only when validate_args is given; ember also by default (clamping would hide the error)
    with pytest.raises(ValueError, match="probs"):
        ember.distributions.ContinuousBernoulli(ember.tensor([probs]))
    ember.distributions.ContinuousBernoulli(ember.tensor([probs]), validate_args=False)


@pytest.mark.parametrize("dim", [1, 0])
def test_lkj_cholesky_needs_two_dimensions_as_torch(dim, torch):
    with pytest.raises(ValueError) as theirs:
        torch.distributions.LKJCholesky(dim)
    with pytest.raises(ValueError) as ours:
        ember.distributions.LKJCholesky(dim)
    assert str(ours.value) == str(theirs.value)


def test_lkj_cholesky_reports_its_own_invalid_concentration(torch):
    # torch raises too, but about the Beta it builds inside
    with pytest.raises(ValueError):
        torch.distributions.LKJCholesky(3, torch.tensor([0.5, 0.0]))
    with pytest.raises(ValueError, match=r"parameter concentration .* of distribution LKJCholesky"):
        ember.distributions.LKJCholesky(3, ember.tensor([0.5, 0.0]))


def test_parameter_error_message_names_parameter_constraint_and_values():
    with pytest.raises(ValueError) as error:
        ember.distributions.Normal(ember.zeros(2), ember.tensor([1.0, -1.0]))
    assert str(error.value) == (
        "Expected parameter scale (Tensor of shape (2,)) of distribution Normal(loc: "
        "torch.Size([2]), scale: torch.Size([2])) to satisfy the constraint "
        "GreaterThan(lower_bound=0.0), but found invalid values:\ntensor([ 1., -1.])"
    )


def _outside(case, lib):
    """A value outside the support of `case` (of the right shape), or None where every real is in it."""
    value = values(case, lib)
    reference = build(case, ember)[0]
    support = reference.support
    reals = ("Real()", "IndependentConstraint(Real(), 1)")
    if repr(support) in reals + tuple(f"MixtureSameFamilyConstraint({real})" for real in reals):
        return None
    if value.dtype == lib.int64:
        return value * 0 - 1
    if repr(support) == "PositiveDefinite()":
        return value * 0 - 1
    return value * 0 - 0.5 if support.event_dim == 0 else value * 0 + 2


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_values_outside_the_support_raise_value_error_as_torch(case, torch):
    their_value, our_value = _outside(case, torch), _outside(case, ember)
    if their_value is None:
        pytest.skip(f"{case.name}: every real is in the support")
    theirs = _error(lambda: build(case, torch)[0].log_prob(their_value))
    ours = _error(lambda: build(case, ember)[0].log_prob(our_value))
    assert theirs is not None and ours is not None, f"{case.name}: ember raised {ours!r}, torch {theirs!r}"
    assert str(ours) == str(theirs)


def test_log_prob_checks_type_and_shape_as_torch(torch):
    for make_value in (lambda lib: [0.5, 0.5], lambda lib: lib.zeros(3), lambda lib: lib.zeros(4, 1, 3)):
        for lib in (ember, torch):
            distribution = lib.distributions.Normal(lib.zeros(2), lib.ones(2))
            error = _error(lambda: distribution.log_prob(make_value(lib)))
            if lib is ember:
                ours = error
            else:
                theirs = error
        assert ours is not None and str(ours) == str(theirs)
    dirichlet = ember.distributions.Dirichlet(ember.ones(3))
    with pytest.raises(ValueError, match="The right-most size of value must match event_shape"):
        dirichlet.log_prob(ember.ones(2) / 2)


def test_validation_can_be_turned_off():
    Normal = ember.distributions.Normal
    negative = ember.tensor([-1.0])
    Normal(ember.zeros(1), negative, validate_args=False).log_prob(ember.zeros(1))
    ember.distributions.Distribution.set_default_validate_args(False)
    try:
        distribution = Normal(ember.zeros(1), negative)
        assert not distribution._validate_args
    finally:
        ember.distributions.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        Normal(ember.zeros(1), negative)
    with pytest.raises(ValueError):
        ember.distributions.Distribution.set_default_validate_args("yes")
    Normal(ember.zeros(1), ember.ones(1), validate_args=False).log_prob(ember.zeros(5))  # no shape check either


def test_giving_both_or_neither_parametrization_is_a_value_error(torch):
    for make in (
        lambda D, lib: D.Bernoulli(probs=lib.tensor([0.5]), logits=lib.tensor([0.0])),
        lambda D, lib: D.Categorical(),
        lambda D, lib: D.Binomial(3),
        lambda D, lib: D.MultivariateNormal(lib.zeros(2)),
        lambda D, lib: D.MultivariateNormal(lib.zeros(2), lib.eye(2), scale_tril=lib.eye(2)),
        lambda D, lib: D.Independent(D.Normal(lib.zeros(2), lib.ones(2)), 2),
        lambda D, lib: D.Dirichlet(lib.tensor(1.0)),
        lambda D, lib: D.Categorical(lib.tensor(1.0)),
    ):
        theirs = _error(lambda: make(torch.distributions, torch))
        ours = _error(lambda: make(ember.distributions, ember))
        assert theirs is not None and ours is not None and str(ours) == str(theirs), (ours, theirs)


def test_sample_n_and_unimplemented_methods():
    distribution = ember.distributions.Normal(0.0, 1.0)
    with pytest.warns(UserWarning, match="sample_n will be deprecated"):
        assert distribution.sample_n(3).shape == (3,)
    with pytest.raises(NotImplementedError):
        ember.distributions.Poisson(1.0).entropy()
    with pytest.raises(NotImplementedError):
        ember.distributions.Poisson(1.0).rsample()


def test_reachable_as_torch_distributions_through_compat():
    script = (
        "import ember.compat; ember.compat.install()\n"
        "import torch\n"
        "from torch.distributions import Normal, kl_divergence\n"
        "import torch.distributions.constraints as C\n"
        "import ember\n"
        "assert Normal is ember.distributions.Normal and C.positive is ember.distributions.constraints.positive\n"
        "print(kl_divergence(Normal(0.0, 1.0), Normal(0.0, 1.0)).item())\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "0.0"
