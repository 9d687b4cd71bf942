"""Keep freed array memory in the process, as PyTorch's caching allocator does.

NumPy gets every array from the C allocator. glibc's malloc hands out blocks above its mmap
threshold as fresh pages and returns them to the system on free, so each new large temporary of a
training step (im2col columns, activations, their gradients) page-faults all its memory again: in
a LeNet step that costs more than the arithmetic. Raising the mmap threshold to its maximum (32 MB)
and the trim threshold keeps such blocks in malloc's heap, where the next step reuses them.

At most `KEPT_BYTES` of freed memory stays with the process; arrays above 32 MB still come and go
with mmap. Only glibc is tuned (elsewhere this does nothing), and `EMBER_KEEP_FREED_MEMORY=0` in the
environment turns it off.
"""

import os
import sys

_M_TRIM_THRESHOLD = -1  # mallopt parameters, from glibc's malloc.h
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD_BYTES = 32 * 2**20  # glibc's largest accepted value on 64-bit systems
KEPT_BYTES = 256 * 2**20


def keep_freed_memory():
    """Tune glibc's malloc so large freed blocks are reused; True if it was tuned."""
    if os.environ.get("EMBER_KEEP_FREED_MEMORY", "1") == "0" or not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False  # not glibc (musl, ...): nothing to tune
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)) and bool(mallopt(_M_TRIM_THRESHOLD, KEPT_BYTES))
