"""`DataLoader`: batches of samples from a dataset, in sequential, shuffled or sampler order.

ember loads in the main process: `num_workers > 0` is accepted (with a one-time note) and behaves like
`num_workers=0`; `pin_memory` and the other worker options are accepted and have no effect.
"""
import warnings

from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler
from ._collate import default_collate, default_convert

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]


def get_worker_info():
    """Always None: ember's DataLoader has no worker processes."""
    return None


class DataLoader:
    """Iterate over `dataset` in batches.

    Args:
        dataset: a map-style `Dataset` (`__getitem__` + `__len__`) or an `IterableDataset`.
        batch_size: samples per batch (None turns batching off: each sample is converted, not stacked).
        shuffle: a new random order every epoch (reproducible through `generator` or `ember.manual_seed`).
        sampler / batch_sampler: custom index order / custom lists of indices.
        collate_fn: merges a list of samples into a batch (default: `default_collate`).
        drop_last: drop the last batch when it is smaller than `batch_size`.
        generator: the `ember.Generator` that drives shuffling.
        num_workers, pin_memory, timeout, worker_init_fn, prefetch_factor, persistent_workers: accepted;
            loading always runs in the main process.

    Example::

        loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True)
        for inputs, targets in loader: ...
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers > 0:
            warnings.warn(f"ember's DataLoader loads batches in the main process: num_workers={num_workers} is "
                          "accepted and behaves like num_workers=0 (worker_init_fn is not called).", UserWarning,
                          stacklevel=2)
        self.dataset = dataset
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.generator = generator
        self._is_iterable = isinstance(dataset, IterableDataset)

        if self._is_iterable:
            if shuffle not in {False, None}:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")
        if sampler is None and not self._is_iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._is_iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None or (self._is_iterable and self.batch_size is not None)

    def __iter__(self):
        if self._is_iterable:
            return self._iterable_batches()
        if self.batch_sampler is not None:
            return self._map_batches()
        return (self.collate_fn(self.dataset[index]) for index in self.sampler)

    def _map_batches(self):
        dataset, collate_fn = self.dataset, self.collate_fn
        fetch_many = getattr(dataset, "__getitems__", None)
        for indices in self.batch_sampler:
            samples = fetch_many(indices) if fetch_many is not None else [dataset[index] for index in indices]
            yield collate_fn(samples)

    def _iterable_batches(self):
        if self.batch_size is None:
            for sample in self.dataset:
                yield self.collate_fn(sample)
            return
        batch = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __len__(self):
        if self._is_iterable:
            length = len(self.dataset)  # TypeError if the stream has no length, as in PyTorch
            if self.batch_size is None:
                return length
            return length // self.batch_size if self.drop_last else -(-length // self.batch_size)
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)
