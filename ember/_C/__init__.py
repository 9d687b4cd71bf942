"""The few names of `torch._C` (PyTorch's C++ core) that Python code of Tensor subclasses reaches
for: switching `__torch_function__` off, and the implementation that never dispatches; and
`_functions`, two nodes PyTorch's own tests build graphs with."""

from .._tensor import TensorBase
from .._torch_function import DisableTorchFunction, DisableTorchFunctionSubclass, _disabled_torch_function_impl
from . import _functions

__all__ = [
    "DisableTorchFunction",
    "DisableTorchFunctionSubclass",
    "TensorBase",
    "_disabled_torch_function_impl",
    "_functions",
]
