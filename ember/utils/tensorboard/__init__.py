"""`torch.utils.tensorboard`: `SummaryWriter` writes TensorBoard event files through the optional
tensorboardX package (`pip install "ember[tensorboard]"`), with ember tensors accepted wherever
PyTorch's writer takes tensors, and `add_graph` drawn from ember's autograd graph."""

try:
    import tensorboardX as _tensorboardX  # noqa: F401
except ImportError as error:
    raise ImportError(
        "ember.utils.tensorboard (torch.utils.tensorboard) writes event files with the tensorboardX package, "
        "which is not installed: pip install tensorboardX  (or: pip install \"ember[tensorboard]\")"
    ) from error

from .writer import SummaryWriter  # noqa: E402

__all__ = ["SummaryWriter"]
