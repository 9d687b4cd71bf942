"""`DataParallel`: PyTorch's single-process multi-GPU wrapper. ember has no GPUs, and PyTorch's own
DataParallel without GPUs simply runs the module, so this does the same (and keeps `.module`, so
state_dict keys carry the "module." prefix as PyTorch's)."""

from ..modules.module import Module

__all__ = ["DataParallel"]


class DataParallel(Module):
    """Runs `module` as is (no devices to split the batch over); `module` and state_dict keys as PyTorch's."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = [] if device_ids is None else list(device_ids)
        self.output_device = output_device
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)
