"""`Variable`: the book-era wrapper. Since PyTorch 0.4 a tensor is its own Variable."""

from .. import _naming
from .._tensor import Tensor
from .._warn import warn as _warn
from .engine import ExecutionEngine

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, instance):
        return isinstance(instance, Tensor)


class Variable(metaclass=_VariableMeta):
    """`Variable(tensor, requires_grad=False, volatile=False)` returns a tensor on the same memory.

    Deprecated: use the tensor directly (`x.requires_grad_()`), and `with ember.no_grad():` instead of
    `volatile=True`. The DeprecationWarning is ember's own: under `import torch` (ember.compat) it stays
    silent, as PyTorch's Variable does.
    """

    _execution_engine = ExecutionEngine()  # as in PyTorch, where code reaches the engine through it

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        # Code imported as `torch` (ember.compat, `python -m ember run`) hears what PyTorch says: nothing.
        if _naming.package == "ember":
            _warn(
                "Variable is deprecated: tensors record operations themselves. Use the tensor directly, "
                "with `tensor.requires_grad_()` or `ember.tensor(data, requires_grad=True)`.",
                DeprecationWarning,
                stacklevel=2,
            )
        from ..ops import tensor as make_tensor

        if data is None:
            from ..ops import empty

            data = empty(0)
        # A new tensor on the same memory, as PyTorch's Variable(t): t's own flags are untouched.
        data = data.detach() if isinstance(data, Tensor) else make_tensor(data)
        if volatile and requires_grad:
            raise ValueError("Variable can't be volatile and require_grad at the same time!")
        if volatile:
            _warn(
                f"volatile was removed and now has no effect. Use `with {_naming.package}.no_grad():` instead.",
                UserWarning,
                stacklevel=2,
            )
            requires_grad = False
        if requires_grad:
            data.requires_grad_(True)
        return data
