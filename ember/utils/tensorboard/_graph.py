"""The graph that `SummaryWriter.add_graph` shows, read off ember's autograd graph.

PyTorch traces the model with TorchScript; ember has the graph already: run the model once with
inputs that require grad, then walk `grad_fn.next_functions` from the outputs. Each backward Function
becomes a node named by its op, parameters and inputs become the graph's sources.
"""

from tensorboardX.proto.graph_pb2 import GraphDef
from tensorboardX.proto.node_def_pb2 import NodeDef
from tensorboardX.proto.versions_pb2 import VersionDef
from tensorboardX.proto.attr_value_pb2 import AttrValue

from ..._tensor import Tensor
from ...autograd import grad_mode

__all__ = ["graph_def"]


def graph_def(model, inputs):
    inputs = inputs if isinstance(inputs, (list, tuple)) else () if inputs is None else (inputs,)
    inputs = [
        value.detach().requires_grad_(value.is_floating_point()) if isinstance(value, Tensor) else value
        for value in inputs
    ]
    with grad_mode.enable_grad():
        outputs = model(*inputs)
    outputs = [
        value for value in (outputs if isinstance(outputs, (list, tuple)) else (outputs,)) if isinstance(value, Tensor)
    ]
    leaf_names = {id(value): f"input/{position}" for position, value in enumerate(inputs) if isinstance(value, Tensor)}
    leaf_names.update({id(parameter): f"{type(model).__name__}/{name}" for name, parameter in model.named_parameters()})
    nodes = _nodes(outputs, leaf_names)
    return GraphDef(node=nodes, versions=VersionDef(producer=22))


def _nodes(outputs, leaf_names):
    """NodeDefs for every Function reachable from `outputs`, an iterative walk (graphs may be deep)."""
    names, nodes = {}, []

    def name_of(function):
        if function not in names:
            variable = getattr(function, "variable", None)
            if variable is not None:
                names[function] = leaf_names.get(id(variable), f"leaf/{len(names)}")
            else:
                names[function] = f"{function.name()}/{len(names)}"
        return names[function]

    pending = [value.grad_fn for value in outputs if value.grad_fn is not None]
    seen = set()
    while pending:
        function = pending.pop()
        if function in seen:
            continue
        seen.add(function)
        parents = [parent for parent, _ in function.next_functions if parent is not None]
        variable = getattr(function, "variable", None)
        node = NodeDef(
            name=name_of(function),
            op="Parameter" if variable is not None else function.name(),
            input=[name_of(parent) for parent in parents],
        )
        if variable is not None:
            node.attr["shape"].CopyFrom(AttrValue(s=str(list(variable.shape)).encode()))
        nodes.append(node)
        pending.extend(parents)
    return nodes
