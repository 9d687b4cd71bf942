"""The public side of an op's declaration, beside the `Primitive` it applies (see
`ember.autograd.function.Primitive` for the class statement)::

    @op(Mul, method=True, inplace=True)         # x.mul(y) and x.mul_(y); out= read from the signature
    def mul(input, other, *, out=None):
        ...

    multiply = alias(mul, "multiply", method=True, inplace=True)

Everything that lists ops is derived from these rows, never written a second time: Tensor's
methods (`ember.ops.TENSOR_METHODS`, reached through `Tensor.__getattr__`), the in-place variants
(`ops.inplace_methods`), `docs/ops.md` (`docs/make_ops_table.py`) and the op-table coverage test.
"""

import inspect
from typing import NamedTuple, Optional

__all__ = []

DECLARATIONS = {}  # public name -> OpDeclaration, in declaration order


class OpDeclaration(NamedTuple):
    """One public op: its function, the primitives it applies (empty for a composite of other ops
    or an op without gradient), and its variants."""

    name: str
    function: object
    primitives: tuple
    method: bool  # also `tensor.name(...)`
    inplace: bool  # has `tensor.name_(...)`, made by ops.inplace_methods
    alias_of: Optional[str] = None
    inplace_of: Optional[str] = None  # set on the rows of the made in-place variants

    @property
    def out(self):
        """Takes `out=` (read from the function's signature, so it cannot drift)."""
        try:
            return "out" in inspect.signature(self.function).parameters
        except (TypeError, ValueError):
            return False

    @property
    def module(self):
        return self.function.__module__


def op(*primitives, method=False, inplace=False, name=None):
    """Declare a public op function: the primitives it applies and its Tensor variants."""

    def declare(function):
        _register(OpDeclaration(name or function.__name__, function, primitives, method, inplace))
        return function

    return declare


def alias(function, name, *, method=False, inplace=False):
    """`function` under another of PyTorch's names (`multiply` for `mul`); returns `function`."""
    original = _declaration_of(function)
    _register(
        OpDeclaration(
            name,
            function,
            original.primitives if original else (),
            method,
            inplace,
            alias_of=original.name if original else function.__name__,
        )
    )
    return function


def _declaration_of(function):
    for declaration in DECLARATIONS.values():
        if declaration.function is function and declaration.alias_of is None:
            return declaration
    return None


def _register(declaration):
    if declaration.name in DECLARATIONS:
        raise RuntimeError(
            f"op {declaration.name!r} is declared twice ({DECLARATIONS[declaration.name].module} "
            f"and {declaration.module})"
        )
    DECLARATIONS[declaration.name] = declaration
