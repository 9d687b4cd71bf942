"""`torch.nn.utils.stateless`: the PyTorch 1.x home of `functional_call`, kept for old scripts."""

from ...func import functional_call as _functional_call
from ..._warn import warn as _warn

__all__ = ["functional_call"]


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """`ember.func.functional_call` under its deprecated name (warns as PyTorch does)."""
    _warn(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be removed in a "
        "future version of PyTorch. Please use `torch.func.functional_call` instead which is a drop-in replacement.",
        FutureWarning,
        stacklevel=2,
    )
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)
