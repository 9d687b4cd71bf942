"""`ember.autocast`: PyTorch's automatic mixed precision regions, as they behave on a CPU-only build.

    with ember.autocast("cpu"):           # bfloat16, PyTorch's CPU default (needs ml_dtypes)
        loss = loss_fn(model(x), y)       # linear/matmul/conv run in bfloat16, the loss in float32

The CPU dtype is bfloat16 unless `dtype=ember.float16` is given (or `set_autocast_dtype`), as in
PyTorch; bfloat16 tensors need the optional ml_dtypes package, and entering a bfloat16 region
without it raises ModuleNotFoundError naming what to install. Difference from PyTorch: no cast
cache is kept (`cache_enabled` is accepted), so a weight used twice in a region is cast twice.

The ops PyTorch's CPU autocast lowers (linear, matmul, mm, bmm, addmm, addbmm, baddbmm, einsum,
conv1d-3d, conv_transpose1d-3d, prelu; attention through its matmuls) cast float32, float16 and
bfloat16 inputs to the region's dtype (float64 stays), and the losses (l1, mse, smooth_l1, huber,
nll, cross_entropy, binary_cross_entropy[_with_logits], kl_div) cast float16 and bfloat16 inputs
back to float32; every other op keeps its inputs' dtype. Each cast is a
ToCopyBackward0 node, so float32 leaves get float32 gradients. CUDA autocast is never available:
`autocast("cuda")` warns and disables itself, as PyTorch's does on a machine without CUDA.
"""

import functools

from .. import _dtype
from ..ops._autocast import state
from .._warn import warn as _warn

__all__ = [
    "autocast",
    "is_autocast_available",
    "is_autocast_enabled",
    "set_autocast_enabled",
    "get_autocast_dtype",
    "set_autocast_dtype",
    "is_autocast_cache_enabled",
    "set_autocast_cache_enabled",
    "clear_autocast_cache",
    "is_autocast_cpu_enabled",
    "set_autocast_cpu_enabled",
    "get_autocast_cpu_dtype",
    "get_autocast_gpu_dtype",
    "custom_fwd",
    "custom_bwd",
]

_DEVICE_TYPES = ("cpu", "cuda")
# Device types PyTorch knows but ember has no autocast for (PyTorch's CPU build raises for them too).
_OTHER_DEVICE_TYPES = ("ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia", "xla")
_CPU_DTYPES = (_dtype.bfloat16, _dtype.float16)


def _check_device_type(device_type, api="autocast"):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if device_type not in _DEVICE_TYPES + _OTHER_DEVICE_TYPES:
        raise RuntimeError(
            f"Expected one of {', '.join(_DEVICE_TYPES + _OTHER_DEVICE_TYPES)} device type at start of device "
            f"string: {device_type}"
        )
    if device_type not in _DEVICE_TYPES:
        raise RuntimeError(f"{api}: ember has autocast for 'cpu' (and a disabled 'cuda'), not for {device_type!r}")


def is_autocast_available(device_type):
    """True for 'cpu' and 'cuda' (CUDA autocast exists but disables itself without a GPU)."""
    return device_type in _DEVICE_TYPES


def is_autocast_enabled(device_type=None):
    """Whether autocast is on for `device_type`; with no argument, for CUDA (as PyTorch)."""
    if device_type is None or device_type == "cuda":
        return state.cuda_enabled
    _check_device_type(device_type, "is_autocast_enabled")
    return state.cpu_enabled


def set_autocast_enabled(device_type, enabled=None):
    """`set_autocast_enabled(device_type, enabled)`; the legacy `set_autocast_enabled(enabled)` means CUDA."""
    if enabled is None:
        device_type, enabled = "cuda", device_type
    _check_device_type(device_type, "set_autocast_enabled")
    if device_type == "cuda":
        state.cuda_enabled = bool(enabled)
    else:
        state.cpu_enabled = bool(enabled)
    state.refresh()


def get_autocast_dtype(device_type):
    """The dtype autocast casts to on `device_type`: bfloat16 on the CPU and float16 on CUDA unless set."""
    _check_device_type(device_type, "get_autocast_dtype")
    return state.cuda_dtype if device_type == "cuda" else state.cpu_dtype


def set_autocast_dtype(device_type, dtype):
    """The dtype autocast casts to on `device_type` when it is not given one."""
    _check_device_type(device_type, "set_autocast_dtype")
    if device_type == "cuda":
        state.cuda_dtype = dtype
    else:
        state.cpu_dtype = dtype
    state.refresh()


def is_autocast_cache_enabled():
    """Whether autocast would cache cast weights (ember casts each time; the flag is kept)."""
    return state.cache_enabled


def set_autocast_cache_enabled(enabled):
    """Set the flag `is_autocast_cache_enabled` reports."""
    state.cache_enabled = bool(enabled)


def clear_autocast_cache():
    """Nothing to clear: ember keeps no cache of cast weights."""


def _deprecated(old, new):
    _warn(f"torch.{old} is deprecated. Please use torch.{new} instead.", DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled():
    """Whether CPU autocast is on in this thread (the deprecated spelling of `is_autocast_enabled("cpu")`)."""
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return state.cpu_enabled


def set_autocast_cpu_enabled(enabled):
    """Turn CPU autocast on or off in this thread (deprecated spelling)."""
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    """The dtype CPU autocast casts to (deprecated spelling of `get_autocast_dtype("cpu")`)."""
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def get_autocast_gpu_dtype():
    """The dtype CUDA autocast casts to (deprecated spelling of `get_autocast_dtype("cuda")`)."""
    _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return state.cuda_dtype


class autocast:
    """Context manager and decorator: run the region's ops in mixed precision (see the module doc).

    Args:
        device_type: "cpu" or "cuda" (a string, as PyTorch requires).
        dtype: bfloat16 (the CPU default, as in PyTorch; needs ml_dtypes) or float16. Any other dtype
            warns and disables autocast, as PyTorch's CPU autocast does.
        enabled: False makes the region a no-op (it still turns an outer autocast off inside it).
        cache_enabled: accepted; ember keeps no cache of cast weights.
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        _check_device_type(device_type)
        self.device = device_type
        self.fast_dtype = state.cuda_dtype if device_type == "cuda" else state.cpu_dtype
        if dtype is not None:
            self.fast_dtype = dtype
        self._cache_enabled = state.cache_enabled if cache_enabled is None else bool(cache_enabled)
        self._enabled = bool(enabled)
        if self._enabled and device_type == "cuda":
            _warn("CUDA is not available or torch_xla is imported. Disabling autocast.", UserWarning, stacklevel=2)
            self._enabled = False
        if self._enabled and self.fast_dtype not in _CPU_DTYPES:
            _warn(
                "In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                UserWarning,
                stacklevel=2,
            )
            self._enabled = False
        if self._enabled and self.fast_dtype is _dtype.bfloat16:
            _dtype.load_ml_dtypes("autocast('cpu') in bfloat16 (PyTorch's CPU default; or pass dtype=ember.float16)")
        self._saved = []

    def __enter__(self):
        if self.device == "cuda":
            self._saved.append((state.cuda_enabled, state.cuda_dtype, state.cache_enabled))
            state.cuda_enabled = self._enabled
        else:
            self._saved.append((state.cpu_enabled, state.cpu_dtype, state.cache_enabled))
            state.cpu_enabled = self._enabled
            if self._enabled:
                state.cpu_dtype = self.fast_dtype
        state.cache_enabled = self._cache_enabled
        state.refresh()
        return self

    def __exit__(self, *exc_info):
        enabled, dtype, state.cache_enabled = self._saved.pop()
        if self.device == "cuda":
            state.cuda_enabled, state.cuda_dtype = enabled, dtype
        else:
            state.cpu_enabled, state.cpu_dtype = enabled, dtype
        state.refresh()
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def run_in_autocast(*args, **kwargs):
            with self:
                return function(*args, **kwargs)

        return run_in_autocast


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for a custom Function's forward: with `cast_inputs`, run it with autocast off and its
    floating tensor arguments cast to that dtype when autocast is on; the state is kept for backward."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    _check_device_type(device_type, "custom_fwd")

    @functools.wraps(fwd)
    def decorated(ctx, *args, **kwargs):
        ctx._fwd_used_autocast = is_autocast_enabled(device_type)
        ctx._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None or not ctx._fwd_used_autocast:
            return fwd(ctx, *args, **kwargs)
        from .._tensor import Tensor

        def cast(value):
            if isinstance(value, Tensor) and value.is_floating_point():
                return value.to(cast_inputs)
            return value

        with autocast(device_type, enabled=False):
            return fwd(ctx, *[cast(a) for a in args], **{k: cast(v) for k, v in kwargs.items()})

    return decorated


def custom_bwd(bwd=None, *, device_type):
    """Decorator for a custom Function's backward: it runs with the autocast state its forward had."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    _check_device_type(device_type, "custom_bwd")

    @functools.wraps(bwd)
    def decorated(ctx, *args):
        used = getattr(ctx, "_fwd_used_autocast", False)
        dtype = getattr(ctx, "_dtype", None)
        with autocast(device_type, enabled=used, dtype=dtype) if device_type == "cpu" else _no_region():
            return bwd(ctx, *args)

    return decorated


class _no_region:
    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return False
