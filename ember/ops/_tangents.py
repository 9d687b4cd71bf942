"""Forward-mode rules (`jvp`) shared by families of primitives.

A primitive states its rule in its own class statement, either written out (`Mul.jvp`) or as one of
these, when the family's rule is the same for all its members:

    jvp = linear_jvp       # views, reductions, copies, indexing: the op applied to the tangents
    jvp = diagonal_jvp     # element-wise ops: their backward formula applied to the tangents

A rule receives the node of the op's application (with `ctx.inputs` and `ctx.outputs`) and one
tangent per forward argument, None where there is none; it returns the output's tangent.
"""

from .._tensor import Tensor

__all__ = ["add_tangents", "linear_jvp", "diagonal_jvp"]


def add_tangents(*tangents):
    """The sum of the tangents that are not None (None if all are): a term per input of a rule."""
    total = None
    for tangent in tangents:
        if tangent is not None:
            total = tangent if total is None else total + tangent
    return total


def linear_jvp(ctx, *tangents):
    """Ops linear in their tensor arguments: J t is the op applied to the tangents (zeros where an
    input has none), with the other arguments (dims, shapes, indices) as given."""
    from .creation import zeros_like

    replaced = [
        (tangent if tangent is not None else zeros_like(arg)) if isinstance(arg, Tensor) else arg
        for arg, tangent in zip(ctx.inputs, tangents)
    ]
    return ctx._forward_cls.apply(*replaced)


def diagonal_jvp(ctx, *tangents):
    """Element-wise ops have a diagonal Jacobian, so J t is their backward applied to t (broadcast to
    the output's shape), one input at a time: for these ops the backward formula is the rule."""
    return pointwise_jvp(ctx, tangents, ctx._forward_cls.backward, ctx.outputs.shape)


def pointwise_jvp(ctx, tangents, backward, shape):
    """J t for a Jacobian that is diagonal over `shape`: `backward(ctx, t)` with each tangent
    broadcast to `shape`, asking for one input's gradient at a time, summed over the inputs."""
    from ..autograd.function import _resolve_saved

    node, output = ctx._node, ctx.outputs
    if node._to_save is not None:  # forward ran without recording: resolve what it saved now
        _resolve_saved(node, ctx.inputs, (output,), (output._data,))
    needs_input_grad = node.needs_input_grad
    count = len(needs_input_grad)
    total = None
    try:
        for index, tangent in enumerate(tangents):
            if tangent is None:
                continue
            node.needs_input_grad = tuple(position == index for position in range(count))
            grads = backward(node, tangent.expand(shape))
            total = add_tangents(total, grads[index] if isinstance(grads, tuple) else grads)
    finally:
        node.needs_input_grad = needs_input_grad
    return total
