"""ember.nn: modules, parameters and layers, as torch.nn.

`nn.Module` is the base class of models; `nn.Parameter` marks trained tensors; the layers
(`nn.Linear`, `nn.Conv2d`, `nn.LSTM`, ...), activations and losses are modules over
`nn.functional`; `nn.init` initialises weights; `nn.utils` clips gradients and flattens parameters.
"""

from . import functional  # noqa: F401
from . import init  # noqa: F401
from .parameter import Parameter, Buffer, UninitializedParameter, UninitializedBuffer
from .modules import *  # noqa: F401,F403
from .modules import Module
from .modules.module import (
    register_module_forward_pre_hook,
    register_module_forward_hook,  # noqa: F401
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
)
from . import utils  # noqa: F401
from .parallel import DataParallel  # noqa: F401
from . import attention  # noqa: F401
