"""What every differentiating transform of `ember.func` shares: marking inputs to differentiate,
deciding whether results must stay differentiable for an enclosing transform, detaching outputs.

ember records one tape, so a transform differentiates by giving the function fresh inputs that
require grad and calling `autograd.grad`. An input that already requires grad (an enclosing
transform's input, or a tensor the user is differentiating with plain autograd) is passed as a
differentiable alias instead, so the result still depends on it and transforms nest:
`grad(grad(f))`, `jacrev(jacrev(f))`, `vmap(grad(f))`.
"""

from .. import autograd
from .._tensor import Tensor
from ..autograd import grad_mode
from ..utils._pytree import tree_flatten, tree_unflatten, tree_map


def check_argnums(argnums, count):
    """argnums as a tuple of non-negative positions, checked as PyTorch checks them."""
    if (
        isinstance(argnums, bool)
        or not isinstance(argnums, (int, tuple))
        or isinstance(argnums, tuple)
        and not all(type(item) is int for item in argnums)
    ):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    positions = argnums if isinstance(argnums, tuple) else (argnums,)
    if isinstance(argnums, tuple) and not positions:
        raise RuntimeError("argnums must be non-empty")
    normalized = []
    for position in positions:
        if not -count <= position < count:
            raise RuntimeError(f"Got argnum={position}, but only {count} positional inputs")
        normalized.append(position % count)
    if len(set(normalized)) != len(normalized):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return tuple(normalized)


class TrackedInputs:
    """The arguments a transform differentiates with respect to, replaced by tracked tensors.

    `args` are the positional arguments to call the function with; `flat` the tracked tensors in
    order; `own_leaves` the ids of the fresh leaves made here (inputs that did not require grad).
    """

    def __init__(self, args, positions, api):
        self.args = list(args)
        self.positions = positions
        self.flat = []
        self.specs = []
        self.own_leaves = set()
        for position in positions:
            leaves, spec = tree_flatten(self.args[position])
            tracked = [self._track(leaf, api) for leaf in leaves]
            self.flat.extend(tracked)
            self.specs.append((spec, len(tracked)))
            self.args[position] = tree_unflatten(tracked, spec)

    def _track(self, tensor, api):
        if not isinstance(tensor, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(tensor)}")
        if tensor.requires_grad:
            return tensor.view_as(tensor)  # differentiable alias: enclosing levels still see the input
        fresh = tensor.detach().requires_grad_()
        self.own_leaves.add(id(fresh))
        return fresh

    def regroup(self, flat_values, single):
        """Per-input values (one per tracked tensor) back into the structure of the inputs."""
        groups, start = [], 0
        for spec, count in self.specs:
            groups.append(tree_unflatten(flat_values[start : start + count], spec))
            start += count
        return groups[0] if single else tuple(groups)


def depends_on_outside(tensors, own_leaves):
    """True if the graph of `tensors` reaches a tensor requiring grad that this transform did not
    make: then gradients must be built with create_graph so an enclosing level can differentiate them."""
    stack = [tensor.grad_fn for tensor in tensors if isinstance(tensor, Tensor) and tensor.grad_fn is not None]
    for tensor in tensors:
        if (
            isinstance(tensor, Tensor)
            and tensor.requires_grad
            and tensor.grad_fn is None
            and id(tensor) not in own_leaves
        ):
            return True
    seen = set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        variable = getattr(node, "variable", None)
        if variable is not None and id(variable) not in own_leaves:
            return True
        stack.extend(edge[0] for edge in node.next_functions)
    return False


def gradients(outputs, inputs, grad_outputs, create_graph):
    """autograd.grad that gives zeros (not errors or None) for inputs the outputs do not depend on."""
    pairs = [(output, grad_output) for output, grad_output in zip(outputs, grad_outputs) if output.requires_grad]
    if pairs:
        found = autograd.grad(
            [output for output, _ in pairs],
            inputs,
            grad_outputs=[grad_output for _, grad_output in pairs],
            retain_graph=True,
            create_graph=create_graph,
            allow_unused=True,
        )
    else:
        found = [None] * len(inputs)
    return [_zeros_like(tensor) if grad is None else grad for grad, tensor in zip(found, inputs)]


def _zeros_like(tensor):
    from .. import zeros_like

    return zeros_like(tensor, requires_grad=False).detach()


def detach_tree(tree):
    return tree_map(lambda leaf: leaf.detach() if isinstance(leaf, Tensor) else leaf, tree)


def split_aux(output, has_aux, api):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    return output


def outer_grad_enabled():
    return grad_mode.is_grad_enabled()
