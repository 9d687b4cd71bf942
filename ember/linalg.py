"""`ember.linalg`: PyTorch's `torch.linalg` namespace.

The implementations (and their gradients) are in `ember.ops.linalg`; this module gives them the
`torch.linalg` names and signatures, which differ from the older top-level ones in places:
`linalg.svd` returns Vh (`ember.svd` returns V) and is full_matrices=True by default,
`linalg.qr` takes `mode=` (`ember.qr` takes `some=`), `linalg.cross` defaults to dim=-1.

The `_ex` variants return LAPACK's `info` (int32 per matrix, 0 on success) beside the result instead
of raising for a singular or not positive-definite matrix, as PyTorch's; the result's values for such
a matrix are undefined (read info).
"""

import math

from .ops.linalg import (
    LinAlgError,
    matmul,
    multi_dot,
    matrix_power,
    vector_norm,
    matrix_norm,
    solve,
    det,
    slogdet as _slogdet,
    cholesky,
    eigh,
    eigvalsh,
    svdvals,
    pinv,
    matrix_rank,
    lstsq,
)
from .ops.eigen import eig, eigvals
from .ops.factorizations import lu_factor, lu_factor_ex, solve_triangular, matrix_exp, householder_product
from .ops.factorizations import linalg_lu as lu, linalg_lu_solve as lu_solve
from .ops.linalg import linalg_norm as norm, linalg_qr as qr, linalg_svd as svd, inverse as _inverse, _cross, _write_out
from .ops.linalg import Cholesky as _Cholesky, Inverse as _Inverse, _check_matrix_input, _solve, _write_results_out
from .ops.linalg import LinalgSlogdetResult as _LinalgSlogdetResult
from .return_types import _structseq

CholeskyExResult = _structseq("linalg_cholesky_ex", ("L", "info"))
InvExResult = _structseq("linalg_inv_ex", ("inverse", "info"))
SolveExResult = _structseq("linalg_solve_ex", ("result", "info"))

__all__ = [
    "LinAlgError",
    "matmul",
    "multi_dot",
    "matrix_power",
    "vector_norm",
    "matrix_norm",
    "norm",
    "inv",
    "inv_ex",
    "det",
    "slogdet",
    "solve",
    "solve_ex",
    "cholesky",
    "cholesky_ex",
    "qr",
    "svd",
    "svdvals",
    "eigh",
    "eigvalsh",
    "eig",
    "eigvals",
    "cond",
    "tensorinv",
    "tensorsolve",
    "vander",
    "pinv",
    "matrix_rank",
    "lstsq",
    "lu_factor",
    "lu_factor_ex",
    "lu",
    "lu_solve",
    "solve_triangular",
    "matrix_exp",
    "householder_product",
    "cross",
    "vecdot",
    "diagonal",
]


def slogdet(A, *, out=None):
    """`(sign, logabsdet)` of the determinant (a `linalg_slogdet` tuple; see `ember.slogdet`)."""
    return _write_results_out(_LinalgSlogdetResult(*_slogdet(A)), out)


def inv(A, *, out=None):
    """Inverse of a square matrix (or of each in a batch); LinAlgError (a RuntimeError) if singular."""
    return _inverse(A, out=out)


def inv_ex(A, *, check_errors=False, out=None):
    """(inverse, info): `inv` that reports a singular matrix in info (U's zero pivot) instead of raising."""
    _check_matrix_input(A, "linalg.inv_ex", complex_ok=True)
    return _write_results_out(InvExResult(*_Inverse.apply(A, "linalg.inv_ex", check_errors)), out)


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """(L, info): `cholesky` that reports a matrix that is not positive-definite in info (the order of
    its first such leading minor) instead of raising; L then holds LAPACK's partial factor."""
    _check_matrix_input(A, "linalg.cholesky_ex")
    lower, info = _Cholesky.apply(A, "linalg.cholesky_ex", check_errors)
    return _write_results_out(CholeskyExResult(lower.mH if upper else lower, info), out)


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """(result, info): `solve` that reports a singular A in info instead of raising."""
    return _write_results_out(SolveExResult(*_solve(A, B, left, "linalg.solve_ex", check_errors)), out)


_COND_ORDERS = (None, 2, -2, 1, -1, math.inf, -math.inf, "fro", "nuc")


def cond(A, p=None, *, out=None):
    """Condition number of each matrix for the norm `p`: sigma_max / sigma_min for p = None or 2 (any
    shape), otherwise norm(A, p) * norm(inv(A), p) (square matrices; inf where A is singular)."""
    if p not in _COND_ORDERS:
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    spectral = p in (None, 2, -2)
    _check_matrix_input(A, f"linalg.cond(ord={p})", square=not spectral)
    if spectral:
        singular_values = svdvals(A)
        largest, smallest = singular_values[..., 0], singular_values[..., -1]
        return _write_out(largest / smallest if p != -2 else smallest / largest, out)
    from . import where

    inverse, info = _Inverse.apply(A, "linalg.cond", False)
    singular = info > 0
    inverse = where(singular.unsqueeze(-1).unsqueeze(-1), 0.0, inverse)  # NaN there would stop the SVD of "nuc"
    return _write_out(where(singular, math.inf, matrix_norm(A, p) * matrix_norm(inverse, p)), out)


def _check_products_match(leading, trailing, requirement):
    if math.prod(leading) != math.prod(trailing):
        raise RuntimeError(
            f"Expected self to satisfy the requirement {requirement}, but got {math.prod(trailing)} != "
            f"{math.prod(leading)}"
        )


def tensorinv(A, ind=2, *, out=None):
    """The tensor X with tensordot(A, X, ind) the identity: inv of A seen as a matrix whose rows are
    its first `ind` dims; X has shape A.shape[ind:] + A.shape[:ind]."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    leading, trailing = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    _check_products_match(leading, trailing, "prod(self.shape[ind:]) == prod(self.shape[:ind])")
    size = math.prod(leading)
    return _write_out(inv(A.reshape(size, size)).reshape(trailing + leading), out)


def tensorsolve(A, B, dims=None, *, out=None):
    """The tensor X with tensordot(A, X, X.ndim) == B; `dims` are moved to the end of A first."""
    if dims is not None:
        dims = [dim % A.dim() for dim in dims]
        A = A.permute(*[dim for dim in range(A.dim()) if dim not in dims], *dims)
    leading, trailing = tuple(B.shape), tuple(A.shape[B.dim() :])
    _check_products_match(leading, trailing, "prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim])")
    size = math.prod(trailing)
    return _write_out(solve(A.reshape(size, size), B.reshape(size)).reshape(trailing), out)


def vander(x, *, N=None):
    """Vandermonde matrix: x[..., i] ** j in column j, for j = 0 .. N - 1 (N = x.shape[-1] by default)."""
    x = x.reshape(1) if x.dim() == 0 else x
    columns = x.shape[-1] if N is None else N
    if columns <= 1:
        raise RuntimeError("N must be greater than 1.")
    from . import cat, ones_like

    powers = x.unsqueeze(-1).expand(*x.shape, columns - 1)
    return cat([ones_like(x).unsqueeze(-1), powers], dim=-1).cumprod(-1)


def cross(input, other, *, dim=-1, out=None):
    """Cross product of 3-vectors along `dim` (default the last); the operands broadcast."""
    return _write_out(_cross(input, other, dim, "linalg.cross"), out)


def vecdot(x, y, *, dim=-1, out=None):
    """Dot product of vectors along `dim`, broadcasting the other dims (real tensors)."""
    return _write_out((x * y).sum(dim), out)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonal of each matrix in A (an alias of `ember.diagonal` with matrix-last defaults)."""
    from . import diagonal as _diagonal

    return _diagonal(A, offset=offset, dim1=dim1, dim2=dim2)


# Public names offer their calls to the arguments' __torch_function__ (see ember._torch_function).
from . import _torch_function  # noqa: E402

_torch_function.publish(globals(), __all__, "ember.linalg")
