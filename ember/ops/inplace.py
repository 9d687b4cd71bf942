"""In-place ops (`add_`, `x[i] = v`, ...): one mechanism for all of them.

An in-place op computes its out-of-place twin, writes the result into the tensor's memory and bumps
the version counter. When gradients are involved the tensor's history is rebased onto the new node;
if the tensor is a view, its base's history is rebased too (PyTorch's CopySlices), so gradients of
the base see the change.
"""

from .. import _naming
from .._backend import np
from .._tensor import Tensor, new_tensor
from ..autograd import grad_mode, forward_ad as _forward_ad
from ..autograd.function import Primitive, refresh_view_grad_fn, _stop_retaining
from ..autograd.saved_hooks import before_mutation as _before_mutation, state as _saved_hooks_state
from ._tangents import linear_jvp

__all__ = ["apply_inplace", "copy_into_out"]

_grad_state = grad_mode.state


def _check_leaf(tensor, op_name):
    if tensor._requires_grad and tensor._grad_fn is None:
        if tensor._base is not None and getattr(tensor._view_replay, "forbids_inplace", False):
            raise tensor._view_replay.inplace_error(tensor._output_nr)  # a view made in inference mode
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation. "  # PyTorch's words first
            f"({op_name}: modify its values under `with {_naming.package}.no_grad():` as optimizers do, "
            "or work on a clone.)"
        )
    base = tensor._base
    if base is not None and base._requires_grad:
        replay = tensor._view_replay
        if getattr(replay, "forbids_inplace", False):  # PyTorch checks the kind of view first
            raise replay.inplace_error(tensor._output_nr)
        if base._grad_fn is not None:
            return
        raise RuntimeError(
            "a view of a leaf Variable that requires grad is being used in an in-place operation. "
            f"({op_name}: modify it under `with {_naming.package}.no_grad():`, or work on a clone of the leaf.)"
        )


def _write(tensor, result, op_name):
    target, source = tensor._data, result._data
    # (an empty array may carry stride 0 from NumPy: nothing is written, so nothing overlaps)
    if (
        target.size
        and 0 in target.strides
        and any(stride == 0 and size > 1 for stride, size in zip(target.strides, target.shape))
    ):
        raise RuntimeError(
            f"{op_name}: unsupported operation: more than one element of the written-to tensor refers to a single "
            "memory location (it was made by expand). Please clone() the tensor before performing the operation."
        )
    if not target.flags.writeable:
        raise RuntimeError(
            f"{op_name}: the tensor's memory is read-only (a NumPy array marked read-only); clone() it first"
        )
    if source.shape != target.shape:
        try:
            source = np.broadcast_to(source, target.shape)
        except ValueError:
            raise RuntimeError(
                f"{op_name}: output with shape {list(target.shape)} doesn't match the broadcast "
                f"shape {list(result.shape)}"
            ) from None
    if source.dtype != target.dtype and not np.can_cast(source.dtype, target.dtype, "same_kind"):
        raise RuntimeError(
            f"{op_name}: result type {result.dtype} can't be cast to the desired output type {tensor.dtype}"
        )
    np.copyto(target, source, casting="unsafe")


def apply_inplace(tensor, op_name, out_of_place, *args, **kwargs):
    """Run `out_of_place(tensor, *args)` and store its result in `tensor` itself."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{op_name}: expected a Tensor, got {type(tensor).__name__}")
    if _before_mutation:
        for hook in _before_mutation:
            hook(tensor)
    recording = _grad_state.enabled and (
        tensor._requires_grad or any(isinstance(arg, Tensor) and arg._requires_grad for arg in args)
    )
    if not recording:
        if _grad_state.enabled:
            _check_leaf(tensor, op_name)
        previous = _grad_state.enabled
        _grad_state.enabled = False
        try:
            result = out_of_place(tensor, *args, **kwargs)
        finally:
            _grad_state.enabled = previous
        _write(tensor, result, op_name)
        _carry_tangent(tensor, result)
        tensor._bump_version()
        return tensor

    _check_leaf(tensor, op_name)
    if tensor._base is not None and tensor._grad_fn is not None:
        refresh_view_grad_fn(tensor)  # the base may have changed since this view was made
    # The out-of-place op sees the old values through a stand-in with the tensor's history; if it
    # saves them for backward, they get their own copy before the memory is overwritten.
    old = _stand_in(tensor)
    if _saved_hooks_state.stack:  # a pack hook may keep the memory itself: give it a copy that stays old
        old._data = old._data.copy()
    args = [old if arg is tensor else arg for arg in args]  # y.mul_(y): both operands are the old y
    result = out_of_place(old, *args, **kwargs)
    if result.dtype is not tensor.dtype:
        _write(new_tensor(tensor._data.copy()), result, op_name)  # raises on a disallowed cast
        result = result.to(tensor.dtype)
    if result._data.shape != tensor._data.shape:
        result = result.expand(tensor.shape)
    if result._grad_fn is not None and old._data is tensor._data and _saves(result._grad_fn, old):
        old._data = old._data.copy()
    base = tensor._base
    retained = _stop_retaining(tensor)
    if base is not None:
        _rebase_view(tensor, result, op_name)
    else:
        _write(tensor, result, op_name)
        tensor._grad_fn, tensor._output_nr = result._grad_fn, result._output_nr
        tensor._requires_grad = result._requires_grad
    if retained:
        tensor.retain_grad()
    _carry_tangent(tensor, result)
    tensor._bump_version()
    if base is not None:
        tensor._view_version = tensor._version_counter.value  # its grad_fn is current
    return tensor


def _carry_tangent(tensor, result):
    """Under forward AD the tensor's tangent becomes (a copy of) the result's, which the op's jvp made:
    a copy, since the result may be an input as it was (`copy_`) and tangents are not shared."""
    if _forward_ad.state.level is not None and getattr(result, "_fw_grad", None) is not None:
        token, tangent = result._fw_grad
        tensor._fw_grad = (token, tangent.clone())


def _stand_in(tensor):
    old = new_tensor(tensor._data, tensor._requires_grad, tensor._grad_fn, tensor._output_nr)
    if tensor._grad_fn is None and tensor._requires_grad:
        old._grad_accumulator = tensor._grad_accumulator
    old._fw_grad = getattr(tensor, "_fw_grad", None)
    return old


def _saves(node, tensor):
    saved = node._saved
    return saved is not None and any(item is tensor for item in saved)


def _rebase_view(view, new_values, op_name):
    """In-place change of a view: rebuild the base's history around the changed region."""
    base = view._base
    replay = view._view_replay
    if getattr(replay, "forbids_inplace", False):
        raise replay.inplace_error(view._output_nr)
    if _forward_ad.tangent_of(base) is not None or _forward_ad.tangent_of(new_values) is not None:
        _forward_ad.note_lost_tangent()  # the base's and other views' tangents are not rebuilt
    old_base = _stand_in(base)
    new_base = CopySlices.apply(old_base, new_values, replay)
    _write(base, new_base, op_name)
    base_retained = _stop_retaining(base)
    base._grad_fn, base._output_nr, base._requires_grad = new_base._grad_fn, 0, True
    if base_retained:
        base.retain_grad()
    refreshed_view = replay(new_base)
    view._grad_fn, view._output_nr = refreshed_view._grad_fn, refreshed_view._output_nr
    view._requires_grad = True


class CopySlices(Primitive, node="CopySlices"):
    """The base of a view after an in-place op on the view: `base` with the view's region replaced."""

    @staticmethod
    def forward(ctx, base, values, replay):
        ctx.replay = replay
        result = base.copy()
        region = replay(new_tensor(result))._data
        region[...] = values
        return result

    @staticmethod
    def backward(ctx, grad):
        grad_base = grad_values = None
        if ctx.needs_input_grad[0]:
            from .creation import zeros_like

            region = ctx.replay(grad)
            grad_base = CopySlices.apply(grad, zeros_like(region), ctx.replay)
        if ctx.needs_input_grad[1]:
            grad_values = ctx.replay(grad)
        return grad_base, grad_values, None

    jvp = linear_jvp


def copy_into_out(out, result):
    """Write an op's result into a user's `out=` tensor (resized when its shape differs)."""
    if _grad_state.enabled and (out._requires_grad or result._requires_grad):
        # PyTorch's op name from its node's: IndexReduceBackward0 -> index_reduce
        node_name = result._grad_fn.name().split("Backward")[0] if result._grad_fn else "Op"
        op_name = "".join("_" + c.lower() if c.isupper() else c for c in node_name).lstrip("_")
        raise RuntimeError(
            f"{op_name}(): functions with out=... "
            "arguments don't support automatic differentiation, but one of the arguments "
            "requires grad."
        )
    if _forward_ad.state.level is not None and (
        _forward_ad.tangent_of(out) is not None or _forward_ad.tangent_of(result) is not None
    ):
        if _forward_ad.state.private:  # hvp's level: fall back rather than refuse what PyTorch allows
            _forward_ad.note_lost_tangent()
            return _write_out(out, result)
        raise RuntimeError(
            f"Trying to use forward AD with {result._grad_fn.name() if result._grad_fn else 'op'} "
            "that does not support it because it is an out= function"
        )
    return _write_out(out, result)


def _write_out(out, result):
    if _before_mutation:
        for hook in _before_mutation:
            hook(out)
    if out._data.shape != result._data.shape:
        out._data = np.empty(result._data.shape, dtype=out._data.dtype)
    _write(out, result.detach(), "out=")
    out._bump_version()
    return out
