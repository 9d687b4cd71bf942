"""`DistributedSampler`: each process of a distributed job visits its own share of the dataset."""

import math

from ...ops.creation import Generator, randperm
from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """Rank `rank` of `num_replicas` gets every `num_replicas`-th index of one shared order.

    As PyTorch's: with `shuffle` the order is a permutation drawn from `seed + epoch` (call
    `set_epoch(epoch)` before each epoch, or every epoch repeats the same order); the indices are
    padded by repeating the first ones so every rank gets the same count, or cut to a multiple of
    the number of replicas with `drop_last`. `num_replicas` and `rank` default to the process group's.
    (The permutation comes from ember's generator, so the shuffled order differs from PyTorch's.)
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None or rank is None:
            from ... import distributed

            if not distributed.is_available() or not distributed.is_initialized():
                raise RuntimeError(
                    "Requires distributed package to be available (call "
                    "ember.distributed.init_process_group first, or pass num_replicas and rank)"
                )
            num_replicas = distributed.get_world_size() if num_replicas is None else num_replicas
            rank = distributed.get_rank() if rank is None else rank
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        length = len(dataset)
        if drop_last and length % num_replicas != 0:
            self.num_samples = math.ceil((length - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(length / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        # The padded order is the base order repeated (padding takes from the front), so position p of it
        # is base[p % length]: each index is computed as needed, no list of the whole order is built.
        length = len(self.dataset)
        if self.shuffle:
            order = randperm(length, generator=Generator().manual_seed(self.seed + self.epoch))._data
            return (int(order[position % length]) for position in range(self.rank, self.total_size, self.num_replicas))
        return (position % length for position in range(self.rank, self.total_size, self.num_replicas))

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Use a new shuffled order for this epoch (the same on every rank)."""
        self.epoch = epoch
