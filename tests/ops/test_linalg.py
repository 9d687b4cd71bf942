"""Linear algebra beyond the op table: node names, errors, dtypes, result types, argument forms and
edge cases, each checked against PyTorch where it is installed."""

import re
import warnings

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck

from ..conftest import assert_close


def _pair(torch, *shapes, dtype=np.float32, requires_grad=True):
    """The same random arrays as ember and torch tensors."""
    rng = np.random.default_rng(7)
    arrays = [rng.standard_normal(shape).astype(dtype) for shape in shapes]
    ours = [ember.tensor(a, requires_grad=requires_grad) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=requires_grad) for a in arrays]
    return ours, theirs


def _spd(n, batch=()):
    rng = np.random.default_rng(3)
    x = rng.standard_normal(batch + (n, n))
    return x @ np.swapaxes(x, -1, -2) + n * np.eye(n)


# ---------------------------------------------------------------- node names
NODE_NAME_CASES = {
    "2d@2d": ([(3, 4), (4, 5)], lambda m, a, b: m.matmul(a, b)),
    "1d@1d": ([(4,), (4,)], lambda m, a, b: m.matmul(a, b)),
    "2d@1d": ([(3, 4), (4,)], lambda m, a, b: m.matmul(a, b)),
    "3d@3d": ([(2, 3, 4), (2, 4, 5)], lambda m, a, b: a @ b),
    "3d@2d": ([(2, 3, 4), (4, 5)], lambda m, a, b: a @ b),
    "3d@1d": ([(2, 3, 4), (4,)], lambda m, a, b: a @ b),
    "mm": ([(3, 4), (4, 5)], lambda m, a, b: m.mm(a, b)),
    "bmm": ([(2, 3, 4), (2, 4, 5)], lambda m, a, b: m.bmm(a, b)),
    "mv": ([(3, 4), (4,)], lambda m, a, b: a.mv(b)),
    "dot": ([(4,), (4,)], lambda m, a, b: a.dot(b)),
    "outer": ([(3,), (4,)], lambda m, a, b: m.outer(a, b)),
    "addmm": ([(3, 5), (3, 4), (4, 5)], lambda m, c, a, b: m.addmm(c, a, b)),
    "addmv": ([(3,), (3, 4), (4,)], lambda m, c, a, b: m.addmv(c, a, b)),
    "addr": ([(3, 4), (3,), (4,)], lambda m, c, a, b: m.addr(c, a, b)),
    "baddbmm": ([(2, 3, 5), (2, 3, 4), (2, 4, 5)], lambda m, c, a, b: m.baddbmm(c, a, b)),
    "addbmm": ([(3, 5), (2, 3, 4), (2, 4, 5)], lambda m, c, a, b: m.addbmm(c, a, b)),
    "trace": ([(3, 3)], lambda m, a: m.trace(a)),
    "inverse": ([(3, 3)], lambda m, a: m.inverse(a)),
    "det": ([(3, 3)], lambda m, a: m.det(a)),
    "linalg.det": ([(3, 3)], lambda m, a: m.linalg.det(a)),
    "slogdet": ([(3, 3)], lambda m, a: m.linalg.slogdet(a).logabsdet),
    "solve": ([(3, 3), (3, 2)], lambda m, a, b: m.linalg.solve(a, b)),
    "svdvals": ([(4, 3)], lambda m, a: m.linalg.svdvals(a)),
    "qr": ([(4, 3)], lambda m, a: m.linalg.qr(a).R),
    "vector_norm": ([(3, 4)], lambda m, a: m.linalg.vector_norm(a)),
    "tensor.norm": ([(3, 4)], lambda m, a: a.norm(dim=1)),
    "block_diag": ([(2, 2), (3,)], lambda m, a, b: m.block_diag(a, b)),
    "logdet": ([(3, 3)], lambda m, a: m.logdet(a @ a.mT)),
}


@pytest.mark.parametrize("name", sorted(NODE_NAME_CASES))
def test_grad_fn_names_match_torch(name, torch):
    shapes, build = NODE_NAME_CASES[name]
    ours, theirs = _pair(torch, *shapes)
    mine, reference = build(ember, *ours), build(torch, *theirs)
    assert mine.grad_fn.name() == type(reference.grad_fn).__name__
    assert_close(mine, reference.detach().numpy(), rtol=1e-4, atol=1e-5, what=name)


def test_eigh_and_cholesky_node_names(torch):
    a = ember.tensor(_spd(3), requires_grad=True)
    assert ember.linalg.eigh(a).eigenvalues.grad_fn.name() == "LinalgEighBackward0"
    assert (
        ember.linalg.cholesky(a).grad_fn.name()
        == type(torch.linalg.cholesky(torch.tensor(_spd(3), requires_grad=True)).grad_fn).__name__
    )


# ---------------------------------------------------------------- errors, as PyTorch raises them
ERROR_CASES = [
    ("mm 3d", lambda m: m.mm(m.ones(2, 3, 4), m.ones(4, 5)), "self must be a matrix"),
    (
        "mm shapes",
        lambda m: m.mm(m.ones(3, 4), m.ones(3, 5)),
        "mat1 and mat2 shapes cannot be multiplied (3x4 and 3x5)",
    ),
    ("matmul shapes", lambda m: m.ones(3, 4) @ m.ones(5, 6), "mat1 and mat2 shapes cannot be multiplied (3x4 and 5x6)"),
    ("matmul 1d2d", lambda m: m.ones(3) @ m.ones(4, 5), "mat1 and mat2 shapes cannot be multiplied (1x3 and 4x5)"),
    ("matmul 2d1d", lambda m: m.ones(3, 4) @ m.ones(5), "size mismatch, got input (3), mat (3x4), vec (5)"),
    ("matmul 0d", lambda m: m.matmul(m.ones(()), m.ones(3)), "both arguments to matmul need to be at least 1D"),
    ("matmul 1d1d", lambda m: m.ones(3) @ m.ones(4), "inconsistent tensor size, expected tensor [3] and src [4]"),
    (
        "matmul batch",
        lambda m: m.ones(2, 3, 4) @ m.ones(3, 4, 5),
        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0",
    ),
    ("bmm 2d", lambda m: m.bmm(m.ones(3, 4), m.ones(4, 5)), "batch1 must be a 3D tensor"),
    (
        "bmm batch",
        lambda m: m.bmm(m.ones(2, 3, 4), m.ones(3, 4, 5)),
        "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [3, 4].",
    ),
    ("mv", lambda m: m.mv(m.ones(3, 4), m.ones(3)), "size mismatch, got input (3), mat (3x4), vec (3)"),
    ("mv dims", lambda m: m.mv(m.ones(3, 4), m.ones(4, 1)), "vector + matrix @ vector expected"),
    ("dot 2d", lambda m: m.dot(m.ones(3, 4), m.ones(4)), "1D tensors expected, but got 2D and 1D tensors"),
    ("trace 3d", lambda m: m.trace(m.ones(2, 2, 2)), "trace: expected a matrix, but got tensor with dim 3"),
    (
        "inv not square",
        lambda m: m.linalg.inv(m.ones(3, 4)),
        "A must be batches of square matrices, but they are 3 by 4",
    ),
    ("inv int", lambda m: m.linalg.inv(m.ones(3, 3, dtype=m.int64)), "Expected a floating point"),
    ("cross size", lambda m: m.linalg.cross(m.ones(4), m.ones(4)), "must have length 3. Got 4 and 4"),
    ("cdist columns", lambda m: m.cdist(m.ones(4, 3), m.ones(5, 2)), "X1 and X2 must have the same number of columns"),
    (
        "tensordot",
        lambda m: m.tensordot(m.ones(3, 4), m.ones(5, 6), dims=1),
        "contracted dimensions need to match, but first has size 4 in dim 1 and second has size 5 in dim 0",
    ),
    (
        "einsum dims",
        lambda m: m.einsum("ij->i", m.ones(2, 3, 4)),
        "einsum(): the number of subscripts in the equation (2) does not match the number of dimensions (3) for operand 0",
    ),
    (
        "einsum output",
        lambda m: m.einsum("ij->k", m.ones(2, 3)),
        "einsum(): output subscript k does not appear in the equation for any input operand",
    ),
    (
        "multi_dot one",
        lambda m: m.linalg.multi_dot([m.ones(2, 2)]),
        "multi_dot(): expected at least 2 tensors but got 1",
    ),
    (
        "vector_norm int",
        lambda m: m.linalg.vector_norm(m.ones(3, dtype=m.int64)),
        "linalg.vector_norm: Expected a floating point",
    ),
    ("matrix_norm ord", lambda m: m.linalg.matrix_norm(m.ones(3, 3), 3), "linalg.matrix_norm: Order 3 not supported."),
    (
        "norm ord 3d",
        lambda m: m.linalg.norm(m.ones(2, 2, 2), 2),
        "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got 3D.",
    ),
    ("qr mode", lambda m: m.linalg.qr(m.ones(3, 3), mode="full"), "qr received unrecognized mode 'full'"),
    ("solve shapes", lambda m: m.linalg.solve(m.eye(3), m.ones(4, 2)), "linalg.solve: Incompatible shapes of A and B"),
]


@pytest.mark.parametrize("name,build,message", ERROR_CASES, ids=[case[0] for case in ERROR_CASES])
def test_errors_match_torch(name, build, message, torch):
    with pytest.raises(Exception) as theirs:
        build(torch)
    with pytest.raises(type(theirs.value)) as ours:
        build(ember)
    assert message in str(ours.value)


@pytest.mark.parametrize(
    "build", [lambda m, a, b: m.matmul(a, b), lambda m, a, b: m.mm(a, b), lambda m, a, b: m.einsum("ij,jk->ik", a, b)]
)
def test_products_do_not_promote_mixed_dtypes(build, torch):
    for module in (torch, ember):
        with pytest.raises(RuntimeError):
            build(module, module.ones(2, 2), module.ones(2, 2, dtype=module.float64))
    with pytest.raises(RuntimeError, match="float32, torch.float64"):
        build(ember, ember.ones(2, 2), ember.ones(2, 2, dtype=ember.float64))


def test_singular_and_indefinite_raise_linalg_error(torch):
    singular = [[1.0, 2.0], [2.0, 4.0]]
    with pytest.raises(torch.linalg.LinAlgError):
        torch.linalg.inv(torch.tensor(singular))
    for call in (
        lambda: ember.linalg.inv(ember.tensor(singular)),
        lambda: ember.linalg.solve(ember.tensor(singular), ember.ones(2)),
        lambda: ember.linalg.cholesky(ember.tensor([[1.0, 2.0], [2.0, 1.0]])),
    ):
        with pytest.raises(ember.linalg.LinAlgError) as error:
            call()
        assert isinstance(error.value, RuntimeError)
    with pytest.raises(RuntimeError, match="not positive-definite"):
        ember.cholesky(ember.tensor([[1.0, 2.0], [2.0, 1.0]]))


def test_qr_mode_r_and_complete_gradients_are_refused(torch):
    a = ember.randn(4, 3, requires_grad=True)
    q, r = ember.linalg.qr(a, mode="r")
    assert q.shape == (0,) and r.shape == (3, 3)
    with pytest.raises(RuntimeError, match="mode='r'"):
        r.sum().backward()
    q, r = ember.linalg.qr(a, mode="complete")
    assert q.shape == (4, 4) and r.shape == (4, 3)
    with pytest.raises(RuntimeError, match="mode='complete' and nrows > ncols"):
        q.sum().backward()


# ---------------------------------------------------------------- dtypes
@pytest.mark.parametrize(
    "build",
    [
        lambda m, a, b: m.matmul(a, b),
        lambda m, a, b: m.einsum("ij,jk->ik", a, b),
        lambda m, a, b: m.linalg.inv(a),
        lambda m, a, b: m.det(a),
        lambda m, a, b: m.linalg.solve(a, b),
        lambda m, a, b: m.linalg.svdvals(a),
        lambda m, a, b: m.linalg.norm(a),
        lambda m, a, b: m.linalg.matrix_norm(a, "nuc"),
        lambda m, a, b: m.cdist(a, b),
        lambda m, a, b: m.kron(a, b),
        lambda m, a, b: m.linalg.pinv(a),
        lambda m, a, b: m.linalg.eigh(a @ a.mT)[0],
        lambda m, a, b: m.addmm(a, a, b, alpha=0.5),
        lambda m, a, b: m.linalg.qr(a).Q,
    ],
)
def test_float32_stays_float32_in_values_and_gradients(build, torch):
    rng = np.random.default_rng(5)
    arrays = [(rng.standard_normal((3, 3)) + 3 * np.eye(3)).astype(np.float32) for _ in range(2)]
    a, b = (ember.tensor(x, requires_grad=True) for x in arrays)
    result = build(ember, a, b)
    assert result.dtype == ember.float32
    assert str(build(torch, *(torch.tensor(x) for x in arrays)).dtype) == "torch.float32"
    result.sum().backward()
    assert a.grad.dtype == ember.float32


def test_integer_products_keep_integers(torch):
    a = [[1, 2], [3, 4]]
    assert (ember.tensor(a) @ ember.tensor(a)).dtype == ember.int64
    assert ember.tensor(a).matmul(ember.tensor(a)).tolist() == (torch.tensor(a) @ torch.tensor(a)).tolist()
    assert ember.trace(ember.tensor(a, dtype=ember.int32)).dtype.name == str(
        torch.trace(torch.tensor(a, dtype=torch.int32)).dtype
    ).replace("torch.", "")


def test_block_diag_promotes_like_torch(torch):
    ours = ember.block_diag(ember.ones(2, dtype=ember.int64), ember.ones(1, 1))
    theirs = torch.block_diag(torch.ones(2, dtype=torch.int64), torch.ones(1, 1))
    assert ours.dtype.name == str(theirs.dtype).replace("torch.", "")
    assert ours.tolist() == theirs.tolist()


# ---------------------------------------------------------------- result types and argument forms
def test_svd_flavours(torch):
    a = np.random.default_rng(1).standard_normal((4, 3))
    u, s, v = ember.svd(ember.tensor(a))
    assert (u.shape, s.shape, v.shape) == ((4, 3), (3,), (3, 3))
    assert_close(u @ ember.diag_embed(s) @ v.mT if hasattr(ember, "diag_embed") else (u * s) @ v.mT, a, what="U S V^T")
    full = ember.linalg.svd(ember.tensor(a))
    assert (full.U.shape, full.S.shape, full.Vh.shape) == ((4, 4), (3,), (3, 3))
    reduced = ember.linalg.svd(ember.tensor(a), full_matrices=False)
    assert_close((reduced.U * reduced.S) @ reduced.Vh, a, what="U S Vh")
    no_uv = ember.svd(ember.tensor(a), compute_uv=False)
    reference = torch.svd(torch.tensor(a), compute_uv=False)
    assert no_uv.U.shape == reference.U.shape and float(no_uv.U.abs().sum()) == 0
    assert_close(no_uv.S, reference.S.numpy())


def test_named_results(torch):
    a = ember.tensor(_spd(3))
    sign, logabsdet = ember.linalg.slogdet(a)
    assert ember.slogdet(a).logabsdet is not None and float(sign) == 1.0
    assert_close(logabsdet, np.linalg.slogdet(_spd(3))[1])
    assert repr(ember.linalg.slogdet(a)).startswith("torch.return_types.linalg_slogdet(")  # as torch.linalg
    assert repr(ember.slogdet(a)).startswith("torch.return_types.slogdet(")
    values, vectors = ember.linalg.eigh(a)
    assert ember.linalg.eigh(a).eigenvectors.shape == (3, 3)
    assert_close(
        vectors @ ember.diag_embed(values) @ vectors.mT
        if hasattr(ember, "diag_embed")
        else (vectors * values) @ vectors.mT,
        _spd(3),
        what="V diag(L) V^T",
    )
    q, r = ember.qr(ember.tensor(_spd(3)))
    assert ember.linalg.qr(a).Q.shape == q.shape
    result = ember.linalg.lstsq(ember.ones(5, 3) + ember.eye(5, 3), ember.ones(5, 2))
    reference = torch.linalg.lstsq(torch.ones(5, 3) + torch.eye(5, 3), torch.ones(5, 2))
    assert [len(part.shape) for part in result[1:]] == [len(part.shape) for part in reference[1:]]
    assert_close(result.solution, reference.solution.numpy(), rtol=1e-4, atol=1e-5)
    assert int(result.rank) == int(reference.rank)


def test_eigh_upper_triangle_and_gradient_vs_torch(torch):
    array = _spd(4) + np.triu(np.ones((4, 4)), 1)  # not symmetric: only the chosen triangle counts
    for uplo in ("L", "U"):
        ours = ember.tensor(array, requires_grad=True)
        theirs = torch.tensor(array, requires_grad=True)
        mine, reference = ember.linalg.eigvalsh(ours, UPLO=uplo), torch.linalg.eigvalsh(theirs, UPLO=uplo)
        assert_close(mine, reference.detach().numpy(), what=f"eigvalsh {uplo}")
        weights = np.arange(1.0, 5.0)
        (mine * ember.tensor(weights)).sum().backward()
        (reference * torch.tensor(weights)).sum().backward()
        assert_close(ours.grad, theirs.grad.numpy(), what=f"eigvalsh gradient {uplo}")


@pytest.mark.parametrize(
    "build",
    [
        lambda m, a: m.linalg.cholesky(a),
        lambda m, a: m.linalg.inv(a),
        lambda m, a: m.linalg.det(a),
        lambda m, a: m.logdet(a),
        lambda m, a: m.linalg.eigh(a)[0],
    ],
)
def test_gradients_on_raw_symmetric_input_match_torch(build, torch):
    """Without a symmetrizing wrapper: the gradient's convention for the unused triangle matches."""
    array = _spd(3)
    ours, theirs = ember.tensor(array, requires_grad=True), torch.tensor(array, requires_grad=True)
    weights = np.random.default_rng(2).standard_normal(tuple(build(torch, theirs).shape))
    (build(ember, ours) * ember.tensor(weights)).sum().backward()
    (build(torch, theirs) * torch.tensor(weights)).sum().backward()
    assert_close(ours.grad, theirs.grad.numpy(), rtol=1e-6, atol=1e-8)


def test_norm_forms_match_torch(torch):
    array = np.random.default_rng(4).standard_normal((3, 4)).astype(np.float32)
    ours, theirs = ember.tensor(array), torch.tensor(array)
    for call in (
        lambda m, x: x.norm(),
        lambda m, x: x.norm(1),
        lambda m, x: x.norm(p=3, dim=0, keepdim=True),
        lambda m, x: m.norm(x, "fro", dim=(0, 1)),
        lambda m, x: m.norm(x, "nuc"),
        lambda m, x: m.norm(x, float("inf"), 1),
        lambda m, x: m.linalg.norm(x, -2),
        lambda m, x: m.linalg.norm(x, "fro", dim=(1, 0), keepdim=True),
        lambda m, x: m.linalg.norm(x[0], 0),
        lambda m, x: m.linalg.matrix_norm(x, -float("inf")),
        lambda m, x: m.linalg.vector_norm(x, 2, dim=-1, dtype=m.float64),
    ):
        mine, reference = call(ember, ours), call(torch, theirs)
        assert mine.dtype.name == str(reference.dtype).replace("torch.", "")
        assert_close(mine, reference.numpy(), rtol=1e-5, atol=1e-6)


def test_vector_norm_order_zero_has_no_gradient_in_either_library(torch):
    ours, theirs = _pair(torch, (3, 4), dtype=np.float64)
    ember.linalg.vector_norm(ours[0], 0).backward()
    torch.linalg.vector_norm(theirs[0], 0).backward()
    assert theirs[0].grad is None or float(theirs[0].grad.abs().sum()) == 0
    assert ours[0].grad is None or float(ours[0].grad.abs().sum()) == 0


def test_norm_gradient_is_zero_at_zero(torch):
    x = ember.zeros(3, requires_grad=True)
    ember.linalg.vector_norm(x).backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    y = ember.zeros(2, 3, requires_grad=True)
    ember.cdist(y, y).sum().backward()
    assert not np.isnan(y.grad.numpy()).any()


def test_out_inplace_and_method_forms(torch):
    a, b, c = ember.ones(2, 3), ember.ones(3, 4), ember.zeros(2, 4)
    out = ember.empty(2, 4)
    assert ember.matmul(a, b, out=out) is out and out.tolist() == [[3.0] * 4] * 2
    c.addmm_(a, b, beta=2, alpha=0.5)
    reference = torch.zeros(2, 4).addmm_(torch.ones(2, 3), torch.ones(3, 4), beta=2, alpha=0.5)
    assert c.tolist() == reference.tolist()
    assert a.mm(b).shape == (2, 4) and ember.ones(3).outer(ember.ones(2)).shape == (3, 2)
    assert ember.ones(3).ger(ember.ones(2)).shape == (3, 2)
    assert ember.eye(3).inverse().tolist() == ember.eye(3).tolist()
    assert float(ember.eye(3).det()) == 1.0 and float(ember.eye(2).trace()) == 2.0
    assert ember.kron(ember.eye(2), ember.ones(2, 2)).shape == (4, 4)
    assert not hasattr(ember.ones(2), "einsum") and not hasattr(ember.ones(2), "cdist")


def test_addmm_beta_zero_ignores_nan_input(torch):
    c = ember.full((2, 2), float("nan"))
    result = ember.addmm(c, ember.eye(2), ember.eye(2), beta=0)
    assert result.tolist() == torch.addmm(torch.full((2, 2), float("nan")), torch.eye(2), torch.eye(2), beta=0).tolist()


def test_einsum_forms(torch):
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3, 4))
    for equation, operands in [
        ("ij,jk", (a, b)),
        ("i j , j k -> i k", (a, b)),
        ("ba,cb->ac", (a.T, b.T)),
        ("...j,jk->...k", (a, b)),
        ("ij->", (a,)),
        ("Ab,bC->AC", (a, b)),
    ]:
        mine = ember.einsum(equation, *[ember.tensor(x) for x in operands])
        reference = torch.einsum(equation, *[torch.tensor(x) for x in operands])
        assert_close(mine, reference.numpy(), what=equation)
    as_list = ember.einsum("ij,jk->ik", [ember.tensor(a), ember.tensor(b)])
    assert_close(as_list, a @ b)


@pytest.mark.parametrize(
    "equation,shapes",
    [
        ("ii->i", [(3, 3)]),
        ("ij,jk->ik", [(2, 3), (3, 2)]),
        ("...ii,...i->...", [(2, 3, 3), (3,)]),
        ("iij->j", [(2, 2, 3)]),
    ],
)
def test_einsum_double_backward(equation, shapes):
    rng = np.random.default_rng(9)
    tensors = [ember.tensor(rng.standard_normal(shape), requires_grad=True) for shape in shapes]
    function = lambda *ts: ember.einsum(equation, *ts) ** 2  # noqa: E731  (non-linear: second derivative != 0)
    assert gradcheck(function, tensors)
    assert gradgradcheck(function, tensors)


def test_double_backward_of_matmul_inverse_det_solve():
    rng = np.random.default_rng(10)
    a = ember.tensor(rng.standard_normal((3, 3)) + 3 * np.eye(3), requires_grad=True)
    b = ember.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    for function, inputs in [
        (lambda x, y: (x @ y) ** 2, [a, b]),
        (lambda x: ember.inverse(x), [a]),
        (lambda x: ember.det(x), [a]),
        (lambda x, y: ember.linalg.solve(x, y), [a, b]),
    ]:
        assert gradgradcheck(function, inputs)


def test_hessian_of_det_vs_torch(torch):
    array = np.random.default_rng(11).standard_normal((3, 3)) + 2 * np.eye(3)
    ours, theirs = ember.tensor(array, requires_grad=True), torch.tensor(array, requires_grad=True)
    (grad,) = ember.autograd.grad(ember.det(ours), ours, create_graph=True)
    (reference,) = torch.autograd.grad(torch.det(theirs), theirs, create_graph=True)
    (second,) = ember.autograd.grad((grad * grad).sum(), ours)
    (second_reference,) = torch.autograd.grad((reference * reference).sum(), theirs)
    assert_close(second, second_reference.numpy(), rtol=1e-6, atol=1e-8)


def test_matrix_power_edge_cases(torch):
    a = ember.tensor([[2.0, 1.0], [0.0, 1.0]])
    assert ember.matrix_power(a, 0).tolist() == torch.matrix_power(torch.tensor(a.tolist()), 0).tolist()
    assert ember.matrix_power(a, 1).tolist() == a.tolist()
    assert_close(ember.matrix_power(a, -1), np.linalg.inv(a.numpy()))
    assert ember.matrix_power(ember.ones(2, 3, 3), 2).shape == (2, 3, 3)


def test_matrix_rank_and_pinverse(torch):
    rank_two = ember.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 0.0]])
    assert ember.linalg.matrix_rank(rank_two).dtype == ember.int64
    assert int(ember.linalg.matrix_rank(rank_two)) == int(torch.linalg.matrix_rank(torch.tensor(rank_two.tolist())))
    assert_close(
        ember.linalg.pinv(rank_two), torch.linalg.pinv(torch.tensor(rank_two.tolist())).numpy(), rtol=1e-4, atol=1e-5
    )
    assert_close(
        ember.linalg.pinv(rank_two, atol=0.5),
        torch.linalg.pinv(torch.tensor(rank_two.tolist()), atol=0.5).numpy(),
        rtol=1e-4,
        atol=1e-5,
    )


def test_chain_matmul_is_deprecated(torch):
    with pytest.warns(DeprecationWarning, match="multi_dot"):
        result = ember.chain_matmul(ember.ones(2, 3), ember.ones(3, 4), ember.ones(4, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = torch.chain_matmul(torch.ones(2, 3), torch.ones(3, 4), torch.ones(4, 1))
    assert result.tolist() == reference.tolist()


def test_empty_and_degenerate_shapes(torch):
    for build in (
        lambda m: m.ones(0, 3) @ m.ones(3, 2),
        lambda m: m.ones(2, 0) @ m.ones(0, 3),
        lambda m: m.einsum("ij,jk->ik", m.ones(2, 0), m.ones(0, 3)),
        lambda m: m.linalg.inv(m.ones(0, 0)),
        lambda m: m.linalg.det(m.ones(2, 0, 0)),
        lambda m: m.block_diag(),
    ):
        mine, reference = build(ember), build(torch)
        assert tuple(mine.shape) == tuple(reference.shape)
        assert mine.tolist() == reference.tolist()


def test_cross_default_dim_is_first_of_size_three(torch):
    a, b = np.random.default_rng(12).standard_normal((2, 3, 3))
    assert_close(
        ember.cross(ember.tensor(a), ember.tensor(b)), torch.cross(torch.tensor(a), torch.tensor(b), dim=0).numpy()
    )
    assert_close(
        ember.linalg.cross(ember.tensor(a), ember.tensor(b)),
        torch.linalg.cross(torch.tensor(a), torch.tensor(b)).numpy(),
    )


def test_cross_without_dim_warns_once_per_process_as_pytorch(monkeypatch):
    import ember.ops.linalg as linalg_ops

    monkeypatch.setattr(linalg_ops, "_cross_default_dim_warned", False)
    a, b = ember.tensor([1.0, 0.0, 0.0]), ember.tensor([0.0, 1.0, 0.0])
    with pytest.warns(UserWarning, match="Using torch.cross without specifying the dim arg is deprecated"):
        ember.cross(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ember.cross(a, b)  # said once only
        ember.cross(a, b, dim=0)


# ---------------------------------------------------------------- the _ex variants, eig, cond, tensor solves
NOT_PD = np.array([[4.0, 2, 1], [2, 1, 0], [1, 0, 3]])  # fails at the leading minor of order 2


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_ex_reports_the_failed_minor_and_lapacks_partial_factor(torch, upper):
    batch = np.stack([np.eye(3), NOT_PD])
    ours = ember.linalg.cholesky_ex(ember.tensor(batch), upper=upper)
    theirs = torch.linalg.cholesky_ex(torch.tensor(batch), upper=upper)
    assert ours.info.dtype == ember.int32 and ours.info.tolist() == theirs.info.tolist() == [0, 2]
    assert_close(ours.L.numpy(), theirs.L.numpy())
    assert repr(ours).startswith("torch.return_types.linalg_cholesky_ex(\nL=")


def test_failures_raise_linalg_error_naming_the_batch_element(torch):
    cases = [
        (lambda lib, a: lib.linalg.cholesky(a), np.stack([np.eye(3), NOT_PD])),
        (lambda lib, a: lib.linalg.cholesky_ex(a, check_errors=True), NOT_PD),
        (lambda lib, a: lib.linalg.inv(a), np.stack([np.eye(2), np.zeros((2, 2))])),
        (lambda lib, a: lib.linalg.inv_ex(a, check_errors=True), np.zeros((2, 2))),
        (lambda lib, a: lib.linalg.solve(a, lib.ones(2, dtype=lib.float64)), np.zeros((2, 2))),
        (lambda lib, a: lib.linalg.solve_ex(a, lib.ones(2, dtype=lib.float64), check_errors=True), np.zeros((2, 2))),
    ]
    for call, matrix in cases:
        with pytest.raises(torch.linalg.LinAlgError) as theirs:
            call(torch, torch.tensor(matrix))
        with pytest.raises(ember.linalg.LinAlgError) as ours:
            call(ember, ember.tensor(matrix))
        assert isinstance(ours.value, RuntimeError)
        assert str(ours.value).startswith(str(theirs.value)), (str(ours.value), str(theirs.value))


def test_inv_ex_and_solve_ex_report_singular_matrices_without_raising(torch):
    batch = np.stack([np.array([[1.0, 2], [2, 4]]), np.eye(2)])
    ours, theirs = ember.linalg.inv_ex(ember.tensor(batch)), torch.linalg.inv_ex(torch.tensor(batch))
    assert ours.info.tolist() == theirs.info.tolist() == [2, 0]
    assert_close(ours.inverse[1].numpy(), theirs.inverse[1].numpy())
    solved = ember.linalg.solve_ex(ember.tensor(batch), ember.ones(2, 2, dtype=ember.float64))
    assert solved.info.tolist() == torch.linalg.solve_ex(torch.tensor(batch), torch.ones(2, 2).double()).info.tolist()
    assert_close(solved.result[1].numpy(), np.ones(2))
    assert ember.linalg.solve_ex(ember.eye(2), ember.ones(2, 3)).info.dtype == ember.int32


def test_ex_results_keep_the_gradient_of_the_plain_functions():
    a = ember.tensor(_spd(3), requires_grad=True)
    assert ember.linalg.cholesky_ex(a).L.grad_fn.name() == "LinalgCholeskyExBackward0"
    assert gradcheck(lambda x: ember.linalg.inv_ex(x).inverse, (a,))
    assert gradgradcheck(lambda x: ember.linalg.solve_ex(x, x[:, :1]).result, (a,))


def test_eig_is_complex_of_the_input_precision_and_reconstructs_the_matrix(torch):
    a = np.array([[0.0, -1, 0.2], [1, 0, 0.1], [0.3, 0, 2]], dtype=np.float32)
    values, vectors = ember.linalg.eig(ember.tensor(a))
    assert values.dtype == vectors.dtype == ember.complex64
    assert ember.linalg.eigvals(ember.tensor(a, dtype=ember.float64)).dtype == ember.complex128
    theirs = torch.linalg.eig(torch.tensor(a))
    assert_close(values.numpy(), theirs.eigenvalues.numpy(), rtol=1e-5, atol=1e-6)
    assert_close(np.abs(vectors.numpy()), np.abs(theirs.eigenvectors.numpy()), rtol=1e-5, atol=1e-6)
    rebuilt = (vectors * values.unsqueeze(-2)) @ ember.linalg.inv(vectors)
    assert_close(rebuilt.numpy(), a.astype(np.complex64), rtol=1e-5, atol=1e-5)
    assert ember.linalg.eig(ember.tensor(a, requires_grad=True)).eigenvalues.grad_fn.name() == "LinalgEigBackward0"


def test_eig_backward_refuses_a_loss_that_depends_on_the_eigenvectors_phase(torch):
    a = np.array([[2.0, 1], [0.5, 3]])
    for lib in (torch, ember):
        x = lib.tensor(a, requires_grad=True)
        vectors = lib.linalg.eig(x).eigenvectors
        with pytest.raises(RuntimeError, match="specified up to multiplication by e\\^\\{i phi\\}"):
            vectors[0, 0].imag.backward()


@pytest.mark.parametrize("p", [None, 2, -2, 1, -1, float("inf"), float("-inf"), "fro", "nuc"])
def test_cond_matches_torch_for_every_order(torch, p):
    a = np.array([[[1.0, 2], [3, 4]], [[2.0, 0.5], [0.1, 1]]])
    assert_close(ember.linalg.cond(ember.tensor(a), p).numpy(), torch.linalg.cond(torch.tensor(a), p).numpy())
    singular = np.array([[1.0, 2], [2, 4]])
    if p not in (None, 2, -2, "nuc"):  # torch computes "nuc" of this one through rounding: 4.8e16
        assert ember.linalg.cond(ember.tensor(singular), p).item() == torch.linalg.cond(torch.tensor(singular), p)


def test_tensor_solves_and_vander_match_torch_and_their_errors(torch):
    a = np.random.default_rng(1).standard_normal((2, 3, 2, 3)) + np.eye(6).reshape(2, 3, 2, 3) * 3
    b = np.ones((2, 3))
    for call in (
        lambda lib: lib.linalg.tensorinv(lib.tensor(a), ind=2),
        lambda lib: lib.linalg.tensorsolve(lib.tensor(a), lib.tensor(b)),
        lambda lib: lib.linalg.tensorsolve(lib.tensor(a), lib.tensor(b), dims=(0,)),
        lambda lib: lib.linalg.vander(lib.tensor([[1.0, 2], [3, 4]]), N=3),
        lambda lib: lib.linalg.vander(lib.tensor(2.0), N=3),
        lambda lib: lib.linalg.vander(lib.tensor([1, 2, 3], dtype=lib.int32)),
    ):
        ours, theirs = call(ember), call(torch)
        assert str(ours.dtype) == str(theirs.dtype)
        assert_close(ours.numpy(), theirs.numpy())
    for call in (
        lambda lib: lib.linalg.tensorinv(lib.ones(2, 3, 4)),
        lambda lib: lib.linalg.tensorinv(lib.ones(4, 2, 2), ind=0),
        lambda lib: lib.linalg.tensorsolve(lib.ones(2, 3, 4), lib.ones(3)),
        lambda lib: lib.linalg.vander(lib.tensor(1.0)),
        lambda lib: lib.linalg.cond(lib.ones(2, 2), 3),
        lambda lib: lib.linalg.cond(lib.ones(2, 3), "fro"),
    ):
        with pytest.raises(RuntimeError) as theirs:
            call(torch)
        with pytest.raises(RuntimeError, match=re.escape(str(theirs.value))):
            call(ember)
