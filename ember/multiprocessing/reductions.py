"""How tensors cross process boundaries (what `torch.multiprocessing.reductions` registers).

The reducer is registered with multiprocessing's ForkingPickler, the pickler of queues, pipes and
spawned processes' arguments, and only there: `ember.save` and plain pickle still copy the data.

- A tensor in shared memory (`share_memory_()`) travels as the name of its block: the receiver maps
  the same memory, so in-place updates made by any process are seen by all (Hogwild training).
- In a DataLoader worker, `large_tensor_hook` claims large tensors so that they travel through the
  worker's batch memory (ember.utils.data._batch_memory) instead of the pipe.
- Any other tensor is copied, as plain pickle does. (PyTorch moves it to shared memory first; ember
  leaves that to an explicit `share_memory_()`.)
"""

import pickle
from multiprocessing.reduction import ForkingPickler

from .._storage import _owner
from .._tensor import Tensor, new_tensor
from . import _shared_blocks

__all__ = ["reduce_tensor", "rebuild_tensor", "share", "register", "init_reductions"]

# Set in DataLoader workers: tensor -> reduce tuple, or None to leave the tensor to the rules above.
large_tensor_hook = None


def rebuild_tensor(array, requires_grad, cls):
    """The received tensor over `array`: a Tensor, or `cls(tensor, requires_grad)` for a subclass such as
    Parameter."""
    tensor = new_tensor(array)
    if cls is not Tensor:
        return cls(tensor, requires_grad)
    tensor._requires_grad = requires_grad
    return tensor


def _rebuild_shared(path, nbytes, offset, shape, dtype, strides, requires_grad, cls):
    array = _shared_blocks.shared_array(path, nbytes, offset, shape, dtype, strides)
    return rebuild_tensor(array, requires_grad, cls)


def reduce_tensor(tensor):
    if tensor._grad_fn is not None and tensor._requires_grad:
        raise RuntimeError(
            "a tensor that requires grad and is not a graph leaf cannot be sent to another process: "
            "autograd graphs do not cross process boundaries. Send tensor.detach() to transfer its "
            "data."
        )
    array = tensor._data
    mapping = _shared_blocks.mapping_of(array)
    if mapping is not None and mapping.kind == "shared":
        flat = _owner(array)
        return (
            _rebuild_shared,
            (
                mapping.path,
                flat.size,
                _shared_blocks.byte_offset(array, flat),
                array.shape,
                array.dtype,
                array.strides,
                tensor._requires_grad,
                type(tensor),
            ),
        )
    if large_tensor_hook is not None:
        reduced = large_tensor_hook(tensor)
        if reduced is not None:
            return reduced
    return tensor.__reduce_ex__(pickle.HIGHEST_PROTOCOL)


def share(tensor):
    """`Tensor.share_memory_()`: move the memory, and make sure tensors of this class (Parameter, say) are
    sent by reference. (Classes register when first shared, so that importing this module stays light.)"""
    register(type(tensor))
    _shared_blocks.share(tensor)


def register(cls):
    """Send tensors of exactly this class with `reduce_tensor` (ForkingPickler looks reducers up by type)."""
    ForkingPickler.register(cls, reduce_tensor)


def init_reductions():
    """Register the reducer for plain tensors (done on import of ember.multiprocessing)."""
    register(Tensor)
