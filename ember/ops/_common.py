"""Argument handling every op family shares: dims, operands, dtype promotion."""

import numbers

from .._backend import np
from .._tensor import Tensor, new_tensor
from .. import _dtype

__all__ = ["normalize_dim", "normalize_dims", "prepare_binary", "as_tensor", "check_floating", "check_broadcastable"]


def c_contiguous(array):
    """`array`, or a C-ordered copy of it: for ops whose PyTorch result is contiguous whatever the
    input's layout (NumPy's would follow the input's, or come out transposed), so `.view` works."""
    return array if array.flags.c_contiguous else np.ascontiguousarray(array)


def normalize_dim(dim, ndim, op_name=None):
    """A dim in [-ndim, ndim) as a non-negative index; IndexError (as PyTorch) otherwise."""
    if type(dim) is int and -ndim <= dim < ndim:
        return dim if dim >= 0 else dim + ndim  # the common cases, on the path of every shape op
    if isinstance(dim, Tensor):
        dim = dim.item()
    rank = max(ndim, 1)
    if not -rank <= dim < rank:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], "
            f"but got {dim})" + (f" in {op_name}" if op_name else "")
        )
    return dim % rank


def normalize_dims(dim, ndim, op_name=None):
    """None (all dims), an int, or a sequence of ints as a sorted tuple of non-negative dims."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (int, np.integer)):
        dims = (normalize_dim(dim, ndim, op_name),)
    else:
        dims = tuple(normalize_dim(d, ndim, op_name) for d in dim)
    if ndim == 0:
        return ()  # a 0-d tensor accepts dim 0 or -1, and reducing over it changes nothing
    if len(set(dims)) != len(dims):
        raise RuntimeError(
            f"dim {list(dim)} appears multiple times in the list of dims" + (f" of {op_name}" if op_name else "")
        )
    return tuple(sorted(dims))


def as_tensor(value, dtype=None):
    """Tensors pass through; numbers, lists and arrays become constant tensors."""
    if isinstance(value, Tensor):
        return value if dtype is None or value._data.dtype == dtype.numpy_dtype else value.to(dtype)
    if dtype is None:
        if isinstance(value, np.ndarray):
            return new_tensor(value)
        dtype = _infer_dtype(value)
    return new_tensor(np.asarray(value, dtype=dtype.numpy_dtype))


def _infer_dtype(value):
    if isinstance(value, bool):
        return _dtype.bool_
    if isinstance(value, numbers.Integral):
        return _dtype.int64
    if isinstance(value, numbers.Real):
        return _dtype.get_default_dtype()
    if isinstance(value, numbers.Complex):
        return _dtype.get_default_dtype().to_complex()
    array = np.asarray(value)
    if array.dtype.kind in "fV":
        return _dtype.get_default_dtype()
    return _dtype.from_numpy_dtype(array.dtype)


_SCALAR_TYPES = (int, float, bool, complex)


def prepare_binary(a, b, op_name):
    """Bring two operands (tensors or numbers) to PyTorch's result dtype.

    Python numbers stay numbers whenever NumPy already keeps the tensor's dtype (NEP 50), so the
    common `tensor * 2.0` and same-dtype `tensor * tensor` cost one comparison here.
    """
    a_is_tensor = isinstance(a, Tensor)
    b_is_tensor = isinstance(b, Tensor)
    if a_is_tensor and b_is_tensor:
        if a._data.dtype == b._data.dtype:
            return a, b
        target = _dtype.result_type(a, b)
        return _cast(a, target), _cast(b, target)
    if not a_is_tensor and not b_is_tensor:
        raise TypeError(
            f"{op_name}: expected at least one tensor operand, got {type(a).__name__} and {type(b).__name__}"
        )
    tensor, other = (a, b) if a_is_tensor else (b, a)
    if type(other) not in _SCALAR_TYPES:
        other = _number_or_tensor(other, op_name)
        return prepare_binary(tensor, other, op_name) if a_is_tensor else prepare_binary(other, tensor, op_name)
    tensor_dtype = _dtype.from_numpy_dtype(tensor._data.dtype)
    if _dtype.scalar_category(other) > tensor_dtype._category:
        # int tensor * 2.5 is float32 in PyTorch (float64 in NumPy): cast the tensor side first.
        tensor = _cast(tensor, _dtype.result_type_of_scalar(tensor_dtype, other))
    elif type(other) is int and tensor_dtype._category == 1:
        other = _wrapped_integer(other, tensor._data.dtype)
    return (tensor, other) if a_is_tensor else (other, tensor)


def _wrapped_integer(value, numpy_dtype):
    """A Python int outside an integer tensor's range wraps around, as in PyTorch (uint8 + -3 adds 253,
    uint8 < -3 compares with 253); NumPy would raise OverflowError instead."""
    limits = np.iinfo(numpy_dtype)
    if limits.min <= value <= limits.max:
        return value
    return np.array(value & 0xFFFFFFFFFFFFFFFF, dtype=np.uint64).astype(numpy_dtype)[()]


def _number_or_tensor(value, op_name):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (np.ndarray, list, tuple)):
        return as_tensor(value)
    if isinstance(value, numbers.Real):
        return float(value) if not isinstance(value, numbers.Integral) else int(value)
    if isinstance(value, numbers.Complex):
        return complex(value)
    raise TypeError(f"{op_name}: unsupported operand type {type(value).__name__}; expected a Tensor or a number")


def _cast(tensor, dtype):
    return tensor if tensor._data.dtype == dtype.numpy_dtype else tensor.to(dtype)


def check_floating(tensor, op_name):
    if tensor._data.dtype.kind not in "fcV":
        raise RuntimeError(f"{op_name}: expected a floating point tensor, got {tensor.dtype}")


def check_broadcastable(a, b, op_name):
    """RuntimeError naming both shapes, before NumPy raises its own ValueError."""
    shape_a = a._data.shape if isinstance(a, Tensor) else ()
    shape_b = b._data.shape if isinstance(b, Tensor) else ()
    for index, (size_a, size_b) in enumerate(zip(reversed(shape_a), reversed(shape_b))):
        if size_a != size_b and size_a != 1 and size_b != 1:
            dim = max(len(shape_a), len(shape_b)) - 1 - index
            raise RuntimeError(  # PyTorch's words first (scripts print or match them), then ember's detail
                f"The size of tensor a ({size_a}) must match the size of tensor b ({size_b}) at "
                f"non-singleton dimension {dim} ({op_name}: shapes {list(shape_a)} and {list(shape_b)})"
            )
