"""`torch.distributed._composable.fsdp`: the older home of FSDP2's names (see ember.distributed.fsdp)."""

from ...fsdp import CPUOffloadPolicy, FSDPModule, MixedPrecisionPolicy, OffloadPolicy, fully_shard

__all__ = ["fully_shard", "FSDPModule", "MixedPrecisionPolicy", "OffloadPolicy", "CPUOffloadPolicy"]
