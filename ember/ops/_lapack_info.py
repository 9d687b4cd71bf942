"""LAPACK's `info` for NumPy's factorizations, which raise instead of reporting it.

PyTorch's `linalg.cholesky_ex`, `inv_ex` and `solve_ex` return, beside the result, an int32 `info`
per matrix (0: success; k > 0: the leading minor of order k is not positive-definite, or U[k, k] of
the LU factorization is zero), and the plain functions raise with that number in the message. NumPy
only raises for the whole batch, so on failure these helpers redo the work matrix by matrix to find
which ones failed and why.
"""

from .._backend import np


def _partial_cholesky(matrix):
    """LAPACK potf2's left-looking factorization of one matrix, stopped at the first non-positive
    pivot: the columns before it are factored, the pivot holds its failed value, the rest keeps the
    input's lower triangle (what PyTorch returns beside a non-zero info)."""
    lower = np.tril(matrix)
    for j in range(matrix.shape[-1]):
        pivot = lower[j, j] - lower[j, :j] @ lower[j, :j]
        if not pivot > 0:
            lower[j, j] = pivot
            return lower, j + 1
        lower[j, j] = np.sqrt(pivot)
        lower[j + 1 :, j] = (lower[j + 1 :, j] - lower[j + 1 :, :j] @ lower[j, :j]) / lower[j, j]
    return lower, 0


def cholesky_with_info(a):
    """(lower factors, info) of (batches of) matrices; a failed matrix gets potf2's partial factor."""
    info = np.zeros(a.shape[:-2], dtype=np.int32)
    try:
        return np.linalg.cholesky(a), info
    except np.linalg.LinAlgError:
        pass
    matrices = a.reshape((-1,) + a.shape[-2:])
    lower = np.empty_like(matrices)
    flat_info = info.reshape(-1)
    for index, matrix in enumerate(matrices):
        try:
            lower[index] = np.linalg.cholesky(matrix)
        except np.linalg.LinAlgError:
            lower[index], flat_info[index] = _partial_cholesky(matrix)
    return lower.reshape(a.shape), info


def singular_info(a):
    """getrf's info of (batches of) square matrices: the 1-based index of U's first zero pivot, or 0."""
    from .factorizations import _lu_arrays

    return _lu_arrays(a)[2]


def solved_with_info(solver, a, *operands):
    """(solver(a, *operands), info): a singular matrix's result is NaN where PyTorch's holds whatever
    the division by the zero pivot left (its values are undefined either way: read info)."""
    try:
        return solver(a, *operands), np.zeros(a.shape[:-2], dtype=np.int32)
    except np.linalg.LinAlgError:
        pass
    info = singular_info(a)
    safe = np.where(info[..., None, None] > 0, np.eye(a.shape[-1], dtype=a.dtype), a)
    result = solver(safe, *operands)
    return np.where((info > 0)[..., None, None], np.nan, result).astype(result.dtype, copy=False), info


def failure_message(op_name, info, describe):
    """PyTorch's message for the first failed matrix, '(Batch element k): ' first when batched."""
    flat = info.reshape(-1)
    first = int(np.flatnonzero(flat)[0])
    where = f"(Batch element {first}): " if info.ndim else ""
    return f"{op_name}: {where}{describe(int(flat[first]))}"


def not_positive_definite(order):
    return (
        "The factorization could not be completed because the input is not positive-definite "
        f"(the leading minor of order {order} is not positive-definite)."
    )


def zero_pivot(index):
    return (
        f"The diagonal element {index} is zero, the inversion could not be completed because the input matrix "
        "is singular."
    )


def singular_system(index):
    return "The solver failed because the input matrix is singular."
