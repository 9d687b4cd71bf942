"""`Edge`: where the gradient of one input of a graph node goes.

A node keeps one edge per forward argument (`node._edges`, in argument order, so the gradients its
backward returns pair with them by position). An edge names the next node and which of that node's
outputs the input was (`input_nr`), plus the input's shape and dtype, against which the engine
checks the gradient before handing it on.

`NO_EDGE` is the one "no gradient flows here" value: for a tensor that does not require grad, a
Python number an arithmetic op wrapped, and for arguments that were not tensors at all (a node
lists those in `_non_tensor_inputs`: a gradient returned there is an error, and `next_functions`
omits them, as PyTorch does).
"""

from operator import itemgetter
from typing import NamedTuple

try:  # the C field getter NamedTuple's fields use (CPython)
    from collections import _tuplegetter as _field  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - other Pythons

    def _field(index, doc):
        return property(itemgetter(index), doc=doc)


__all__ = ["Edge", "NO_EDGE", "make_edge", "GradientEdge"]


class Edge(tuple):
    """`(node, input_nr, shape, dtype)`, read by name.

    A tuple subclass with no Python-level `__new__` (a NamedTuple has one), so `Edge((node,
    input_nr, shape, dtype))` is built by C code alone: an edge is made for every recorded op, and
    the NamedTuple spelling cost about 1.5 µs more per op. The engine's loop unpacks edges by
    position into names; everything else reads the fields."""

    __slots__ = ()
    _fields = ("node", "input_nr", "shape", "dtype")

    node = _field(0, "the next node (a Node or AccumulateGrad); None: no gradient flows")
    input_nr = _field(1, "which output of `node` the input was (its gradient's slot there)")
    shape = _field(2, "the input's shape: a gradient of another shape is summed back to it")
    dtype = _field(3, "the input's NumPy dtype: a gradient of another dtype is cast to it")

    def __repr__(self):
        return "Edge(node={!r}, input_nr={!r}, shape={!r}, dtype={!r})".format(*self)

    def __getnewargs__(self):
        return (tuple(self),)


class GradientEdge(NamedTuple):
    """Output `output_nr` of graph node `node`: PyTorch's public handle on a place in the graph.

    `autograd.grad` and `autograd.backward` take one wherever they take a tensor, as an output (its
    gradient is fed in there) or as an input (the gradient that reaches it is returned); get one with
    `ember.autograd.graph.get_gradient_edge(tensor)`."""

    node: object
    output_nr: int


def make_edge(node, input_nr, shape, dtype):
    """An edge to output `input_nr` of `node` for an input of this shape and dtype."""
    return Edge((node, input_nr, shape, dtype))


NO_EDGE = make_edge(None, 0, None, None)
