"""`Tensor`: a NumPy array plus the fields autograd needs (the ovals of the book's graph drawings).

The class holds data and graph fields; its operators and methods delegate the maths to `ember.ops`,
which sits above this module and is bound once at the bottom of this file (`_ops`). Methods that are
ops (`x.exp()`, `a | b`) come from their declarations in `ember.ops`, bound on first use (`_op_method`).
"""

import threading
from typing import TYPE_CHECKING, Callable, Optional, Sequence

import numpy as np

from . import _dtype
from . import _naming
from . import _storage
from . import _validation
from ._backend import CPU, to_device
from ._size import Size
from ._layout import sparse_coo, strided
from ._numpy_names import accepting_numpy_names, takes_dim
from ._sparse_coo import SparseCoo
from ._warn import warn as _warn

if TYPE_CHECKING:
    from .utils.hooks import RemovableHandle

__all__ = ["Tensor", "new_tensor", "VersionCounter"]


class VersionCounter:
    """Counts in-place changes; shared by a tensor and its views, created on first need."""

    __slots__ = ("value",)

    def __init__(self, value=0):
        self.value = value


# Inference tensors (made under `inference_mode`) all hold this one counter instead of their own: they
# track no versions, so the counter doubles as their mark and costs nothing on the op path. Outside
# inference mode they cannot be changed in place or saved for backward (PyTorch's rules).
INFERENCE_COUNTER = VersionCounter()


class _CreationState(threading.local):
    # The counter new tensors start with: None (made on first need), or INFERENCE_COUNTER while the
    # thread is inside inference_mode (grad_mode switches it; it lives here, below autograd).
    version_counter = None


creation = _CreationState()
# How many inference_mode blocks are open, in all threads. Reading a thread-local costs ~10% of
# new_tensor, so new tensors look up their thread's mode only while some thread is inside one.
inference_blocks_open = 0


def new_tensor(data, requires_grad=False, grad_fn=None, output_nr=0):
    """Wrap an ndarray without checks or copies: the constructor on every op's path."""
    tensor = _new_object(Tensor)
    tensor._data = data
    tensor._requires_grad = requires_grad
    tensor._grad_fn = grad_fn
    tensor._output_nr = output_nr
    tensor._grad = None
    tensor._version_counter = creation.version_counter if inference_blocks_open else None
    tensor._base = None
    tensor._grad_accumulator = None
    return tensor


_new_object = object.__new__


# Operators that are an op called with the tensor first (`a | b` is `ember.bitwise_or(a, b)`); reflected
# ones whose operands must swap (`2 - a`) are methods of Tensor. + - * / are ops.elision's wrappers.
_OPERATORS = {
    "__add__": "add",
    "__sub__": "sub",
    "__mul__": "mul",
    "__truediv__": "div",
    "__floordiv__": "floor_divide",
    "__mod__": "remainder",
    "__pow__": "pow",
    "__matmul__": "matmul",
    "__neg__": "neg",
    "__abs__": "abs",
    "__invert__": "bitwise_not",
    "__and__": "bitwise_and",
    "__rand__": "bitwise_and",
    "__or__": "bitwise_or",
    "__ror__": "bitwise_or",
    "__xor__": "bitwise_xor",
    "__rxor__": "bitwise_xor",
    "__lshift__": "bitwise_left_shift",
    "__rshift__": "bitwise_right_shift",
    "__iadd__": "add_",
    "__isub__": "sub_",
    "__imul__": "mul_",
    "__itruediv__": "div_",
    "__ifloordiv__": "floor_divide_",
    "__imod__": "remainder_",
    "__ipow__": "pow_",
    "__iand__": "bitwise_and_",
    "__ior__": "bitwise_or_",
    "__ixor__": "bitwise_xor_",
    "__eq__": "eq",
    "__ne__": "ne",
    "__lt__": "lt",
    "__le__": "le",
    "__gt__": "gt",
    "__ge__": "ge",
    "__getitem__": "getitem",
}


def _op_method(name):
    """The op behind `Tensor.name` (an operator of `_OPERATORS` or a method declared in ember.ops),
    reached through the late-bound `_ops` and then kept on the class.

    Ops sit above Tensor, so the class body cannot name them; looking them up on every call would
    add a call to the path of every op. The first use stores the op function itself on the class,
    so from then on `x.exp()` and `a | b` cost exactly a call of `ember.exp` / `ember.bitwise_or`.
    """
    operator = _OPERATORS.get(name)
    if operator is not None:
        function = _ops.elision.OPERATORS.get(name) or getattr(_ops, operator)
    else:
        function = _ops.TENSOR_METHODS.get(name)
        if function is None:
            raise AttributeError(
                f"'Tensor' object has no attribute '{name}' (if PyTorch's Tensor has it, "
                f"torch.Tensor.{name} is not implemented in ember)"
            )
        if takes_dim(function):  # x.max(axis=1) too, as in PyTorch
            function = accepting_numpy_names(function)
    setattr(Tensor, name, function)
    return function


def _late_operator(name):
    """An operator slot of the class body: its first call binds the op (see `_op_method`)."""

    def operator(self, *args):
        return _op_method(name)(self, *args)

    operator.__name__ = name
    operator.__qualname__ = "Tensor." + name
    return operator


class _TensorType(type):
    """`Tensor.log1p` (on the class, before any tensor used it) resolves as `x.log1p` does."""

    def __getattr__(cls, name):
        if name.startswith("_"):
            raise AttributeError(f"type object 'Tensor' has no attribute '{name}'")
        return _op_method(name)

    def __dir__(cls):
        return sorted(set(super().__dir__()) | set(_ops.TENSOR_METHODS) | set(_OPERATORS))


class TensorBase:
    """Tensor's base class, holding nothing: what the hot paths test with `isinstance`.

    `isinstance(x, Tensor)` is slow whenever `x` is not exactly a Tensor (a Python number, an
    array, a Parameter): Tensor has a metaclass (`_TensorType`), so CPython looks up and binds its
    `__instancecheck__` on every such test (about 2,000 machine instructions). Against this class,
    whose type is plain `type`, the test is CPython's own subclass check. Only Tensor derives from
    it, so the two tests agree; `Function.apply`'s path and the engine use this one. (PyTorch's
    Tensor also sits on a base class, `torch._C.TensorBase`.)
    """

    __slots__ = ()


class Tensor(TensorBase, metaclass=_TensorType):
    """A multi-dimensional array that can record the operations done on it.

    `Tensor(*sizes)` and `Tensor(data)` are the legacy constructors (always the default float
    dtype); prefer `ember.tensor(data)`, `ember.zeros(...)` and friends.
    """

    # Graph fields, set for every tensor by `new_tensor`. Then, set only where they apply (read them
    # after checking `_base`, or with getattr(tensor, name, None)): the view state, set with `_base`
    # (`_view_version`: the version its grad_fn was made at; `_view_replay`: how to rebuild the view
    # from the base, see ops.shape.make_view), and the forward-AD tangent of a dual tensor
    # (`_fw_grad`: (level token, tangent), see autograd.forward_ad). `__dict__` holds what users add.
    __slots__ = (
        "_data",
        "_requires_grad",
        "_grad",
        "_grad_fn",
        "_output_nr",
        "_version_counter",
        "_base",
        "_grad_accumulator",
        "_view_version",
        "_view_replay",
        "_fw_grad",
        "__dict__",
        "__weakref__",
    )

    __array_priority__ = 1000  # so that `ndarray * tensor` calls Tensor.__rmul__

    def __new__(cls, *args, device=None, dtype=None):
        """The legacy constructor. Its work is done here rather than in `__init__`, as in PyTorch, so
        that a subclass's own `__new__` can `return super().__new__(cls, data)`."""
        to_device(device)
        requested = dtype
        dtype = _dtype.to_dtype(dtype) if dtype is not None else _dtype.get_default_dtype()
        self = _new_object(cls)
        if not args:
            array = np.empty((0,), dtype=dtype.numpy_dtype)
        elif len(args) == 1 and not isinstance(args[0], (int, np.integer, Size)):
            data = args[0]
            if isinstance(data, Tensor):  # PyTorch returns an alias: same memory, dtype and history
                _check_legacy_dtype(data.dtype, dtype, requested)
                _copy_fields(_alias(data), self)
                return self
            if isinstance(data, _storage.TypedStorage):  # a 1-D tensor over the storage's memory
                _check_legacy_dtype(data.dtype, dtype, dtype)
                array = data._array
            elif isinstance(data, np.ndarray) and data.dtype == dtype.numpy_dtype:
                array = data  # shares memory with the array, as in PyTorch (other dtypes are copied)
            elif isinstance(data, (float, complex, bool, str)) or not hasattr(data, "__len__"):
                raise TypeError(
                    f"new(): data must be a sequence (got {type(data).__name__}); for a tensor "
                    "holding one number use ember.tensor(value)"
                )
            else:
                array = _ops.tensor(data, dtype=dtype)._data  # its checks: ragged lists, overflow
        else:
            shape = _validation.size_argument(args[0] if isinstance(args[0], Size) else args, "new")
            array = _validation.allocate(np.empty, shape, dtype.numpy_dtype, dtype.numpy_dtype)
        _init_leaf(self, array)
        return self

    def __init__(self, *args, **kwargs):
        pass  # made by __new__ (a subclass's __init__ may take arguments of its own)

    # ----------------------------------------------------------------- subclasses (torch.overrides)
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _torch_function.prepare_subclass(cls)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """What a subclass does with a call made on it (PyTorch's protocol, see ember._torch_function):
        run the op with dispatch off, and return tensor results as instances of `cls`. A subclass
        overrides it to take over calls; `nn.Parameter` switches it off."""
        return _torch_function.default_handler(cls, func, types, args, kwargs)

    def as_subclass(self, cls):
        """This tensor as an instance of `cls`, a subclass of Tensor: an alias sharing its memory,
        version counter and graph (grad_fn `AliasBackward0` when it requires grad), as in PyTorch."""
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError(f"as_subclass(): cls must be a subclass of Tensor, not {cls!r}")
        result = _new_object(cls)
        _copy_fields(_alias(self), result)
        return result

    @staticmethod
    def _make_subclass(cls, data, require_grad=False):
        """A new leaf of class `cls` over `data`'s memory and version counter (detached), the way
        PyTorch's subclasses (Parameter) make their instances in `__new__`."""
        result = _new_object(cls)
        _init_leaf(result, data._data)
        result._version_counter = data._shared_version_counter()
        result.requires_grad_(require_grad)
        return result

    # ----------------------------------------------------------------- autograd fields
    @property
    def requires_grad(self):
        """Whether operations on this tensor are recorded for autograd.

        Set it on leaves (`x.requires_grad = True`, or `requires_grad_()`); only floating-point and complex
        tensors can require grad, and a non-leaf's flag cannot be turned off (use `detach()`).
        """
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self.requires_grad_(value)

    @requires_grad.deleter
    def requires_grad(self):
        raise RuntimeError("can't delete requires_grad")

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        """Start (or stop) recording operations on this leaf tensor. Returns self."""
        requires_grad = bool(requires_grad)
        if self._grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
            )
        if requires_grad and self._data.dtype.kind not in "fcV":
            raise RuntimeError(
                f"only Tensors of floating point dtype can require gradients (this one is {self.dtype}); "
                "convert it first, e.g. x = x.float().requires_grad_()"
            )
        self._requires_grad = requires_grad
        return self

    @property
    def grad_fn(self):
        """The graph node that made this tensor (`MulBackward0`, ...); None for leaves and tensors made outside the
        graph.
        """
        if self._base is not None:
            if self._grad_fn is not None or self._requires_grad:
                from .autograd.function import refresh_view_grad_fn

                return refresh_view_grad_fn(self)
            if self._changed_no_grad_view():
                raise self._view_replay.changed_error()
        return self._grad_fn

    def _changed_no_grad_view(self):
        """A view made under no_grad of a tensor that requires grad, changed in place since: PyTorch
        refuses its grad_fn (which history it should have is ambiguous) and prints it as <Invalid>."""
        return (
            self._base is not None
            and self._base._requires_grad
            and getattr(getattr(self, "_view_replay", None), "made_in_no_grad", False)
            and self._view_version != self._version_counter.value
        )

    def _is_view(self):
        """Whether this tensor is a view of another (its `_base`); PyTorch's private spelling."""
        return self._base is not None

    @property
    def is_leaf(self):
        """True for tensors no recorded op made: tensors you created, and results made with grad off.

        Only leaves that require grad get their `.grad` filled by `backward()`; for a non-leaf, call
        `retain_grad()` first.
        """
        return self._grad_fn is None

    @property
    def output_nr(self):
        """Which output of its grad_fn this tensor is (0 for leaves)."""
        return self._output_nr

    @property
    def grad(self):
        """The gradient `backward()` accumulated into this leaf (None until then).

        Reading it on a non-leaf that does not retain its gradient warns, as in PyTorch. An assigned gradient must
        have this tensor's shape and dtype.
        """
        if self._grad_fn is not None and self._grad is None and not self.retains_grad:
            _warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
                "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
                "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
                "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
                "instead.",
                UserWarning,
                stacklevel=2,
            )
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got {type(value).__name__}")
            if value is self:
                raise RuntimeError("can't assign Variable as its own grad")
            if value.shape != self.shape:
                raise RuntimeError(
                    f"assigned grad has data of a different size: {list(value.shape)} "
                    f"for a tensor of size {list(self.shape)}"
                )
            if value.dtype is not self.dtype:
                raise RuntimeError(f"assigned grad has data of type {value.dtype}, expected {self.dtype}")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def retains_grad(self):
        """Whether `retain_grad()` was called on this non-leaf, so that backward fills its `.grad`."""
        node = self._grad_fn
        return (
            node is not None
            and node._retained_outputs is not None
            and self._output_nr in node._retained_outputs
            and node._retained_outputs[self._output_nr]() is self
        )

    def retain_grad(self):
        """Keep the gradient of this non-leaf tensor in `.grad` during backward."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is not None:
            self._grad_fn._retain_output(self._output_nr, self)

    def register_hook(self, hook: Callable[["Tensor"], Optional["Tensor"]]) -> "RemovableHandle":
        """Call `hook(grad)` when this tensor's gradient is computed; a returned tensor replaces it.

        Returns a handle whose `.remove()` unregisters the hook.
        """
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        from .autograd.function import _edge_to

        edge = _edge_to(self)
        return edge.node._register_tensor_hook(edge.input_nr, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call `hook(tensor)` on this leaf after backward has accumulated its gradient into `.grad`
        (e.g. to step an optimizer per parameter). The hook must return None."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        from .autograd.function import _edge_to

        return _edge_to(self).node._register_post_accumulate_hook(hook)

    def backward(
        self,
        gradient: Optional["Tensor"] = None,
        retain_graph: Optional[bool] = None,
        create_graph: bool = False,
        inputs: Optional[Sequence["Tensor"]] = None,
    ) -> None:
        """Compute the gradient of this tensor with respect to the graph's leaves (into `.grad`).

        `gradient` is required unless the tensor has one element. See `ember.autograd.backward`.
        """
        from . import autograd

        autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self) -> "Tensor":
        """A tensor on the same memory, outside the graph (shares the version counter)."""
        tensor = new_tensor(self._data)
        tensor._version_counter = self._shared_version_counter()
        return tensor

    def detach_(self):
        """Make this tensor a leaf that does not require grad, in place (views of a tensor that requires grad
        refuse).
        """
        if self._base is not None and self._base._requires_grad:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self._grad_fn = None
        self._requires_grad = False
        if hasattr(self, "_fw_grad"):  # (a lazy slot) forward AD's tangent goes too, as in PyTorch
            del self._fw_grad
        return self

    @property
    def data(self):
        """The same memory outside the graph, with its own version counter: changes to it are not
        seen by autograd (prefer `detach()` or `with no_grad()`)."""
        return new_tensor(self._data)

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, got {type(value).__name__}")
        if (type(self._data) is SparseCoo) != (type(value._data) is SparseCoo):
            raise RuntimeError(
                "Attempted to call `variable.set_data(tensor)`, but `variable` and `tensor` have incompatible "
                "tensor type. (One is sparse and the other dense: convert with to_dense() or to_sparse() first.)"
            )
        if self._requires_grad and value._data.dtype.kind not in "fcV":
            raise RuntimeError(
                f"data set to a tensor that requires gradients must be floating point or complex "
                f"dtype (got {value.dtype}); convert it first, e.g. value.float()"
            )
        self._data = value._data

    @data.deleter
    def data(self):
        raise RuntimeError("can't delete data")

    def set_(self, source=None, storage_offset=None, size=None, stride=None):
        """Make this tensor use the memory, shape and strides of tensor `source` (`set_()`: empty).

        As in PyTorch, a leaf that requires grad gets a new AccumulateGrad node, so graphs built
        before send their gradients to the old one. Differences: only `set_(tensor)` and `set_()`
        (ember has no storage objects to offset into), and not on views or tensors with history.
        """
        if storage_offset is not None or size is not None or stride is not None:
            raise NotImplementedError("set_: ember supports set_(tensor) and set_() only (no storage/size/stride)")
        if source is not None and not isinstance(source, Tensor):
            raise TypeError(f"set_: expected a Tensor to take the memory of, got {type(source).__name__}")
        if source is not None and source._data.dtype != self._data.dtype:
            raise RuntimeError(
                f"Could not set tensor of type {source.dtype} to a tensor of type {self.dtype}: convert the "
                f"source first, e.g. source.to({self.dtype})"
            )
        if self._grad_fn is not None or self._base is not None:
            raise NotImplementedError(
                "set_: ember supports it on tensors that are neither views nor results of recorded ops; "
                "call it on a clone() or a detach()ed tensor"
            )
        if self._requires_grad and _grad_mode.is_grad_enabled():
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation. "
                f"(set_: call it under `with {_naming.package}.no_grad():`.)"
            )
        self._data = np.empty((0,), dtype=self._data.dtype) if source is None else source._data
        self._grad_accumulator = None
        self._bump_version()
        return self

    @property
    def _version(self):
        counter = self._version_counter
        if counter is INFERENCE_COUNTER:
            raise RuntimeError(
                "Inference tensors do not track version counter. (This tensor was made under "
                f"{_naming.package}.inference_mode(); clone() it outside inference mode for a tracked copy.)"
            )
        return 0 if counter is None else counter.value

    def _shared_version_counter(self):
        if self._version_counter is None:
            self._version_counter = VersionCounter()
        return self._version_counter

    def _bump_version(self):
        counter = self._version_counter
        if counter is None:
            self._version_counter = VersionCounter(1)
        elif counter is INFERENCE_COUNTER and creation.version_counter is None:
            raise RuntimeError(
                "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
                "clone to get a normal tensor before doing inplace update.See "
                "https://github.com/pytorch/rfcs/pull/17 for more details."
            )
        else:
            counter.value += 1

    def _alias(self):
        """A new tensor on the same memory and version counter (what a Function returns for an input)."""
        tensor = new_tensor(self._data, self._requires_grad, self._grad_fn, self._output_nr)
        tensor._version_counter = self._shared_version_counter()
        tensor._base = self if self._base is None else self._base
        tensor._view_version = tensor._view_replay = None  # not replayable: its grad_fn is kept as is
        return tensor

    # ----------------------------------------------------------------- metadata
    @property
    def dtype(self):
        """The element type (`ember.float32`, ...)."""
        return _dtype.from_numpy_dtype(self._data.dtype)

    @property
    def shape(self):
        """The sizes of the dimensions, as a `Size` (a tuple)."""
        return tuple.__new__(Size, self._data.shape)  # (NumPy's sizes are ints: no check)

    def size(self, dim=None):
        """The shape as a `Size`, or the size of dimension `dim` (negative counts from the end)."""
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_ops.normalize_dim(dim, self._data.ndim, "size")]

    def dim(self):
        """The number of dimensions (0 for a scalar tensor)."""
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self):
        """The number of dimensions, as `dim()`."""
        return self._data.ndim

    def numel(self):
        """The number of elements."""
        return self._data.size

    nelement = numel

    def element_size(self):
        """The size of one element in bytes."""
        return self._data.itemsize

    @property
    def itemsize(self):
        """The size of one element in bytes."""
        return self._data.itemsize

    @property
    def nbytes(self):
        """The size of the elements in bytes (`numel() * itemsize`)."""
        return self._data.nbytes

    @property
    def device(self):
        """Always the CPU: ember computes on NumPy arrays."""
        return CPU

    @property
    def is_cuda(self):
        """Always False (ember has no CUDA backend)."""
        return False

    # Device and layout predicates: ember's tensors are dense, strided and on the CPU.
    is_cpu = True
    is_sparse_csr = is_quantized = is_meta = is_nested = is_mkldnn = False
    is_xpu = is_mps = is_ipu = is_maia = is_mtia = is_vulkan = is_xla = False

    def is_pinned(self, device=None):
        """Always False: pinned memory only matters for copies to a GPU."""
        return False

    def is_conj(self):
        """Always False: `conj()` copies instead of setting PyTorch's lazy conjugate bit."""
        return False

    def is_neg(self):
        """Always False: ember has no lazy negation bit."""
        return False

    def is_inference(self):
        """Whether this tensor was made under `inference_mode` (or is a view of such a tensor)."""
        return self._version_counter is INFERENCE_COUNTER

    def is_distributed(self):
        """Always False (kept for PyTorch compatibility)."""
        return False

    def is_same_size(self, other):
        """Whether `other` has the same shape."""
        return self.shape == other.shape

    def is_set_to(self, tensor):
        """Whether both tensors use the same memory with the same shape and strides."""
        mine, theirs = self._data, tensor._data
        return (
            mine.__array_interface__["data"][0] == theirs.__array_interface__["data"][0]
            and mine.shape == theirs.shape
            and mine.strides == theirs.strides
            and mine.dtype == theirs.dtype
        )

    def is_nonzero(self):
        """The truth value of a one-element tensor; more or fewer elements raise, as in PyTorch."""
        if self._data.size != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with {'no values' if self._data.size == 0 else 'more than one value'} "
                "is ambiguous"
            )
        return bool(self._data.reshape(()))

    @property
    def is_sparse(self):
        """Whether this is a sparse COO tensor (see `ember.ops.sparse_coo`)."""
        return type(self._data) is SparseCoo

    @property
    def layout(self):
        """`torch.sparse_coo` for a sparse COO tensor, else `torch.strided`."""
        return sparse_coo if type(self._data) is SparseCoo else strided

    @property
    def is_floating_point_type(self):
        """Whether the dtype is a real floating-point type (a property, unlike `is_floating_point()`)."""
        return self._data.dtype.kind in "fV"

    def is_floating_point(self):
        """Whether the dtype is float16, float32, float64, bfloat16 or a float8 type."""
        return self._data.dtype.kind in "fV"

    @property
    def real(self):
        """The real part: the tensor itself for real dtypes, a view of the real parts for complex ones."""
        return self if self._data.dtype.kind != "c" else _ops.real(self)

    @real.setter
    def real(self, value):
        _ops.real(self).copy_(value)

    @property
    def imag(self):
        """A view of the imaginary parts of a complex tensor (differentiable, as `real`); real tensors
        raise, as in PyTorch."""
        return _ops.imag(self)

    @imag.setter
    def imag(self, value):
        _ops.imag(self).copy_(value)

    def is_complex(self):
        """Whether the dtype is complex64 or complex128."""
        return self._data.dtype.kind == "c"

    def is_signed(self):
        """Whether the dtype can hold negative values (False for uint8 and bool)."""
        return self.dtype.is_signed

    def type(self, dtype=None, non_blocking=False):
        """With no argument, the legacy type name ('torch.FloatTensor'); otherwise a conversion."""
        if dtype is None:
            return _dtype.LEGACY_NAME_OF.get(self.dtype, "torch." + self.dtype.name)
        if isinstance(dtype, str) and dtype.startswith("torch.cuda."):
            raise RuntimeError(f"Cannot initialize CUDA: {dtype} is a GPU type and ember computes on the CPU.")
        return self.to(_dtype.to_dtype(dtype))

    def stride(self, dim=None):
        """The step, in elements, between neighbours along each dimension (or along `dim`).

        Read from the NumPy array's byte strides; the size-1 dimensions NumPy gives stride 0 report PyTorch's
        value instead.
        """
        array = self._data
        strides = [step // array.itemsize for step in array.strides]
        # NumPy gives inserted size-1 dims (x[None]) stride 0; PyTorch gives them the stride of the
        # dims after them, so report that.
        for index in range(len(strides) - 1, -1, -1):
            if strides[index] == 0 and array.shape[index] == 1:
                strides[index] = strides[index + 1] * max(array.shape[index + 1], 1) if index + 1 < len(strides) else 1
        strides = tuple(strides)
        return strides if dim is None else strides[_ops.normalize_dim(dim, self._data.ndim, "stride")]

    def storage_offset(self):
        """How many elements this tensor's first element lies past the start of its storage."""
        base = self._data
        # Follow `.base` through ndarrays and the array-likes that np.lib.stride_tricks leaves between.
        while getattr(base, "base", None) is not None and hasattr(base.base, "__array_interface__"):
            base = base.base
        if base is self._data:
            return 0
        return (self._data.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // self._data.itemsize

    def data_ptr(self):
        """The address of the first element (the NumPy array's data pointer)."""
        return self._data.__array_interface__["data"][0]

    def storage(self):
        """The flat memory this tensor and its views live in (`TypedStorage`; deprecated in PyTorch,
        which warns once, as ember does: `untyped_storage()` is the current spelling)."""
        _storage.warn_typed_storage_removal()
        return _storage.storage_of(self._data)

    def untyped_storage(self):
        """The bytes this tensor and its views live in (`UntypedStorage`)."""
        return _storage.untyped_storage_of(self._data)

    def resize_(self, *sizes, memory_format=None):
        """Give the tensor a new shape over its storage (see `ember._storage.resize_`)."""
        return _storage.resize_(self, sizes)

    def resize_as_(self, other, memory_format=None):
        """Give this tensor the shape of `other` over its storage, in place (see `resize_`)."""
        return _storage.resize_(self, other.shape)

    def new(self, *args, **kwargs):
        """Legacy constructor of this tensor's dtype: `x.new(2, 3)`, `x.new(data)` (prefer `x.new_empty`,
        `x.new_tensor`)."""
        kwargs.setdefault("dtype", self.dtype)
        return Tensor(*args, **kwargs)

    @property
    def volatile(self):
        """Book-era flag of PyTorch 0.3; always False (use `with ember.no_grad():`)."""
        _warn(
            "volatile was removed (Variable.volatile is always False); use `with ember.no_grad():`",
            UserWarning,
            stacklevel=2,
        )
        return False

    def is_contiguous(self, memory_format=None):
        """Whether the elements lie in row-major order without gaps (`memory_format` is accepted and ignored)."""
        if type(self._data) is SparseCoo:
            return False  # as PyTorch answers for a sparse tensor
        return self._data.flags.c_contiguous

    def dim_order(self):
        """The dimensions from outermost to innermost in memory (by decreasing stride; ties keep their order)."""
        strides = self._data.strides
        return tuple(sorted(range(self._data.ndim), key=lambda dim: -strides[dim]))

    def __dlpack__(self, *args, **kwargs):
        """DLPack export (`np.from_dlpack(tensor)` shares the memory), refused while it would lose a gradient."""
        if self._requires_grad:
            raise BufferError(
                "Can't export tensors that require gradient, use tensor.detach() (DLPack carries no autograd history)"
            )
        return self._data.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._data.__dlpack_device__()

    def get_device(self):
        """-1: the CPU's device index, as PyTorch reports it."""
        return -1

    # ----------------------------------------------------------------- conversion
    def numpy(self, force=False):
        """The NumPy array on this tensor's memory (no copy)."""
        if self._requires_grad and not force and _grad_mode.state.enabled:  # allowed under no_grad, as in PyTorch
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        if type(self._data) is SparseCoo:
            raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")
        _refuse_ml_dtype_to_numpy(self)
        return self._data

    def __array__(self, dtype=None, copy=None):
        if self._requires_grad and _grad_mode.state.enabled:
            raise RuntimeError(
                "Can't convert a Tensor that requires grad to a NumPy array: the gradient would be lost "
                "silently. Use tensor.detach().numpy() if that is what you want, or ember ops to stay in "
                "the graph."
            )
        _refuse_ml_dtype_to_numpy(self)
        return self._data if dtype is None else self._data.astype(dtype, copy=False)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """NumPy's ufuncs on tensors give tensors, as in PyTorch: `np.float64(2) * x` and `np.exp(x)` run
        the ember op (so they promote as ember does, and stay in the graph), other ufunc calls run in
        NumPy and wrap their result (`out=` arrays are NumPy's and stay so)."""
        op_name = _UFUNC_OPS.get(ufunc.__name__)
        if method == "__call__" and not kwargs and op_name is not None:
            operands = [
                item.item()
                if isinstance(item, np.generic)
                else new_tensor(item)
                if isinstance(item, np.ndarray)
                else item
                for item in inputs
            ]
            return getattr(_ops, op_name)(*operands)
        if any(isinstance(item, Tensor) and item._requires_grad for item in inputs):
            # other NumPy calls cannot record, so they raise rather than drop the gradient
            raise RuntimeError(
                f"NumPy's {ufunc.__name__} was applied to a Tensor that requires grad; NumPy cannot record "
                f"it, so the gradient would be lost. Use the ember op (e.g. ember.{ufunc.__name__}) or "
                "apply it to tensor.detach().numpy()."
            )
        arrays = [item._data if isinstance(item, Tensor) else item for item in inputs]
        result = getattr(ufunc, method)(*arrays, **kwargs)
        if "out" in kwargs:
            return result
        if isinstance(result, tuple):
            return tuple(new_tensor(item) if isinstance(item, np.ndarray) else item for item in result)
        return new_tensor(result) if isinstance(result, np.ndarray) else result

    def item(self):
        """The value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.item()

    def tolist(self):
        """The values as (nested) Python lists of numbers; a 0-d tensor gives a number."""
        return self._data.tolist()

    def __float__(self):
        return float(self._scalar_for("float"))

    def __int__(self):
        return int(self._scalar_for("int"))

    def _scalar_for(self, conversion):
        if self._data.size != 1:
            raise ValueError(
                f"only one element tensors can be converted to Python scalars ({conversion}() of a tensor "
                f"of shape {list(self.shape)}; index it or reduce it first)"
            )
        return self._data.item()

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.item())

    def __complex__(self):
        return complex(self._scalar_for("complex"))

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with more than one value is ambiguous "
                f"(shape {list(self.shape)}); use .any() or .all()"
            )
        return bool(self._data.item())

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self):
        return id(self)

    def __contains__(self, element):
        return bool((self == element).any())

    def __repr__(self, *, tensor_contents=None):
        return _formatting.tensor_repr(self)

    def __str__(self):
        return self.__repr__()

    def __format__(self, format_spec):
        """A 0-d tensor formats as its number (`f"{loss:.3f}"`, `"{}".format(loss)`), as in PyTorch."""
        if self._data.ndim == 0 and type(self) is Tensor:
            return self.item().__format__(format_spec)
        return object.__format__(self, format_spec)

    def __reduce_ex__(self, protocol):
        if type(self) is not Tensor:  # a subclass comes back as itself, with its attributes
            return (_rebuild_subclass, (type(self), self._data, self._requires_grad, self.__dict__))
        return (_rebuild_tensor, (self._data, self._requires_grad))

    def __deepcopy__(self, memo):
        if self._grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the "
                "deepcopy protocol at the moment."
            )
        result = _new_object(type(self))
        _init_leaf(result, self._data.copy())
        result._requires_grad = self._requires_grad
        if self._grad is not None:
            result._grad = self._grad.__deepcopy__(memo)
        if hasattr(self, "__dict__"):
            import copy

            for key, value in self.__dict__.items():
                setattr(result, key, copy.deepcopy(value, memo))
        memo[id(self)] = result
        return result

    # ----------------------------------------------------------------- dtype conversions
    def to(self, *args, **kwargs):
        """Convert to another dtype (and accept a device, which must be the CPU), as `ember.to`.

        `x.to(ember.float64)`, `x.to(other)` (its dtype), `x.to("cpu", dtype=...)`; a conversion is recorded in
        the graph, so gradients flow back in the original dtype.
        """
        return _ops.to(self, *args, **kwargs)

    def float(self):
        """This tensor as float32 (itself if it is already)."""
        return _ops.to(self, _dtype.float32)

    def double(self):
        """This tensor as float64 (itself if it is already)."""
        return _ops.to(self, _dtype.float64)

    def bfloat16(self):
        """This tensor converted to bfloat16 (needs the ml_dtypes package)."""
        return _ops.to(self, _dtype.bfloat16)

    def half(self):
        """This tensor as float16 (itself if it is already)."""
        return _ops.to(self, _dtype.float16)

    def long(self):
        """This tensor as int64 (itself if it is already)."""
        return _ops.to(self, _dtype.int64)

    def cfloat(self):
        """This tensor as complex64 (itself if it is already)."""
        return _ops.to(self, _dtype.complex64)

    def cdouble(self):
        """This tensor as complex128 (itself if it is already)."""
        return _ops.to(self, _dtype.complex128)

    def bernoulli(self, p=None, *, generator=None):
        """0/1 draws, 1 with probability given by this tensor's values (or by `p`), as `ember.bernoulli`."""
        return _ops.bernoulli(self, p, generator=generator)

    def bernoulli_(self, p=0.5, *, generator=None):
        """Fill this tensor in place with 0/1 draws that are 1 with probability `p` (number or tensor)."""
        probabilities = p.expand_as(self) if isinstance(p, Tensor) else _ops.full_like(self, p, dtype=_dtype.float64)
        return self.copy_(_ops.bernoulli(probabilities, generator=generator))

    def int(self):
        """This tensor as int32 (itself if it is already)."""
        return _ops.to(self, _dtype.int32)

    def short(self):
        """This tensor as int16 (itself if it is already)."""
        return _ops.to(self, _dtype.int16)

    def char(self):
        """This tensor as int8 (itself if it is already)."""
        return _ops.to(self, _dtype.int8)

    def byte(self):
        """This tensor as uint8 (itself if it is already)."""
        return _ops.to(self, _dtype.uint8)

    def bool(self):
        """This tensor as bool (itself if it is already)."""
        return _ops.to(self, _dtype.bool_)

    def type_as(self, other):
        """This tensor converted to the dtype of `other`."""
        return _ops.to(self, other.dtype)

    def cpu(self, memory_format=None):
        """The tensor itself: ember's tensors are always on the CPU."""
        return self

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        """Raises what a PyTorch built without CUDA raises: ember has no CUDA backend."""
        to_device("cuda" if device is None else device)

    def pin_memory(self, device=None):
        """Raises, as PyTorch without an accelerator does: pinned memory only speeds copies to one."""
        raise RuntimeError(
            "Cannot access accelerator device when none is available: pinned memory only speeds up "
            "copies to a GPU, and ember computes on the CPU (drop the pin_memory() call)."
        )

    def share_memory_(self):
        """Move this tensor's memory to shared memory, in place; a no-op if it is there already.

        Processes forked afterwards, and processes sent the tensor through ember.multiprocessing
        (queues, spawn arguments), then update the same memory (see ember.multiprocessing).
        """
        from .multiprocessing import reductions  # an outer package: bound on first use

        reductions.share(self)
        return self

    def is_shared(self):
        """Whether this tensor's memory is shared memory (`share_memory_()`, or a DataLoader worker's batch)."""
        from .multiprocessing import _shared_blocks

        return _shared_blocks.mapping_of(self._data) is not None

    # ----------------------------------------------------------------- operators
    # Each is the op `_OPERATORS` names, bound on first use (see `_op_method`).
    __add__ = _late_operator("__add__")
    __sub__ = _late_operator("__sub__")
    __mul__ = _late_operator("__mul__")
    __truediv__ = _late_operator("__truediv__")
    __floordiv__ = _late_operator("__floordiv__")
    __mod__ = _late_operator("__mod__")
    __pow__ = _late_operator("__pow__")
    __matmul__ = _late_operator("__matmul__")
    __neg__ = _late_operator("__neg__")
    __abs__ = _late_operator("__abs__")
    __invert__ = _late_operator("__invert__")
    __and__ = _late_operator("__and__")
    __rand__ = _late_operator("__rand__")
    __or__ = _late_operator("__or__")
    __ror__ = _late_operator("__ror__")
    __xor__ = _late_operator("__xor__")
    __rxor__ = _late_operator("__rxor__")
    __lshift__ = _late_operator("__lshift__")
    __rshift__ = _late_operator("__rshift__")
    __iadd__ = _late_operator("__iadd__")
    __isub__ = _late_operator("__isub__")
    __imul__ = _late_operator("__imul__")
    __itruediv__ = _late_operator("__itruediv__")
    __ifloordiv__ = _late_operator("__ifloordiv__")
    __imod__ = _late_operator("__imod__")
    __ipow__ = _late_operator("__ipow__")
    __iand__ = _late_operator("__iand__")
    __ior__ = _late_operator("__ior__")
    __ixor__ = _late_operator("__ixor__")
    __eq__ = _late_operator("__eq__")
    __ne__ = _late_operator("__ne__")
    __lt__ = _late_operator("__lt__")
    __le__ = _late_operator("__le__")
    __gt__ = _late_operator("__gt__")
    __ge__ = _late_operator("__ge__")
    __getitem__ = _late_operator("__getitem__")

    # `2 + x` and `2 * x` record the tensor first, as PyTorch's __radd__/__rmul__ do: the node's
    # next_functions read ((x's node, 0), (None, 0)). The sum and product are the same either way.
    def __radd__(self, other):
        return _ops.add(self, other)

    def __rsub__(self, other):
        return _ops.sub(other, self)

    def __rmul__(self, other):
        return _ops.mul(self, other)

    def __rtruediv__(self, other):
        return _ops.div(other, self)

    def __rfloordiv__(self, other):
        return _ops.floor_divide(other, self)

    def __rmod__(self, other):
        return _ops.remainder(other, self)

    def __rpow__(self, base):
        return _ops.pow(base, self)

    def __rmatmul__(self, other):
        return _ops.matmul(other, self)

    def __pos__(self):
        return self

    def __setitem__(self, index, value):
        _ops.setitem(self, index, value)

    # ----------------------------------------------------------------- the most used methods
    def add(self, other, *, alpha=1):
        """`self + alpha * other`, as `ember.add` (defined on the class, not bound on first use: the most used ops)."""
        return _ops.add(self, other, alpha=alpha)

    @accepting_numpy_names
    def sum(self, dim=None, keepdim=False, *, dtype=None):
        """The sum over all elements or over `dim`, as `ember.sum`."""
        return _ops.sum(self, dim, keepdim, dtype=dtype)

    @accepting_numpy_names
    def mean(self, dim=None, keepdim=False, *, dtype=None):
        """The mean over all elements or over `dim`, as `ember.mean`."""
        return _ops.mean(self, dim, keepdim, dtype=dtype)

    def view(self, *shape):
        """A view of the same memory with another shape, as `ember.view`.

        `x.view(2, -1)` or `x.view((2, -1))`; a view shares its version counter with this tensor, so an in-place
        change to either is seen by autograd.
        """
        return _ops.view(self, *shape)

    def reshape(self, *shape):
        """The same elements in another shape: a view when possible, else a copy (`ember.reshape`)."""
        return _ops.reshape(self, *shape)

    @property
    def T(self):
        """The dimensions in reverse order (for a matrix, its transpose); a view."""
        ndim = self._data.ndim
        if ndim == 0:
            _deprecated_on_0d("T", "This function is the identity in these cases.")
        elif ndim != 2:
            _warn(
                "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
                "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
                "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.",
                UserWarning,
                stacklevel=2,
            )
        return _ops.permute(self, tuple(range(ndim - 1, -1, -1)))

    @property
    def mT(self):
        """The last two dimensions swapped (a batch of matrices transposed); a view."""
        if self._data.ndim == 0:
            _deprecated_on_0d("mT", "This function is the identity in these cases.")
            return _ops.permute(self, ())
        _check_matrices(self, "mT")
        return _ops.transpose(self, -2, -1)

    @property
    def H(self):
        """The conjugate transpose of a matrix (the transpose, for real values); a view."""
        ndim = self._data.ndim
        if ndim == 0:
            _deprecated_on_0d("H", "Consider using x.conj().")
            return _ops.conj(self)
        if ndim != 2:
            raise RuntimeError(
                f"tensor.H is only supported on matrices (2-D tensors). Got {ndim}-D tensor."
                + (" For batches of matrices, consider using tensor.mH" if ndim > 2 else "")
            )
        return _ops.conj(_ops.transpose(self, 0, 1))

    @property
    def mH(self):
        """The last two dimensions swapped and conjugated (`mT` of complex matrices); a view."""
        if self._data.ndim == 0:
            _deprecated_on_0d("mH", "Consider using x.conj().")
            return _ops.conj(self)
        _check_matrices(self, "mH")
        return _ops.conj(_ops.transpose(self, -2, -1))

    # A sparse COO tensor's raw parts (private names, so not reached through `__getattr__`).
    def _values(self):
        """The stored values of a sparse tensor, coalesced or not (see `ember.ops.sparse_coo`)."""
        return _ops.sparse_coo._values(self)

    def _indices(self):
        """The stored indices of a sparse tensor, coalesced or not."""
        return _ops.sparse_coo._indices(self)

    def _nnz(self):
        """The number of stored entries of a sparse tensor."""
        return _ops.sparse_coo._nnz(self)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(f"'Tensor' object has no attribute '{name}'")
        return _op_method(name).__get__(self, type(self))

    def __dir__(self):
        names = set(object.__dir__(self)) | set(_ops.TENSOR_METHODS)
        # the slots set only where they apply are listed only where set, so that hasattr agrees
        names.difference_update(name for name in _LAZY_SLOTS if not hasattr(self, name))
        return sorted(names)


_LAZY_SLOTS = ("_view_version", "_view_replay", "_fw_grad")


def _deprecated_on_0d(name, advice):
    _warn(f"Tensor.{name} is deprecated on 0-D tensors. {advice}", UserWarning, stacklevel=3)


def _check_matrices(tensor, name):
    if tensor._data.ndim < 2:
        raise RuntimeError(
            f"tensor.{name} is only supported on matrices or batches of matrices. Got {tensor._data.ndim}-D tensor."
        )


# NumPy ufuncs with an ember op of the same meaning (used when a tensor that requires grad meets one).
_UFUNC_OPS = {
    "add": "add",
    "subtract": "sub",
    "multiply": "mul",
    "true_divide": "div",
    "divide": "div",
    "power": "pow",
    "negative": "neg",
    "exp": "exp",
    "log": "log",
    "sin": "sin",
    "cos": "cos",
    "tanh": "tanh",
    "sqrt": "sqrt",
    "absolute": "abs",
    "square": "square",
}


_FIELDS = (
    "_data",
    "_requires_grad",
    "_grad",
    "_grad_fn",
    "_output_nr",
    "_version_counter",
    "_base",
    "_grad_accumulator",
    "_view_version",
    "_view_replay",
)


def _refuse_ml_dtype_to_numpy(tensor):
    """PyTorch's numpy() refuses bfloat16 and float8 (NumPy has no such dtype); so does ember's, though
    its array is an ml_dtypes one, so that a script behaves the same under both. `x.float().numpy()` works."""
    dtype = tensor.dtype
    if dtype in _dtype.ML_DTYPES:
        raise TypeError(
            f"Got unsupported ScalarType {_dtype.kernel_name(dtype)}: NumPy has no {dtype.name}; "
            "convert first, e.g. x.float().numpy()"
        )


def _check_legacy_dtype(given, wanted, requested):
    """`FloatTensor(double_tensor)` is refused as in PyTorch: the legacy constructor keeps the memory."""
    if requested is not None and given is not wanted:
        raise TypeError(
            f"expected {wanted} (got {given}): the legacy constructor shares memory with its "
            f"argument, so the dtypes must match; convert first with .to({wanted})"
        )


def _rebuild_tensor(data, requires_grad):
    tensor = new_tensor(data.copy())
    tensor._requires_grad = requires_grad
    return tensor


def _rebuild_subclass(cls, data, requires_grad, attributes):
    tensor = _rebuild_tensor(data, requires_grad).as_subclass(cls)
    tensor.__dict__.update(attributes)
    return tensor


def _init_leaf(tensor, array):
    """Give a new Tensor object the fields of a leaf over `array` (what `new_tensor` sets)."""
    tensor._data = array
    tensor._requires_grad = False
    tensor._grad_fn = None
    tensor._output_nr = 0
    tensor._grad = None
    tensor._version_counter = creation.version_counter if inference_blocks_open else None
    tensor._base = None
    tensor._grad_accumulator = None


def _alias(tensor):
    """`tensor[...]`: a view of all of it (AliasBackward0), what `as_subclass` and `Tensor(t)` return."""
    return _ops.getitem(tensor, Ellipsis)


def _copy_fields(source, target):
    for field in _FIELDS:
        value = getattr(source, field, _MISSING)
        if value is not _MISSING:
            setattr(target, field, value)


_MISSING = object()


from . import _torch_function  # noqa: E402  (before ops: the subclasses they may define need it)
from . import ops as _ops  # noqa: E402  (ops sit above Tensor and import it)
from .autograd import grad_mode as _grad_mode  # noqa: E402
from . import _formatting  # noqa: E402
