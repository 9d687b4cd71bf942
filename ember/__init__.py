"""ember: PyTorch's define-by-run autograd in pure Python on NumPy.

`import ember as torch` runs book code and ordinary PyTorch scripts. This module only re-exports.
"""

import math as _math

from ._allocator import keep_freed_memory as _keep_freed_memory
from ._dtype import (
    dtype,
    bool_ as bool,
    uint8,
    uint16,
    uint32,
    uint64,
    int8,
    int16,
    int32,
    int64,
    float16,
    float32,
    float64,  # noqa: A004
    bfloat16,
    float8_e4m3fn,
    float8_e5m2,
    float8_e4m3fnuz,
    float8_e5m2fnuz,
    float8_e8m0fnu,
    complex64,
    complex128,
    get_default_dtype,
    set_default_dtype,
    promote_types,
)
from ._dtype import result_type as _result_type
from ._dtype import can_cast, finfo, iinfo
from ._backend import device, set_default_device, get_default_device
from ._size import Size
from ._layout import layout, strided, sparse_coo
from ._memory_format import memory_format, contiguous_format, preserve_format, channels_last, channels_last_3d
from ._tensor import Tensor
from ._storage import TypedStorage, UntypedStorage
from ._formatting import set_printoptions
from . import autograd
from .autograd import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled, is_inference_mode_enabled
from .ops import *  # noqa: F401,F403
from . import ops as _ops
from . import _torch_function
from ._legacy import *  # noqa: F401,F403
from . import amp, cpu, cuda, backends  # noqa: F401
from .cuda import OutOfMemoryError  # noqa: F401  (torch.OutOfMemoryError)
from .amp import GradScaler  # noqa: F401  (torch.GradScaler)
from .amp.autocast_mode import (
    autocast,
    is_autocast_enabled,
    set_autocast_enabled,
    get_autocast_dtype,
    set_autocast_dtype,
    is_autocast_cache_enabled,
    set_autocast_cache_enabled,
    clear_autocast_cache,
    is_autocast_cpu_enabled,
    set_autocast_cpu_enabled,
    get_autocast_cpu_dtype,
    get_autocast_gpu_dtype,
)
from ._global_settings import *  # noqa: F401,F403
from .autograd.anomaly import is_anomaly_enabled, is_anomaly_check_nan_enabled, set_anomaly_enabled
from ._control_flow import cond, while_loop
from ._sym_numbers import *  # noqa: F401,F403

_keep_freed_memory()
# The ops' public names first offer their calls to the arguments' __torch_function__ (ember.overrides).
_torch_function.publish(globals(), _ops.__all__, "ember", ignored=_torch_function.IGNORED)

# Submodules (and save/load) load on first use: `ember.nn` works after `import ember`, as `torch.nn`
# does after `import torch`, while `import ember` itself stays fast.
_LAZY_SUBMODULES = {
    "accelerator",
    "compat",
    "compiler",
    "datasets",
    "distributed",
    "distributions",
    "fft",
    "func",
    "linalg",
    "multiprocessing",
    "nn",
    "optim",
    "serialization",
    "signal",
    "sparse",
    "special",
    "testing",
    "utils",
    "vision",
    "viz",
    "profiler",
    "jit",
    "hub",
    "random",
    "types",
    "storage",
    "_dynamo",
    "_C",
    "overrides",
}
# nn.functional's ops that torch's namespace also has (ember/_aten_functions.py)
_ATEN_FUNCTIONS = (
    "celu_ channel_shuffle pdist rms_norm rrelu_ selu_ threshold_ "
    "dropout_ alpha_dropout_ feature_dropout_ feature_alpha_dropout feature_alpha_dropout_ max_pool1d_with_indices"
).split()
_LAZY_NAMES = {
    "save": "serialization",
    "load": "serialization",
    "vmap": "func",
    "compile": "compiler",
    "from_dlpack": "utils.dlpack",
    **{name: "_aten_functions" for name in _ATEN_FUNCTIONS},
}


def __getattr__(name):
    import importlib

    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _LAZY_NAMES:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY_NAMES[name]}"), name)
    raise AttributeError(
        f"module 'ember' has no attribute '{name}' (if torch has it, torch.{name} is not implemented in ember)"
    )


def __dir__():
    return sorted(set(globals()) | _LAZY_SUBMODULES | set(_LAZY_NAMES))


from .version import ember as __version__  # noqa: E402  (ember's own release; see ember.version)


def get_num_threads():
    """NumPy's BLAS decides its own threads; reported as the machine's cores."""
    import os

    return os.cpu_count() or 1


def set_num_threads(count):
    """Accepted for compatibility; NumPy's BLAS threads are set by OMP_NUM_THREADS before start."""


# PyTorch's dtype aliases.
half, float, double = float16, float32, float64  # noqa: A001
short, int, long = int16, int32, int64  # noqa: A001
cfloat, cdouble = complex64, complex128

# Python's constants, as torch re-exports them (`torch.pi`, `torch.inf`, ...), and NumPy's newaxis.
pi, e, inf, nan = _math.pi, _math.e, _math.inf, _math.nan
newaxis = None


def result_type(tensor1, tensor2):
    """The dtype that an op on `tensor1` and `tensor2` (tensors or Python numbers) computes in, by PyTorch's
    promotion rules.
    """
    return _result_type(tensor1, tensor2)


def is_tensor(obj):
    """Whether `obj` is an ember Tensor (a Parameter counts; a NumPy array does not)."""
    return isinstance(obj, Tensor)


def is_floating_point(input):
    """Whether `input` has a floating-point dtype (float16/32/64, bfloat16, float8; complex is not)."""
    return input.is_floating_point()


def is_storage(obj):
    """Whether `obj` is a storage (`tensor.untyped_storage()`, `tensor.storage()`)."""
    return isinstance(obj, (TypedStorage, UntypedStorage))


def detach(input):
    """`input.detach()`: the same values, cut from the graph."""
    return input.detach()


def detach_(input):
    """`input.detach_()`: cut `input` itself from the graph; returns it."""
    return input.detach_()


def resize_as_(input, the_template, *, memory_format=None):  # noqa: F811 - PyTorch's keyword
    """`input.resize_as_(the_template)`: give `input` the template's shape, in place."""
    return input.resize_as_(the_template)


def is_distributed(input):
    """False: an ember tensor is never split over processes (torch.distributed works on whole tensors)."""
    return False


def get_device_module(device=None):  # noqa: F811 - PyTorch's argument name
    """The module for a device type (`ember.cpu`, `ember.cuda`); with no argument, the default device's."""
    import importlib

    from ._backend import device as device_class

    kind = (get_default_device() if device is None else device_class(device)).type
    try:
        return importlib.import_module(f"{__name__}.{kind}")
    except ImportError:
        raise RuntimeError(
            f"Device '{kind}' does not have a corresponding module registered as 'ember.{kind}'."
        ) from None


def get_device(input):
    """-1: the device index of a CPU tensor, as PyTorch reports it."""
    return input.get_device()


def numel(input):
    """The number of elements of `input`."""
    return input.numel()
