"""Temporary elision: in `w * x + b`, the sum is written into the memory of the product.

NumPy does this for arrays; a tensor wrapper would defeat it (the product's array is held by its
tensor), so ember does it for tensors. The product is a temporary nobody else can see: reusing its
buffer saves allocating and touching another array, ~30% of the expression on 4 MB operands.

Reuse is safe only when all of these hold (checked cheapest first):

* the left operand is large (below 256 KB, NumPy's threshold, allocation costs less than checking);
* nothing is recorded (a node may save its operands) and no forward-mode AD is active;
* the result has the left operand's dtype and shape, and its array owns its memory;
* nothing but the expression refers to the tensor or its array (reference counts), and the call
  comes straight from a binary operator in Python code: `t.__add__(b)` or a function's parameter
  `t` can have the same counts while the caller still uses `t`.

Reference counts are an implementation detail: this is the one place ember reads them, and it
switches itself off (`ENABLED`) outside the interpreters where the counts above were measured and
tests/ops/test_elision.py proves that no named value is overwritten: CPython 3.10 to 3.13. From
3.14 CPython borrows references on its evaluation stack, so a named local can show the counts of a
temporary (NumPy's own elision was broken the same way); PyPy has no reference counts.
"""

import dis
import sys

from .._backend import np
from .._sparse_coo import SparseCoo
from .._tensor import Tensor, new_tensor
from ..autograd import grad_mode, forward_ad
from . import elementwise

__all__ = ["OPERATORS", "ENABLED"]


def is_proven(version_info=sys.version_info, implementation=sys.implementation.name):
    """True on the interpreters whose reference counts this module was checked against."""
    return implementation == "cpython" and (3, 10) <= tuple(version_info[:2]) <= (3, 13)


ENABLED = is_proven()
MIN_BYTES = 256 * 1024
_OPERATOR_OPCODES = frozenset(
    dis.opmap[name]
    for name in (
        "BINARY_OP",  # Python 3.11+
        "BINARY_ADD",
        "BINARY_SUBTRACT",
        "BINARY_MULTIPLY",
        "BINARY_TRUE_DIVIDE",  # Python 3.10
    )
    if name in dis.opmap
)
# References to a temporary left operand seen from `_is_temporary`: the caller's evaluation stack,
# the operator's `self`, `_is_temporary`'s parameter and getrefcount's own argument; on 3.10 the
# binary operator's slot wrapper holds one more while it calls `__add__`.
_TEMPORARY_REFERENCES = 5 if sys.version_info[:2] == (3, 10) else 4
_ARRAY_REFERENCES = 3  # the tensor's slot, `_is_temporary`'s local `data`, getrefcount's argument

_grad_state = grad_mode.state
_forward_ad_state = forward_ad.state


def _is_temporary(tensor, other):
    """True if `tensor` (the left operand of a binary operator) may receive the result in place."""
    data = tensor._data
    if _grad_state.enabled and (tensor._requires_grad or type(other) is Tensor and other._requires_grad):
        return False
    if (
        _forward_ad_state.level is not None
        or type(tensor) is not Tensor
        or tensor._base is not None
        or type(data) is SparseCoo
        or data.base is not None
        or not data.flags.writeable
    ):
        return False
    if type(other) is Tensor:
        if other._data.dtype != data.dtype or other._data.shape != data.shape:
            return False
    elif type(other) not in (float, int) or data.dtype.kind != "f":  # (bfloat16 with a number: see ops.elementwise)
        return False
    if sys.getrefcount(tensor) != _TEMPORARY_REFERENCES or sys.getrefcount(data) != _ARRAY_REFERENCES:
        return False
    caller = sys._getframe(2)
    return caller.f_code.co_code[caller.f_lasti] in _OPERATOR_OPCODES


def _operator(name, op, ufunc):
    if not ENABLED:
        return op  # the plain op: `a + b` is `ember.add(a, b)`

    def operator(self, other):
        if self._data.nbytes >= MIN_BYTES and _is_temporary(self, other):
            data = self._data
            return new_tensor(ufunc(data, other._data if type(other) is Tensor else other, out=data))
        return op(self, other)

    operator.__name__ = name
    operator.__qualname__ = "Tensor." + name
    operator.__doc__ = op.__doc__
    return operator


OPERATORS = {
    name: _operator(name, op, ufunc)
    for name, op, ufunc in (
        ("__add__", elementwise.add, np.add),
        ("__sub__", elementwise.sub, np.subtract),
        ("__mul__", elementwise.mul, np.multiply),
        ("__truediv__", elementwise.div, np.true_divide),
    )
}
