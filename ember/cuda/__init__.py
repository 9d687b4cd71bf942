"""`ember.cuda`: what `torch.cuda` is in a PyTorch built without CUDA, since ember computes on the CPU.

Scripts probe it (`is_available()`, `device_count()`), seed it, read memory statistics, or time with
`synchronize()`; they get PyTorch's CPU-only answers, and calls that need a GPU raise PyTorch's
exception class (mostly AssertionError: "Torch not compiled with CUDA enabled") followed by what to
do instead. The legacy GPU tensor types (`torch.cuda.FloatTensor`) raise TypeError when called and
match no tensor in `isinstance`.
"""

import collections

from .._backend import device as _device, missing_device_error
from .._legacy import tensortype as _tensortype
from .. import _dtype

__all__ = [
    "amp",
    "nvtx",
    "OutOfMemoryError",
    "is_available",
    "is_initialized",
    "is_bf16_supported",
    "is_tf32_supported",
    "device_count",
    "get_arch_list",
    "get_gencode_flags",
    "init",
    "current_device",
    "set_device",
    "get_device_name",
    "get_device_capability",
    "get_device_properties",
    "synchronize",
    "ipc_collect",
    "device",
    "device_of",
    "stream",
    "StreamContext",
    "Stream",
    "Event",
    "CUDAGraph",
    "graph",
    "current_stream",
    "default_stream",
    "manual_seed",
    "manual_seed_all",
    "seed",
    "seed_all",
    "initial_seed",
    "get_rng_state",
    "set_rng_state",
    "get_rng_state_all",
    "set_rng_state_all",
    "empty_cache",
    "memory_allocated",
    "max_memory_allocated",
    "memory_reserved",
    "max_memory_reserved",
    "memory_stats",
    "mem_get_info",
    "reset_peak_memory_stats",
    "FloatTensor",
    "DoubleTensor",
    "HalfTensor",
    "LongTensor",
    "IntTensor",
    "ShortTensor",
    "CharTensor",
    "ByteTensor",
    "BoolTensor",
    "BFloat16Tensor",
]


class OutOfMemoryError(RuntimeError):
    """A GPU ran out of memory (`torch.OutOfMemoryError`): never raised by ember, but scripts catch it."""


def _no_cuda():
    return missing_device_error(_device("cuda"))


# ---------------------------------------------------------------- what is true without a GPU
def is_available():
    """False: ember has no GPU backend."""
    return False


def is_initialized():
    """False: there is no CUDA to initialize."""
    return False


def is_bf16_supported(including_emulation=True):
    """False, as PyTorch answers without a GPU (bfloat16 itself works on the CPU: ember.bfloat16)."""
    return False


def is_tf32_supported():
    """False: TF32 is a GPU format."""
    return False


def device_count():
    """0: no GPUs."""
    return 0


def get_arch_list():
    """No GPU architectures were compiled in: []."""
    return []


def get_gencode_flags():
    """No GPU code was compiled in: ''."""
    return ""


def empty_cache():
    """Nothing is cached on a GPU: a no-op, as in PyTorch without CUDA."""


def memory_allocated(device=None):
    """GPU memory held by tensors: 0."""
    return 0


def max_memory_allocated(device=None):
    """Peak GPU memory held by tensors: 0."""
    return 0


def memory_reserved(device=None):
    """GPU memory held by the caching allocator: 0."""
    return 0


def max_memory_reserved(device=None):
    """Peak GPU memory held by the caching allocator: 0."""
    return 0


def memory_stats(device=None):
    """The GPU allocator's statistics: none (an empty OrderedDict, as PyTorch without CUDA)."""
    return collections.OrderedDict()


def reset_peak_memory_stats(device=None):
    """No GPU memory, so no peak to reset."""


def manual_seed(seed):
    """Accepted and ignored (there is no GPU generator), so seeding helpers keep working."""


manual_seed_all = manual_seed


def seed():
    """Accepted and ignored, as `manual_seed`."""


seed_all = seed


def get_rng_state_all():
    """The states of all GPU generators: there are none."""
    return []


def set_rng_state_all(new_states):
    """No GPU generators: nothing to set."""


# ---------------------------------------------------------------- what needs a GPU
def _needs_cuda(name, doc):
    def needs_cuda(*args, **kwargs):
        raise _no_cuda()

    needs_cuda.__name__ = needs_cuda.__qualname__ = name
    needs_cuda.__doc__ = doc + " Raises AssertionError, as PyTorch without CUDA does."
    return needs_cuda


init = _needs_cuda("init", "Initialize CUDA.")
current_device = _needs_cuda("current_device", "The index of the selected GPU.")
set_device = _needs_cuda("set_device", "Select a GPU.")
get_device_name = _needs_cuda("get_device_name", "The name of a GPU.")
get_device_capability = _needs_cuda("get_device_capability", "A GPU's compute capability.")
get_device_properties = _needs_cuda("get_device_properties", "A GPU's properties.")
synchronize = _needs_cuda("synchronize", "Wait for a GPU's work to finish.")
ipc_collect = _needs_cuda("ipc_collect", "Free GPU memory shared between processes.")
current_stream = _needs_cuda("current_stream", "The selected stream of a GPU.")
default_stream = _needs_cuda("default_stream", "The default stream of a GPU.")
initial_seed = _needs_cuda("initial_seed", "The seed of a GPU's generator.")
get_rng_state = _needs_cuda("get_rng_state", "The state of a GPU's generator.")
set_rng_state = _needs_cuda("set_rng_state", "Set the state of a GPU's generator.")
mem_get_info = _needs_cuda("mem_get_info", "Free and total memory of a GPU.")


class device:
    """`with torch.cuda.device(i):` selects a GPU; entering it raises (there is none), except for a
    negative index or None, which PyTorch also lets through."""

    def __init__(self, device):
        self.idx = device if isinstance(device, int) or device is None else _device(device).index

    def __enter__(self):
        if self.idx is not None and self.idx >= 0:
            raise RuntimeError("PyTorch was compiled without CUDA support: ember computes on the CPU.")

    def __exit__(self, *exc_info):
        return False


class device_of(device):
    """`with torch.cuda.device_of(tensor):` selects the tensor's GPU: a no-op for CPU tensors."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else -1)


class StreamContext:
    """`with torch.cuda.StreamContext(s):` selects a stream; with None (the only stream ember could have)
    a no-op, as in PyTorch."""

    def __init__(self, stream):
        if stream is not None:
            raise _no_cuda()
        self.stream = stream

    def __enter__(self):
        return None  # as PyTorch's, when the stream is None

    def __exit__(self, *exc_info):
        return False


def stream(stream):
    """`with torch.cuda.stream(s):` selects a stream: a StreamContext."""
    return StreamContext(stream)


class Stream:
    """A GPU stream: cannot be made without CUDA."""

    def __init__(self, device=None, priority=0, **kwargs):
        raise RuntimeError("torch.cuda.Stream requires CUDA support: ember computes on the CPU.")


class Event:
    """A GPU event (e.g. for timing): cannot be made without CUDA; time with time.perf_counter()."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        raise RuntimeError("Tried to instantiate dummy base class Event: ember has no CUDA (use time.perf_counter()).")


class CUDAGraph:
    """A captured sequence of GPU kernels for replay: cannot be made without CUDA."""

    def __init__(self, keep_graph=False):
        raise RuntimeError("Tried to instantiate dummy base class CUDAGraph: ember has no CUDA.")


class graph:
    """`with torch.cuda.graph(g):` captures GPU work into `g`; needs a stream, so it raises without CUDA."""

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode="global"):
        raise RuntimeError("torch.cuda.graph requires CUDA support: ember computes on the CPU.")


# ---------------------------------------------------------------- legacy GPU tensor types
class _cuda_tensortype(_tensortype):
    """`torch.cuda.FloatTensor` and friends: no tensor is one, and making one raises TypeError."""

    def __instancecheck__(cls, instance):
        return False

    def __call__(cls, *args, **kwargs):
        raise TypeError(
            f"type torch.cuda.{cls.__name__} not available: ember computes on the CPU (use ember.{cls.__name__})."
        )


def _cuda_type(name, dtype):
    return _cuda_tensortype(name, (), {"dtype": dtype, "__doc__": f"The GPU {dtype} tensor type: not available."})


FloatTensor = _cuda_type("FloatTensor", _dtype.float32)
DoubleTensor = _cuda_type("DoubleTensor", _dtype.float64)
HalfTensor = _cuda_type("HalfTensor", _dtype.float16)
LongTensor = _cuda_type("LongTensor", _dtype.int64)
IntTensor = _cuda_type("IntTensor", _dtype.int32)
ShortTensor = _cuda_type("ShortTensor", _dtype.int16)
CharTensor = _cuda_type("CharTensor", _dtype.int8)
ByteTensor = _cuda_type("ByteTensor", _dtype.uint8)
BoolTensor = _cuda_type("BoolTensor", _dtype.bool_)
BFloat16Tensor = _cuda_type("BFloat16Tensor", _dtype.bfloat16)

from . import amp, nvtx  # noqa: E402  (torch.cuda.amp: autocast and GradScaler, disabled without CUDA)
