"""DLPack exchange (`torch.utils.dlpack`): tensors share memory with other array libraries that speak
the protocol (NumPy, CuPy on the host, JAX, ...), without a copy."""

from .._backend import np

__all__ = ["from_dlpack", "to_dlpack"]


def from_dlpack(ext_tensor):
    """A tensor on the memory of `ext_tensor` (anything with `__dlpack__`, or a legacy capsule is refused)."""
    from .._tensor import Tensor, new_tensor

    if isinstance(ext_tensor, Tensor):
        return ext_tensor.detach()
    if not hasattr(ext_tensor, "__dlpack__"):
        raise TypeError(
            f"from_dlpack: expected an object with __dlpack__ (a NumPy array, another library's tensor), got "
            f"{type(ext_tensor).__name__}; ember cannot read bare DLPack capsules, pass the array itself."
        )
    return new_tensor(np.from_dlpack(ext_tensor))


def to_dlpack(tensor):
    """A DLPack capsule of the tensor's memory (for a library that still takes capsules)."""
    return tensor.detach()._data.__dlpack__()
