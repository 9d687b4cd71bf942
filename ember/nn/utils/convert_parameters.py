"""`parameters_to_vector` and back: all parameters as one flat vector (e.g. for second-order methods)."""

from ..._tensor import Tensor
from ... import ops
from ..modules.module import typename

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """One 1-D tensor with every parameter flattened, in order (in the graph: gradients flow back)."""
    return ops.cat([param.view(-1) for param in parameters])


def vector_to_parameters(vec, parameters):
    """Make each parameter's data the matching slice of `vec` (the inverse of `parameters_to_vector`)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    pointer = 0
    for param in parameters:
        count = param.numel()
        param.data = vec[pointer : pointer + count].view_as(param).data
        pointer += count
