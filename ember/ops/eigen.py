"""Eigen-decomposition of general (non-symmetric) square matrices: `linalg.eig` and `linalg.eigvals`.

A real matrix can have complex eigenvalues, so both results are always complex (complex64 for
float32 input, complex128 for float64), as PyTorch's: NumPy's `eig` returns real arrays when every
eigenvalue happens to be real, which would make the dtype depend on the values.

Each eigenvector is only defined up to a factor e^{i phi}; LAPACK (NumPy's and PyTorch's) returns it
with unit norm and its largest component real. The gradient is therefore defined only for losses that
do not depend on that phase (eigenvalues, |V|, V V^-1 ...): backward checks the condition PyTorch
checks and raises its error otherwise.
"""

from .._backend import np
from ..autograd.function import Primitive
from ..return_types import _structseq
from .linalg import _check_matrix_input, _diag_embed, _lapack, _write_out, _write_results_out, matmul, solve

EigResult = _structseq("linalg_eig", ("eigenvalues", "eigenvectors"))

_COMPLEX = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}


def _gaps(values):
    """E with E[..., i, j] = L_j - L_i off the diagonal and 1 on it (the divisor of both rules)."""
    gaps = values.unsqueeze(-2) - values.unsqueeze(-1)
    return gaps + _diag_embed(values * 0 + 1)


class Eig(Primitive, node="LinalgEigBackward0"):
    """A V = V diag(L). Backward (PyTorch's rule): with P = V^H gV,
    gA = V^-H (diag(gL) + (P - V^H V diag(Re diag P)) / conj(E)) V^H, real part for a real A."""

    @staticmethod
    def forward(ctx, a):
        values, vectors = _lapack(np.linalg.eig, "linalg.eig", "the eigenvalue algorithm did not converge", a)
        complex_dtype = _COMPLEX.get(a.dtype, a.dtype)
        values, vectors = values.astype(complex_dtype, copy=False), vectors.astype(complex_dtype, copy=False)
        ctx.real_input = a.dtype.kind != "c"
        ctx.save_for_backward(values, vectors)
        ctx.set_materialize_grads(False)
        return values, vectors

    @staticmethod
    def backward(ctx, grad_values, grad_vectors):
        if grad_values is None and grad_vectors is None:
            return None
        values, vectors = ctx.saved_tensors
        vectors_h = vectors.mH
        inner = _diag_embed(grad_values) if grad_values is not None else 0
        if grad_vectors is not None:
            projection = matmul(vectors_h, grad_vectors)
            phases = projection.diagonal(0, -2, -1).imag
            if not np.allclose(phases._data, 0, rtol=1e-2, atol=1e-2):
                raise RuntimeError(
                    "linalg_eig_backward: The eigenvectors in the complex case are specified up to multiplication "
                    "by e^{i phi}. The specified loss function depends on this quantity, so it is ill-defined."
                )
            tangent = projection - matmul(vectors_h, vectors * projection.diagonal(0, -2, -1).real.unsqueeze(-2))
            inner = inner + tangent / _gaps(values).conj()
        gradient = solve(vectors_h, matmul(inner, vectors_h))
        return gradient.real if ctx.real_input else gradient

    @staticmethod
    def jvp(ctx, tangent):
        values, vectors = ctx.outputs
        values, vectors = values.detach(), vectors.detach()
        rotated = solve(vectors, matmul(tangent.to(vectors.dtype), vectors))  # V^-1 dA V
        eye = _diag_embed(values * 0 + 1)
        change = matmul(vectors, rotated * (1 - eye) / _gaps(values))
        # keep each eigenvector's normalisation: remove the part along itself that changes its phase/norm
        change = change - vectors * matmul(vectors.mH, change).diagonal(0, -2, -1).real.unsqueeze(-2)
        return rotated.diagonal(0, -2, -1), change


def eig(A, *, out=None):
    """(eigenvalues, eigenvectors) of a square matrix: A V = V diag(L), complex, vectors of unit norm."""
    _check_matrix_input(A, "linalg.eig", complex_ok=True)
    return _write_results_out(EigResult(*Eig.apply(A)), out)


def eigvals(A, *, out=None):
    """The eigenvalues of a square matrix, complex, in LAPACK's order (that of `linalg.eig`)."""
    _check_matrix_input(A, "linalg.eigvals", complex_ok=True)
    return _write_out(Eig.apply(A)[0], out)
