"""`ember.linalg`: PyTorch's `torch.linalg` namespace.

The implementations (and their gradients) are in `ember.ops.linalg`; this module gives them the
`torch.linalg` names and signatures, which differ from the older top-level ones in places:
`linalg.svd` returns Vh (`ember.svd` returns V) and is full_matrices=True by default,
`linalg.qr` takes `mode=` (`ember.qr` takes `some=`), `linalg.cross` defaults to dim=-1.
"""

from .ops.linalg import (
    LinAlgError,
    matmul,
    multi_dot,
    matrix_power,
    vector_norm,
    matrix_norm,
    solve,
    det,
    slogdet,
    cholesky,
    eigh,
    eigvalsh,
    svdvals,
    pinv,
    matrix_rank,
    lstsq,
)
from .ops.factorizations import lu_factor, lu_factor_ex, solve_triangular, matrix_exp
from .ops.factorizations import linalg_lu as lu, linalg_lu_solve as lu_solve
from .ops.linalg import linalg_norm as norm, linalg_qr as qr, linalg_svd as svd, inverse as _inverse, _cross, _write_out

__all__ = [
    "LinAlgError",
    "matmul",
    "multi_dot",
    "matrix_power",
    "vector_norm",
    "matrix_norm",
    "norm",
    "inv",
    "det",
    "slogdet",
    "solve",
    "cholesky",
    "qr",
    "svd",
    "svdvals",
    "eigh",
    "eigvalsh",
    "pinv",
    "matrix_rank",
    "lstsq",
    "lu_factor",
    "lu_factor_ex",
    "lu",
    "lu_solve",
    "solve_triangular",
    "matrix_exp",
    "cross",
    "vecdot",
    "diagonal",
]


def inv(A, *, out=None):
    """Inverse of a square matrix (or of each in a batch); LinAlgError (a RuntimeError) if singular."""
    return _inverse(A, out=out)


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
