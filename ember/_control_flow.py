"""`torch.cond` and `torch.while_loop`: control flow that `torch.export` can capture as one op.

ember has no graph capture of Python control flow, so both run eagerly: `cond` calls the branch that
`pred` picks, `while_loop` iterates in Python. Gradients flow through what ran, as for any eager code.
What PyTorch checks of the loop (the body returns what it was given: as many values, each tensor
with the same shape and dtype) is checked here too, so code that works here also exports there.
"""

from ._tensor import Tensor

__all__ = ["cond", "while_loop"]


def cond(pred, true_fn, false_fn, operands=()):
    """`true_fn(*operands)` if `pred` else `false_fn(*operands)`; `pred` is a Python bool/number or
    a one-element tensor.

    Example::

        >>> x = ember.tensor([1.0, 2.0])
        >>> ember.cond(x.sum() > 0, lambda v: v.cos(), lambda v: v.sin(), (x,))
        tensor([ 0.5403, -0.4161])
    """
    if isinstance(pred, Tensor) and pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    if not isinstance(operands, (tuple, list)):
        raise TypeError(f"cond: operands must be a tuple or list (of tensors), got {type(operands).__name__}")
    return (true_fn if bool(pred) else false_fn)(*operands)


def while_loop(cond_fn, body_fn, carried_inputs):
    """Repeat `carried = body_fn(*carried)` while `cond_fn(*carried)` holds; returns the final
    values as a tuple. The body must return as many values as it takes, each tensor with the shape
    and dtype it had.

    Example::

        >>> ember.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * 2), (ember.tensor(0), ember.tensor(1.0)))
        (tensor(3), tensor(8.))
    """
    if not isinstance(carried_inputs, (tuple, list)):
        raise TypeError(
            f"while_loop: carried_inputs must be a tuple or list, got {type(carried_inputs).__name__} "
            "(wrap a single value: (x,))"
        )
    carried = tuple(carried_inputs)
    while bool(cond_fn(*carried)):
        outputs = body_fn(*carried)
        outputs = tuple(outputs) if isinstance(outputs, (tuple, list)) else (outputs,)
        _check_same_metadata(outputs, carried)
        carried = outputs
    return carried


def _check_same_metadata(outputs, carried):
    if len(outputs) != len(carried):
        raise RuntimeError(
            "Expected body_fn_output and carried_inputs to have same number of outputs but got "
            f"{len(outputs)} from body_fn for {len(carried)} carried inputs"
        )
    for position, (output, before) in enumerate(zip(outputs, carried)):
        if isinstance(before, Tensor) and (
            not isinstance(output, Tensor) or output.shape != before.shape or output.dtype != before.dtype
        ):
            described = f"{output.dtype} {list(output.shape)}" if isinstance(output, Tensor) else type(output).__name__
            raise RuntimeError(
                "Expected body_fn_output and carried_inputs to have same metadata but found: "
                f"output {position} of body_fn is {described}, the carried input was "
                f"{before.dtype} {list(before.shape)}"
            )
