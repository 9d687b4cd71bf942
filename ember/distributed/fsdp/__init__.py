"""`torch.distributed.fsdp` by name: ember does not implement fully sharded data parallelism.

FSDP shards parameters as DTensors, which ember lacks. Libraries import these names at start-up and
test `isinstance(module, FSDPModule)`; here no module is one, the policy dataclasses hold their
settings, and `fully_shard` / `FullyShardedDataParallel(...)` raise NotImplementedError. For data
parallelism use `ember.nn.parallel.DistributedDataParallel`, which ember does implement.
"""

import dataclasses

from ...nn import Module

__all__ = [
    "FullyShardedDataParallel",
    "FSDPModule",
    "fully_shard",
    "MixedPrecisionPolicy",
    "OffloadPolicy",
    "CPUOffloadPolicy",
]


def _no_fsdp(what):
    return NotImplementedError(
        f"{what}: ember does not implement FSDP (it needs DTensor); "
        "use ember.nn.parallel.DistributedDataParallel for data parallelism"
    )


@dataclasses.dataclass(frozen=True)
class MixedPrecisionPolicy:
    """The dtypes FSDP2 would compute, reduce and return in (None: keep the parameter's)."""

    param_dtype: object = None
    reduce_dtype: object = None
    output_dtype: object = None
    cast_forward_inputs: bool = True


@dataclasses.dataclass
class OffloadPolicy:
    """No offloading (the base of the offload policies)."""


@dataclasses.dataclass
class CPUOffloadPolicy(OffloadPolicy):
    """Keep sharded parameters on the CPU between uses."""

    pin_memory: bool = True


class FSDPModule:
    """Mixed into modules that `fully_shard` converted; none are in ember."""


def fully_shard(module, *, mesh=None, reshard_after_forward=None, **kwargs):
    raise _no_fsdp("fully_shard")


class FullyShardedDataParallel(Module):
    """FSDP1's wrapper module; constructing it raises in ember."""

    def __init__(self, module, *args, **kwargs):
        raise _no_fsdp("FullyShardedDataParallel")
