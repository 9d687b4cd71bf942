"""The process-wide switches that scripts set at the top: determinism, matmul precision, threads,
denormals, warn-always.

ember computes on the CPU with NumPy, whose kernels are deterministic and whose float32 matmul is
always full precision, so most switches only record their value: scripts that set and read them
back behave as under PyTorch, and the arguments are checked as PyTorch checks them (same exception
classes). Differences from PyTorch are stated on each function.
"""

import os
from ._warn import warn as _warn

__all__ = [
    "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled",
    "is_deterministic_algorithms_warn_only_enabled",
    "set_deterministic_debug_mode",
    "get_deterministic_debug_mode",
    "set_float32_matmul_precision",
    "get_float32_matmul_precision",
    "set_num_interop_threads",
    "get_num_interop_threads",
    "set_flush_denormal",
    "set_warn_always",
    "is_warn_always_enabled",
]


class _Settings:
    deterministic = False
    deterministic_warn_only = False
    float32_matmul_precision = "highest"
    num_interop_threads = os.cpu_count() or 1
    warn_always = False


settings = _Settings()

_DEBUG_MODES = ("default", "warn", "error")
_MATMUL_PRECISIONS = ("highest", "high", "medium")


def _check_bool(value, message):
    if not isinstance(value, bool):
        raise RuntimeError(f"{message}, but got {type(value).__name__}")


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Ask for deterministic algorithms (`warn_only=True`: warn instead of raising where none exists).

    Every ember kernel is deterministic on the CPU, so nothing ever warns or raises; the setting is
    kept for `are_deterministic_algorithms_enabled()` and the debug mode.
    """
    if not isinstance(mode, bool):
        raise TypeError(
            f"use_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not {type(mode).__name__}"
        )
    if not isinstance(warn_only, bool):
        raise TypeError(
            f"use_deterministic_algorithms(): argument 'warn_only' must be bool, not {type(warn_only).__name__}"
        )
    settings.deterministic = mode
    settings.deterministic_warn_only = mode and warn_only


def are_deterministic_algorithms_enabled():
    """What `use_deterministic_algorithms` last set (every ember op is deterministic anyway)."""
    return settings.deterministic


def is_deterministic_algorithms_warn_only_enabled():
    """Whether `use_deterministic_algorithms(..., warn_only=True)` is in effect."""
    return settings.deterministic_warn_only


def set_deterministic_debug_mode(debug_mode):
    """0 / "default": off; 1 / "warn": deterministic, warn only; 2 / "error": deterministic."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(
                f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got {debug_mode}"
            )
        debug_mode = _DEBUG_MODES.index(debug_mode)
    elif not isinstance(debug_mode, int) or isinstance(debug_mode, bool):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    """The debug mode as a number: 0 default, 1 warn, 2 error."""
    if not settings.deterministic:
        return 0
    return 1 if settings.deterministic_warn_only else 2


def set_float32_matmul_precision(precision):
    """ "highest", "high" or "medium". ember's float32 matmuls are always "highest" (NumPy's BLAS has
    no TF32 or bfloat16 passes); the value is kept and reported, and it is what
    `backends.cuda.matmul.allow_tf32` reads."""
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}")
    if precision not in _MATMUL_PRECISIONS:
        _warn(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
            "set_float32_matmul_precision call has no effect.",
            UserWarning,
            stacklevel=2,
        )
        return
    settings.float32_matmul_precision = precision


def get_float32_matmul_precision():
    """ "highest", "high" or "medium", as last set (NumPy computes float32 matmuls in float32 either way)."""
    return settings.float32_matmul_precision


def set_num_interop_threads(num):
    """Accepted for compatibility (ember runs no inter-op thread pool); a positive int is required."""
    if isinstance(num, bool) or not isinstance(num, int) or num <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    settings.num_interop_threads = num


def get_num_interop_threads():
    """The inter-op thread count scripts set; ember runs ops one after another."""
    return settings.num_interop_threads


def set_flush_denormal(mode):
    """Returns False: NumPy cannot switch the CPU's flush-to-zero mode, so denormals are kept.

    Difference from PyTorch: PyTorch returns True on x86 CPUs with SSE3, where it sets the mode; a
    script reading the result learns that ember did not (the usual call is harmless here).
    """
    _check_bool(mode, "flush_denormal expects a bool")
    return False


def set_warn_always(b):
    """Warnings that PyTorch gives once per process are given every time when True (ember's own
    once-only warnings already go through Python's `warnings` filters, which decide repetition)."""
    _check_bool(b, "setWarnOnlyOnce expects a bool")
    settings.warn_always = b


def is_warn_always_enabled():
    """Whether warnings PyTorch gives once are given every time."""
    return settings.warn_always
