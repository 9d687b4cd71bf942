"""`torch.utils._mode_utils`: `no_dispatch()`, which turns dispatch modes off for a block; ember has
none (see utils._python_dispatch), so the block runs as it is."""

import contextlib

__all__ = ["no_dispatch"]


def no_dispatch():
    return contextlib.nullcontext()
