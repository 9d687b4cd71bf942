"""Fetchers: turn what the index sampler yields into a batch, in the main process or in a worker.

Each remembers what it was doing (`describe()`), so that a worker's error can name the sample.
"""

import itertools

__all__ = ["MapFetcher", "IterableFetcher"]


class MapFetcher:
    """`dataset[i]` for each index of a batch, collated (`auto_collation`), or one sample, converted."""

    def __init__(self, dataset, auto_collation, collate_fn):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self._step = None  # (what it does, the indices) while fetch() runs

    def fetch(self, index):
        dataset = self.dataset
        if not self.auto_collation:
            self._step = ("loading sample index", index)
            sample = dataset[index]
            self._step = ("calling the collate_fn on sample index", index)
            return self.collate_fn(sample)
        fetch_many = getattr(dataset, "__getitems__", None)
        if fetch_many is not None:
            self._step = ("calling __getitems__ on sample indices", index)
            samples = fetch_many(index)
        else:
            samples = []
            for position in index:
                self._step = ("loading sample index", position)
                samples.append(dataset[position])
        self._step = ("calling the collate_fn on sample indices", index)
        return self.collate_fn(samples)

    def describe(self):
        return None if self._step is None else "{} {}".format(*self._step)


class IterableFetcher:
    """The next `batch_size` items of the dataset's stream, collated, or the next item, converted.

    `fetch` raises StopIteration once the stream is exhausted (a short last batch first, unless `drop_last`).
    """

    def __init__(self, dataset, auto_collation, collate_fn, drop_last, batch_size):
        self.stream = iter(dataset)
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.batch_size = batch_size
        self.ended = False
        self.consumed = 0  # items taken from the stream so far

    def fetch(self, _index=None):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            item = next(self.stream)
            self.consumed += 1
            return self.collate_fn(item)
        batch = list(itertools.islice(self.stream, self.batch_size))
        self.consumed += len(batch)
        if len(batch) < self.batch_size:
            self.ended = True
            if not batch or self.drop_last:
                raise StopIteration
        return self.collate_fn(batch)

    def describe(self):
        return f"reading the dataset's stream after its first {self.consumed} items"
