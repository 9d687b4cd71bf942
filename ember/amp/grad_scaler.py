"""`ember.amp.GradScaler`: loss scaling for float16 training, with PyTorch's API and state dict.

`GradScaler("cpu")` is enabled, as in PyTorch 2.13: `scale(loss)` multiplies by the scale,
`step(optimizer)` unscales the gradients and skips the step if any is inf or NaN, `update()` halves
the scale after such a step and doubles it after `growth_interval` clean ones.
`GradScaler("cuda")` (the default device) warns that CUDA is not available and disables itself: every
method then passes through (`scale` returns its input, `step` just steps), as PyTorch's does.
"""

import enum

from .._backend import np
from .._tensor import Tensor
from .. import _dtype
from .. import ops as _ops
from ..autograd.grad_mode import no_grad
from .._warn import warn as _warn

__all__ = ["GradScaler", "OptState"]


class OptState(enum.Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _float32(value):
    """Python float rounded to float32: PyTorch keeps the scale in a float32 tensor."""
    return float(np.float32(value))


class GradScaler:
    """Scale the loss so float16 gradients do not underflow; unscale before the optimizer steps.

    Args:
        device: "cpu" (enabled) or "cuda" (disabled with a warning: no CUDA here).
        init_scale: the first scale (2**16).
        growth_factor / backoff_factor: multiply the scale after `growth_interval` steps without
            inf/NaN gradients / after a step that had some.
        enabled: False makes every method a pass-through.

    Example::

        scaler = ember.amp.GradScaler("cpu")
        scaler.scale(loss).backward()
        scaler.step(optimizer)      # skipped if a gradient is inf or NaN
        scaler.update()
    """

    def __init__(
        self,
        device="cuda",
        init_scale=2.0**16,
        growth_factor=2.0,
        backoff_factor=0.5,
        growth_interval=2000,
        enabled=True,
    ):
        self._device = device
        self._enabled = enabled
        if self._device == "cuda" and enabled:
            _warn(
                "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                UserWarning,
                stacklevel=2,
            )
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None  # made by the first scale(), as PyTorch
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = {}

    def _optimizer_state(self, optimizer):
        return self._per_optimizer_states.setdefault(id(optimizer), {"stage": OptState.READY, "found_inf": None})

    def is_enabled(self):
        """False after `enabled=False`, or on a device the scaler cannot run on (CUDA here)."""
        return self._enabled

    def scale(self, outputs):
        """`outputs` (a tensor, or nested lists/tuples of tensors) times the current scale."""
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._scale = _float32(self._init_scale)
            self._growth_tracker = self._init_growth_tracker

        def scaled(value):
            if isinstance(value, Tensor):
                return value * _scale_tensor(self._scale)
            if isinstance(value, (list, tuple)):
                return type(value)(scaled(item) for item in value)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return scaled(outputs)

    def unscale_(self, optimizer):
        """Divide `optimizer`'s gradients by the scale, in place, and note whether any is inf or NaN."""
        if not self._enabled:
            return
        self._check_scale("unscale_")
        state = self._optimizer_state(optimizer)
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inverse = np.float32(np.float64(1.0) / np.float64(self._scale))
        found_inf = False
        with no_grad():
            for group in optimizer.param_groups:
                for parameter in group["params"]:
                    grad = parameter.grad
                    if grad is None:
                        continue
                    if grad.dtype is _dtype.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    grad.mul_(float(inverse))
                    found_inf = found_inf or not bool(grad.isfinite().all())
        state["found_inf"] = found_inf
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """Unscale (unless `unscale_` was called) and step, unless a gradient is inf or NaN.
        Returns what `optimizer.step` returns, or None when the step is skipped."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale("step")
        state = self._optimizer_state(optimizer)
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if state["found_inf"] is None:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return result

    def update(self, new_scale=None):
        """Set the scale for the next iteration: `new_scale`, or backed off after a step with inf/NaN
        gradients, grown after `growth_interval` clean steps."""
        if not self._enabled:
            return
        self._check_scale("update")
        if new_scale is not None:
            if isinstance(new_scale, Tensor):
                if new_scale.numel() != 1 or not new_scale.is_floating_point() or new_scale.requires_grad:
                    raise AssertionError(
                        "new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                        "torch.FloatTensor with requires_grad=False."
                    )
                new_scale = new_scale.item()
            self._scale = _float32(new_scale)
        else:
            found = [
                state["found_inf"] for state in self._per_optimizer_states.values() if state["found_inf"] is not None
            ]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(found):
                self._scale = _float32(self._scale * self._backoff_factor)
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    self._scale = _float32(self._scale * self._growth_factor)
                    self._growth_tracker = 0
        self._per_optimizer_states = {}

    def _check_scale(self, function):
        if self._scale is None:
            raise AssertionError(
                f"Attempted {function} but _scale is None.  This may indicate your script did not use "
                "scaler.scale(loss or outputs) earlier in the iteration."
            )

    def get_scale(self):
        """The current scale as a Python float (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale

    def get_growth_factor(self):
        """What the scale is multiplied by after `growth_interval` steps without inf/NaN gradients."""
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        """Set the factor the scale grows by."""
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        """What the scale is multiplied by after a step whose gradients had an inf or NaN."""
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        """Set the factor the scale shrinks by."""
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        """How many steps in a row without inf/NaN gradients make the scale grow."""
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        """Set how many clean steps make the scale grow."""
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker

    def state_dict(self):
        """scale, growth_factor, backoff_factor, growth_interval and _growth_tracker; {} when disabled."""
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._get_growth_tracker(),
        }

    def load_state_dict(self, state_dict):
        """Restore what `state_dict` gave; an empty dict (a disabled scaler's) is refused."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved from a disabled instance of GradScaler."
            )
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale = _float32(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker = state_dict["_growth_tracker"]


def _scale_tensor(scale):
    return _ops.tensor(scale, dtype=_dtype.float32)
