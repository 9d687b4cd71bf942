"""LU, triangular and Cholesky solvers and matrix_exp beyond the op table: pivots and info as
torch's, singular matrices, the deprecated spellings' warnings, the removed solvers' errors,
result types and Tensor methods."""

import warnings

import numpy as np
import pytest

import ember
from ember.ops import factorizations

from ..conftest import assert_close


@pytest.mark.parametrize(
    "matrix",
    [
        np.array([[1.0, 2.0], [2.0, 4.0]]),  # singular: info names the zero pivot
        np.array([[0.0, 1.0, 2.0], [0.0, 3.0, 4.0], [0.0, 5.0, 6.0]]),  # zero first column
        np.array([[2.0, 1.0], [2.0, 3.0]]),  # a tie for the pivot: the first row wins, as LAPACK
        np.random.default_rng(0).standard_normal((2, 3, 5)),
        np.random.default_rng(1).standard_normal((4, 2)),
    ],
)
def test_lu_factor_ex_matches_torch_including_singular(torch, matrix):
    ours = ember.linalg.lu_factor_ex(ember.tensor(matrix))
    theirs = torch.linalg.lu_factor_ex(torch.tensor(matrix))
    assert_close(ours.LU, theirs.LU.numpy(), rtol=1e-12, atol=1e-12, what="LU")
    assert ours.pivots.dtype is ember.int32 and ours.pivots.tolist() == theirs.pivots.tolist()
    assert ours.info.tolist() == theirs.info.tolist()
    P, L, U = ember.lu_unpack(ours.LU, ours.pivots)
    assert_close(P @ L @ U, matrix, rtol=1e-12, atol=1e-12, what="P L U")


def test_singular_lu_factor_raises_and_deprecated_lu_does_not(torch, monkeypatch):
    singular = ember.tensor([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(RuntimeError, match="U\\[2,2\\] is zero"):
        ember.linalg.lu_factor(singular)
    monkeypatch.setattr(factorizations._DeprecationNotices, "given", set())
    with pytest.warns(UserWarning, match="torch.lu is deprecated"):
        packed, pivots, info = ember.lu(singular, get_infos=True)
    assert info.item() == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(singular.lu()) == 2  # warned once per process, as PyTorch
    with pytest.raises(RuntimeError, match="without pivoting"):
        ember.linalg.lu_factor(singular, pivot=False)


def test_result_types_and_unpack_flags(torch):
    a = np.random.default_rng(2).standard_normal((3, 4))
    ours = ember.lu_unpack(*ember.linalg.lu_factor(ember.tensor(a)), unpack_data=False)
    theirs = torch.lu_unpack(*torch.linalg.lu_factor(torch.tensor(a)), unpack_data=False)
    assert type(ours).__name__ == "lu_unpack" and ours.L.numel() == 0 and ours.U.numel() == 0
    assert_close(ours.P, theirs.P.numpy())
    assert repr(ember.linalg.lu_factor(ember.eye(2))).startswith("torch.return_types.linalg_lu_factor(")
    assert ember.linalg.lu(ember.eye(2))._fields == ("P", "L", "U")


def test_tensor_methods_and_deprecation_notices(monkeypatch):
    monkeypatch.setattr(factorizations._DeprecationNotices, "given", set())
    a = ember.tensor([[4.0, 1.0], [2.0, 3.0]])
    b = ember.tensor([[1.0], [2.0]])
    with pytest.warns(UserWarning, match="torch.lu_solve is deprecated"):
        x = b.lu_solve(*ember.linalg.lu_factor(a))
    assert_close(a @ x, b.numpy(), rtol=1e-6, atol=1e-6)
    with pytest.warns(UserWarning, match="triangular_solve is deprecated"):
        solution, coefficient = b.triangular_solve(a)
    assert_close(a.triu() @ solution, b.numpy(), rtol=1e-6, atol=1e-6)
    assert coefficient is not a and coefficient.tolist() == a.tolist()
    factor = ember.linalg.cholesky(a @ a.mT)
    assert_close(b.cholesky_solve(factor), ember.linalg.solve(a @ a.mT, b), rtol=1e-5, atol=1e-6)
    assert_close(factor.cholesky_inverse(), ember.linalg.inv(a @ a.mT), rtol=1e-5, atol=1e-6)
    assert_close(a.matrix_exp(), ember.linalg.matrix_exp(a), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["solve", "lstsq", "matrix_rank", "eig", "symeig"])
def test_removed_solvers_raise_as_torch(torch, name):
    a = np.eye(3)
    arguments = {"solve": 2, "lstsq": 2}.get(name, 1)
    with pytest.raises(RuntimeError) as theirs:
        getattr(torch, name)(*[torch.tensor(a)] * arguments)
    with pytest.raises(RuntimeError) as ours:
        getattr(ember, name)(*[ember.tensor(a)] * arguments)
    assert str(ours.value).split("\n")[0] == str(theirs.value).split("\n")[0]


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.matrix_exp(m.ones(2, 2, dtype=m.int64)),
        lambda m: m.matrix_exp(m.ones(2, 3)),
        lambda m: m.cholesky_solve(m.ones(3, 2), m.eye(2)),
        lambda m: m.linalg.solve_triangular(m.eye(2), m.ones(2), upper=True),
        lambda m: m.linalg.lu_solve(*m.linalg.lu_factor(m.eye(3)), m.ones(2, 1)),
    ],
)
def test_bad_arguments_raise_as_torch(torch, call):
    with pytest.raises(RuntimeError) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)):
        call(ember)


def test_matrix_exp_of_large_and_float32_matrices(torch):
    a = np.random.default_rng(3).standard_normal((2, 5, 5)) * 4
    assert_close(ember.matrix_exp(ember.tensor(a)), torch.matrix_exp(torch.tensor(a)).numpy(), rtol=1e-10, atol=1e-8)
    single = ember.matrix_exp(ember.tensor(a[0].astype(np.float32)))
    assert single.dtype is ember.float32
    assert_close(single, torch.matrix_exp(torch.tensor(a[0].astype(np.float32))).numpy(), rtol=1e-4, atol=1e-3)


def test_rectangular_lu_gradient_is_refused_clearly():
    a = ember.randn(3, 4, dtype=ember.float64, requires_grad=True)
    with pytest.raises(NotImplementedError, match="square matrices only"):
        ember.linalg.lu_factor(a).LU.sum().backward()


def _rank_three(rows, columns):
    rng = np.random.default_rng(4)
    return rng.standard_normal((rows, 3)) @ rng.standard_normal((3, columns))


@pytest.mark.parametrize("shape", [(12, 7), (5, 9)])
def test_svd_lowrank_recovers_a_low_rank_matrix_as_torch(torch, shape):
    a = _rank_three(*shape)
    ours_input = ember.tensor(a, requires_grad=True)
    U, S, V = ember.svd_lowrank(ours_input, q=4)
    theirs_input = torch.tensor(a, requires_grad=True)
    tU, tS, tV = torch.svd_lowrank(theirs_input, q=4)
    assert [list(t.shape) for t in (U, S, V)] == [list(t.shape) for t in (tU, tS, tV)]
    assert_close(S[:3], tS[:3].detach().numpy(), rtol=1e-10, atol=1e-10, what="singular values")
    assert_close((U * S) @ V.mT, a, rtol=1e-10, atol=1e-10, what="reconstruction")
    S[:3].sum().backward()  # the gradient of the top singular values, U V^T, does not depend on the draw
    tS[:3].sum().backward()
    assert_close(ours_input.grad, theirs_input.grad.numpy(), rtol=1e-8, atol=1e-8, what="gradient")


def test_pca_lowrank_centres_and_checks_arguments(torch):
    a = _rank_three(10, 6) + 5.0
    ours, theirs = ember.pca_lowrank(ember.tensor(a)), torch.pca_lowrank(torch.tensor(a))
    assert_close(ours[1], theirs[1].numpy(), rtol=1e-8, atol=1e-8, what="singular values of the centred matrix")
    for bad in (dict(q=7), dict(niter=-1)):
        with pytest.raises(ValueError):
            torch.pca_lowrank(torch.tensor(a), **bad)
        with pytest.raises(ValueError):
            ember.pca_lowrank(ember.tensor(a), **bad)
