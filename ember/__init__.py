"""ember: PyTorch's define-by-run autograd in pure Python on NumPy.

`import ember as torch` runs book code and ordinary PyTorch scripts. This module only re-exports.
"""
from ._dtype import (dtype, bool_ as bool, uint8, int8, int16, int32, int64, float16, float32, float64,  # noqa: A004
                     complex64, complex128, get_default_dtype, set_default_dtype, promote_types)
from ._dtype import result_type as _result_type
from ._dtype import can_cast, finfo, iinfo
from ._backend import device
from ._size import Size
from ._tensor import Tensor
from ._formatting import set_printoptions
from . import autograd
from .autograd import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled, \
    is_inference_mode_enabled
from .ops import *  # noqa: F401,F403
from . import ops as _ops
from ._legacy import *  # noqa: F401,F403
from . import cuda, backends  # noqa: F401
from .serialization import save, load
from . import linalg  # noqa: E402  (torch.linalg)
from . import nn, optim, utils, viz  # noqa: E402  (reachable after `import ember`, as torch.nn after `import torch`)

__version__ = "0.1.0"


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
strided = "torch.strided"


def result_type(tensor1, tensor2):
    return _result_type(tensor1, tensor2)


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_floating_point(input):
    return input.is_floating_point()


def numel(input):
    return input.numel()
