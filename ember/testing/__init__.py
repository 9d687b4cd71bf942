"""`torch.testing`: `assert_close` with PyTorch's tolerances and messages, and `make_tensor`."""

from .comparison import assert_close, assert_allclose
from .creation import make_tensor

__all__ = ["assert_close", "assert_allclose", "make_tensor"]
