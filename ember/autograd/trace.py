"""A step-by-step record of backward, for following the chain rule by hand.

    w = ember.tensor([2.0], requires_grad=True)
    x = ember.tensor([3.0])
    b = ember.tensor([1.0], requires_grad=True)
    z = w * x + b
    with ember.autograd.trace(params={"w": w, "b": b}) as tr:
        z.backward()
    print(tr)

prints one row per node, in the order the engine runs them: the gradient arriving at the node's
output (dL/dz for AddBackward0), what it sends to each input, and where that goes — another node,
or a leaf's `.grad`:

    step  node            gradient arriving     gradients leaving
       1  AddBackward0    [1] [1.]              -> MulBackward0   [1] [1.]
                                                -> b              [1] [1.]
       2  AccumulateGrad  [1] [1.]              b.grad += [1] [1.]
    ...

The trace listens through the engine's observer hook (`ember.autograd.engine.observers`), so it
costs nothing when no trace is active.
"""

import numpy as np

from .._tensor import Tensor
from . import engine
from .function import AccumulateGrad

__all__ = ["trace", "TraceStep"]


class TraceStep:
    """One node run by the engine. `grad_outputs` arrive at the node's outputs; `grad_inputs`
    leave towards `destinations` (names of the next nodes or leaves, None where nothing goes)."""

    __slots__ = ("index", "name", "node", "grad_outputs", "grad_inputs", "destinations")

    def __init__(self, index, name, node, grad_outputs, grad_inputs, destinations):
        self.index, self.name, self.node = index, name, node
        self.grad_outputs, self.grad_inputs, self.destinations = grad_outputs, grad_inputs, destinations

    @property
    def is_leaf(self):
        """True for the AccumulateGrad step of a leaf (its gradient goes into `.grad`)."""
        return type(self.node) is AccumulateGrad

    def __repr__(self):
        return f"TraceStep({self.index}, {self.name})"


class trace:
    """Context manager recording every node backward runs inside it (see the module docstring).

    Args:
        params: optional {name: tensor} to name leaves (e.g. `dict(model.named_parameters())`).
        max_values: how many values of each gradient the printed table shows.

    Attributes: `steps` (list of TraceStep) and `leaf_grads` ({leaf name: gradient received}).
    Gradients are kept detached, so recording does not keep any graph alive.
    """

    def __init__(self, params=None, max_values=4):
        self._names = {id(tensor): name for name, tensor in (params or {}).items()}
        self.max_values = max_values
        self.steps = []
        self.leaf_grads = {}
        self._leaf_numbers = {}

    def __enter__(self):
        engine.observers.append(self._observe)
        return self

    def __exit__(self, *exc_info):
        engine.observers.remove(self._observe)
        return False

    # ------------------------------------------------------------ recording
    def _observe(self, node, grad_outputs, grad_inputs):
        grad_outputs = tuple(_detached(grad) for grad in grad_outputs)
        grad_inputs = tuple(_detached(grad) for grad in grad_inputs)
        if type(node) is AccumulateGrad:
            name = self.leaf_name(node)
            destinations = ()
            if grad_outputs and grad_outputs[0] is not None:
                previous = self.leaf_grads.get(name)
                self.leaf_grads[name] = grad_outputs[0] if previous is None else previous + grad_outputs[0]
        else:
            name = node.name()
            destinations = tuple(self._destination(edge.node) for edge in node._edges)
        self.steps.append(TraceStep(len(self.steps) + 1, name, node, grad_outputs, grad_inputs, destinations))

    def leaf_name(self, node):
        """The name of the leaf behind an AccumulateGrad: from `params`, else `leaf 1`, `leaf 2`, ..."""
        tensor = node.variable
        if tensor is not None and id(tensor) in self._names:
            return self._names[id(tensor)]
        return self._leaf_numbers.setdefault(id(node), f"leaf {len(self._leaf_numbers) + 1}")

    def _destination(self, node):
        if node is None:
            return None  # an input that needs no gradient, or not a tensor
        if type(node) is AccumulateGrad:
            return self.leaf_name(node)
        return node.name()

    # ------------------------------------------------------------ printing
    def _describe(self, grad):
        if grad is None:
            return "None"
        data = grad._data
        values = np.array2string(data.reshape(-1)[: self.max_values], precision=4, separator=", ", suppress_small=True)
        if data.size > self.max_values:
            values = values[:-1] + ", ...]"
        return f"{list(data.shape)} {values}"

    def __str__(self):
        rows = [("step", "node", "gradient arriving", "gradients leaving")]
        for step in self.steps:
            arriving = "; ".join(self._describe(grad) for grad in step.grad_outputs) or "-"
            if step.is_leaf:
                leaving = [f"{step.name}.grad += {self._describe(step.grad_outputs[0])}"]
            else:
                leaving = [
                    f"-> {destination}  {self._describe(grad)}"
                    for grad, destination in zip(step.grad_inputs, step.destinations)
                    if destination is not None
                ]
            display = "AccumulateGrad" if step.is_leaf else step.name
            rows.append((str(step.index), display, arriving, leaving[0] if leaving else "(nothing)"))
            rows.extend(("", "", "", line) for line in leaving[1:])
        widths = [max(len(row[column]) for row in rows) for column in range(3)]
        lines = [
            f"Backward trace: {len(self.steps)} steps, in the order the engine ran them. Each node "
            "multiplies the gradient arriving at its output by its local derivatives (chain rule) and "
            "sends the results to its inputs."
        ]
        for row in rows:
            lines.append(
                f"{row[0]:>{max(widths[0], 4)}}  {row[1]:<{widths[1]}}  {row[2]:<{widths[2]}}  {row[3]}".rstrip()
            )
        if self.leaf_grads:
            lines.append("Leaf gradients received:")
            width = max(len(name) for name in self.leaf_grads)
            lines.extend(f"  {name:<{width}}  {self._describe(grad)}" for name, grad in self.leaf_grads.items())
        return "\n".join(lines)

    def __repr__(self):
        return f"<trace of {len(self.steps)} backward steps>"


def _detached(grad):
    return grad.detach() if isinstance(grad, Tensor) else grad
