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

from typing import NamedTuple, Optional, Tuple

__all__ = ["Edge", "NO_EDGE", "make_edge", "GradientEdge"]


class Edge(NamedTuple):
    node: Optional[object]  # the next node (a Node or AccumulateGrad); None: no gradient flows
    input_nr: int  # which output of `node` the input was (its gradient's slot there)
    shape: Optional[Tuple[int, ...]]
    dtype: Optional[object]  # a NumPy dtype


class GradientEdge(NamedTuple):
    """Output `output_nr` of graph node `node`: PyTorch's public handle on a place in the graph.

    `autograd.grad` and `autograd.backward` take one wherever they take a tensor, as an output (its
    gradient is fed in there) or as an input (the gradient that reaches it is returned); get one with
    `ember.autograd.graph.get_gradient_edge(tensor)`."""

    node: object
    output_nr: int


# Built without NamedTuple's Python-level __new__: edges are made for every recorded op.
_tuple_new = tuple.__new__


def make_edge(node, input_nr, shape, dtype):
    """An edge to output `input_nr` of `node` for an input of this shape and dtype."""
    return _tuple_new(Edge, (node, input_nr, shape, dtype))


NO_EDGE = make_edge(None, 0, None, None)
