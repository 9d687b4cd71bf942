"""geqrf, linalg.householder_product (orgqr) and ormqr beyond the op table, against torch: LAPACK's
packed values, Q rebuilt from the reflectors, products with Q, second derivatives, out=, the
missing derivative of geqrf and the argument errors."""

import numpy as np
import pytest

import ember

from ..conftest import assert_close

DTYPES = ["float32", "float64", "complex64", "complex128"]
TOLERANCES = {"float32": 1e-5, "complex64": 1e-5, "float64": 1e-12, "complex128": 1e-12}


def _random(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        values = values + 1j * rng.standard_normal(shape)
    return values.astype(dtype)


def _pair(torch, array, requires_grad=False):
    return (ember.tensor(array).requires_grad_(requires_grad), torch.tensor(array).requires_grad_(requires_grad))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 3, 4, 2), (0, 3), (3, 0), (0, 2, 2)])
def test_geqrf_gives_lapacks_packed_values_as_torch(torch, shape, dtype):
    array = _random(shape, dtype)
    ours, theirs = ember.geqrf(ember.tensor(array)), torch.geqrf(torch.tensor(array))
    assert repr(type(ours)).endswith("geqrf'>") and ours._fields == ("a", "tau")
    for name in ("a", "tau"):
        mine, reference = getattr(ours, name), getattr(theirs, name)
        assert str(mine.dtype) == str(reference.dtype), name
        tolerance = TOLERANCES[dtype]
        assert_close(mine, reference.numpy(), rtol=tolerance, atol=tolerance, what=f"geqrf {name}")


def test_geqrf_repr_and_tensor_method():
    result = ember.tensor([[3.0, 1.0], [4.0, 2.0]]).geqrf()
    assert repr(result).startswith("torch.return_types.geqrf(\na=tensor(")
    # R's first row of this matrix, by hand: -||(3, 4)|| = -5 and -(3*1 + 4*2)/5 = -2.2
    assert_close(result.a[0], [-5.0, -2.2], what="R's first row")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(6, 4), (4, 4), (3, 5, 2)])
def test_householder_product_of_geqrf_rebuilds_q_of_qr(torch, shape, dtype):
    array = _random(shape, dtype, seed=1)
    a, tau = ember.geqrf(ember.tensor(array))
    q = ember.linalg.householder_product(a, tau)
    tolerance = 1e-4 if dtype in ("float32", "complex64") else 1e-10
    assert_close(q, torch.linalg.qr(torch.tensor(array)).Q.numpy(), rtol=tolerance, atol=tolerance, what="Q")
    r = a[..., : shape[-1], :].triu()
    assert_close(q @ r, array, rtol=tolerance, atol=tolerance, what="Q R")
    assert_close(ember.orgqr(a, tau), q.numpy(), rtol=0, atol=0, what="orgqr")


def test_householder_product_without_reflectors_is_the_identitys_first_columns(torch):
    a, tau = np.ones((2, 4, 3)), np.ones((2, 0))
    ours = ember.linalg.householder_product(ember.tensor(a), ember.tensor(tau))
    theirs = torch.linalg.householder_product(torch.tensor(a), torch.tensor(tau))
    assert_close(ours, theirs.numpy(), rtol=0, atol=0, what="no reflectors")


def test_entries_on_and_above_the_diagonal_are_not_read(torch):
    """R's place in geqrf's output: even a NaN or an infinity there changes nothing, as in torch."""
    a, tau = np.linalg.qr(_random((4, 3), "float64", seed=9), mode="raw")
    reflectors = a.T.copy()
    reflectors[np.triu_indices(3)] = [np.nan, np.inf, 1.0, -np.inf, np.nan, 2.0]
    other = _random((4, 2), "float64", seed=10)
    ours = ember.ormqr(ember.tensor(reflectors), ember.tensor(tau), ember.tensor(other))
    theirs = torch.ormqr(torch.tensor(reflectors), torch.tensor(tau), torch.tensor(other))
    assert_close(ours, theirs.numpy(), rtol=1e-12, atol=1e-12, what="ormqr")
    q = ember.linalg.householder_product(ember.tensor(reflectors), ember.tensor(tau))
    expected = torch.linalg.householder_product(torch.tensor(reflectors), torch.tensor(tau))
    assert_close(q, expected.numpy(), rtol=1e-12, atol=1e-12, what="householder_product")


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
def test_ormqr_is_the_product_with_the_explicit_q(torch, dtype, left, transpose):
    """op(Q) C or C op(Q) with Q formed by torch from the same reflectors: all m x m of it, as the
    product's first m columns once zero columns (not read) widen the 5 x 3 reflectors to 5 x 5."""
    a, tau = torch.geqrf(torch.tensor(_random((2, 5, 3), dtype, seed=2)))
    q = torch.linalg.householder_product(torch.cat([a, torch.zeros(2, 5, 2, dtype=a.dtype)], -1), tau)
    q = q.mH if transpose else q
    other = _random((2, 5, 4) if left else (2, 4, 5), dtype, seed=3)
    expected = q @ torch.tensor(other) if left else torch.tensor(other) @ q
    ours = ember.ormqr(ember.tensor(a.numpy()), ember.tensor(tau.numpy()), ember.tensor(other), left, transpose)
    assert_close(ours, expected.numpy(), rtol=1e-10, atol=1e-10, what="ormqr")


def _second_derivatives(module, function, inputs):
    """Gradients of sum(grad(sum(w * f))) for a fixed weight w: second derivatives along one direction."""
    result = function(*inputs)
    weight = module.tensor(np.linspace(-1.0, 1.0, result.numel()).reshape(tuple(result.shape)))
    first = module.autograd.grad((result * weight).sum().real, inputs, create_graph=True)
    total = sum((g * g.conj()).sum().real for g in first)
    return module.autograd.grad(total, inputs)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_second_derivatives_of_householder_product_match_torch(torch, dtype):
    a, tau = np.linalg.qr(_random((4, 3), dtype, seed=4), mode="raw")
    arrays = [a.T.copy(), tau]
    ours = _second_derivatives(
        ember, ember.linalg.householder_product, [ember.tensor(x).requires_grad_() for x in arrays]
    )
    theirs = _second_derivatives(
        torch, torch.linalg.householder_product, [torch.tensor(x).requires_grad_() for x in arrays]
    )
    for position, (mine, reference) in enumerate(zip(ours, theirs)):
        assert_close(mine, reference.numpy(), rtol=1e-8, atol=1e-10, what=f"second derivative of input {position}")


@pytest.mark.parametrize("left,transpose", [(True, False), (False, True)])
def test_second_derivatives_of_ormqr_match_torch(torch, left, transpose):
    a, tau = np.linalg.qr(_random((4, 4), "float64", seed=5), mode="raw")
    arrays = [a.T.copy(), tau, _random((4, 2) if left else (2, 4), "float64", seed=6)]

    def ormqr(module):
        return lambda input, tau, other: module.ormqr(input, tau, other, left=left, transpose=transpose)

    ours = _second_derivatives(ember, ormqr(ember), [ember.tensor(x).requires_grad_() for x in arrays])
    theirs = _second_derivatives(torch, ormqr(torch), [torch.tensor(x).requires_grad_() for x in arrays])
    for position, (mine, reference) in enumerate(zip(ours, theirs)):
        assert_close(mine, reference.numpy(), rtol=1e-8, atol=1e-10, what=f"second derivative of input {position}")


def test_geqrf_has_no_derivative_as_in_torch(torch):
    ours, theirs = _pair(torch, _random((4, 3), "float64"), requires_grad=True)
    mine, reference = ember.geqrf(ours), torch.geqrf(theirs)
    assert mine.a.requires_grad and mine.tau.requires_grad
    assert mine.a.grad_fn.name() == reference.a.grad_fn.name() == "GeqrfBackward0"
    with pytest.raises(NotImplementedError, match="the derivative for 'geqrf' is not implemented"):
        reference.a.sum().backward()
    with pytest.raises(NotImplementedError, match="the derivative for 'geqrf' is not implemented"):
        mine.a.sum().backward()


def test_out_writes_into_the_given_tensors(torch):
    array = _random((5, 3), "float64", seed=7)
    a, tau = ember.empty(0, dtype=ember.float64), ember.empty(0, dtype=ember.float64)
    result = ember.geqrf(ember.tensor(array), out=(a, tau))
    assert result.a is a and result.tau is tau
    reference = torch.geqrf(torch.tensor(array))
    assert_close(a, reference.a.numpy(), rtol=1e-12, atol=1e-12, what="geqrf out a")

    q = ember.empty(0, dtype=ember.float64)
    assert ember.linalg.householder_product(a, tau, out=q) is q
    assert_close(q, torch.linalg.householder_product(*reference).numpy(), rtol=1e-12, atol=1e-12, what="out Q")

    other = _random((5, 2), "float64", seed=8)
    product = ember.empty(0, dtype=ember.float64)
    assert ember.ormqr(a, tau, ember.tensor(other), out=product) is product
    expected = torch.ormqr(*reference, torch.tensor(other))
    assert_close(product, expected.numpy(), rtol=1e-12, atol=1e-12, what="ormqr out")


def _errors(module):
    """(call, phrase) pairs: each call fails in torch and must fail in ember with the same class, both
    messages containing the phrase."""
    t = module
    f32, f64, i32 = t.float32, t.float64, t.int32
    hp, ormqr = t.linalg.householder_product, t.ormqr
    return [
        (lambda: t.geqrf(t.ones(3)), "must have at least 2 dimensions"),
        (lambda: t.geqrf(t.ones(3, 2, dtype=i32)), "\"geqrf_cpu\" not implemented for 'Int'"),
        (lambda: hp(t.ones(5), t.ones(1)), "input must have at least 2 dimensions"),
        (lambda: hp(t.ones(3, 5), t.ones(2)), r"input.shape\[-2\] must be greater than or equal to input.shape\[-1\]"),
        (lambda: hp(t.ones(5, 3), t.ones(4)), r"input.shape\[-1\] must be greater than or equal to tau.shape\[-1\]"),
        (lambda: hp(t.ones(2, 5, 3), t.ones(2)), "Expected tau to have one dimension less than input"),
        (lambda: hp(t.ones(2, 5, 3), t.ones(3, 2)), "Expected batch dimensions of tau to be equal to input"),
        (
            lambda: hp(t.ones(5, 3, dtype=f32), t.ones(2, dtype=f64)),
            "tau dtype Double does not match input dtype Float",
        ),
        (lambda: hp(t.ones(5, 3, dtype=i32), t.ones(2, dtype=i32)), "\"orgqr_cpu\" not implemented for 'Int'"),
        (lambda: hp(t.ones(5, 3), 1), "must be Tensor, not int"),
        (lambda: hp(t.ones(5, 3), t.tensor(1.0)), "Dimension specified as -1 but tensor has no dimensions"),
        (lambda: ormqr(t.ones(5, 3), t.tensor(1.0), t.ones(5, 2)), "Dimension specified as -1 but tensor has no dim"),
        (lambda: ormqr(t.ones(5), t.ones(1), t.ones(5, 2)), "input must have at least 2 dimensions"),
        (lambda: ormqr(t.ones(5, 3), t.ones(3), t.ones(5)), "other must have at least 2 dimensions"),
        (lambda: ormqr(t.ones(5, 3), t.ones(3), t.ones(4, 2)), r"other.shape\[-2\] must be equal to input.shape\[-2\]"),
        (
            lambda: ormqr(t.ones(5, 3), t.ones(3), t.ones(5, 2), left=False),
            r"other.shape\[-1\] must be equal to input.shape\[-2\]",
        ),
        (
            lambda: ormqr(t.ones(5, 3), t.ones(2), t.ones(5, 2)),
            r"tau.shape\[-1\] must be equal to min\(other.shape\[-2\], input.shape\[-1\]\)",
        ),
        (
            lambda: ormqr(t.ones(5, 3), t.ones(2), t.ones(2, 5), left=False),
            r"tau.shape\[-1\] must be equal to min\(other.shape\[-1\], input.shape\[-1\]\)",
        ),
        (lambda: ormqr(t.ones(2, 5, 3), t.ones(3), t.ones(2, 5, 2)), "Expected tau to have one dimension less"),
        (lambda: ormqr(t.ones(2, 5, 3), t.ones(2, 3), t.ones(5, 2)), "Expected other to have the same number of dim"),
        (lambda: ormqr(t.ones(2, 5, 3), t.ones(3, 3), t.ones(3, 5, 2)), "Expected batch dimensions of tau"),
        (lambda: ormqr(t.ones(2, 5, 3), t.ones(2, 3), t.ones(3, 5, 2)), "Expected batch dimensions of other"),
        (
            lambda: ormqr(t.ones(5, 3, dtype=f32), t.ones(3, dtype=f64), t.ones(5, 2, dtype=f32)),
            "Expected input and tau to have the same dtype",
        ),
        (
            lambda: ormqr(t.ones(5, 3, dtype=f32), t.ones(3, dtype=f32), t.ones(5, 2, dtype=f64)),
            "Expected input and other to have the same dtype",
        ),
        (
            lambda: ormqr(t.ones(5, 3), t.ones(3), t.ones(5, 2), out=t.empty(0, dtype=f64)),
            "Expected input and result to have the same dtype",
        ),
        (
            lambda: ormqr(t.ones(5, 3, dtype=i32), t.ones(3, dtype=i32), t.ones(5, 2, dtype=i32)),
            "\"ormqr_cpu\" not implemented for 'Int'",
        ),
        (
            lambda: hp(t.ones(5, 3, requires_grad=True), t.ones(3), out=t.empty(0)),
            r"linalg_householder_product\(\): functions with out=... arguments don't support automatic diff",
        ),
        (
            lambda: ormqr(t.ones(5, 3), t.ones(3, requires_grad=True), t.ones(5, 2), out=t.empty(0)),
            r"ormqr\(\): functions with out=... arguments don't support automatic differentiation",
        ),
        (
            lambda: t.geqrf(t.ones(5, 3, requires_grad=True), out=(t.empty(0), t.empty(0))),
            r"geqrf\(\): functions with out=... arguments don't support automatic differentiation",
        ),
    ]


@pytest.mark.parametrize("index", range(len(_errors(ember))))
def test_errors_match_torchs_class_and_message(torch, index):
    torch_call, phrase = _errors(torch)[index]
    ember_call, _ = _errors(ember)[index]
    with pytest.raises(Exception, match=phrase) as theirs:
        torch_call()
    with pytest.raises(type(theirs.value), match=phrase) as ours:
        ember_call()
    assert type(ours.value).__name__ == type(theirs.value).__name__
