"""LU factorization and the solvers built on factors, Householder reflectors (geqrf, orgqr, ormqr), the
matrix exponential, and PyTorch's removed solvers.

Primitives: `LuFactor` (partial pivoting, as LAPACK's getrf: the first largest |entry| of each
column is the pivot), `CholeskySolve` (its gradient with respect to the factor is PyTorch's, which
treats the factor as a full matrix) and `MatrixExp` (scaling and squaring with a degree-13 Padé
approximant; its backward is the exponential of a block matrix, so it is differentiable again).
Composites: triangular solves (a solve with the masked triangle, so the gradient stays on the
triangle as PyTorch's), `lu_unpack`, `lu_solve`, `cholesky_inverse`.

Householder reflectors, LAPACK's representation of Q: `Geqrf` (a primitive without derivative, as
PyTorch's) packs them; `linalg.householder_product` (alias `orgqr`) and `ormqr` apply them one at a
time as composites, so they are differentiable to any order.

`torch.solve`, `lstsq`, `matrix_rank`, `eig` and `symeig` were removed in PyTorch 1.9: they raise
RuntimeError naming their `torch.linalg` replacements, as PyTorch 2.13 does.
"""

import math

from .._backend import np
from .._dtype import kernel_name
from .._tensor import new_tensor
from ..autograd import grad_mode
from ..autograd.function import Primitive, not_implemented
from .. import return_types
from ..return_types import _structseq
from ._declare import alias, op
from .indexing import where
from .linalg import _check_matrix_input, _check_same_dtype, _check_tensor, _eye, _sizes, matmul
from .linalg import _write_out, _write_results_out
from .._warn import warn as _warn

__all__ = [
    "lu",
    "lu_unpack",
    "lu_solve",
    "triangular_solve",
    "cholesky_solve",
    "cholesky_inverse",
    "matrix_exp",
    "solve",
    "lstsq",
    "matrix_rank",
    "eig",
    "symeig",
    "svd_lowrank",
    "pca_lowrank",
    "geqrf",
    "orgqr",
    "ormqr",
]

LuFactorResult = _structseq("linalg_lu_factor", ("LU", "pivots"))
LuFactorExResult = _structseq("linalg_lu_factor_ex", ("LU", "pivots", "info"))
LuResult = _structseq("linalg_lu", ("P", "L", "U"))
LuUnpackResult = _structseq("lu_unpack", ("P", "L", "U"))
TriangularSolveResult = _structseq("triangular_solve", ("solution", "cloned_coefficient"))


class _DeprecationNotices:
    given = set()


def _warn_deprecated_once(name, message):
    """PyTorch warns once per process about these deprecated spellings."""
    if name not in _DeprecationNotices.given:
        _DeprecationNotices.given.add(name)
        _warn(message, UserWarning, stacklevel=3)


# ================================================================ triangular solves (composites)
def _triangle(A, upper, unitriangular):
    """The triangle of A that a triangular solve reads (with ones on the diagonal if unitriangular)."""
    if unitriangular:
        strict = A.triu(1) if upper else A.tril(-1)
        return strict + _eye(A.shape[-1], A)
    return A.triu() if upper else A.tril()


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """X with T X = B (T X... X T = B with left=False), T the upper or lower triangle of A.
    (`ember.linalg.solve_triangular`; differentiable, the gradient of A confined to its triangle.)"""
    from .linalg import solve as _solve

    _check_matrix_input(A, "linalg.solve_triangular")
    _check_tensor(B, "linalg.solve_triangular", "B")
    _check_same_dtype("linalg.solve_triangular", A, B)
    if B.dim() < 2:
        raise RuntimeError(
            f"linalg.solve_triangular: The input tensor B must have at least 2 dimensions, but it has shape "
            f"{list(B.shape)}"
        )
    return _write_out(_solve(_triangle(A, upper, unitriangular), B, left=left), out)


@op(method=True)
def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """Deprecated (use `linalg.solve_triangular`): X with T X = b, T the upper (default) or lower
    triangle of A (transposed if `transpose`). Returns (solution, cloned_coefficient=A.clone())."""
    _warn_deprecated_once(
        "triangular_solve",
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed in a "
        "future PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not return a "
        "copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced with\n"
        "X = torch.linalg.solve_triangular(A, B).",
    )
    _check_tensor(A, "triangular_solve", "A")
    _check_tensor(b, "triangular_solve", "b")
    if A.dim() < 2 or b.dim() < 2:
        raise RuntimeError(
            f"triangular_solve: b and A must have at least 2 dimensions, got b {list(b.shape)} and A {list(A.shape)}"
        )
    triangle = _triangle(A, upper, unitriangular)
    solution = solve_triangular(triangle.mT if transpose else triangle, b, upper=upper != transpose)
    return TriangularSolveResult(solution, A.clone())


# ================================================================ LU
def _lu_arrays(a):
    """Packed LU factors, 1-based int32 pivots and LAPACK's info of (batches of) m x n matrices."""
    shape = a.shape
    rows, columns = shape[-2:]
    steps = min(rows, columns)
    lu = a.reshape((-1, rows, columns)).copy()
    batch = np.arange(lu.shape[0])
    pivots = np.empty((lu.shape[0], steps), dtype=np.int32)
    info = np.zeros(lu.shape[0], dtype=np.int32)
    for j in range(steps):
        pivot = j + np.argmax(np.abs(lu[:, j:, j]), axis=1)
        pivots[:, j] = pivot + 1
        row_j = lu[batch, j].copy()
        lu[batch, j] = lu[batch, pivot]
        lu[batch, pivot] = row_j
        diagonal = lu[:, j, j]
        zero = diagonal == 0
        info[(info == 0) & zero] = j + 1
        safe = np.where(zero, 1, diagonal)
        lu[:, j + 1 :, j] /= safe[:, None]
        lu[:, j + 1 :, j + 1 :] -= lu[:, j + 1 :, j, None] * lu[:, j, None, j + 1 :]
    return lu.reshape(shape), pivots.reshape(shape[:-2] + (steps,)), info.reshape(shape[:-2])


def _permutation_arrays(pivots, rows, dtype):
    """P (rows x rows per batch) with A = P L U, from 1-based LAPACK pivots (row i swapped with pivots[i])."""
    flat = pivots.reshape((-1, pivots.shape[-1])) - 1
    batch = np.arange(flat.shape[0])
    order = np.tile(np.arange(rows), (flat.shape[0], 1))
    for i in range(flat.shape[1]):
        target = flat[:, i]
        row_i = order[batch, i].copy()
        order[batch, i] = order[batch, target]
        order[batch, target] = row_i
    permutation = np.zeros((flat.shape[0], rows, rows), dtype=dtype)
    permutation[batch[:, None], order, np.arange(rows)[None, :]] = 1
    return permutation.reshape(pivots.shape[:-1] + (rows, rows))


def _unpack(lu, pivots_array):
    """(P as a constant tensor, L, U) from the packed factors (L and U differentiable in `lu`)."""
    rows, columns = lu.shape[-2:]
    steps = min(rows, columns)
    lower = lu[..., :, :steps].tril(-1) + new_tensor(np.eye(rows, steps, dtype=lu._data.dtype))
    upper = lu[..., :steps, :].triu()
    permutation = new_tensor(_permutation_arrays(pivots_array, rows, lu._data.dtype))
    return permutation, lower, upper


class LuFactor(Primitive, node="LinalgLuFactorExBackward0"):
    """A = P L U with L unit lower and U upper triangular, packed in one matrix; pivots and info
    are integer outputs without gradient."""

    @staticmethod
    def forward(ctx, a):
        lu, pivots, info = _lu_arrays(a)
        ctx.save_for_backward(lu)
        ctx.pivots = pivots
        ctx.mark_non_differentiable(pivots, info)
        return lu, pivots, info

    @staticmethod
    def backward(ctx, grad_lu, grad_pivots, grad_info):
        (lu,) = ctx.saved_tensors
        if lu.shape[-1] != lu.shape[-2]:
            raise NotImplementedError(
                f"lu_factor: the gradient is implemented for square matrices only, got {_sizes(lu.shape[-2:])} "
                "matrices (use a square A, or linalg.qr for rectangular ones)"
            )
        permutation, lower, upper = _unpack(lu, ctx.pivots)
        # A = P L U: with phi = tril(L^H gL, -1) + triu(gU U^H), gA = P L^-H phi U^-H.
        phi = matmul(lower.mT, grad_lu.tril(-1)).tril(-1) + matmul(grad_lu.triu(), upper.mT).triu()
        left = solve_triangular(lower.mT, phi, upper=True, unitriangular=True)
        return matmul(permutation, solve_triangular(upper.mT, left, upper=False, left=False))

    @staticmethod
    def jvp(ctx, tangent):
        lu = ctx.outputs[0]
        permutation, lower, upper = _unpack(lu.detach(), ctx.pivots)
        # dL = L tril(X, -1), dU = triu(X) U with X = L^-1 P^T dA U^-1; packed: dL + dU.
        x = solve_triangular(lower, matmul(permutation.mT, tangent), upper=False, unitriangular=True)
        x = solve_triangular(upper, x, upper=True, left=False)
        return matmul(lower, x.tril(-1)) + matmul(x.triu(), upper), None, None


def _lu_factor(A, op_name, pivot):
    _check_matrix_input(A, op_name, square=False)
    if not pivot:
        raise RuntimeError(f"{op_name}: LU without pivoting is not implemented on the CPU")
    return LuFactor.apply(A)


def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """(LU, pivots, info) of `ember.linalg.lu_factor`, with info > 0 where U has a zero pivot."""
    result = LuFactorExResult(*_lu_factor(A, "linalg.lu_factor_ex", pivot))
    if check_errors and bool((result.info != 0).any()):
        raise RuntimeError("linalg.lu_factor_ex: U has a zero on the diagonal (the matrix is singular)")
    return result


def lu_factor(A, *, pivot=True):
    """(LU, pivots): the packed factors of A = P L U (partial pivoting) and the 1-based int32 row
    swaps; RuntimeError for a singular A (use `lu_factor_ex` to get the info instead).

    Difference from PyTorch: the gradient exists for square matrices only (rectangular ones raise
    NotImplementedError in backward)."""
    packed, pivots, info = _lu_factor(A, "linalg.lu_factor", pivot)
    singular = np.flatnonzero(info._data.reshape(-1))
    if singular.size:
        index = int(info._data.reshape(-1)[singular[0]])
        raise RuntimeError(
            f"torch.linalg.lu_factor: U[{index},{index}] is zero and using it on lu_solve would result in a "
            "division by zero. If you still want to perform the factorization, consider calling "
            "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
        )
    return LuFactorResult(packed, pivots)


@op(LuFactor, method=True)
def lu(A, pivot=True, get_infos=False):
    """Deprecated (use `linalg.lu_factor`): (LU, pivots), or (LU, pivots, infos) with `get_infos`.
    A singular matrix is factored without error, as in PyTorch."""
    _warn_deprecated_once(
        "lu",
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be removed "
        "in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\n"
        "LU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
        "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\n"
        "LU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)",
    )
    packed, pivots, info = _lu_factor(A, "linalg.lu_factor", pivot)
    return (packed, pivots, info) if get_infos else (packed, pivots)


@op()
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """(P, L, U) with A = P L U from `lu_factor`'s packed factors; L and U are differentiable in
    LU_data. With unpack_data / unpack_pivots False, L and U / P are empty tensors."""
    from .creation import empty

    _check_tensor(LU_data, "lu_unpack", "LU_data")
    if LU_data.dim() < 2:
        raise RuntimeError(f"lu_unpack: LU_data must have at least 2 dimensions, got shape {list(LU_data.shape)}")
    permutation, lower, upper = _unpack(LU_data, LU_pivots._data)
    nothing = empty(0, dtype=LU_data.dtype)
    return LuUnpackResult(
        permutation if unpack_pivots else nothing, lower if unpack_data else nothing, upper if unpack_data else nothing
    )


def linalg_lu(A, *, pivot=True):
    """(P, L, U) with A = P L U (`ember.linalg.lu`), differentiable."""
    packed, pivots, _ = _lu_factor(A, "linalg.lu", pivot)
    permutation, lower, upper = _unpack(packed, pivots._data)
    return LuResult(permutation, lower, upper)


def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """X with A X = B (X A = B with left=False; A^H with adjoint) from A's `lu_factor` factors."""
    _check_tensor(B, "linalg.lu_solve", "B")
    _check_same_dtype("linalg.lu_solve", LU, B)
    permutation, lower, upper = _unpack(LU, pivots._data)
    if B.dim() < 2 or B.shape[-2 if left else -1] != LU.shape[-1]:
        raise RuntimeError(
            f"linalg.lu_solve: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'} "
            f"({_sizes(LU.shape[-2:])} and {_sizes(B.shape[-2:])})"
        )
    if not left:  # X A = B  <=>  A^H X^H = B^H
        return linalg_lu_solve(LU, pivots, B.mT, left=True, adjoint=not adjoint).mT
    if adjoint:  # A^H = U^H L^H P^H
        y = solve_triangular(upper.mT, B, upper=False)
        y = solve_triangular(lower.mT, y, upper=True, unitriangular=True)
        return matmul(permutation, y)
    y = solve_triangular(lower, matmul(permutation.mT, B), upper=False, unitriangular=True)
    return solve_triangular(upper, y, upper=True)


@op(method=True)
def lu_solve(b, LU_data, LU_pivots):
    """Deprecated (use `linalg.lu_solve`, arguments reversed): X with A X = b from `lu(A)`'s factors."""
    _warn_deprecated_once(
        "lu_solve",
        "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future PyTorch "
        "release.\nNote that torch.linalg.lu_solve has its arguments reversed.\n"
        "X = torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)",
    )
    return linalg_lu_solve(LU_data, LU_pivots, b)


# ================================================================ Cholesky solves
def _cholesky_solve_array(b, factor, upper):
    lower = np.swapaxes(factor, -1, -2).conj() if upper else factor
    gram = lower @ np.swapaxes(lower, -1, -2).conj()
    return np.linalg.solve(gram, b)


class CholeskySolve(Primitive, node="CholeskySolveBackward0"):
    """X = (L L^H)^-1 B from a Cholesky factor (lower, or upper U with U^H U)."""

    @staticmethod
    def forward(ctx, b, factor, upper):
        triangle = np.triu(factor) if upper else np.tril(factor)
        try:
            x = _cholesky_solve_array(b, triangle, upper)
        except np.linalg.LinAlgError as error:
            from .linalg import LinAlgError

            raise LinAlgError(f"cholesky_solve: the factor is singular (NumPy: {error})") from None
        ctx.upper = upper
        ctx.save_for_backward(factor, x)
        return x

    @staticmethod
    def backward(ctx, grad):
        factor, x = ctx.saved_tensors
        grad_b = CholeskySolve.apply(grad, factor, ctx.upper)
        grad_factor = None
        if ctx.needs_input_grad[1]:
            common = matmul(grad_b, x.mT)
            common = common + common.mT
            grad_factor = -matmul(factor, common) if ctx.upper else -matmul(common, factor)
        return grad_b if ctx.needs_input_grad[0] else None, grad_factor, None

    @staticmethod
    def jvp(ctx, tangent_b, tangent_factor, _):
        b, factor, upper = ctx.inputs
        x = ctx.outputs[0]
        rhs = tangent_b
        if tangent_factor is not None:
            triangle = factor.triu() if upper else factor.tril()
            d_triangle = tangent_factor.triu() if upper else tangent_factor.tril()
            product = matmul(d_triangle.mT, triangle) if upper else matmul(d_triangle, triangle.mT)
            change = -matmul(product + product.mT, x)
            rhs = change if rhs is None else rhs + change
        return None if rhs is None else CholeskySolve.apply(rhs, factor, upper)


@op(CholeskySolve, method=True)
def cholesky_solve(B, L, upper=False):
    """X with A X = B for A = L L^H given its Cholesky factor L (or A = U^H U with upper=True)."""
    _check_matrix_input(L, "cholesky_solve")
    _check_tensor(B, "cholesky_solve", "B")
    _check_same_dtype("cholesky_solve", B, L)
    if B.dim() < 2 or B.shape[-2] != L.shape[-1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for cholesky_solve: each A matrix is {_sizes(L.shape[-2:])} but each b "
            f"matrix is {_sizes(B.shape[-2:]) if B.dim() >= 2 else list(B.shape)}"
        )
    return CholeskySolve.apply(B, L, bool(upper))


@op(method=True)
def cholesky_inverse(L, upper=False):
    """(L L^H)^-1, the inverse of A from its Cholesky factor L (U^H U with upper=True)."""
    _check_matrix_input(L, "cholesky_inverse")
    identity = _eye(L.shape[-1], L).expand(L.shape)
    return CholeskySolve.apply(identity, L, bool(upper))


# ================================================================ matrix exponential
# Padé approximant of degree 13 (numerator coefficients; the denominator has alternating signs)
# and the 1-norm below which it is accurate to double precision without further scaling.
_PADE13 = (
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
    1.0,
)
_PADE13_THETA = 5.371920351148152


def _matrix_exp_array(a):
    """exp of (batches of) square matrices by scaling and squaring, computed in float64."""
    work = a.astype(np.float64 if a.dtype.kind in "fV" else np.complex128)
    norm = np.abs(work).sum(axis=-2).max() if work.size else 0.0
    squarings = max(0, int(math.ceil(math.log2(norm / _PADE13_THETA)))) if norm > 0 else 0
    work = work / (2.0**squarings)
    identity = np.eye(a.shape[-1], dtype=work.dtype)
    a2 = work @ work
    a4 = a2 @ a2
    a6 = a4 @ a2
    b = _PADE13
    u_inner = a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * identity
    u = work @ u_inner
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * identity
    result = np.linalg.solve(v - u, v + u)
    for _ in range(squarings):
        result = result @ result
    return result.astype(a.dtype)


def _block_upper_right(top_left, top_right):
    """exp([[M, E], [0, M]])'s upper-right block: the derivative of exp at M in the direction E."""
    from .joining import cat
    from .creation import zeros_like

    n = top_left.shape[-1]
    block = cat([cat([top_left, top_right], -1), cat([zeros_like(top_left), top_left], -1)], -2)
    return MatrixExp.apply(block)[..., :n, n:]


class MatrixExp(Primitive, node="LinalgMatrixExpBackward0"):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return _matrix_exp_array(a)

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return _block_upper_right(a.mT, grad)

    @staticmethod
    def jvp(ctx, tangent):
        return _block_upper_right(ctx.inputs[0], tangent)


@op(MatrixExp, method=True)
def matrix_exp(A):
    """exp(A) = sum A^k / k! of a square matrix (or each in a batch); differentiable to any order."""
    _check_tensor(A, "linalg.matrix_exp", "A")
    if A._data.dtype.kind not in "fcV":
        raise RuntimeError(
            f"linalg.matrix_exp: Expected a floating point or complex tensor as input. Got {kernel_name(A.dtype)}"
        )
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"linalg.matrix_exp: A must be batches of square matrices, but they are "
            f"{' by '.join(map(str, A.shape[-2:])) if A.dim() >= 2 else list(A.shape)} matrices"
        )
    return MatrixExp.apply(A)


# ================================================================ removed in PyTorch 1.9
_REMOVED = "This function was deprecated since version 1.9 and is now removed. "


@op(method=True)
def solve(input, A):
    """Removed in PyTorch 1.9: raises RuntimeError pointing to `linalg.solve(A, B)`."""
    raise RuntimeError(
        _REMOVED + "`torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its "
        "arguments reversed and does not return the LU factorization.\n\nTo get the LU factorization see "
        "`torch.lu`, which can be used with `torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution "
        "should be replaced with:\nX = torch.linalg.solve(A, B)"
    )


@op(method=True)
def lstsq(input, A):
    """Removed in PyTorch 1.9: raises RuntimeError pointing to `linalg.lstsq(A, B)`."""
    raise RuntimeError(
        _REMOVED + "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has "
        "reversed arguments and does not return the QR decomposition in the returned tuple (although it returns "
        "other information about the problem).\n\nTo get the QR decomposition consider using `torch.linalg.qr`."
        "\n\nX = torch.lstsq(B, A).solution[:A.size(1)]\nshould be replaced with:\n"
        "X = torch.linalg.lstsq(A, B).solution"
    )


@op()
def matrix_rank(input, tol=None, symmetric=False):
    """Removed in PyTorch 1.9: raises RuntimeError pointing to `linalg.matrix_rank`."""
    raise RuntimeError(
        _REMOVED.rstrip()
        + "\nPlease use the `torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was "
        "renamed in `torch.linalg.matrix_rank()` to 'hermitian'."
    )


@op(method=True)
def eig(input, eigenvectors=False):
    """Removed in PyTorch 1.9: raises RuntimeError pointing to `linalg.eig` / `linalg.eigvals`."""
    raise RuntimeError(
        _REMOVED + "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than real "
        "tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\n"
        "L_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) should be replaced "
        "with:\nL_complex, V_complex = torch.linalg.eig(A)"
    )


@op(method=True)
def symeig(input, eigenvectors=False, upper=True):
    """Removed in PyTorch 1.9: raises RuntimeError pointing to `linalg.eigh` / `linalg.eigvalsh`."""
    raise RuntimeError(
        _REMOVED + "The default behavior has changed from using the upper triangular portion of the matrix by "
        "default to using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) should be replaced "
        "with:\nL = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, "
        "eigenvectors=True) should be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')"
    )


# ================================================================ randomized low-rank SVD / PCA
def _approximate_basis(A, q, niter):
    """Orthonormal columns spanning (nearly) the range of A, by a random projection and `niter`
    power iterations (Halko, Martinsson & Tropp's randomized range finder)."""
    from .linalg import linalg_qr
    from .creation import randn

    projection = randn(A.shape[-1], q, dtype=A.dtype)
    basis = linalg_qr(matmul(A, projection)).Q
    for _ in range(niter):
        basis = linalg_qr(matmul(A.mT, basis)).Q
        basis = linalg_qr(matmul(A, basis)).Q
    return basis


@op()
def svd_lowrank(A, q=6, niter=2, M=None):
    """(U, S, V) of a rank-`q` approximate SVD of A (or A - M), A ~ U diag(S) V^T, found by a
    randomized range finder with `niter` power iterations; differentiable. Random, so the singular
    vectors differ from PyTorch's run to run by more than sign when A has rank above q."""
    from .linalg import linalg_svd

    _check_matrix_input(A, "svd_lowrank", square=False)
    if M is not None:
        A = A - M
    rows, columns = A.shape[-2:]
    if q is None:
        q = 6
    if rows < columns:
        V, S, U = svd_lowrank(A.mT, q, niter)
        return U, S, V
    basis = _approximate_basis(A, q, niter)
    left, values, right_h = linalg_svd(matmul(basis.mT, A), full_matrices=False)
    return matmul(basis, left), values, right_h.mT


@op()
def pca_lowrank(A, q=None, center=True, niter=2):
    """(U, S, V) of a randomized PCA: the low-rank SVD of A with its columns centred (`center`);
    `q` defaults to min(6, rows, columns). The principal directions are V's columns."""
    _check_matrix_input(A, "pca_lowrank", square=False)
    rows, columns = A.shape[-2:]
    q = min(6, rows, columns) if q is None else q
    if not 0 <= q <= min(rows, columns):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(rows, columns)}")
    if niter < 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if center:
        A = A - A.mean(dim=-2, keepdim=True)
    return svd_lowrank(A, q, niter)


# ================================================================ Householder reflectors
# LAPACK keeps Q of a QR decomposition as k reflectors H_i = I - tau_i v_i v_i^H: geqrf packs v_i
# below the diagonal of column i (its unit entry on the diagonal is implied, R sits on and above
# the diagonal), orgqr multiplies them out and ormqr applies them to a matrix without forming Q.
_HOUSEHOLDER_DTYPES = (np.float32, np.float64, np.complex64, np.complex128)


def _check_householder_dtype(tensor, kernel):
    if tensor._data.dtype not in _HOUSEHOLDER_DTYPES:
        raise NotImplementedError(
            f"\"{kernel}_cpu\" not implemented for '{kernel_name(tensor.dtype)}': it takes float32, float64, "
            "complex64 or complex128 tensors; convert with .double() first"
        )


def _check_at_least_matrix(tensor, op_name, name):
    if tensor.dim() < 2:
        raise RuntimeError(f"{op_name}: {name} must have at least 2 dimensions, but it has shape {list(tensor.shape)}.")


def _tau_length(tau, op_name):
    """The number of reflectors; a 0-d tau is PyTorch's IndexError (it reads tau.shape[-1])."""
    if tau.dim() == 0:
        raise IndexError(
            f"{op_name}: tau must have one scale per reflector in its last dimension, but it is 0-dimensional "
            "(Dimension specified as -1 but tensor has no dimensions)"
        )
    return tau.shape[-1]


def _check_tau(input, tau, op_name):
    """tau holds one scalar per reflector of each matrix of input: input's batch shape, one dim less."""
    if tau.dim() != input.dim() - 1:
        raise RuntimeError(
            f"{op_name}: Expected tau to have one dimension less than input, but got tau.ndim equal to {tau.dim()} "
            f"and input.ndim is equal to {input.dim()} (tau has shape {list(tau.shape)}, input {list(input.shape)})"
        )


def _check_batch(input, other, op_name, name):
    if tuple(other.shape[: input.dim() - 2]) != tuple(input.shape[:-2]):
        raise RuntimeError(
            f"{op_name}: Expected batch dimensions of {name} to be equal to input.shape[:-2], but got "
            f"{list(other.shape[: input.dim() - 2])} (input has shape {list(input.shape)})"
        )


def _check_same_householder_dtype(op_name, input, other, name):
    if other._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"{op_name}: Expected input and {name} to have the same dtype, but input has dtype "
            f"{kernel_name(input.dtype)} and {name} has dtype {kernel_name(other.dtype)}"
        )


def _refuse_out_with_grad(op_name, out, *tensors):
    """The error `copy_into_out` gives, named for this op: a composite's result carries the node of its
    last step, not the op's name."""
    if out is not None and grad_mode.state.enabled and any(t.requires_grad for t in (out, *tensors)):
        raise RuntimeError(
            f"{op_name}(): functions with out=... arguments don't support automatic differentiation, but one of "
            "the arguments requires grad."
        )


class Geqrf(Primitive, node="GeqrfBackward0"):
    """LAPACK's geqrf through NumPy's `qr(mode='raw')`, which returns the packed matrix transposed
    (LAPACK's column-major layout). PyTorch defines no derivative for it: the outputs require grad
    and a backward through them raises its NotImplementedError."""

    @staticmethod
    def forward(ctx, a):
        packed, tau = np.linalg.qr(a, mode="raw")
        return np.ascontiguousarray(np.swapaxes(packed, -1, -2)), tau

    @staticmethod
    def backward(ctx, grad_a, grad_tau):
        raise not_implemented("geqrf")


@op(Geqrf, method=True)
def geqrf(input, *, out=None):
    """LAPACK's geqrf: the QR decomposition of each matrix, Q kept as Householder reflectors.

    Low level, for `linalg.householder_product` (Q itself) and `ormqr` (products with Q without
    forming it); `linalg.qr` gives Q and R directly. Not differentiable, as in PyTorch.

    Args:
        input: a (batch of) m x n float or complex matrices.
        out: an optional (a, tau) pair of tensors to write the results into.

    Returns:
        `(a, tau)` (`torch.return_types.geqrf`): `a` holds R on and above the diagonal and the
        reflectors' vectors v_i below it (the unit entry of each v_i on the diagonal is implied);
        `tau` (shape `(*, min(m, n))`) their scales, so that Q = H_1 ... H_k with
        H_i = I - tau_i v_i v_i^H. The values are LAPACK's, as PyTorch's.

    Example::

        >>> A = ember.tensor([[3.0, 1.0], [4.0, 2.0]])
        >>> a, tau = ember.geqrf(A)
        >>> a.triu()  # R
        tensor([[-5.0000, -2.2000],
                [ 0.0000,  0.4000]])
        >>> bool(ember.allclose(ember.linalg.householder_product(a, tau) @ a.triu(), A))
        True
    """
    _check_tensor(input, "geqrf", "input")
    _check_at_least_matrix(input, "torch.geqrf", "input")
    _check_householder_dtype(input, "geqrf")
    return _write_results_out(return_types.geqrf(*Geqrf.apply(input)), out)


def _reflector_vectors(input, count):
    """The first `count` reflectors' vectors as columns: input's strict lower triangle with ones on the
    diagonal. What lies on and above the diagonal is not read (not even a NaN there), so its gradient
    is zero, as PyTorch's."""
    rows, dtype = input.shape[-2], input._data.dtype
    # `where` with a constant mask rather than tril: where declares a forward-mode rule.
    strictly_lower = new_tensor(np.tri(rows, count, -1, dtype=bool))
    return where(strictly_lower, input[..., :count], new_tensor(np.eye(rows, count, dtype=dtype)))


def _apply_reflectors(vectors, tau, other, left, adjoint):
    """op(Q) C (left) or C op(Q), Q = H_1 ... H_k, op the conjugate transpose if `adjoint`.

    One reflector at a time, H_i C = C - tau_i v_i (v_i^H C), never forming Q: that costs O(m n) per
    reflector, and being ember ops throughout it is differentiable to any order and in forward mode.
    """
    scales = tau.conj() if adjoint else tau  # H_i^H = I - conj(tau_i) v_i v_i^H
    count = tau.shape[-1]
    # The reflector next to C goes first: H_k for Q C and C Q^H, H_1 for Q^H C and C Q.
    for i in range(count) if left == adjoint else reversed(range(count)):
        v = vectors[..., :, i : i + 1]
        scale = scales[..., i, None, None]
        if left:
            other = other - matmul(v * scale, matmul(v.mH, other))
        else:
            other = other - matmul(matmul(other, v) * scale, v.mH)
    return other


@op(name="linalg.householder_product")
def householder_product(input, tau, *, out=None):
    """The first n columns of the product of Householder matrices H_1 ... H_k (LAPACK's orgqr).

    H_i = I - tau_i v_i v_i^H, with v_i column i of `input` below the diagonal and 1 on it (what is
    on and above the diagonal, and columns k and beyond, are not read). With `geqrf`'s output this is
    the Q of the QR decomposition. Differentiable in `input` and `tau`, to any order.

    Args:
        input: (*, m, n) matrices with m >= n.
        tau: (*, k) scales, k <= n, with input's batch shape.
        out: an optional tensor to write the result into.

    Returns:
        The (*, m, n) matrix of the product's first n columns (orthonormal for geqrf's output).

    Example::

        >>> A = ember.randn(4, 3, dtype=ember.float64)
        >>> Q = ember.linalg.householder_product(*ember.geqrf(A))
        >>> bool(ember.allclose(Q.mT @ Q, ember.eye(3, dtype=ember.float64)))
        True
    """
    op_name = "torch.linalg.householder_product"
    _check_tensor(input, "linalg_householder_product", "input")
    _check_tensor(tau, "linalg_householder_product", "tau")
    if input.dim() < 2:
        raise RuntimeError(f"{op_name}: input must have at least 2 dimensions, but it has shape {list(input.shape)}.")
    rows, columns = input.shape[-2:]
    if rows < columns:
        raise RuntimeError(
            f"{op_name}: input.shape[-2] must be greater than or equal to input.shape[-1] (input has shape "
            f"{list(input.shape)})"
        )
    if _tau_length(tau, op_name) > columns:
        raise RuntimeError(
            f"{op_name}: input.shape[-1] must be greater than or equal to tau.shape[-1] (input has shape "
            f"{list(input.shape)}, tau {list(tau.shape)})"
        )
    _check_tau(input, tau, op_name)
    _check_batch(input, tau, op_name, "tau")
    if tau._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"{op_name}: tau dtype {kernel_name(tau.dtype)} does not match input dtype {kernel_name(input.dtype)}"
        )
    _check_householder_dtype(input, "orgqr")
    _refuse_out_with_grad("linalg_householder_product", out, input, tau)
    first_columns = np.broadcast_to(np.eye(rows, columns, dtype=input._data.dtype), tuple(input.shape))
    identity = new_tensor(np.ascontiguousarray(first_columns))
    vectors = _reflector_vectors(input, tau.shape[-1])
    return _write_out(_apply_reflectors(vectors, tau, identity, left=True, adjoint=False), out)


@op(method=True)
def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    """op(Q) C (`left`) or C op(Q) for Q = H_1 ... H_k given as Householder reflectors, without forming
    Q (LAPACK's ormqr); op is the conjugate transpose if `transpose`. Differentiable in all three
    tensors, to any order.

    Args:
        input: (*, mn, k') reflectors as `geqrf` packs them (mn = m if `left`, else n); the first
            min(mn, k') columns below the diagonal are read.
        tau: (*, min(mn, k')) their scales.
        other: the (*, m, n) matrix C, with input's batch shape (no broadcasting).
        left: compute op(Q) C (Q is m x m) rather than C op(Q) (Q is n x n).
        transpose: use Q^H (the transpose for real tensors) instead of Q.
        out: an optional tensor (of input's dtype) to write the result into.

    Returns:
        The (*, m, n) product.

    Difference from PyTorch: its binding names the arguments `input2` and `input3` (its documentation
    says `tau` and `other`); ember takes the documented names.

    Example::

        >>> A, C = ember.randn(4, 4, dtype=ember.float64), ember.randn(4, 2, dtype=ember.float64)
        >>> a, tau = ember.geqrf(A)
        >>> Q = ember.linalg.householder_product(a, tau)
        >>> bool(ember.allclose(ember.ormqr(a, tau, C, transpose=True), Q.mT @ C))
        True
    """
    op_name = "torch.ormqr"
    for name, value in (("input", input), ("tau", tau), ("other", other)):
        _check_tensor(value, "ormqr", name)
    _check_at_least_matrix(input, op_name, "input")
    _check_at_least_matrix(other, op_name, "other")
    side = -2 if left else -1
    if other.shape[side] != input.shape[-2]:
        raise RuntimeError(
            f"{op_name}: other.shape[{side}] must be equal to input.shape[-2] (left={left}; input has shape "
            f"{list(input.shape)}, other {list(other.shape)})"
        )
    count = min(other.shape[side], input.shape[-1])
    if _tau_length(tau, op_name) != count:
        raise RuntimeError(
            f"{op_name}: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1]) = {count}, but "
            f"tau has shape {list(tau.shape)}"
        )
    _check_tau(input, tau, op_name)
    if other.dim() != input.dim():
        raise RuntimeError(
            f"{op_name}: Expected other to have the same number of dimensions as input, but got other.ndim equal "
            f"to {other.dim()} and input.ndim is equal to {input.dim()}"
        )
    _check_batch(input, tau, op_name, "tau")
    _check_batch(input, other, op_name, "other")
    _check_same_householder_dtype(op_name, input, tau, "tau")
    _check_same_householder_dtype(op_name, input, other, "other")
    if out is not None:
        _check_same_householder_dtype(op_name, input, out, "result")
    _check_householder_dtype(input, "ormqr")
    _refuse_out_with_grad("ormqr", out, input, tau, other)
    vectors = _reflector_vectors(input, count)
    return _write_out(_apply_reflectors(vectors, tau, other, left, adjoint=transpose), out)


# PyTorch's older name of householder_product; Tensor.orgqr too.
orgqr = alias(householder_product, "orgqr", method=True)
