"""Placements: how a DTensor's data is laid out over a device mesh (`torch.distributed.tensor.placement_types`).

ember has no DTensor (see `ember.distributed.tensor`), but libraries build placement objects at import
time to describe tensor-parallel plans, and ask the shard arithmetic of them. Both work here; the
methods that would move data between ranks raise NotImplementedError.
"""

import dataclasses

from .._unsupported import no_dtensor as _no_dtensor

__all__ = ["Placement", "Shard", "Replicate", "Partial"]


class Placement:
    """Base class of the layouts: Shard, Replicate, Partial."""

    def is_shard(self, dim=None):
        return False

    def is_replicate(self):
        return False

    def is_partial(self, reduce_op=None):
        return False


@dataclasses.dataclass(frozen=True)
class Shard(Placement):
    """The tensor is split along `dim` into one chunk per mesh rank (the last chunks may be smaller)."""

    dim: int

    def is_shard(self, dim=None):
        return dim is None or dim == self.dim

    @staticmethod
    def local_shard_size_and_offset(curr_local_size, num_chunks, rank):
        """(size, offset) of `rank`'s chunk when `curr_local_size` elements are split into `num_chunks`,
        chunks of ceil(size / num_chunks) as `torch.chunk` makes them (trailing ranks may get 0)."""
        full_chunk = -(-curr_local_size // num_chunks)
        offset = min(full_chunk * rank, curr_local_size)
        return min(full_chunk, curr_local_size - offset), offset

    _local_shard_size_and_offset = local_shard_size_and_offset  # the name before PyTorch 2.10

    def _split_tensor(self, *args, **kwargs):
        raise _no_dtensor("Shard._split_tensor")

    def __repr__(self):
        return f"Shard(dim={self.dim})"

    def __str__(self):
        return f"S({self.dim})"


@dataclasses.dataclass(frozen=True)
class _StridedShard(Shard):
    """A shard of a shard: `dim` split `split_factor` times before this mesh dimension splits it."""

    split_factor: int = 1

    def __repr__(self):
        return f"_StridedShard(dim={self.dim}, sf={self.split_factor})"

    def __str__(self):
        return f"_S({self.dim}, {self.split_factor})"


@dataclasses.dataclass(frozen=True)
class Replicate(Placement):
    """Every mesh rank holds the whole tensor."""

    def is_replicate(self):
        return True

    def __repr__(self):
        return "Replicate()"

    def __str__(self):
        return "R"


@dataclasses.dataclass(frozen=True)
class Partial(Placement):
    """Every mesh rank holds a partial value; the tensor is their reduction by `reduce_op`."""

    reduce_op: str = "sum"

    def is_partial(self, reduce_op=None):
        return reduce_op is None or reduce_op == self.reduce_op

    def __repr__(self):
        return f"Partial({self.reduce_op})"

    def __str__(self):
        return f"P({self.reduce_op})"
