"""Matrix products. One primitive, `Matmul`, on (batched) matrices; the 1-D cases of `matmul`
reshape around it. Batch broadcasting in backward is undone by the engine."""
from .._backend import np
from .._tensor import Tensor
from ..autograd.function import Function
from ._common import prepare_binary

__all__ = ["matmul", "mm", "bmm", "mv", "dot"]


class Matmul(Function):
    _array_forward = True
    _node_name = "MmBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a @ b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        needs_a, needs_b = ctx.needs_input_grad
        grad_a = matmul(grad, b.mT) if needs_a else None
        grad_b = matmul(a.mT, grad) if needs_b else None
        return grad_a, grad_b


class BatchedMatmul(Matmul):
    _node_name = "BmmBackward0"


def _shape_error(op_name, a, b):
    shape_a, shape_b = a._data.shape, b._data.shape
    return RuntimeError(
        f"{op_name}: mat1 and mat2 shapes cannot be multiplied ({'x'.join(map(str, shape_a[-2:]))} and "
        f"{'x'.join(map(str, shape_b[-2:]))}); full shapes {list(shape_a)} and {list(shape_b)}: the last dim "
        "of the first must equal the second-to-last of the second")


def matmul(input, other):
    """Matrix product with NumPy's rules: 1-D operands are vectors, leading dims broadcast."""
    if not isinstance(input, Tensor) or not isinstance(other, Tensor):
        raise TypeError(f"matmul(): arguments must be Tensors, got {type(input).__name__} and "
                        f"{type(other).__name__}")
    input, other = prepare_binary(input, other, "matmul")
    ndim_a, ndim_b = input._data.ndim, other._data.ndim
    if ndim_a == 0 or ndim_b == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {ndim_a}D and {ndim_b}D")
    if input._data.shape[-1] != other._data.shape[-2 if ndim_b > 1 else 0]:
        if ndim_a == 1 and ndim_b == 1:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{input._data.shape[0]}] and src "
                               f"[{other._data.shape[0]}] to have the same number of elements, but got "
                               f"{input._data.shape[0]} and {other._data.shape[0]} elements respectively")
        raise _shape_error("matmul", input, other)
    if ndim_a == 1 and ndim_b == 1:
        return (input.unsqueeze(0) @ other.unsqueeze(1)).reshape(())
    if ndim_a == 1:
        return Matmul.apply(input.unsqueeze(0), other).squeeze(-2)
    if ndim_b == 1:
        return Matmul.apply(input, other.unsqueeze(1)).squeeze(-1)
    try:
        return (Matmul if ndim_a == 2 and ndim_b == 2 else BatchedMatmul).apply(input, other)
    except ValueError:
        raise RuntimeError(f"matmul: batch dimensions of {list(input.shape)} and {list(other.shape)} cannot be "
                           "broadcast together") from None


def mm(input, mat2):
    """Product of two matrices (2-D only; `matmul` broadcasts)."""
    if input.dim() != 2 or mat2.dim() != 2:
        raise RuntimeError(f"mm: expected 2-D tensors, got {input.dim()}-D and {mat2.dim()}-D "
                           f"(shapes {list(input.shape)} and {list(mat2.shape)})")
    if input._data.shape[1] != mat2._data.shape[0]:
        raise _shape_error("mm", input, mat2)
    return matmul(input, mat2)


def bmm(input, mat2):
    """Batched product of (b, n, m) and (b, m, p) tensors."""
    if input.dim() != 3 or mat2.dim() != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor (got {list(input.shape)} and {list(mat2.shape)})")
    if input._data.shape[0] != mat2._data.shape[0]:
        raise RuntimeError(f"bmm: batch sizes differ: {list(input.shape)} and {list(mat2.shape)}")
    return matmul(input, mat2)


def mv(input, vec):
    if input.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.dim()}, {vec.dim()}")
    return matmul(input, vec)


def dot(input, other):
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D tensors")
    return matmul(input, other)
