"""`SparseCoo`: what a sparse COO tensor holds in place of a dense array (its `_data`).

A sparse tensor is an ordinary `Tensor` whose `_data` is this object, so autograd, `requires_grad`,
`grad_fn` and the engine treat it like any tensor: a primitive's forward receives it and may return
one. It answers the metadata questions a dense array answers (`shape`, `dtype`, `ndim`, `size`),
so `x.shape`, `x.dtype` and the engine's gradient checks work unchanged.

Everything else an op might do with an array (a NumPy function, a ufunc, a method such as
`reshape`) raises PyTorch's NotImplementedError for the 'SparseCPU' backend instead of computing
garbage from the COO arrays: an op takes sparse tensors only where it says so (`ember.ops.sparse_coo`).
"""

import math

import numpy as np

__all__ = ["SparseCoo", "sparse_backend_error"]


def sparse_backend_error(name):
    """PyTorch's error for an op that has no sparse kernel, naming what to do instead."""
    return NotImplementedError(
        f"Could not run 'aten::{name}' with arguments from the 'SparseCPU' backend: ember's '{name}' takes "
        "dense (strided) tensors only. Convert with .to_dense() first, or use an op that takes sparse COO "
        "tensors (torch.sparse.mm, torch.spmm, torch.sparse.sum, coalesce, to_dense, +, * by a scalar)."
    )


class SparseCoo:
    """The COO arrays of one sparse tensor: `indices` (int64, sparse_dim x nnz), `values`
    (nnz x dense dims), the dense `shape`, and whether the indices are known sorted and unique."""

    __slots__ = ("indices", "values", "shape", "coalesced")

    def __init__(self, indices, values, shape, coalesced=False):
        self.indices = indices
        self.values = values
        self.shape = tuple(shape)
        self.coalesced = coalesced

    # ------------------------------------------------------------- what a dense array would answer
    @property
    def dtype(self):
        return self.values.dtype

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return math.prod(self.shape)

    @property
    def itemsize(self):
        return self.values.itemsize

    @property
    def nbytes(self):
        return self.indices.nbytes + self.values.nbytes

    @property
    def sparse_dim(self):
        return self.indices.shape[0]

    @property
    def nnz(self):
        return self.indices.shape[1]

    # ------------------------------------------------------------- kernels
    def coalesce(self):
        """Indices sorted and unique, the values at a repeated index summed (PyTorch's order: row-major)."""
        if self.coalesced:
            return self
        sparse_shape = self.shape[: self.sparse_dim]
        if self.nnz == 0:
            return SparseCoo(self.indices, self.values, self.shape, True)
        linear = np.ravel_multi_index(tuple(self.indices), sparse_shape) if sparse_shape else np.zeros(self.nnz, int)
        unique, position = np.unique(linear, return_inverse=True)
        values = np.zeros((len(unique),) + self.values.shape[1:], self.values.dtype)
        np.add.at(values, position, self.values)
        indices = np.array(np.unravel_index(unique, sparse_shape), dtype=np.int64).reshape(len(sparse_shape), -1)
        return SparseCoo(indices, values, self.shape, True)

    def to_dense(self):
        dense = np.zeros(self.shape, self.values.dtype)
        np.add.at(dense, tuple(self.indices), self.values)
        return dense

    @classmethod
    def from_dense(cls, array, sparse_dim=None):
        """The nonzero entries of `array` (a slice over the dense dims counts if any element is nonzero)."""
        sparse_dim = array.ndim if sparse_dim is None else sparse_dim
        leading = array.reshape(array.shape[:sparse_dim] + (-1,)) if sparse_dim < array.ndim else array[..., None]
        mask = (leading != 0).any(axis=-1)
        indices = np.array(np.nonzero(mask), dtype=np.int64).reshape(sparse_dim, -1)
        return cls(indices, array[tuple(indices)].copy(), array.shape, True)

    def copy(self, order="K"):
        """What `clone()` makes: new arrays, the same entries."""
        return SparseCoo(self.indices.copy(), self.values.copy(), self.shape, self.coalesced)

    def astype(self, dtype, copy=True):
        """What `to(dtype)` makes: the values converted, the pattern kept."""
        return self.with_values(self.values.astype(dtype, copy=copy))

    def with_values(self, values, coalesced=None):
        return SparseCoo(self.indices, values, self.shape, self.coalesced if coalesced is None else coalesced)

    # ------------------------------------------------------------- everything else is refused
    def __array__(self, dtype=None, copy=None):
        raise sparse_backend_error("to_numpy")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method == "__call__" and set(kwargs) <= {"out"}:
            result = _linear_arithmetic(ufunc, inputs)
            if result is not None and not kwargs:
                return result
            if isinstance(result, np.ndarray):  # `dense += sparse`: the engine accumulating a gradient
                (out,) = kwargs["out"]
                out[...] = result
                return out
        raise sparse_backend_error(ufunc.__name__)

    # The arithmetic PyTorch defines on sparse tensors (so Add, Mul and their backwards take them).
    def __add__(self, other):
        return self.__array_ufunc__(np.add, "__call__", self, other)

    def __radd__(self, other):
        return self.__array_ufunc__(np.add, "__call__", other, self)

    def __iadd__(self, other):
        """The engine adding a gradient into a sparse `.grad`: a dense gradient makes it dense (as PyTorch)."""
        if isinstance(other, np.ndarray):
            return np.add(other, self)
        return self + other

    def __sub__(self, other):
        return self.__array_ufunc__(np.subtract, "__call__", self, other)

    def __rsub__(self, other):
        return self.__array_ufunc__(np.subtract, "__call__", other, self)

    def __mul__(self, other):
        return self.__array_ufunc__(np.multiply, "__call__", self, other)

    def __rmul__(self, other):
        return self.__array_ufunc__(np.multiply, "__call__", other, self)

    def __truediv__(self, other):
        return self.__array_ufunc__(np.true_divide, "__call__", self, other)

    def __neg__(self):
        return self.__array_ufunc__(np.negative, "__call__", self)

    def __array_function__(self, function, types, args, kwargs):
        raise sparse_backend_error(function.__name__)

    def __getattr__(self, name):
        if name.startswith("__"):  # protocol probes (`__array_interface__`) must see a plain absence
            raise AttributeError(name)
        raise sparse_backend_error(name)

    def __getitem__(self, key):
        raise sparse_backend_error("index")

    def __len__(self):
        return self.shape[0]


def _is_scalar(value):
    return isinstance(value, (int, float, bool, np.number)) or (isinstance(value, np.ndarray) and value.ndim == 0)


def _linear_arithmetic(ufunc, inputs):
    """sparse ± sparse (indices joined, coalesced when both were), dense ± sparse (dense), sparse * or /
    a scalar, -sparse; None for anything else."""
    if ufunc is np.negative and len(inputs) == 1:
        return inputs[0].with_values(-inputs[0].values)
    if len(inputs) != 2:
        return None
    a, b = inputs
    if ufunc in (np.add, np.subtract):
        sparse_a, sparse_b = type(a) is SparseCoo, type(b) is SparseCoo
        if sparse_a and sparse_b and a.shape == b.shape and a.sparse_dim == b.sparse_dim:
            values_b = -b.values if ufunc is np.subtract else b.values
            dtype = np.result_type(a.values, values_b)
            joined = SparseCoo(
                np.concatenate([a.indices, b.indices], axis=1),
                np.concatenate([a.values.astype(dtype, copy=False), values_b.astype(dtype, copy=False)]),
                a.shape,
            )
            return joined.coalesce() if a.coalesced and b.coalesced else joined
        if sparse_a and isinstance(b, np.ndarray):
            raise RuntimeError(
                f"{ufunc.__name__}(sparse, dense) is not supported. Use {ufunc.__name__}(dense, sparse) instead."
            )
        if isinstance(a, np.ndarray):
            return ufunc(a, b.to_dense())
        return None
    if ufunc is np.multiply and _is_scalar(b):
        return a.with_values(a.values * b)
    if ufunc is np.multiply and _is_scalar(a):
        return b.with_values(a * b.values)
    if ufunc is np.true_divide and type(a) is SparseCoo and _is_scalar(b):
        return a.with_values(a.values / b)
    return None
