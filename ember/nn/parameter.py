"""`Parameter` (a tensor a Module trains) and `Buffer` (a tensor a Module keeps as state)."""

from .. import _dtype
from .._tensor import Tensor, _init_leaf
from .._torch_function import _disabled_torch_function_impl
from ..ops import creation

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "UninitializedTensorMixin"]


class Parameter(Tensor):
    """A tensor that, assigned as a Module attribute, joins the module's `parameters()`.

    `Parameter(t)` shares memory with `t` (it is a detached alias, as PyTorch's `_make_subclass`) and
    requires grad by default, even under `no_grad()`. Ops on it return plain tensors (its
    `__torch_function__` is switched off, as in PyTorch).

    Example::

        >>> w = nn.Parameter(ember.zeros(2))
        >>> w.requires_grad
        True
    """

    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = creation.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): data must be a Tensor, got {type(data).__name__}")
        return Tensor._make_subclass(cls, data, requires_grad)

    def __init__(self, data=None, requires_grad=True):
        # All the work is in __new__; Tensor.__init__ would reinterpret `data` as sizes.
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        if self._grad is not None:
            result._grad = self._grad.__deepcopy__(memo)
        memo[id(self)] = result
        return result

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self._data, self._requires_grad))


def _rebuild_parameter(data, requires_grad):
    return Parameter(creation.from_numpy(data.copy()), requires_grad)


class _BufferMeta(type):
    # `Buffer(t)` returns a plain tensor marked as a buffer, so ops and repr treat it as any tensor.
    def __instancecheck__(cls, instance):
        return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)


class Buffer(metaclass=_BufferMeta):
    """Marks a tensor as a module buffer: `module.stats = nn.Buffer(ember.zeros(3))` registers it.

    `persistent=False` keeps it out of `state_dict()`. The result is the tensor (detached), marked.
    """

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = creation.empty(0)
        tensor = data.detach().requires_grad_(data.requires_grad)
        tensor.persistent = persistent
        tensor._is_buffer = True
        return tensor


_UNINITIALIZED_USE = (
    "Attempted to use an uninitialized parameter in {what}. This error happens when you are using a `LazyModule` "
    "or explicitly manipulating `torch.nn.parameter.UninitializedParameter` objects. When using LazyModules Call "
    "`forward` with a dummy batch to initialize the parameters before calling torch functions"
)


class _NoArrayYet:
    """The `_data` of an uninitialized parameter or buffer: it knows its dtype, and any other use (an op
    converting it to an array, its shape, size ...) raises PyTorch's error instead of computing on nothing."""

    __slots__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = dtype

    def __array__(self, *args, **kwargs):
        raise ValueError(_UNINITIALIZED_USE.format(what="an operation"))

    def __getattr__(self, name):
        if name == "shape":
            raise RuntimeError(
                "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
                "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
                "`forward` to initialize the parameters before accessing their attributes."
            )
        raise ValueError(_UNINITIALIZED_USE.format(what=f"'{name}'"))


class UninitializedTensorMixin:
    """What a lazy module's parameters and buffers are until its first forward infers their shapes:
    `materialize(shape)` gives them memory and turns them into the class they stand for."""

    cls_to_become = None
    __torch_function__ = _disabled_torch_function_impl  # its uses raise through `_NoArrayYet` instead

    def materialize(self, shape, device=None, dtype=None):
        """Allocate the tensor (uninitialized memory, as `empty`) and become `cls_to_become`."""
        dtype = self._data.dtype if dtype is None else _dtype.to_dtype(dtype).numpy_dtype
        self._data = creation.empty(tuple(shape), dtype=_dtype.from_numpy_dtype(dtype), device=device)._data
        self.__class__ = self.cls_to_become

    def detach(self):
        return self  # what state_dict() shows before the first forward, as PyTorch

    def __repr__(self):
        return f"<{type(self).__name__}>"

    def __reduce_ex__(self, protocol):
        return (type(self), (self._requires_grad,))


def _uninitialized(cls, requires_grad, device, dtype):
    dtype = _dtype.to_dtype(dtype) if dtype is not None else _dtype.get_default_dtype()
    tensor = object.__new__(cls)
    _init_leaf(tensor, _NoArrayYet(dtype.numpy_dtype))
    tensor._requires_grad = requires_grad
    return tensor


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter whose shape a lazy module infers at its first forward (`nn.LazyLinear` ...)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return _uninitialized(cls, requires_grad, device, dtype)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def __deepcopy__(self, memo):
        return type(self)(self._requires_grad, dtype=_dtype.from_numpy_dtype(self._data.dtype))


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape a lazy module infers at its first forward (running statistics ...)."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        buffer = _uninitialized(cls, requires_grad, device, dtype)
        buffer.persistent = persistent
        return buffer

    def __init__(self, requires_grad=False, device=None, dtype=None, persistent=True):
        pass
