"""`torch.utils.flop_counter`: FlopCounterMode, PyTorch's count of matmul and convolution FLOPs.

PyTorch's counter is a `__torch_dispatch__` mode (see utils._python_dispatch), which ember does
not have: the class imports, and entering it raises with the reason.
"""

from ._python_dispatch import TorchDispatchMode

__all__ = ["FlopCounterMode"]


class FlopCounterMode(TorchDispatchMode):
    def __init__(self, mods=None, depth=2, display=True, custom_mapping=None):
        super().__init__()
        self.depth, self.display = depth, display
