"""Linear algebra: matrix products, einsum, decompositions and norms.

Primitives (each a Function whose backward uses ember ops, so gradients of gradients work):
`Matmul` (with PyTorch's node names per case), `AddProduct` (addmm & co.), `Einsum`, `Trace`,
`BlockDiag` and the decompositions `Inverse`, `Det`, `Slogdet`, `Solve`, `Cholesky`,
`Qr`, `Svd`, `Eigh`. Everything else (outer, tensordot, kron, cross, pinv, cdist, ...) is composed from
them; the norms use reduction's `LinalgVectorNorm`. Batch broadcasting in a backward is undone by
the engine.

The `torch.linalg` spellings (`linalg.inv`, `linalg.svd` returning Vh, ...) live in `ember.linalg`,
which re-exports the functions here that are not top-level names.
"""

import collections
import math
import string

from .._backend import np
from .._tensor import Tensor, new_tensor
from .._sparse_coo import SparseCoo
from .. import _dtype
from ..return_types import _structseq
from .. import _precision
from ..autograd.function import Primitive
from ._common import c_contiguous, normalize_dim, normalize_dims
from .inplace import copy_into_out
from .reduction import LinalgVectorNorm
from ._tangents import add_tangents
from . import _autocast
from ._declare import op, alias
from ._lapack_info import (
    cholesky_with_info,
    failure_message,
    not_positive_definite,
    singular_system,
    solved_with_info,
    zero_pivot,
)
from .._warn import warn as _warn

__all__ = [
    "frobenius_norm",
    "nuclear_norm",
    "matmul",
    "mm",
    "bmm",
    "mv",
    "dot",
    "outer",
    "ger",
    "addmm",
    "addmv",
    "addbmm",
    "baddbmm",
    "addr",
    "einsum",
    "tensordot",
    "kron",
    "trace",
    "cross",
    "inverse",
    "det",
    "logdet",
    "slogdet",
    "cholesky",
    "qr",
    "svd",
    "pinverse",
    "matrix_power",
    "chain_matmul",
    "block_diag",
    "cdist",
    "norm",
    "dist",
]


class LinAlgError(RuntimeError):
    """A matrix had no answer (singular for `inv`/`solve`, not positive-definite for `cholesky`)."""


# PyTorch's `torch.return_types.*` named tuples.
# (torch.qr and torch.linalg.qr give differently named tuples; so do slogdet and svd)
SlogdetResult = _structseq("slogdet", ("sign", "logabsdet"))
LinalgSlogdetResult = _structseq("linalg_slogdet", ("sign", "logabsdet"))
QrResult = _structseq("qr", ("Q", "R"))
LinalgQrResult = _structseq("linalg_qr", ("Q", "R"))
SvdResult = _structseq("svd", ("U", "S", "V"))
LinalgSvdResult = _structseq("linalg_svd", ("U", "S", "Vh"))
EighResult = _structseq("linalg_eigh", ("eigenvalues", "eigenvectors"))
LstsqResult = _structseq("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))


# ================================================================= argument checks
def _check_tensor(value, op_name, name="input"):
    if not isinstance(value, Tensor):
        raise TypeError(f"{op_name}(): argument '{name}' must be Tensor, not {type(value).__name__}")


def _check_same_dtype(op_name, *tensors):
    """PyTorch's products do not promote: mixed dtypes are an error (convert one operand first)."""
    first = tensors[0]._data.dtype
    for other in tensors[1:]:
        if other._data.dtype != first:
            raise RuntimeError(
                f"{op_name}: expected all operands to have the same dtype, but got "
                f"{', '.join(str(t.dtype) for t in tensors)}; convert one of them, e.g. b.to(a.dtype)"
            )


def _check_products(op_name, *tensors, same_dtype=True):
    """Tensors (and, for the BLAS products, of one dtype, as PyTorch requires; element-wise products
    such as outer and kron promote)."""
    for position, value in enumerate(tensors):
        _check_tensor(value, op_name, f"argument {position}")
    if same_dtype:
        _check_same_dtype(op_name, *tensors)


def _check_matrix_input(A, op_name, square=True, complex_ok=False):
    """A float32/float64 (or, where the op's backward supports it, complex) tensor of (batches of)
    matrices, square where the op needs it."""
    _check_tensor(A, op_name, "A")
    if A._data.dtype.kind not in "fV" and not (complex_ok and A._data.dtype.kind == "c"):
        raise RuntimeError(f"{op_name}: Expected a floating point tensor as input. Got {A.dtype}")
    if A._data.dtype == np.float16 or A._data.dtype.kind == "V":
        raise RuntimeError(f"{op_name}: Low precision dtypes not supported. Got {A.dtype}; use .float()")
    if A._data.ndim < 2:
        raise RuntimeError(
            f"{op_name}: The input tensor A must have at least 2 dimensions, but it has shape {list(A.shape)}"
        )
    rows, columns = A._data.shape[-2:]
    if square and rows != columns:
        raise RuntimeError(
            f"{op_name}: A must be batches of square matrices, but they are {rows} by {columns} matrices"
        )


def _lapack(function, op_name, problem, *arrays, **kwargs):
    """Call a NumPy LAPACK routine, turning its LinAlgError into ember's (a RuntimeError, as PyTorch)."""
    try:
        return function(*arrays, **kwargs)
    except np.linalg.LinAlgError as error:
        raise LinAlgError(f"{op_name}: {problem} (NumPy: {error})") from None


def _constant(array):
    return new_tensor(np.asarray(array))


def _eye(n, like):
    return new_tensor(np.eye(n, dtype=like._data.dtype))


def _diag_embed(vector):
    """(..., n) -> (..., n, n) with `vector` on the diagonal; differentiable (a product with I)."""
    return vector.unsqueeze(-1) * _eye(vector.shape[-1], vector)


def _write_out(result, out):
    return result if out is None else copy_into_out(out, result)


def _write_results_out(results, out):
    """`results` (a named tuple of tensors), or with `out=` each written into its place there."""
    if out is None:
        return results
    return type(results)(*(_write_out(value, target) for value, target in zip(results, out)))


# ================================================================= matrix products
def _save_operands(ctx, a, b, first=0):
    """Save of `a @ b` only what the wanted gradients read (b for a's, a for b's), as PyTorch does,
    so an in-place change of the other operand does not invalidate the node."""
    needs_a, needs_b = ctx.needs_input_grad[first : first + 2]
    ctx.save_for_backward(a if needs_b else None, b if needs_a else None)
    ctx.operand_ndims = a.ndim, b.ndim


def _matmul_vjp(grad, a, b, ndims, needs_a, needs_b):
    """Gradients of `a @ b` under NumPy's rules (1-D operands included), left un-reduced over
    broadcast batch dims: the engine sums them back to each input's shape."""
    a_ndim, b_ndim = ndims
    if a_ndim == 1 and b_ndim == 1:
        return (grad * b if needs_a else None), (grad * a if needs_b else None)
    grad_a = grad_b = None
    if needs_a:
        if b_ndim == 1:
            grad_a = grad.unsqueeze(-1) * b
        elif a_ndim == 1:
            grad_a = matmul(b, grad.unsqueeze(-1)).squeeze(-1)
        else:
            grad_a = grad @ b.swapaxes(-1, -2)  # (as arrays too: see Mm)
    if needs_b:
        if a_ndim == 1:
            grad_b = a.unsqueeze(-1) * grad.unsqueeze(-2)
        elif b_ndim == 1:
            grad_b = matmul(grad.unsqueeze(-2), a).squeeze(-2)
        else:
            grad_b = a.swapaxes(-1, -2) @ grad
    return grad_a, grad_b


class Matmul(Primitive, node="UnsafeViewBackward0", holomorphic=True):
    """`a @ b` for every operand shape NumPy's matmul takes. The subclasses only carry the node
    names PyTorch gives each case; batched and broadcast products show as UnsafeViewBackward0."""

    @staticmethod
    def forward(ctx, a, b):
        _save_operands(ctx, a, b)
        return _precision.matmul(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return _matmul_vjp(grad, a, b, ctx.operand_ndims, *ctx.needs_input_grad)

    @staticmethod
    def jvp(ctx, tangent_a, tangent_b):
        a, b = ctx.inputs
        apply = ctx._forward_cls.apply
        return add_tangents(
            None if tangent_a is None else apply(tangent_a, b), None if tangent_b is None else apply(a, tangent_b)
        )


class Mm(Matmul, node="MmBackward0", backward_on_arrays=True):
    pass


class Bmm(Matmul, node="BmmBackward0", backward_on_arrays=True):
    pass


class Mv(Matmul, node="MvBackward0"):
    pass


class Dot(Matmul, node="DotBackward0"):
    pass


_PRODUCT_BY_NDIM = {(2, 2): Mm, (2, 1): Mv, (1, 1): Dot}


def _sizes(shape):
    return "x".join(map(str, shape))


def _mismatch_error(a_shape, b_shape):
    """PyTorch's message for `a @ b` whose inner sizes differ, plus the full shapes."""
    if len(a_shape) == 1 and len(b_shape) == 1:
        return RuntimeError(
            f"inconsistent tensor size, expected tensor [{a_shape[0]}] and src [{b_shape[0]}] to "
            f"have the same number of elements, but got {a_shape[0]} and {b_shape[0]} elements "
            "respectively"
        )
    if len(b_shape) == 1:
        return RuntimeError(
            f"size mismatch, got input ({a_shape[-2]}), mat ({_sizes(a_shape[-2:])}), vec ({b_shape[0]})"
        )
    left = (1,) + tuple(a_shape) if len(a_shape) == 1 else a_shape[-2:]
    return RuntimeError(
        f"mat1 and mat2 shapes cannot be multiplied ({_sizes(left)} and {_sizes(b_shape[-2:])}): "
        f"the last size of the first operand (full shape {list(a_shape)}) must equal the "
        f"second-to-last size of the second (full shape {list(b_shape)})"
    )


def _check_batch_broadcast(a_shape, b_shape):
    batch_a, batch_b = a_shape[:-2], b_shape[:-2]
    for index, (size_a, size_b) in enumerate(zip(reversed(batch_a), reversed(batch_b))):
        if size_a != size_b and size_a != 1 and size_b != 1:
            dim = max(len(batch_a), len(batch_b)) - 1 - index
            raise RuntimeError(
                f"The size of tensor a ({size_a}) must match the size of tensor b ({size_b}) at "
                f"non-singleton dimension {dim} (matmul of shapes {list(a_shape)} and "
                f"{list(b_shape)}: their batch dimensions must broadcast)"
            )


@op(Matmul, method=True)
def matmul(input, other, *, out=None):
    """Matrix product with PyTorch's (NumPy's) rules: 1-D operands are vectors, batch dims broadcast.

    Both operands must have the same dtype (PyTorch does not promote here). Example::

        ember.matmul(ember.ones(2, 3, 4), ember.ones(4, 5)).shape  # torch.Size([2, 3, 5])
    """
    if isinstance(input, Tensor) and type(input._data) is SparseCoo:
        return _write_out(sparse_coo.sparse_dense_product("matmul", input, other), out)
    if _autocast.ever_enabled and _autocast.state.lower is not None:
        input, other = _autocast.lower_precision(input, other)
    if not (type(input) is Tensor and type(other) is Tensor and input._data.dtype is other._data.dtype):
        _check_products("matmul", input, other)
    a_shape, b_shape = input._data.shape, other._data.shape
    if not a_shape or not b_shape:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {len(a_shape)}D and {len(b_shape)}D"
        )
    if a_shape[-1] != b_shape[-2 if len(b_shape) > 1 else 0]:
        raise _mismatch_error(a_shape, b_shape)
    if len(a_shape) > 2 or len(b_shape) > 2:
        _check_batch_broadcast(a_shape, b_shape)
    function = _PRODUCT_BY_NDIM.get((len(a_shape), len(b_shape)), Matmul)
    return _write_out(function.apply(input, other), out)


@op(Mm, method=True)
def mm(input, mat2, *, out=None):
    """Product of two matrices (2-D only, no broadcasting: use `matmul` for that)."""
    if isinstance(input, Tensor) and type(input._data) is SparseCoo:
        return _write_out(sparse_coo.sparse_dense_product("mm", input, mat2), out)
    if isinstance(mat2, Tensor) and type(mat2._data) is SparseCoo and isinstance(input, Tensor):
        return _write_out(sparse_coo.dense_sparse_product("mm", input, mat2), out)
    if _autocast.ever_enabled and _autocast.state.lower is not None:
        input, mat2 = _autocast.lower_precision(input, mat2)
    _check_products("mm", input, mat2)
    if input._data.ndim != 2:
        raise RuntimeError(f"self must be a matrix (mm got shape {list(input.shape)})")
    if mat2._data.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix (mm got shape {list(mat2.shape)})")
    if input._data.shape[1] != mat2._data.shape[0]:
        raise _mismatch_error(input._data.shape, mat2._data.shape)
    return _write_out(Mm.apply(input, mat2), out)


def _check_bmm(op_name, batch1, batch2):
    for name, value in (("batch1", batch1), ("batch2", batch2)):
        if value._data.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor ({op_name} got shape {list(value.shape)})")
    (batches, _, inner), expected = batch1._data.shape, batch2._data.shape
    if expected[:2] != (batches, inner):
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{batches}, {inner}] but "
            f"got: [{expected[0]}, {expected[1]}]."
        )


@op(Bmm, method=True)
def bmm(input, mat2, *, out=None):
    """Batched product of (b, n, m) and (b, m, p) tensors (no broadcasting)."""
    if _autocast.ever_enabled and _autocast.state.lower is not None:
        input, mat2 = _autocast.lower_precision(input, mat2)
    _check_products("bmm", input, mat2)
    _check_bmm("bmm", input, mat2)
    return _write_out(Bmm.apply(input, mat2), out)


def _check_mv(op_name, mat, vec):
    if mat._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected: {op_name} takes a 2-D matrix and a 1-D vector, got "
            f"{mat._data.ndim}-D and {vec._data.ndim}-D"
        )
    if mat._data.shape[1] != vec._data.shape[0]:
        raise _mismatch_error(mat._data.shape, vec._data.shape)


@op(Mv, method=True)
def mv(input, vec, *, out=None):
    """Matrix-vector product."""
    _check_products("mv", input, vec)
    _check_mv("mv", input, vec)
    return _write_out(Mv.apply(input, vec), out)


@op(Dot, method=True)
def dot(input, other, *, out=None):
    """Inner product of two 1-D tensors of the same size."""
    _check_products("dot", input, other)
    if input._data.ndim != 1 or other._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input._data.ndim}D and {other._data.ndim}D tensors")
    if input._data.shape != other._data.shape:
        raise _mismatch_error(input._data.shape, other._data.shape)
    return _write_out(Dot.apply(input, other), out)


@op(method=True)
def outer(input, vec2, *, out=None):
    """Outer product of two vectors: `input[i] * vec2[j]` (a broadcast product, MulBackward0 as in PyTorch)."""
    _check_products("outer", input, vec2, same_dtype=False)
    if input._data.ndim != 1 or vec2._data.ndim != 1:
        raise RuntimeError(f"outer: expected 1-D tensors, got shapes {list(input.shape)} and {list(vec2.shape)}")
    return _write_out(input.unsqueeze(-1) * vec2, out)


# ---------------------------------------------------------------- beta * input + alpha * product
def _scaled_sum(input, product, beta, alpha):
    """`beta * input + alpha * product`; with beta == 0 `input` is ignored (its nan/inf too), as in PyTorch."""
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        return np.broadcast_to(product, np.broadcast_shapes(input.shape, product.shape)).copy()
    return product + (input if beta == 1 else input * beta)


class AddProduct(Primitive, node="AddmmBackward0", holomorphic=True):
    """`beta * input + alpha * (a @ b)`: addmm, addmv, addr (vectors as a column and a row) and
    baddbmm; addbmm also sums the batch. The subclasses carry PyTorch's node names."""

    @staticmethod
    def forward(ctx, input, a, b, beta, alpha):
        _save_operands(ctx, a, b, first=1)
        ctx.beta, ctx.alpha = beta, alpha
        if a.dtype.kind == "V":  # bfloat16: the whole sum in float32, rounded once, as PyTorch's addmm does
            wide = [operand.astype(np.float32) for operand in (input, a, b)]
            return _scaled_sum(wide[0], np.matmul(wide[1], wide[2]), beta, alpha).astype(a.dtype)
        return _scaled_sum(input, np.matmul(a, b), beta, alpha)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        needs_input, needs_a, needs_b = ctx.needs_input_grad[:3]
        grad_input = (grad if ctx.beta == 1 else grad * ctx.beta) if needs_input else None
        # addbmm's (n, p) gradient broadcasts against the (batch, ., .) operands in the products.
        scaled = grad if ctx.alpha == 1 else grad * ctx.alpha
        grad_a, grad_b = _matmul_vjp(scaled, a, b, ctx.operand_ndims, needs_a, needs_b)
        return grad_input, grad_a, grad_b, None, None


class Addmm(AddProduct, node="AddmmBackward0"):
    pass


class Addmv(AddProduct, node="AddmvBackward0"):
    pass


class Addr(AddProduct, node="AddrBackward0"):
    pass


class Baddbmm(AddProduct, node="BaddbmmBackward0"):
    pass


class Addbmm(AddProduct, node="AddbmmBackward0"):
    @staticmethod
    def forward(ctx, input, a, b, beta, alpha):
        _save_operands(ctx, a, b, first=1)
        ctx.beta, ctx.alpha = beta, alpha
        if a.dtype.kind == "V":  # bfloat16: the whole sum in float32, rounded once, as Addmm above
            wide = [operand.astype(np.float32) for operand in (input, a, b)]
            return _scaled_sum(wide[0], np.matmul(wide[1], wide[2]).sum(axis=0), beta, alpha).astype(a.dtype)
        return _scaled_sum(input, np.matmul(a, b).sum(axis=0), beta, alpha)


def _add_product(function, op_name, input, a, b, beta, alpha, product_shape, out):
    shape = tuple(input._data.shape)
    if len(shape) > len(product_shape) or any(
        size not in (1, target) for size, target in zip(reversed(shape), reversed(product_shape))
    ):
        raise RuntimeError(
            f"{op_name}: input of shape {list(shape)} does not broadcast to the product's shape {list(product_shape)}"
        )
    if input._data.dtype.kind in "biu" and (isinstance(beta, float) or isinstance(alpha, float)):
        raise RuntimeError(
            f"{op_name}: for integral input tensors, arguments beta and alpha must not be floating point numbers"
        )
    return _write_out(function.apply(input, a, b, beta, alpha), out)


@op(Addmm, method=True, inplace=True)
def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """`beta * input + alpha * (mat1 @ mat2)` for matrices; `input` broadcasts to the product's shape."""
    if _autocast.ever_enabled and _autocast.state.lower is not None:
        input, mat1, mat2 = _autocast.lower_precision(input, mat1, mat2)
    _check_products("addmm", input, mat1, mat2)
    if mat1._data.ndim != 2 or mat2._data.ndim != 2:
        raise RuntimeError(
            f"addmm: mat1 and mat2 must be matrices, got shapes {list(mat1.shape)} and {list(mat2.shape)}"
        )
    if mat1._data.shape[1] != mat2._data.shape[0]:
        raise _mismatch_error(mat1._data.shape, mat2._data.shape)
    return _add_product(Addmm, "addmm", input, mat1, mat2, beta, alpha, (mat1._data.shape[0], mat2._data.shape[1]), out)


@op(Addmv, method=True, inplace=True)
def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """`beta * input + alpha * (mat @ vec)`."""
    _check_products("addmv", input, mat, vec)
    _check_mv("addmv", mat, vec)
    return _add_product(Addmv, "addmv", input, mat, vec, beta, alpha, (mat._data.shape[0],), out)


@op(Addr, method=True, inplace=True)
def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """`beta * input + alpha * outer(vec1, vec2)`."""
    _check_products("addr", input, vec1, vec2)
    if vec1._data.ndim != 1 or vec2._data.ndim != 1:
        raise RuntimeError(f"addr: expected 1-D vectors, got shapes {list(vec1.shape)} and {list(vec2.shape)}")
    return _add_product(
        Addr,
        "addr",
        input,
        vec1.unsqueeze(-1),
        vec2.unsqueeze(0),
        beta,
        alpha,
        (vec1._data.shape[0], vec2._data.shape[0]),
        out,
    )


@op(Baddbmm, method=True, inplace=True)
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """`beta * input + alpha * bmm(batch1, batch2)`."""
    if _autocast.ever_enabled and _autocast.state.lower is not None:
        input, batch1, batch2 = _autocast.lower_precision(input, batch1, batch2)
    _check_products("baddbmm", input, batch1, batch2)
    _check_bmm("baddbmm", batch1, batch2)
    shape = batch1._data.shape[:2] + batch2._data.shape[2:]
    return _add_product(Baddbmm, "baddbmm", input, batch1, batch2, beta, alpha, shape, out)


@op(Addbmm, method=True, inplace=True)
def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """`beta * input + alpha * bmm(batch1, batch2).sum(0)`."""
    if _autocast.ever_enabled and _autocast.state.lower is not None:
        input, batch1, batch2 = _autocast.lower_precision(input, batch1, batch2)
    _check_products("addbmm", input, batch1, batch2)
    _check_bmm("addbmm", batch1, batch2)
    shape = (batch1._data.shape[1], batch2._data.shape[2])
    return _add_product(Addbmm, "addbmm", input, batch1, batch2, beta, alpha, shape, out)


# ---------------------------------------------------------------- chains of products
def multi_dot(tensors, *, out=None):
    """`tensors[0] @ tensors[1] @ ...` of 2-D matrices; the first and last may be 1-D vectors.

    Unlike PyTorch, the product runs left to right (PyTorch picks the cheapest order; values agree
    up to rounding)."""
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    _check_products("linalg.multi_dot", *tensors)
    for position, value in enumerate(tensors):
        allowed = (1, 2) if position in (0, len(tensors) - 1) else (2,)
        if value._data.ndim not in allowed:
            raise RuntimeError(
                f"multi_dot(): tensor {position} must be "
                f"{'1D or 2D' if len(allowed) == 2 else '2D'} but got {value._data.ndim}D"
            )
    result = tensors[0]
    for value in tensors[1:]:
        result = matmul(result, value)
    return _write_out(result, out)


@op()
def chain_matmul(*matrices, out=None):
    """Deprecated spelling of `linalg.multi_dot` (2-D matrices only)."""
    _warn(
        "ember.chain_matmul is deprecated; use ember.linalg.multi_dot, which takes a list of tensors",
        DeprecationWarning,
        stacklevel=2,
    )
    for position, value in enumerate(matrices):
        if isinstance(value, Tensor) and value._data.ndim != 2:
            raise RuntimeError(f"chain_matmul(): tensor {position} must be 2D but got {value._data.ndim}D")
    if len(matrices) == 1:
        return _write_out(matrices[0].clone(), out)
    return multi_dot(matrices, out=out)


@op(method=True)
def matrix_power(input, n):
    """`input` multiplied by itself `n` times (n < 0: of its inverse; n == 0: the identity)."""
    _check_tensor(input, "matrix_power")
    if input._data.ndim < 2 or input._data.shape[-1] != input._data.shape[-2]:
        raise RuntimeError(
            f"linalg.matrix_power: A must be batches of square matrices, but got shape {list(input.shape)}"
        )
    if not isinstance(n, int):
        raise TypeError(f"matrix_power(): argument 'n' must be int, not {type(n).__name__}")
    if n == 0:
        identity = np.broadcast_to(np.eye(input._data.shape[-1], dtype=input._data.dtype), input._data.shape)
        return _constant(identity.copy())
    if n < 0:
        input, n = inverse(input), -n
    result, square = None, input
    while n:  # binary exponentiation: O(log n) products
        if n & 1:
            result = square if result is None else matmul(result, square)
        n >>= 1
        if n:
            square = matmul(square, square)
    return result


# ================================================================= einsum and friends
class Einsum(Primitive, node="EinsumBackward0", holomorphic=True):
    """One einsum product. The gradient for an operand is another einsum: the output gradient and
    the other operands contracted to that operand's subscripts (see `_einsum_operand_grad`)."""

    @staticmethod
    def forward(ctx, spec, *operands):
        ctx.save_for_backward(*operands)
        ctx.spec = spec
        terms, output, _ = spec
        result = np.asarray(_precision.einsum(",".join(terms) + "->" + output, *operands, optimize=len(operands) > 1))
        return c_contiguous(result) if len(operands) > 1 else result  # a product is contiguous, as PyTorch's

    @staticmethod
    def backward(ctx, grad):
        operands = ctx.saved_tensors
        needs = ctx.needs_input_grad[1:]
        return (None,) + tuple(
            _einsum_operand_grad(grad, ctx.spec, operands, index) if needs[index] else None
            for index in range(len(operands))
        )


def _einsum_operand_grad(grad, spec, operands, index):
    """d(einsum)/d(operand `index`) as an einsum of the output gradient and the other operands.

    A label that only this operand has (summed away in forward) comes back through a ones vector;
    a label repeated in it (a diagonal such as 'ii') gets a fresh label per repeat, tied to the first
    by an identity matrix, so the gradient lands on the diagonal only.
    """
    terms, output, sizes = spec
    target = terms[index]
    grad_terms = [output] + [term for position, term in enumerate(terms) if position != index]
    tensors = [grad] + [operand for position, operand in enumerate(operands) if position != index]
    present = set("".join(grad_terms))
    fresh_labels = iter(label for label in _EINSUM_LABELS if label not in sizes)
    result_labels = []
    for label in target:
        if label in result_labels:
            fresh = next(fresh_labels)
            grad_terms.append(label + fresh)
            tensors.append(_eye(sizes[label], grad))
            result_labels.append(fresh)
            continue
        if label not in present:
            grad_terms.append(label)
            tensors.append(new_tensor(np.ones(sizes[label], dtype=grad._data.dtype)))
            present.add(label)
        result_labels.append(label)
    return einsum(",".join(grad_terms) + "->" + "".join(result_labels), *tensors)


_EINSUM_LABELS = string.ascii_letters


def _parse_einsum(equation, shapes):
    """Subscripts with the ellipsis replaced by explicit labels, the output labels, and each label's
    (broadcast) size. Errors name the operand and label at fault."""
    equation = equation.replace(" ", "")
    left, arrow, right = equation.partition("->")
    raw_terms = left.split(",")
    if len(raw_terms) != len(shapes):
        more = "more" if len(shapes) > len(raw_terms) else "fewer"
        raise RuntimeError(
            f"einsum(): {more} operands were provided than specified in the equation "
            f"{equation!r} ({len(shapes)} operands, {len(raw_terms)} subscript terms)"
        )
    for character in equation.replace("...", "").replace(",", "").replace("->", ""):
        if character not in _EINSUM_LABELS:
            raise RuntimeError(
                f"einsum(): invalid subscript given at index {equation.index(character)} in the "
                f"equation string {equation!r}, subscripts must be in [a-zA-Z]"
            )
    unused = [label for label in _EINSUM_LABELS if label not in equation]
    ellipsis_ndim = 0
    for position, (term, shape) in enumerate(zip(raw_terms, shapes)):
        explicit = len(term.replace("...", ""))
        if "..." in term:
            ellipsis_ndim = max(ellipsis_ndim, len(shape) - explicit)
        if (explicit > len(shape)) or ("..." not in term and explicit != len(shape)):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({explicit}) does not match the "
                f"number of dimensions ({len(shape)}) for operand {position}"
                + ("" if "..." in term else " and no ellipsis was given")
            )
    ellipsis_labels = "".join(unused[:ellipsis_ndim])
    terms = []
    for term, shape in zip(raw_terms, shapes):
        count = len(shape) - len(term.replace("...", ""))
        terms.append(term.replace("...", ellipsis_labels[ellipsis_ndim - count :]))
    sizes = {}
    for position, (term, shape) in enumerate(zip(terms, shapes)):
        for label, size in zip(term, shape):
            known = sizes.get(label, 1)
            if size != known and known != 1 and size != 1:
                raise RuntimeError(
                    f"einsum(): subscript {label} has size {size} for operand {position} which does "
                    f"not broadcast with previously seen size {known}"
                )
            sizes[label] = max(known, size) if size != 0 and known != 0 else 0
    if arrow:
        output = right.replace("...", ellipsis_labels)
        for label in output:
            if label not in sizes:
                raise RuntimeError(
                    f"einsum(): output subscript {label} does not appear in the equation for any input operand"
                )
            if output.count(label) > 1:
                raise RuntimeError(f"einsum(): output subscript {label} appears more than once in the output")
    else:
        counts = collections.Counter("".join(terms))
        output = ellipsis_labels + "".join(
            sorted(label for label in counts if counts[label] == 1 and label not in ellipsis_labels)
        )
    return tuple(terms), output, sizes


@op(Einsum)
def einsum(equation, *operands):
    """Sum of products over the labelled dims of `operands` (Einstein notation), e.g.
    `einsum('bij,bjk->bik', a, b)`; the ellipsis, repeated labels ('ii->i') and the implicit output
    (no '->') follow PyTorch. Operands may also be given as one list. Differentiable to any order.
    """
    if _autocast.ever_enabled and _autocast.state.lower is not None:
        operands = _autocast.lower_precision(*operands)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' must be str, not {type(equation).__name__}")
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    _check_products("einsum", *operands)
    spec = _parse_einsum(equation, [operand._data.shape for operand in operands])
    return Einsum.apply(spec, *operands)


@op()
def tensordot(a, b, dims=2, out=None):
    """Contract the last `dims` dims of `a` with the first `dims` of `b`, or the dims listed as
    `([dims of a], [dims of b])`. Built on einsum (so differentiable to any order)."""
    _check_products("tensordot", a, b)
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        dims_a, dims_b = list(range(a.dim() - dims, a.dim())), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(dims_a) != len(dims_b):
        raise RuntimeError(f"both dimension lists should have same length, got {dims_a} and {dims_b}")
    dims_a = [normalize_dim(d, a.dim(), "tensordot") for d in dims_a]
    dims_b = [normalize_dim(d, b.dim(), "tensordot") for d in dims_b]
    labels = iter(_EINSUM_LABELS)
    term_a = [next(labels) for _ in range(a.dim())]
    term_b = [next(labels) for _ in range(b.dim())]
    for dim_a, dim_b in zip(dims_a, dims_b):
        size_a, size_b = a._data.shape[dim_a], b._data.shape[dim_b]
        if size_a != size_b:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {size_a} in dim {dim_a} and "
                f"second has size {size_b} in dim {dim_b}"
            )
        term_b[dim_b] = term_a[dim_a]
    output = [label for d, label in enumerate(term_a) if d not in dims_a] + [
        label for d, label in enumerate(term_b) if d not in dims_b
    ]
    equation = f"{''.join(term_a)},{''.join(term_b)}->{''.join(output)}"
    return _write_out(einsum(equation, a, b), out)


@op(method=True)
def kron(input, other, *, out=None):
    """Kronecker product: blocks `input[i, j] * other` (any number of dims; the shorter gets leading 1s)."""
    _check_products("kron", input, other, same_dtype=False)
    ndim = max(input.dim(), other.dim())
    shape_a = (1,) * (ndim - input.dim()) + tuple(input.shape)
    shape_b = (1,) * (ndim - other.dim()) + tuple(other.shape)
    # Interleave: a -> (a0, 1, a1, 1, ...), b -> (1, b0, 1, b1, ...); the product's pairs merge.
    a = input.reshape(tuple(size for pair in zip(shape_a, (1,) * ndim) for size in pair))
    b = other.reshape(tuple(size for pair in zip((1,) * ndim, shape_b) for size in pair))
    return _write_out((a * b).reshape(tuple(x * y for x, y in zip(shape_a, shape_b))), out)


class Trace(Primitive, node="TraceBackward0"):
    @staticmethod
    def forward(ctx, a):
        ctx.shape = a.shape
        dtype = np.int64 if a.dtype.kind in "biu" else a.dtype  # PyTorch sums integers as int64
        return np.asarray(np.trace(a, dtype=dtype))

    @staticmethod
    def backward(ctx, grad):
        rows, columns = ctx.shape
        return grad * new_tensor(np.eye(rows, columns, dtype=grad._data.dtype))


@op(Trace, method=True)
def trace(input):
    """Sum of the main diagonal of a matrix."""
    _check_tensor(input, "trace")
    if input._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input._data.ndim}")
    return Trace.apply(input)


@op(method=True)
def cross(input, other, dim=None, *, out=None):
    """Cross product of 3-vectors along `dim` (the operands broadcast). `dim=None` takes the first dim of
    size 3, as `torch.cross` does; `linalg.cross` defaults to -1."""
    _check_products("cross", input, other)
    if dim is None:
        _warn_cross_default_dim_once()
        shape = np.broadcast_shapes(input._data.shape, other._data.shape)
        dim = next((d for d, size in enumerate(shape) if size == 3), None)
        if dim is None:
            raise RuntimeError(f"no dimension of size 3 in input (shapes {list(input.shape)} and {list(other.shape)})")
    return _write_out(_cross(input, other, dim, "cross"), out)


_cross_default_dim_warned = False


def _warn_cross_default_dim_once():
    """PyTorch's deprecation of torch.cross's implicit dim, said once per process as it does (TORCH_WARN_ONCE)."""
    global _cross_default_dim_warned
    if not _cross_default_dim_warned:
        _cross_default_dim_warned = True
        _warn(
            "Using torch.cross without specifying the dim arg is deprecated.\n"
            "Please either pass the dim explicitly or simply use torch.linalg.cross.\n"
            "The default value of dim will change to agree with that of linalg.cross in a future release.",
            UserWarning,
            stacklevel=3,
        )


def _cross(input, other, dim, op_name):
    if input.dim() != other.dim():
        raise RuntimeError(
            f"{op_name}: inputs must have the same number of dimensions, got {input.dim()} and {other.dim()}"
        )
    dim = normalize_dim(dim, input.dim(), op_name)
    if input._data.shape[dim] != 3 or other._data.shape[dim] != 3:
        raise RuntimeError(
            f"{op_name}: inputs dimension {dim} must have length 3. Got {input._data.shape[dim]} and "
            f"{other._data.shape[dim]}"
        )
    a, b = input.movedim(dim, -1), other.movedim(dim, -1)
    next_, after = [1, 2, 0], [2, 0, 1]
    result = a[..., next_] * b[..., after] - a[..., after] * b[..., next_]
    return result.movedim(-1, dim)


class BlockDiag(Primitive, node="BlockDiagBackward0"):
    @staticmethod
    def forward(ctx, numpy_dtype, *arrays):
        blocks = [
            array.reshape((1, -1) if array.ndim == 1 else (1, 1) if array.ndim == 0 else array.shape)
            for array in arrays
        ]
        ctx.shapes = [array.shape for array in arrays]
        ctx.corners = np.cumsum([(0, 0)] + [block.shape for block in blocks], axis=0).tolist()
        result = np.zeros(ctx.corners[-1], dtype=numpy_dtype)
        for block, (row, column), (end_row, end_column) in zip(blocks, ctx.corners, ctx.corners[1:]):
            result[row:end_row, column:end_column] = block
        return result

    @staticmethod
    def backward(ctx, grad):
        corners = ctx.corners
        return (None,) + tuple(
            grad[row:end_row, column:end_column].reshape(shape)
            for shape, (row, column), (end_row, end_column) in zip(ctx.shapes, corners, corners[1:])
        )


@op(BlockDiag)
def block_diag(*tensors):
    """A block-diagonal matrix of the given 0-, 1- or 2-D tensors (dtypes promote)."""
    for position, value in enumerate(tensors):
        _check_tensor(value, "block_diag", f"tensors[{position}]")
        if value._data.ndim > 2:
            raise RuntimeError(
                f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {position} "
                f"has {value._data.ndim} dimensions"
            )
    if not tensors:
        return _constant(np.zeros((1, 0), dtype=_dtype.get_default_dtype().numpy_dtype))  # PyTorch's shape
    result_dtype = tensors[0].dtype
    for value in tensors[1:]:
        result_dtype = _dtype.promote_types(result_dtype, value.dtype)
    return BlockDiag.apply(result_dtype.numpy_dtype, *tensors)


@op()
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """p-norm distances between the rows of `x1` (..., P, M) and of `x2` (..., R, M): shape (..., P, R)."""
    _check_products("cdist", x1, x2)
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D, X2 got: {x2.dim()}D")
    if x1._data.shape[-1] != x2._data.shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1._data.shape[-1]} X2: {x2._data.shape[-1]}"
        )
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got {p}")
    return vector_norm(x1.unsqueeze(-2) - x2.unsqueeze(-3), p, dim=-1)


# ================================================================= norms
def _check_norm_input(x, op_name, dtype, complex_ok=False):
    _check_tensor(x, op_name, "x")
    if dtype is not None:
        x = x.to(dtype)
    if x._data.dtype.kind not in "fV" and not (complex_ok and x._data.dtype.kind == "c"):
        raise RuntimeError(
            f"{op_name}: Expected a floating point tensor as input. Got {x.dtype}; convert it first, e.g. x.float()"
        )
    return x


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """The vector `ord`-norm of `x` over `dim` (None: all elements, whatever the shape)."""
    x = _check_norm_input(x, "linalg.vector_norm", dtype, complex_ok=True)
    if isinstance(ord, str) or isinstance(ord, bool):
        raise TypeError(f"linalg.vector_norm(): argument 'ord' must be a number, not {type(ord).__name__}")
    dims = normalize_dims(dim, x._data.ndim, "linalg.vector_norm") if dim != () else tuple(range(x._data.ndim))
    if ord < 0 and x._data.size == 0:
        raise RuntimeError(
            f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor because the "
            "operation does not have an identity"
        )
    return _write_out(LinalgVectorNorm.apply(x, float(ord), dims, keepdim), out)


def _matrix_dims(dim, ndim, op_name):
    if len(dim) != 2:
        raise RuntimeError(f"{op_name}: dim must be a 2-tuple. Got {tuple(dim)}")
    first, second = (normalize_dim(d, ndim, op_name) for d in dim)
    if first == second:
        raise RuntimeError(f"{op_name}: dims must be different. Got ({dim[0]}, {dim[1]})")
    return first, second


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """Matrix norm over the two dims `dim`: 'fro', 'nuc', +-1 (max/min column sum), +-inf (rows), +-2
    (largest/smallest singular value)."""
    A = _check_norm_input(A, "linalg.matrix_norm", dtype)
    if A._data.ndim < 2:
        raise RuntimeError(
            f"linalg.matrix_norm: The input tensor A must have at least 2 dimensions, got shape {list(A.shape)}"
        )
    rows, columns = _matrix_dims(dim, A._data.ndim, "linalg.matrix_norm")
    if ord == "fro":
        return _write_out(vector_norm(A, 2, (rows, columns), keepdim), out)
    if ord not in ("nuc", 1, -1, 2, -2, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    moved = A.movedim((rows, columns), (-2, -1))
    if ord in ("nuc", 2, -2):
        singular_values = svdvals(moved)
        result = singular_values.sum(-1) if ord == "nuc" else singular_values[..., 0 if ord == 2 else -1]
    else:
        # Largest/smallest absolute column (ord +-1) or row (ord +-inf) sum: the +-inf norm of the sums.
        sums = moved.abs().sum(-2 if abs(ord) == 1 else -1)
        result = vector_norm(sums, math.inf if ord > 0 else -math.inf, -1)
    if keepdim:
        result = result.reshape(tuple(1 if d in (rows, columns) else size for d, size in enumerate(A.shape)))
    return _write_out(result, out)


def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """`linalg.norm`: a vector norm over one dim (or all, when ord is None), a matrix norm over two."""
    _check_tensor(A, "linalg.norm", "A")
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None and len(dim) == 2 or (dim is None and ord is not None and A.dim() == 2):
        return matrix_norm(
            A, "fro" if ord is None else ord, (-2, -1) if dim is None else dim, keepdim, dtype=dtype, out=out
        )
    if dim is None and ord is not None and A.dim() != 1:
        raise RuntimeError(
            f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {A.dim()}D."
        )
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype, out=out)


@op(method=True)
def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """`torch.norm` (and `Tensor.norm`): p='fro' or a number is a vector norm over `dim` (all elements
    by default, even of a matrix); p='nuc' is the nuclear norm over two dims. Prefer `linalg.norm`."""
    _check_tensor(input, "norm")
    if isinstance(dim, int):
        dim = (dim,)
    if p == "nuc":
        return matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim, dtype=dtype, out=out)
    if p == "fro" or p is None:
        p = 2
    if isinstance(p, str):
        raise RuntimeError(f"norm: unsupported p {p!r}: use 'fro', 'nuc' or a number")
    return vector_norm(input, p, dim, keepdim, dtype=dtype, out=out)


def _deprecated_norm(name, replacement):
    _warn(
        f"at::{name} is deprecated and it is just left for JIT compatibility. It will be removed in a future "
        f"PyTorch release. Please use `{replacement}` instead",
        UserWarning,
        stacklevel=3,
    )


@op()
def frobenius_norm(input, dim, keepdim=False, *, out=None):
    """The 2-norm over one or two dims (`dim` is required): PyTorch's deprecated spelling of
    `linalg.vector_norm(input, 2, dim, keepdim)`."""
    _check_tensor(input, "frobenius_norm")
    _deprecated_norm("frobenius_norm", "linalg.vector_norm(A, 2., dim, keepdim)")
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions instead.")
    return vector_norm(input, 2, dims, keepdim, out=out)


@op()
def nuclear_norm(input, dim=(-2, -1), keepdim=False, *, out=None):
    """The sum of singular values over the matrix dims `dim` (the last two by default): PyTorch's
    deprecated spelling of `linalg.matrix_norm(input, 'nuc', dim, keepdim)`. As in PyTorch, the
    second positional argument may be `keepdim`."""
    _check_tensor(input, "nuclear_norm")
    _deprecated_norm("nuclear_norm", "linalg.matrix_norm(A, 'nuc', dim, keepdim)")
    if isinstance(dim, bool):  # torch.nuclear_norm(input, keepdim)
        dim, keepdim = (-2, -1), dim
    return matrix_norm(input, "nuc", dim, keepdim, out=out)


@op(method=True)
def dist(input, other, p=2):
    """The p-norm of `input - other` (broadcast), a 0-d tensor. Composite: its grad_fn is the norm's
    node (PyTorch records one DistBackward0)."""
    _check_tensor(input, "dist")
    return vector_norm(input - other, p)


# ================================================================= inverse, determinants, solve
class Inverse(Primitive, node="LinalgInvExBackward0", holomorphic=True):
    """The inverse and LAPACK's info (int32 per matrix, 0 or the index of U's zero pivot); with
    `check_errors`, a singular matrix raises LinAlgError naming it."""

    @staticmethod
    def forward(ctx, a, op_name, check_errors):
        result, info = solved_with_info(np.linalg.inv, a)
        if check_errors and info.any():
            raise LinAlgError(
                failure_message(op_name, info, zero_pivot)
                + " linalg.pinv gives a pseudo-inverse; linalg.inv_ex reports singular matrices in its info."
            )
        ctx.save_for_backward(result)
        ctx.mark_non_differentiable(info)
        return result, info

    @staticmethod
    def backward(ctx, grad, grad_info):
        inverse_t = ctx.saved_tensors[0].mT
        return -matmul(matmul(inverse_t, grad), inverse_t), None, None

    @staticmethod
    def jvp(ctx, tangent, _op_name, _check_errors):
        inverse = ctx.outputs[0].detach()
        return -matmul(matmul(inverse, tangent), inverse), None


@op(Inverse, method=True)
def inverse(input, *, out=None):
    """Inverse of a square matrix (or of each in a batch); LinAlgError (a RuntimeError) if singular."""
    _check_matrix_input(input, "linalg.inv", complex_ok=True)
    return _write_out(Inverse.apply(input, "linalg.inv", True)[0], out)


def _cofactor_gradient(grad, a):
    """`grad[..., None, None] * inv(a)^T`: the gradient of log|det| (and, times det, of det)."""
    return grad.unsqueeze(-1).unsqueeze(-1) * inverse(a).mT


class Det(Primitive, node="LinalgDetBackward0", holomorphic=True):
    """Determinant. Backward uses the inverse, so it raises for exactly singular matrices (PyTorch
    goes through the SVD there)."""

    @staticmethod
    def forward(ctx, a):
        result = np.asarray(np.linalg.det(a))
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        a, result = ctx.saved_tensors
        return _cofactor_gradient(grad * result, a)


@op(Det, method=True)
def det(input):
    """Determinant of a square matrix (or of each in a batch)."""
    _check_matrix_input(input, "linalg.det", complex_ok=True)
    return Det.apply(input)


class Slogdet(Primitive, node="LinalgSlogdetBackward0"):
    @staticmethod
    def forward(ctx, a):
        sign, logabsdet = (np.asarray(part) for part in np.linalg.slogdet(a))
        ctx.save_for_backward(a)
        ctx.mark_non_differentiable(sign)
        return sign, logabsdet

    @staticmethod
    def backward(ctx, grad_sign, grad_logabsdet):
        (a,) = ctx.saved_tensors
        return _cofactor_gradient(grad_logabsdet, a)


@op(Slogdet, method=True)
def slogdet(input):
    """`(sign, logabsdet)` of the determinant: stable where `det` would under- or overflow."""
    _check_matrix_input(input, "linalg.slogdet")
    return SlogdetResult(*Slogdet.apply(input))


@op(Slogdet, method=True)
def logdet(input):
    """log(det(input)): nan for a negative determinant, -inf for zero."""
    _check_matrix_input(input, "logdet")
    sign, logabsdet = Slogdet.apply(input)
    otherwise = np.where(sign._data < 0, np.nan, -np.inf).astype(logabsdet._data.dtype)
    from .indexing import where

    return where(sign > 0, logabsdet, _constant(otherwise))


class Solve(Primitive, node="LinalgSolveExBackward0", holomorphic=True):
    """X with A X = B, and LAPACK's info per matrix; `vector` says B (and X) are (batches of) vectors
    rather than matrices. With `check_errors`, a singular A raises LinAlgError."""

    @staticmethod
    def forward(ctx, a, b, vector, op_name="linalg.solve", check_errors=True):
        x, info = solved_with_info(np.linalg.solve, a, b[..., None] if vector else b)
        if check_errors and info.any():
            raise LinAlgError(
                failure_message(f"torch.{op_name}", info, singular_system)
                + " linalg.lstsq gives a least-squares solution; linalg.solve_ex reports singular matrices in its info."
            )
        ctx.vector = vector
        x = x[..., 0] if vector else x
        ctx.save_for_backward(a, x)
        ctx.mark_non_differentiable(info)
        return x, info

    @staticmethod
    def backward(ctx, grad, grad_info):
        a, x = ctx.saved_tensors
        needs_a, needs_b = ctx.needs_input_grad[:2]
        grad_b = Solve.apply(a.mT, grad, ctx.vector)[0]
        grad_a = None
        if needs_a:
            grad_a = -(grad_b.unsqueeze(-1) * x.unsqueeze(-2)) if ctx.vector else -matmul(grad_b, x.mT)
        return grad_a, (grad_b if needs_b else None), None, None, None

    @staticmethod
    def jvp(ctx, tangent_a, tangent_b, _vector, _op_name, _check_errors):
        # dX = A^-1 (dB - dA X)
        a, vector = ctx.inputs[0], ctx.inputs[2]
        x = ctx.outputs[0].detach()
        change = None
        if tangent_a is not None:
            change = -(matmul(tangent_a, x.unsqueeze(-1)).squeeze(-1) if vector else matmul(tangent_a, x))
        change = add_tangents(change, tangent_b)
        return Solve.apply(a.detach(), change, vector)[0], None


def solve(A, B, *, left=True, out=None):
    """X with A X = B (or X A = B with left=False) for square, invertible A; B may be a (batch of)
    vector(s): B.dim() == 1, or B.shape == A.shape[:-1]."""
    return _write_out(_solve(A, B, left, "linalg.solve", True)[0], out)


def _solve(A, B, left, op_name, check_errors):
    """(X, info) of `solve` / `solve_ex`."""
    _check_matrix_input(A, op_name, complex_ok=True)
    _check_tensor(B, op_name, "B")
    _check_same_dtype(op_name, A, B)
    if not left:
        x, info = _solve(A.mT, B.mT, True, op_name, check_errors)
        return x.mT, info
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and B.shape == A.shape[:-1])
    rows = B._data.shape[-1 if vector else -2] if B.dim() else None
    if rows != A._data.shape[-1]:
        raise RuntimeError(
            f"{op_name}: Incompatible shapes of A and B for the equation AX = B "
            f"({_sizes(A._data.shape[-2:])} and {_sizes(B._data.shape[-2:])})"
        )
    try:
        np.broadcast_shapes(A._data.shape[:-2], B._data.shape[: -1 if vector else -2])
    except ValueError:
        raise RuntimeError(
            f"{op_name}: batch dimensions of A {list(A.shape)} and B {list(B.shape)} do not broadcast"
        ) from None
    return Solve.apply(A, B, vector, op_name, check_errors)


# ================================================================= decompositions
def _lower_masks(n, like):
    """Constant masks: the lower triangle with the diagonal, and without it."""
    lower = np.tril(np.ones((n, n), dtype=like._data.dtype))
    return new_tensor(lower), new_tensor(lower - np.eye(n, dtype=lower.dtype))


class Cholesky(Primitive, node="LinalgCholeskyExBackward0"):
    """The lower factor and LAPACK's info per matrix (0, or the order of the first leading minor that
    is not positive-definite); with `check_errors`, such a matrix raises LinAlgError."""

    @staticmethod
    def forward(ctx, a, op_name, check_errors):
        lower, info = cholesky_with_info(a)
        if check_errors and info.any():
            raise LinAlgError(
                failure_message(op_name, info, not_positive_definite)
                + " The input must be symmetric positive-definite; linalg.cholesky_ex reports such matrices in its info."
            )
        ctx.save_for_backward(lower)
        ctx.mark_non_differentiable(info)
        return lower, info

    @staticmethod
    def backward(ctx, grad, grad_info):
        # gA = sym(L^{-T} Phi(L^T gL) L^{-1}), Phi = lower triangle with the diagonal halved.
        (lower,) = ctx.saved_tensors
        with_diagonal, strict = _lower_masks(lower.shape[-1], lower)
        phi = matmul(lower.mT, grad) * (with_diagonal + strict) * 0.5
        inverse_lower = inverse(lower)
        gradient = matmul(matmul(inverse_lower.mT, phi), inverse_lower)
        return (gradient + gradient.mT) * 0.5, None, None

    @staticmethod
    def jvp(ctx, tangent, _op_name, _check_errors):
        # dL = L Phi(L^-1 dA L^-T), Phi = lower triangle with the diagonal halved.
        lower = ctx.outputs[0].detach()
        with_diagonal, strict = _lower_masks(lower.shape[-1], lower)
        inverse_lower = inverse(lower)
        inner = matmul(matmul(inverse_lower, tangent), inverse_lower.mT)
        return matmul(lower, inner * (with_diagonal + strict) * 0.5), None


@op(Cholesky, method=True)
def cholesky(input, upper=False, *, out=None):
    """L with input = L L^T (lower triangular; with upper=True, U = L^T and input = U^T U).
    Only the lower triangle of `input` is read; it must be symmetric positive-definite."""
    _check_matrix_input(input, "linalg.cholesky")
    lower = Cholesky.apply(input, "linalg.cholesky", True)[0]
    return _write_out(lower.mT if upper else lower, out)


def _qr_tall_backward(grad_q, grad_r, q, r):
    """Gradient of the reduced QR of an m x n matrix with m >= n:
    gA = (gQ + Q copyltu(M)) R^{-T}, M = R gR^T - gQ^T Q, copyltu mirrors the lower triangle up."""
    m = matmul(r, grad_r.mT) - matmul(grad_q.mT, q)
    with_diagonal, strict = _lower_masks(m.shape[-1], m)
    mirrored = m * with_diagonal + (m * strict).mT
    gradient = grad_q + matmul(q, mirrored)
    return solve(r, gradient.mT).mT


class Qr(Primitive, node="LinalgQrBackward0"):
    @staticmethod
    def forward(ctx, a, mode):
        if mode == "r":
            q, r = np.empty((0,), dtype=a.dtype), np.linalg.qr(a, mode="r")
        else:
            q, r = np.linalg.qr(a, mode=mode)
        ctx.mode = mode
        ctx.save_for_backward(q, r)
        return q, r

    @staticmethod
    def backward(ctx, grad_q, grad_r):
        q, r = ctx.saved_tensors
        rows, columns = r.shape[-2], r.shape[-1]
        if ctx.mode == "r":
            raise RuntimeError(
                "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
                "linalg.qr."
            )
        if ctx.mode == "complete" and q.shape[-1] > columns:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
        if rows >= columns:
            return _qr_tall_backward(grad_q, grad_r, q, r), None
        # Wide A = [X | Y] with X square: X = Q U, Y = Q V where R = [U | V]; Q also reaches V.
        grad_u, grad_v, v = grad_r[..., :rows], grad_r[..., rows:], r[..., rows:]
        y = matmul(q, v)
        grad_x = _qr_tall_backward(grad_q + matmul(y, grad_v.mT), grad_u, q, r[..., :rows])
        grad_y = matmul(q, grad_v)
        # [grad_x | grad_y] as products with constant selection matrices (stays differentiable).
        eye = np.eye(columns, dtype=r._data.dtype)
        return matmul(grad_x, _constant(eye[:rows])) + matmul(grad_y, _constant(eye[rows:])), None


def linalg_qr(A, mode="reduced", *, out=None):
    """Q (orthonormal columns) and R (upper triangular) with A = QR; mode 'reduced', 'complete' or 'r'."""
    _check_matrix_input(A, "linalg.qr", square=False)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'"
        )
    return LinalgQrResult(*Qr.apply(A, mode))


@op(method=True)
def qr(input, some=True, *, out=None):
    """`torch.qr`: the reduced (some=True) or complete QR decomposition. Prefer `linalg.qr`."""
    return QrResult(*linalg_qr(input, "reduced" if some else "complete"))


def _off_diagonal_reciprocal(values):
    """F[..., i, j] = 1 / (values_j - values_i) off the diagonal, 0 on it (as ember ops on `values`)."""
    n = values.shape[-1]
    eye = np.eye(n, dtype=values._data.dtype)
    differences = values.unsqueeze(-2) - values.unsqueeze(-1) + _constant(eye)
    return _constant(1 - eye) / differences


class Svd(Primitive, node="LinalgSvdBackward0"):
    """A = U diag(S) Vh. Backward (real case, Townsend's formulas) takes the singular vectors in the
    `full_matrices=True` case only up to the first min(m, n) columns, as PyTorch does."""

    @staticmethod
    def forward(ctx, a, full_matrices):
        u, s, vh = _lapack(np.linalg.svd, "linalg.svd", "the SVD did not converge", a, full_matrices=full_matrices)
        ctx.save_for_backward(u, s, vh)
        ctx.set_materialize_grads(False)
        return u, s, vh

    @staticmethod
    def backward(ctx, grad_u, grad_s, grad_vh):
        u, s, vh = ctx.saved_tensors
        k = s.shape[-1]
        u, vh = u[..., :k], vh[..., :k, :]
        if grad_u is None and grad_vh is None:
            if grad_s is None:
                return None, None
            return matmul(u * grad_s.unsqueeze(-2), vh), None
        rows, columns = u.shape[-2], vh.shape[-1]
        v = vh.mT
        inner = _diag_embed(grad_s) if grad_s is not None else 0
        reciprocal = _off_diagonal_reciprocal(s * s)
        s_row = s.unsqueeze(-2)
        gradient = 0
        if grad_u is not None:
            grad_u = grad_u[..., :k]
            ut_grad_u = matmul(u.mT, grad_u)
            inner = inner + reciprocal * (ut_grad_u - ut_grad_u.mT) * s_row
            if rows > k:
                gradient = gradient + matmul((grad_u - matmul(u, ut_grad_u)) / s_row, vh)
        if grad_vh is not None:
            grad_v = grad_vh[..., :k, :].mT
            vt_grad_v = matmul(v.mT, grad_v)
            inner = inner + s.unsqueeze(-1) * (reciprocal * (vt_grad_v - vt_grad_v.mT))
            if columns > k:
                gradient = gradient + matmul(u, ((grad_v - matmul(v, vt_grad_v)) / s_row).mT)
        return gradient + matmul(matmul(u, inner), vh), None


def linalg_svd(A, full_matrices=True, *, driver=None, out=None):
    """`linalg.svd`: U, S, Vh with A = U diag(S) Vh (full_matrices=True by default, as PyTorch)."""
    _check_matrix_input(A, "linalg.svd", square=False)
    return LinalgSvdResult(*Svd.apply(A, full_matrices))


@op(Svd, method=True)
def svd(input, some=True, compute_uv=True, *, out=None):
    """`torch.svd`: U, S, V (V, not Vh) with input = U diag(S) V^T; reduced unless some=False.
    With compute_uv=False, U (m x m) and V (n x n) are zero-filled, as in PyTorch."""
    _check_matrix_input(input, "svd", square=False)
    u, s, vh = Svd.apply(input, not some)
    if not compute_uv:
        rows, columns = input._data.shape[-2:]
        return SvdResult(
            _constant(np.zeros(input._data.shape[:-1] + (rows,), dtype=u._data.dtype)),
            s,
            _constant(np.zeros(input._data.shape[:-2] + (columns, columns), dtype=u._data.dtype)),
        )
    return SvdResult(u, s, vh.mT)


def svdvals(A, *, driver=None, out=None):
    """Singular values of A, largest first."""
    _check_matrix_input(A, "linalg.svdvals", square=False)
    return _write_out(Svd.apply(A, False)[1], out)


class Eigh(Primitive, node="LinalgEighBackward0"):
    """Eigen-decomposition of a symmetric matrix (one triangle read, chosen by UPLO). The gradient
    is V (diag(gL) + F o skew(V^T gV)) V^T, with F the reciprocal eigenvalue gaps."""

    @staticmethod
    def forward(ctx, a, uplo):
        values, vectors = _lapack(
            np.linalg.eigh, "linalg.eigh", "the eigenvalue algorithm did not converge", a, UPLO=uplo
        )
        ctx.save_for_backward(values, vectors)
        ctx.set_materialize_grads(False)
        return values, vectors

    @staticmethod
    def backward(ctx, grad_values, grad_vectors):
        values, vectors = ctx.saved_tensors
        inner = _diag_embed(grad_values) if grad_values is not None else 0
        if grad_vectors is not None:
            vt_grad_v = matmul(vectors.mT, grad_vectors)
            inner = inner + _off_diagonal_reciprocal(values) * (vt_grad_v - vt_grad_v.mT) * 0.5
        if grad_values is None and grad_vectors is None:
            return None, None
        return matmul(matmul(vectors, inner), vectors.mT), None


def _check_uplo(UPLO, op_name):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"{op_name}: Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


def eigh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending) and orthonormal eigenvectors of a symmetric matrix."""
    _check_matrix_input(A, "linalg.eigh")
    _check_uplo(UPLO, "linalg.eigh")
    return EighResult(*Eigh.apply(A, UPLO))


def eigvalsh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending) of a symmetric matrix."""
    _check_matrix_input(A, "linalg.eigvalsh")
    _check_uplo(UPLO, "linalg.eigvalsh")
    return _write_out(Eigh.apply(A, UPLO)[0], out)


def _rank_tolerance(singular_values, shape, atol, rtol):
    """max(atol, rtol * largest singular value), with rtol = eps * max(m, n) when neither is given."""
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else np.finfo(singular_values.dtype).eps * max(shape[-2:])
    largest = singular_values[..., :1] if singular_values.shape[-1] else np.zeros(singular_values.shape[:-1] + (1,))
    return np.maximum(0.0 if atol is None else atol, rtol * largest).astype(singular_values.dtype)


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """Moore-Penrose pseudo-inverse through the SVD; singular values at or below max(atol, rtol * s_max)
    count as zero."""
    _check_matrix_input(A, "linalg.pinv", square=False)
    u, s, vh = Svd.apply(A, False)
    tolerance = _rank_tolerance(s._data, A._data.shape, atol, rtol)
    keep = _constant(s._data > tolerance)
    from .indexing import where

    reciprocal = where(keep, 1 / where(keep, s, 1.0), 0.0)
    return _write_out(matmul(vh.mT * reciprocal.unsqueeze(-2), u.mT), out)


@op(method=True)
def pinverse(input, rcond=1e-15):
    """`torch.pinverse`: `linalg.pinv` with a relative cutoff `rcond`."""
    return pinv(input, rtol=rcond)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, tol=None, out=None):
    """Number of singular values above max(atol, rtol * s_max) (int64; not differentiable)."""
    _check_matrix_input(A, "linalg.matrix_rank", square=False)
    if tol is not None:
        atol, rtol = tol, 0.0
    singular_values = np.linalg.svd(A._data, compute_uv=False)
    tolerance = _rank_tolerance(singular_values, A._data.shape, atol, rtol)
    return _write_out(_constant(np.sum(singular_values > tolerance, axis=-1).astype(np.int64)), out)


def lstsq(A, B, rcond=None, *, driver=None):
    """Least-squares solution of A X = B (through the pseudo-inverse, so rank-deficient A works).

    Returns (solution, residuals, rank, singular_values) like PyTorch's default CPU driver 'gelsy':
    residuals and singular_values are empty; rank is filled in."""
    _check_matrix_input(A, "linalg.lstsq", square=False)
    _check_tensor(B, "linalg.lstsq", "B")
    _check_same_dtype("linalg.lstsq", A, B)
    vector = B.dim() == A.dim() - 1
    if B._data.shape[-1 if vector else -2] != A._data.shape[-2]:
        raise RuntimeError(
            f"torch.linalg.lstsq: input.size(-2) should match other.size(-2) (A has shape "
            f"{list(A.shape)}, B has shape {list(B.shape)})"
        )
    pseudo_inverse = pinv(A, rtol=rcond)
    solution = matmul(pseudo_inverse, B.unsqueeze(-1)).squeeze(-1) if vector else matmul(pseudo_inverse, B)
    empty = _constant(np.zeros((0,), dtype=A._data.dtype))
    rank = matrix_rank(A.detach(), rtol=rcond)
    return LstsqResult(solution, empty, rank, empty)


# PyTorch's other names for the ops above.
ger = alias(outer, "ger", method=True)


from . import sparse_coo  # noqa: E402  (it builds on this module's products)
