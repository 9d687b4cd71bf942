"""`torch.distributed.tensor` (DTensor) by name only: ember does not implement distributed tensors.

Libraries with tensor-parallel support import these names at start-up and test `isinstance(x, DTensor)`
to decide whether a weight is sharded. Here the answer is truthful: `DTensor` is a Tensor subclass that
no tensor is an instance of, the placement classes describe layouts (and do the shard arithmetic), and
everything that would build or redistribute a DTensor raises NotImplementedError saying so. Data
parallelism (`DistributedDataParallel`) and the collectives of `ember.distributed` do work.
"""

from ..._tensor import Tensor
from ..._torch_function import _disabled_torch_function_impl
from .._unsupported import no_dtensor as _no_dtensor
from .placement_types import Partial, Placement, Replicate, Shard
from ..device_mesh import DeviceMesh, init_device_mesh

__all__ = [
    "DTensor",
    "distribute_tensor",
    "distribute_module",
    "Shard",
    "Replicate",
    "Partial",
    "Placement",
    "ones",
    "empty",
    "full",
    "rand",
    "randn",
    "zeros",
    "DeviceMesh",
    "init_device_mesh",
]


class DTensor(Tensor):
    """A tensor sharded or replicated over a DeviceMesh. ember has none: constructing one raises."""

    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, *args, **kwargs):
        raise _no_dtensor("DTensor")

    @staticmethod
    def from_local(*args, **kwargs):
        raise _no_dtensor("DTensor.from_local")


def distribute_tensor(tensor, device_mesh=None, placements=None, *, src_data_rank=0):
    raise _no_dtensor("distribute_tensor")


def distribute_module(module, device_mesh=None, partition_fn=None, input_fn=None, output_fn=None):
    raise _no_dtensor("distribute_module")


def _factory(name):
    def factory(*args, **kwargs):
        raise _no_dtensor(f"torch.distributed.tensor.{name}")

    factory.__name__ = factory.__qualname__ = name
    factory.__doc__ = f"A DTensor made like `torch.{name}`; raises NotImplementedError in ember (no DTensor)."
    return factory


ones, empty, full, rand, randn, zeros = map(_factory, ["ones", "empty", "full", "rand", "randn", "zeros"])
