"""`torch.nn.attention`: choosing the kernel behind `F.scaled_dot_product_attention`.

ember has one kernel, the plain composite of ember ops (PyTorch's MATH backend), so `sdpa_kernel`
only checks its argument and records the choice; every backend computes the same result here.
"""

import contextlib
import enum

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.IntEnum):
    """The attention kernels PyTorch can pick from (ember always computes as MATH)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


_current_backends = [SDPBackend.MATH]


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Within the context, `scaled_dot_product_attention` may use only `backends` (one or a list).

    Example::

        >>> q = k = v = ember.randn(2, 4, 5, 8)
        >>> with sdpa_kernel(SDPBackend.MATH):
        ...     out = F.scaled_dot_product_attention(q, k, v)
    """
    chosen = [backends] if isinstance(backends, SDPBackend) else list(backends)
    for backend in chosen:
        if not isinstance(backend, SDPBackend):
            raise AssertionError("Backend must be an instance of SDPBackend")
    global _current_backends
    previous = _current_backends
    _current_backends = chosen
    try:
        yield
    finally:
        _current_backends = previous
