"""Transforms against torch's (forward, inverse, log |det J|, their gradients, shapes, constraints,
repr), log |det J| against the Jacobian from ember's autograd, caching and inverses, and the
biject_to / transform_to registries."""

import numpy as np
import pytest

import ember

from ..conftest import assert_close

_R = np.random.default_rng(5)


def _matrix(*shape):
    return _R.standard_normal(shape)


def _positive_definite(*batch, n=3):
    a = _R.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


_LOC, _SCALE, _POSITIVE_SCALE = _R.standard_normal(3), _R.uniform(-2, 2, 3), _R.uniform(0.5, 2, 3)

# name -> (build(D, T, tensor) -> transform, input array in its domain); `tensor` makes a parameter
TRANSFORMS = {
    "Exp": (lambda D, T, t: T.ExpTransform(), _matrix(2, 3)),
    "Affine-tensors": (lambda D, T, t: T.AffineTransform(t(_LOC), t(_SCALE)), _matrix(2, 3)),
    "Affine-numbers": (lambda D, T, t: T.AffineTransform(2.0, -3.0), _matrix(2, 3)),
    "Affine-event_dim": (lambda D, T, t: T.AffineTransform(t(_LOC), t(_POSITIVE_SCALE), event_dim=1), _matrix(2, 3)),
    "Sigmoid": (lambda D, T, t: T.SigmoidTransform(), _matrix(2, 3) * 3),
    "Tanh": (lambda D, T, t: T.TanhTransform(), _matrix(2, 3)),
    "Softplus": (lambda D, T, t: T.SoftplusTransform(), _matrix(2, 3) * 3),
    "Abs": (lambda D, T, t: T.AbsTransform(), _matrix(2, 3)),
    "Power": (lambda D, T, t: T.PowerTransform(t(np.array([0.5, 2.0, -1.5]))), _R.uniform(0.2, 3.0, (2, 3))),
    "Softmax": (lambda D, T, t: T.SoftmaxTransform(), _matrix(2, 3)),
    "StickBreaking": (lambda D, T, t: T.StickBreakingTransform(), _matrix(2, 3)),
    "LowerCholesky": (lambda D, T, t: T.LowerCholeskyTransform(), _matrix(2, 3, 3)),
    "PositiveDefinite": (lambda D, T, t: T.PositiveDefiniteTransform(), _matrix(2, 3, 3)),
    "Compose": (
        lambda D, T, t: T.ComposeTransform([T.ExpTransform(), T.AffineTransform(1.0, t(np.array(2.0)))]),
        _matrix(2, 3),
    ),
    "Compose-stick-breaking": (
        lambda D, T, t: T.ComposeTransform([T.AffineTransform(0.5, 2.0), T.StickBreakingTransform()]),
        _matrix(2, 3),
    ),
    "Independent": (lambda D, T, t: T.IndependentTransform(T.SigmoidTransform(), 1), _matrix(2, 3)),
    "Reshape": (lambda D, T, t: T.ReshapeTransform((2, 3), (6,)), _matrix(4, 2, 3)),
    "CumulativeDistribution": (
        lambda D, T, t: T.CumulativeDistributionTransform(D.Normal(t(np.zeros(3)), t(np.ones(3)))),
        _matrix(2, 3),
    ),
    "Inverse-of-Exp": (lambda D, T, t: T.ExpTransform().inv, _R.uniform(0.2, 3.0, (2, 3))),
    "Identity": (lambda D, T, t: T.identity_transform, _matrix(2, 3)),
    "CorrCholesky": (lambda D, T, t: T.CorrCholeskyTransform(), _matrix(2, 6)),
    "CorrCholesky-2x2": (lambda D, T, t: T.CorrCholeskyTransform(), _matrix(3, 1)),
    "Cat": (
        lambda D, T, t: T.CatTransform([T.ExpTransform(), T.AffineTransform(1.0, t(np.array(-2.0)))], -1, [1, 2]),
        _matrix(2, 3),
    ),
    "Cat-batch-dim": (  # parts of different event_dim, cut along a batch dimension
        lambda D, T, t: T.CatTransform([T.ExpTransform(), T.IndependentTransform(T.SigmoidTransform(), 1)], 0, [1, 2]),
        _matrix(3, 4),
    ),
    "Cat-nested": (
        lambda D, T, t: T.CatTransform(
            [T.CatTransform([T.ExpTransform(), T.identity_transform], 0, [1, 1]), T.TanhTransform()], 0, [2, 2]
        ),
        _matrix(4, 3),
    ),
    "Stack": (
        lambda D, T, t: T.StackTransform([T.ExpTransform(), T.identity_transform, T.SigmoidTransform()], dim=1),
        _matrix(2, 3),
    ),
    "Stack-negative-dim": (
        lambda D, T, t: T.StackTransform([T.TanhTransform(), T.AffineTransform(t(_LOC), 2.0)], dim=-2),
        _matrix(2, 3),
    ),
}


def _make(lib, name):
    build, x = TRANSFORMS[name]
    params = []

    def tensor(array):
        params.append(lib.tensor(array, dtype=lib.float64, requires_grad=True))
        return params[-1]

    transform = build(lib.distributions, lib.distributions.transforms, tensor)
    return transform, lib.tensor(x, dtype=lib.float64, requires_grad=True), params


def _outcome(function):
    try:
        return function()
    except NotImplementedError as error:
        return error


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transform_matches_torch(name, torch):
    ours, our_x, our_params = _make(ember, name)
    theirs, their_x, their_params = _make(torch, name)
    assert repr(ours) == repr(theirs)
    assert repr(ours.domain) == repr(theirs.domain) and repr(ours.codomain) == repr(theirs.codomain)
    assert ours.bijective == theirs.bijective
    assert ours.domain.event_dim == theirs.domain.event_dim
    assert ours.codomain.event_dim == theirs.codomain.event_dim
    our_y, their_y = ours(our_x), theirs(their_x)
    assert_close(our_y.detach().numpy(), their_y.detach().numpy(), rtol=1e-7, atol=1e-10, what=f"{name} forward")
    assert_close(
        ours.inv(our_y).detach().numpy(),
        theirs.inv(their_y).detach().numpy(),
        rtol=1e-6,
        atol=1e-9,
        what=f"{name} inverse",
    )
    shape = torch.Size(their_x.shape)
    assert ours.forward_shape(ember.Size(shape)) == tuple(theirs.forward_shape(shape))
    assert ours.inverse_shape(ember.Size(their_y.shape)) == tuple(theirs.inverse_shape(torch.Size(their_y.shape)))
    our_jacobian = _outcome(lambda: ours.log_abs_det_jacobian(our_x, our_y))
    their_jacobian = _outcome(lambda: theirs.log_abs_det_jacobian(their_x, their_y))
    if isinstance(their_jacobian, NotImplementedError):
        assert isinstance(our_jacobian, NotImplementedError)
        our_total, their_total = (our_y * our_y).sum(), (their_y * their_y).sum()
    else:
        assert_close(
            our_jacobian.detach().numpy(),
            their_jacobian.detach().numpy(),
            rtol=1e-7,
            atol=1e-10,
            what=f"{name} log_abs_det_jacobian",
        )
        our_total = (our_y * our_y).sum() + (our_jacobian * our_jacobian).sum()
        their_total = (their_y * their_y).sum() + (their_jacobian * their_jacobian).sum()
    our_grads = ember.autograd.grad(our_total, [our_x] + our_params)
    their_grads = torch.autograd.grad(their_total, [their_x] + their_params)
    for index, (mine, reference) in enumerate(zip(our_grads, their_grads)):
        assert_close(mine.numpy(), reference.numpy(), rtol=1e-6, atol=1e-9, what=f"{name} gradient {index}")


@pytest.mark.parametrize(
    "name",
    [
        "Exp",
        "Affine-tensors",
        "Sigmoid",
        "Tanh",
        "Softplus",
        "Power",
        "Compose",
        "CumulativeDistribution",
        "Inverse-of-Exp",
    ],
)
def test_elementwise_log_abs_det_jacobian_is_log_of_the_derivative(name):
    transform, x, _ = _make(ember, name)
    (derivative,) = ember.autograd.grad(transform(x).sum(), [x])
    expected = np.log(np.abs(derivative.numpy()))
    assert_close(
        transform.log_abs_det_jacobian(x, transform(x)).detach().numpy(),
        expected,
        rtol=1e-7,
        atol=1e-9,
        what=f"{name} log |dy/dx|",
    )


def test_stick_breaking_log_abs_det_jacobian_is_the_log_determinant():
    """The map from K - 1 reals to the first K - 1 simplex coordinates has a square Jacobian."""
    transform = ember.distributions.StickBreakingTransform()
    x = ember.tensor(_R.standard_normal(4), dtype=ember.float64)
    jacobian = ember.autograd.functional.jacobian(lambda x: transform(x)[:-1], x).numpy()
    expected = np.linalg.slogdet(jacobian)[1]
    assert float(transform.log_abs_det_jacobian(x, transform(x))) == pytest.approx(expected, rel=1e-9)


def test_corr_cholesky_log_abs_det_jacobian_is_the_log_determinant():
    """The map from the D(D - 1)/2 reals onto the strict lower triangle of y has a square Jacobian."""
    transform = ember.distributions.CorrCholeskyTransform()
    x = ember.tensor(_R.standard_normal(6), dtype=ember.float64)
    below_diagonal = lambda x: ember.distributions.utils.tril_matrix_to_vec(transform(x), diag=-1)  # noqa: E731
    jacobian = ember.autograd.functional.jacobian(below_diagonal, x).numpy()
    expected = np.linalg.slogdet(jacobian)[1]
    assert float(transform.log_abs_det_jacobian(x, transform(x))) == pytest.approx(expected, rel=1e-9)
    y = transform(x)
    assert_close((y @ y.mT).diagonal(dim1=-2, dim2=-1).numpy(), np.ones(4), what="unit diagonal of L L^T")


@pytest.mark.parametrize("diag", [-2, -1, 0, 1])
def test_tril_matrix_vector_helpers_match_torch(diag, torch):
    matrix = _R.standard_normal((2, 4, 4))
    ours = ember.distributions.utils.tril_matrix_to_vec(ember.tensor(matrix), diag)
    theirs = torch.distributions.utils.tril_matrix_to_vec(torch.tensor(matrix), diag)
    assert_close(ours.numpy(), theirs.numpy(), what=f"tril_matrix_to_vec(diag={diag})")
    back = ember.distributions.utils.vec_to_tril_matrix(ours, diag)
    assert_close(back.numpy(), torch.distributions.utils.vec_to_tril_matrix(theirs, diag).numpy(), what="inverse")
    with pytest.raises(ValueError, match="cannot be expressed"):
        ember.distributions.utils.vec_to_tril_matrix(ember.zeros(5), diag)


def test_cat_and_stack_transforms_reject_inputs_of_the_wrong_size():
    T = ember.distributions.transforms
    with pytest.raises(ValueError, match=r"x.size\(0\) = 2 must equal 3"):
        T.CatTransform([T.ExpTransform(), T.ExpTransform()], 0, [1, 2])(ember.zeros(2))
    with pytest.raises(ValueError, match="out of range"):
        T.StackTransform([T.ExpTransform()], dim=1)(ember.zeros(1))
    with pytest.raises(TypeError, match="Transform instances"):
        T.StackTransform([T.ExpTransform(), "exp"])
    cached = T.CatTransform([T.ExpTransform(), T.SigmoidTransform()], cache_size=1)
    x = ember.zeros(2)
    assert cached.inv(cached(x)) is x


def test_cache_returns_the_input_itself_and_inverses_are_shared():
    T = ember.distributions.transforms
    transform = T.TanhTransform(cache_size=1)
    x = ember.tensor([30.0, -1.0], dtype=ember.float64)  # tanh(30) rounds to 1: atanh cannot recover 30
    assert transform.inv(transform(x)) is x
    assert transform.inv.inv is transform
    compose = T.ComposeTransform([T.ExpTransform(), T.SigmoidTransform()])
    assert compose.inv.inv is compose
    assert T.ExpTransform().with_cache(1)._cache_size == 1
    with pytest.raises(ValueError, match="cache_size"):
        T.ExpTransform(cache_size=2)


def test_transform_equality():
    T = ember.distributions.transforms
    assert T.ExpTransform() == T.ExpTransform() and T.ExpTransform() != T.SigmoidTransform()
    assert T.AffineTransform(1.0, 2.0) == T.AffineTransform(1.0, 2.0)
    assert T.AffineTransform(1.0, 2.0) != T.AffineTransform(1.0, 3.0)
    assert T.ExpTransform().inv == T.ExpTransform().inv
    assert T.ComposeTransform([T.ExpTransform()]) == T.ComposeTransform([T.ExpTransform()])


def test_signs_match_torch(torch):
    for make in (
        lambda T: T.ExpTransform(),
        lambda T: T.AffineTransform(1.0, -2.0),
        lambda T: T.SigmoidTransform(),
        lambda T: T.ComposeTransform([T.ExpTransform(), T.AffineTransform(0.0, -1.0)]),
    ):
        assert make(ember.distributions.transforms).sign == make(torch.distributions.transforms).sign


# ---------------------------------------------------------------- biject_to / transform_to
def _constraints(C):
    return [
        C.real,
        C.positive,
        C.nonnegative,
        C.greater_than(1.5),
        C.greater_than_eq(-1.0),
        C.less_than(2.0),
        C.unit_interval,
        C.interval(-1.0, 2.0),
        C.half_open_interval(0.0, 1.0),
        C.simplex,
        C.independent(C.positive, 1),
        C.real_vector,
        C.lower_cholesky,
        C.positive_definite,
        C.corr_cholesky,
        C.cat([C.positive, C.real], -1, [1, 2]),
        C.stack([C.positive, C.real, C.unit_interval], -1),
    ]


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
def test_registries_choose_torchs_transforms_and_land_in_the_constraint(registry, torch):
    our_constraints = _constraints(ember.distributions.constraints)
    their_constraints = _constraints(torch.distributions.constraints)
    for ours, theirs in zip(our_constraints, their_constraints):
        try:
            their_transform = getattr(torch.distributions, registry)(theirs)
        except NotImplementedError:
            with pytest.raises(NotImplementedError):
                getattr(ember.distributions, registry)(ours)
            continue
        our_transform = getattr(ember.distributions, registry)(ours)
        assert repr(our_transform) == repr(their_transform), f"{registry}({ours})"
        shape = (4, 3, 3) if ours.event_dim == 2 else (4, 3)
        x = ember.tensor(_R.standard_normal(shape), dtype=ember.float64)
        y = our_transform(x)
        assert bool(ours.check(y).all()), f"{registry}({ours}) left the constraint: {y}"
        if registry == "biject_to":
            assert_close(our_transform.inv(y).numpy(), x.numpy(), rtol=1e-6, atol=1e-8, what=f"{registry}({ours})")


def test_registering_a_new_constraint():
    D = ember.distributions

    class Even(D.constraints.Constraint):
        def check(self, value):
            return value % 2 == 0

    with pytest.raises(NotImplementedError, match="Cannot transform Even constraints"):
        D.transform_to(Even())

    @D.transform_to.register(Even)
    def to_even(constraint):
        return D.AffineTransform(0.0, 2.0)

    assert D.transform_to(Even()) == D.AffineTransform(0.0, 2.0)
    with pytest.raises(TypeError, match="Constraint subclass or instance"):
        D.transform_to.register(int, to_even)
