"""Activation checkpointing: keep less for backward and recompute it when backward needs it.

`checkpoint(function, *args)` runs `function` without keeping its intermediate activations; backward
runs it again (with the random state it first had, so dropout draws the same mask) to get them. It
trades compute for memory: a deep network keeps only the segment boundaries.

Two variants, as in PyTorch:

* `use_reentrant=False` (recommended): saved-tensor hooks stand in for every tensor the function
  saves; the first backward access reruns the function and hands out the recomputed tensors. Works with
  `autograd.grad`, keyword arguments, inputs that need no grad, and double backward.
* `use_reentrant=True`: a `Function` whose backward reruns the forward with grad enabled and calls
  `backward` inside backward; gradients reach only tensors given as positional arguments and the
  parameters the function uses, and only through `.backward()`.
"""

import contextlib
import enum

from .. import autograd
from ..amp import autocast_mode as _autocast_mode
from ..amp.autocast_mode import autocast as _autocast
from ..autograd import engine as _engine
from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd.graph import saved_tensors_hooks
from .._warn import warn as _warn

__all__ = [
    "checkpoint",
    "checkpoint_sequential",
    "CheckpointError",
    "CheckpointFunction",
    "noop_context_fn",
    "detach_variable",
    "set_checkpoint_early_stop",
    "set_checkpoint_debug_enabled",
    "CheckpointPolicy",
    "create_selective_checkpoint_contexts",
]

_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, "
    "calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but if "
    "you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more "
    "details on the differences between the two variants."
)


class CheckpointError(RuntimeError):
    """The recomputation in backward did not reproduce what the forward saved."""


def noop_context_fn():
    """The default `context_fn` of `checkpoint`: two empty contexts (forward, recomputation)."""
    return contextlib.nullcontext(), contextlib.nullcontext()


class CheckpointPolicy(enum.Enum):
    """What selective checkpointing does with an op's output: keep it, or recompute it in backward."""

    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_like_ops=False):
    """The `context_fn` contexts of selective activation checkpointing (use with
    `functools.partial` as `checkpoint(..., use_reentrant=False, context_fn=...)`).

    ember records ops above PyTorch's aten level, where a policy's `func` would be named, so the
    policy is not consulted: the checkpointed region is recomputed whole, as plain checkpointing
    does. Values and gradients are the same; only the memory kept is not reduced as selectively.
    """
    if not (callable(policy_fn_or_list) or isinstance(policy_fn_or_list, list)):
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    return contextlib.nullcontext(), contextlib.nullcontext()


class _Settings:
    early_stop = None  # set_checkpoint_early_stop's override of checkpoint(early_stop=)
    debug = None  # set_checkpoint_debug_enabled's override of checkpoint(debug=)


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """Within the block, non-reentrant recomputations stop (or not) as soon as they have rebuilt
    every tensor the forward saved, whatever `checkpoint(early_stop=)` says."""
    previous, _Settings.early_stop = _Settings.early_stop, bool(enable)
    try:
        yield
    finally:
        _Settings.early_stop = previous


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Within the block, `checkpoint(debug=)` is overridden: True adds an explanation to the errors of a
    recomputation that differs from the forward (ember records no operator trace), False omits it."""
    previous, _Settings.debug = _Settings.debug, enabled
    try:
        yield
    finally:
        _Settings.debug = previous


class _StopRecomputation(Exception):
    """Raised inside a recomputation once it has rebuilt every saved tensor (early stop)."""


def detach_variable(inputs):
    """Detached copies of a tuple of tensors that keep each one's requires_grad."""
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: {type(inputs).__name__}")
    return tuple(
        item.detach().requires_grad_(item.requires_grad) if isinstance(item, Tensor) else item for item in inputs
    )


def checkpoint(
    function,
    *args,
    use_reentrant=None,
    context_fn=noop_context_fn,
    determinism_check="default",
    debug=False,
    early_stop=True,
    **kwargs,
):
    """Run `function(*args, **kwargs)` keeping only its inputs; recompute the rest during backward.

    Args:
        function: what to run (a module or any callable of tensors).
        use_reentrant: which variant (see the module docstring). Pass it explicitly: leaving it out warns
            and uses True, as PyTorch does.
        preserve_rng_state (keyword, default True): rerun with the random state of the first run, so
            random ops (dropout) draw the same numbers.
        context_fn: returns two context managers, entered around the forward and the recomputation
            (use_reentrant=False only).
        determinism_check: "default" checks that the recomputation saved tensors of the same shapes and
            dtypes as the forward (raising CheckpointError otherwise); "none" skips the check.
        debug: explain a differing recomputation in its error (no operator trace in ember).
        early_stop: stop the recomputation once it has rebuilt every saved tensor (default True).

    Returns:
        What `function` returns.

    Example::

        h = checkpoint(block, x, use_reentrant=False)   # block's activations are recomputed in backward
    """
    preserve_rng_state = kwargs.pop("preserve_rng_state", True)
    if use_reentrant is None:
        _warn(_REENTRANT_WARNING, UserWarning, stacklevel=2)
        use_reentrant = True
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    return _checkpoint_without_reentrant(
        function, preserve_rng_state, context_fn, determinism_check, args, kwargs, debug, early_stop
    )


class _RandomState:
    """The global random state of the first run, restored around a recomputation."""

    def __init__(self, preserve):
        from .. import get_rng_state

        self.state = get_rng_state() if preserve else None

    @contextlib.contextmanager
    def replay(self):
        if self.state is None:
            yield
            return
        from .. import get_rng_state, set_rng_state

        current = get_rng_state()
        set_rng_state(self.state)
        try:
            yield
        finally:
            set_rng_state(current)


def _autocast_state():
    """The CPU autocast settings of the first run, to recompute in the same precision."""
    return {
        "enabled": _autocast_mode.is_autocast_enabled("cpu"),
        "dtype": _autocast_mode.get_autocast_dtype("cpu"),
        "cache_enabled": _autocast_mode.is_autocast_cache_enabled(),
    }


class CheckpointFunction(autograd.Function):
    """The reentrant variant: forward runs without recording, backward reruns it and backpropagates."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        """Run `run_function(*args)` without recording, saving only its inputs (and the random state)."""
        ctx.run_function = run_function
        ctx.random_state = _RandomState(preserve_rng_state)
        ctx.autocast_state = _autocast_state()
        ctx.inputs = [None if isinstance(arg, Tensor) else arg for arg in args]
        ctx.tensor_indices = [index for index, arg in enumerate(args) if isinstance(arg, Tensor)]
        ctx.save_for_backward(*[arg for arg in args if isinstance(arg, Tensor)])
        if not any(isinstance(arg, Tensor) and arg.requires_grad for arg in args):
            _warn("None of the inputs have requires_grad=True. Gradients will be None", UserWarning)
        return run_function(*args)

    @staticmethod
    def backward(ctx, *grad_outputs):
        """Rerun the function with grad on (the same random numbers) and backpropagate through that recomputation."""
        if not _engine.checkpoint_valid:
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an "
                "`inputs` parameter to .backward(). To resolve this error, you can either set use_reentrant=False, "
                "or call .backward() without passing the `inputs` argument."
            )
        inputs = list(ctx.inputs)
        tensors = detach_variable(tuple(ctx.saved_tensors))
        for index, tensor in zip(ctx.tensor_indices, tensors):
            inputs[index] = tensor
        with ctx.random_state.replay(), grad_mode.enable_grad(), _autocast("cpu", **ctx.autocast_state):
            outputs = ctx.run_function(*inputs)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [
            (output, grad)
            for output, grad in zip(outputs, grad_outputs)
            if isinstance(output, Tensor) and output.requires_grad
        ]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        autograd.backward([output for output, _ in pairs], [grad for _, grad in pairs])
        grads = [tensor.grad if isinstance(tensor, Tensor) else None for tensor in inputs]
        return (None, None, *grads)


class _Recomputation:
    """What the non-reentrant variant keeps per call: how to rerun, and the tensors the rerun saved."""

    def __init__(self, function, args, kwargs, random_state, recompute_context, determinism_check):
        self.function, self.args, self.kwargs = function, args, kwargs
        self.random_state = random_state
        self.recompute_context = recompute_context
        self.determinism_check = determinism_check
        self.metadata = []  # (shape, dtype) of each tensor the forward saved
        self.recomputed = None  # the rerun's saved tensors, each dropped once backward has used it
        self.recomputed_for = None  # the backward pass (engine.current_task) they were made for
        self.debug, self.early_stop = False, True
        self.autocast_state = _autocast_state()

    def pack(self, tensor):
        self.metadata.append((tuple(tensor.shape), tensor.dtype))
        return len(self.metadata) - 1

    def unpack(self, index):
        """A saved tensor, from a rerun made once per backward pass; each is given out once (then
        freed), as in PyTorch, whose second unpack in one pass raises."""
        task = _engine.current_task
        if self.recomputed is None or self.recomputed_for != task:
            self.recomputed, self.recomputed_for = self._rerun(), task
        tensor = self.recomputed[index]
        if tensor is None:
            raise CheckpointError(
                "torch.utils.checkpoint: Unpack is being triggered for a tensor that was already unpacked once. "
                "If you are calling ctx.saved_tensors in backward, make sure to do so only once. Otherwise please "
                "open an issue with details on your use case."
            )
        self.recomputed[index] = None
        return tensor

    def _rerun(self):
        saved = []

        def keep(tensor):
            if len(saved) == len(self.metadata):
                if self.early_stop:
                    raise _StopRecomputation
                raise CheckpointError(
                    "torch.utils.checkpoint: trying to save more tensors during recomputation than during the "
                    "original forward pass." + self._debug_note()
                )
            saved.append(tensor.detach() if tensor.requires_grad else tensor)  # PyTorch's: identity kept

        args = self.args  # as PyTorch's: the inputs themselves (what is saved is detached in `keep`)
        try:
            with (
                self.random_state.replay(),
                grad_mode.enable_grad(),
                _autocast("cpu", **self.autocast_state),
                self.recompute_context,
                saved_tensors_hooks(keep, lambda packed: packed),
            ):
                self.function(*args, **self.kwargs)
        except _StopRecomputation:
            pass
        if self.determinism_check == "default":
            self._check(saved)
        return saved

    def _debug_note(self):
        if not self.debug:
            return ""
        return (
            "\nYou are seeing this error because you passed `debug=True` to checkpoint and tensors to be saved "
            "during the original forward differ from those saved during recomputation. This can happen if "
            "different operators were run in the original forward and in the recomputation."
        )

    def _check(self, saved):
        if len(saved) != len(self.metadata):
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the original forward and "
                f"recomputation.\nNumber of tensors saved during forward: {len(self.metadata)}\n"
                f"Number of tensors saved during recomputation: {len(saved)}" + self._debug_note()
            )
        differing = [
            f"tensor at position {index}:\nsaved metadata: {{'shape': {list(shape)}, 'dtype': {dtype}}}\n"
            f"recomputed metadata: {{'shape': {list(tensor.shape)}, 'dtype': {tensor.dtype}}}"
            for index, ((shape, dtype), tensor) in enumerate(zip(self.metadata, saved))
            if (shape, dtype) != (tuple(tensor.shape), tensor.dtype)
        ]
        if differing:
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have "
                "different metadata than during the forward pass.\n" + "\n".join(differing) + self._debug_note()
            )


def _checkpoint_without_reentrant(
    function, preserve_rng_state, context_fn, determinism_check, args, kwargs, debug, early_stop
):
    forward_context, recompute_context = context_fn()
    recomputation = _Recomputation(
        function, args, kwargs, _RandomState(preserve_rng_state), recompute_context, determinism_check
    )
    recomputation.debug = debug if _Settings.debug is None else _Settings.debug
    recomputation.early_stop = early_stop if _Settings.early_stop is None else _Settings.early_stop
    with saved_tensors_hooks(recomputation.pack, recomputation.unpack), forward_context:
        return function(*args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run a sequence of modules in `segments` chunks, checkpointing every chunk but the last.

    Args:
        functions: an `nn.Sequential` or a list of modules/functions applied in order.
        segments: how many chunks to split them into.
        input: the input of the first function.
        use_reentrant, preserve_rng_state (keyword): as for `checkpoint`.

    Example::

        out = checkpoint_sequential(model, 4, x, use_reentrant=False)
    """
    preserve_rng_state = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant is None:
        _warn(_REENTRANT_WARNING, UserWarning, stacklevel=2)
        use_reentrant = True
    if hasattr(functions, "children") and callable(functions.children):
        functions = list(functions.children())
    functions = list(functions)

    def run_segment(start, end):
        def forward(value):
            for index in range(start, end + 1):
                value = functions[index](value)
            return value

        return forward

    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(
            run_segment(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve_rng_state
        )
    return run_segment(end + 1, len(functions) - 1)(input)
