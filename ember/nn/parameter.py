"""`Parameter` (a tensor a Module trains) and `Buffer` (a tensor a Module keeps as state)."""

from .._tensor import Tensor
from ..ops import creation

__all__ = ["Parameter", "Buffer"]


class Parameter(Tensor):
    """A tensor that, assigned as a Module attribute, joins the module's `parameters()`.

    `Parameter(t)` shares memory with `t` (it is a detached alias, as PyTorch's `_make_subclass`) and
    requires grad by default, even under `no_grad()`.

    Example::

        >>> w = nn.Parameter(ember.zeros(2))
        >>> w.requires_grad
        True
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = creation.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): data must be a Tensor, got {type(data).__name__}")
        parameter = object.__new__(cls)
        Tensor.__init__(parameter, ())
        parameter._data = data._data
        parameter._version_counter = data._shared_version_counter()
        parameter.requires_grad_(requires_grad)
        return parameter

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
