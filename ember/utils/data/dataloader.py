"""`DataLoader`: batches of samples from a dataset, in sequential, shuffled or sampler order, loaded in
the main process or by worker processes (`num_workers > 0`, see `_worker_pool` and `_worker`).

Indices are drawn from the sampler as batches are needed, never all at once.
"""

import itertools
import multiprocessing
import multiprocessing.context

from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler, draw_seed
from ._collate import default_collate, default_convert
from ._fetch import IterableFetcher, MapFetcher
from ._worker import WorkerInfo, get_worker_info
from ..._warn import warn as _warn

__all__ = ["DataLoader", "get_worker_info", "WorkerInfo", "default_collate", "default_convert"]


class DataLoader:
    """Iterate over `dataset` in batches.

    Args:
        dataset: a map-style `Dataset` (`__getitem__` + `__len__`) or an `IterableDataset`.
        batch_size: samples per batch (None turns batching off: each sample is converted, not stacked).
        shuffle: a new random order every epoch (reproducible through `generator` or `ember.manual_seed`).
        sampler / batch_sampler: custom index order / custom lists of indices.
        num_workers: worker processes that load batches (0: load in the main process). Each worker is
            seeded with `base_seed + worker_id` (ember's, Python's and NumPy's generators) and sees its
            `get_worker_info()`; an IterableDataset is copied into every worker and should use that info
            to give each worker its own share (otherwise every item comes num_workers times).
        collate_fn: merges a list of samples into a batch (default: `default_collate`).
        pin_memory, pin_memory_device: accepted with PyTorch's warning: without a GPU nothing is pinned.
        drop_last: drop the last batch when it is smaller than `batch_size`.
        timeout: seconds to wait for a worker's batch before raising (0: wait as long as the workers live).
        worker_init_fn: called as `worker_init_fn(worker_id)` in each worker after seeding.
        multiprocessing_context: a start method ('fork', 'spawn', 'forkserver') or context (default: the
            platform's).
        generator: the `ember.Generator` that drives shuffling and the workers' base seed.
        prefetch_factor: batches loaded ahead per worker (default 2 with workers).
        persistent_workers: keep the workers between epochs.
        in_order: give batches in sampler order (False: as soon as any is ready).

    Example::

        loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True, num_workers=2)
        for inputs, targets in loader: ...
    """

    def __init__(
        self,
        dataset,
        batch_size=1,
        shuffle=None,
        sampler=None,
        batch_sampler=None,
        num_workers=0,
        collate_fn=None,
        pin_memory=False,
        drop_last=False,
        timeout=0,
        worker_init_fn=None,
        multiprocessing_context=None,
        generator=None,
        *,
        prefetch_factor=None,
        persistent_workers=False,
        pin_memory_device="",
        in_order=True,
    ):
        _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers)
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = 2 if num_workers > 0 and prefetch_factor is None else prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.persistent_workers = persistent_workers
        self.in_order = in_order
        self.generator = generator
        self._is_iterable = isinstance(dataset, IterableDataset)
        self._iterator = None  # the persistent workers' iterator

        if self._is_iterable:
            if shuffle not in {False, None}:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified sampler option, but got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                    f"got batch_sampler={batch_sampler}"
                )
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"
                )
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
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
    def multiprocessing_context(self):
        """How worker processes start ("fork", "spawn", "forkserver" or a context); None uses the platform's default."""
        return self._multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context):
        if context is not None:
            if self.num_workers == 0:
                raise ValueError(
                    "multiprocessing_context can only be used with multi-process loading "
                    f"(num_workers > 0), but got num_workers={self.num_workers}"
                )
            if isinstance(context, str):
                methods = multiprocessing.get_all_start_methods()
                if context not in methods:
                    raise ValueError(
                        "multiprocessing_context option should specify a valid start method in "
                        f"{methods!r}, but got multiprocessing_context={context!r}"
                    )
                context = multiprocessing.get_context(context)
            elif not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError(
                    "multiprocessing_context option should be a valid context object or a string "
                    f"specifying the start method, but got multiprocessing_context={context}"
                )
        self._multiprocessing_context = context

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None or (self._is_iterable and self.batch_size is not None)

    def _index_iterator(self):
        """What each batch is fetched from: lists of indices, single indices, or (streams) placeholders."""
        if self._is_iterable:
            return itertools.repeat(None)
        return iter(self.batch_sampler if self._auto_collation else self.sampler)

    def _draw_base_seed(self):
        """One draw per new iterator, as PyTorch makes whether or not there are workers (so that the shuffled
        order does not depend on num_workers)."""
        return draw_seed(self.generator)

    def __iter__(self):
        if self._iterator is not None and not self._iterator._workers.closed:
            self._iterator._reset(self)  # persistent workers: a new pass with the same processes
            return self._iterator
        base_seed = self._draw_base_seed()
        if self.pin_memory:
            if self.pin_memory_device:
                _warn(
                    "pin_memory_device is deprecated, the current accelerator will be used as the device, "
                    f"ignore pin_memory_device='{self.pin_memory_device}'.",
                    UserWarning,
                    stacklevel=2,
                )
            _warn(
                "'pin_memory' argument is set as true but no accelerator is found, then device pinned memory "
                "won't be used.",
                UserWarning,
                stacklevel=2,
            )
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        from ._worker_pool import _MultiProcessingDataLoaderIter

        iterator = _MultiProcessingDataLoaderIter(self, base_seed)
        if self.persistent_workers:
            self._iterator = iterator
        return iterator

    def __len__(self):
        if self._is_iterable:
            length = len(self.dataset)  # TypeError if the stream has no length, as in PyTorch
            if self.batch_size is None:
                return length
            return length // self.batch_size if self.drop_last else -(-length // self.batch_size)
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)


def _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers):
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError(
            "prefetch_factor option could only be specified in multiprocessing. Let num_workers > 0 "
            "to enable multiprocessing, otherwise set prefetch_factor to None."
        )
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")


class _SingleProcessDataLoaderIter:
    """Loads each batch in the main process when it is asked for."""

    def __init__(self, loader):
        if loader._is_iterable:
            self._fetcher = IterableFetcher(
                loader.dataset, loader._auto_collation, loader.collate_fn, loader.drop_last, loader.batch_size
            )
        else:
            self._fetcher = MapFetcher(loader.dataset, loader._auto_collation, loader.collate_fn)
        self._indices = loader._index_iterator()
        self._loader_length = loader.__len__

    def __iter__(self):
        return self

    def __next__(self):
        return self._fetcher.fetch(next(self._indices))

    def __len__(self):
        return self._loader_length()
