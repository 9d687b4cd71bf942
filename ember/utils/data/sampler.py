"""Samplers: the order in which a DataLoader visits a map-style dataset's indices.

Every sampler streams: random indices are drawn a chunk at a time as iteration proceeds, and a
permutation is handed out a slice at a time, so asking for 10**10 samples costs no memory up front.
"""

import itertools

from ..._backend import np
from ..._tensor import Tensor
from ...ops.creation import Generator, default_generator, multinomial, tensor
from ...ops import _distribution_kernels as kernels

__all__ = [
    "Sampler",
    "SequentialSampler",
    "RandomSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
    "BatchSampler",
]

_CHUNK = 32  # random indices drawn at a time (as PyTorch): the first index comes at once, memory stays flat
_SLICE = 1024  # permutation entries turned into Python ints at a time


class Sampler:
    """Base class: an iterable of indices (or of lists of indices, for batch samplers)."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _engine(generator):
    return (default_generator if generator is None else generator).engine


def draw_seed(generator=None):
    """PyTorch's `torch.empty((), dtype=torch.int64).random_(generator=generator).item()`: a seed in
    [0, 2**63) from one 64-bit draw."""
    return int(kernels.random_default(_engine(generator), 1, np.int64)[0])


def _epoch_generator(generator):
    """The generator for one pass: the given one, or (as PyTorch) a fresh one seeded from the default
    generator, so that `ember.manual_seed` makes the shuffling repeatable."""
    if generator is not None:
        return generator
    return Generator().manual_seed(draw_seed())


def _uniform_integers(engine, high, count):
    """`count` integers drawn uniformly from [0, high), `_CHUNK` at a time (PyTorch's `randint` calls)."""
    for _ in range(count // _CHUNK):
        yield from kernels.random_from_to(engine, _CHUNK, np.int64, high, 0).tolist()
    yield from kernels.random_from_to(engine, count % _CHUNK, np.int64, high, 0).tolist()


def _as_ints(array):
    """The entries of an int64 array as Python ints, without building one list of them all."""
    for start in range(0, len(array), _SLICE):
        yield from array[start : start + _SLICE].tolist()


class RandomSampler(Sampler):
    """A random permutation of the indices each pass, or `num_samples` draws with replacement.

    `generator` (an `ember.Generator`) makes the order repeatable independently of the global seed.
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self):
        """How many indices one pass yields: `len(data_source)` unless `num_samples` was given."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        size = len(self.data_source)
        engine = _epoch_generator(self.generator).engine
        if self.replacement:
            yield from _uniform_integers(engine, size, self.num_samples)
            return
        for _ in range(self.num_samples // size):
            yield from _as_ints(kernels.randperm(engine, size))
        yield from _as_ints(kernels.randperm(engine, size)[: self.num_samples % size])

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices, in a random order each pass."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        indices = self.indices
        for position in _as_ints(kernels.randperm(_engine(self.generator), len(indices))):
            yield indices[position]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """`num_samples` indices drawn with probability proportional to `weights` (e.g. to rebalance classes)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights = weights.double() if isinstance(weights, Tensor) else tensor(weights, dtype="float64")
        if weights.dim() != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(weights.shape)}")
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        if not self.replacement or self.num_samples == 1:  # PyTorch's multinomial: an exponential race
            yield from _as_ints(
                multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator)._data
            )
            return
        cumulative = kernels.multinomial_cumulative(self._checked_weights())
        engine = _engine(self.generator)
        for start in range(0, self.num_samples, _CHUNK):
            unit = kernels.unit_double(engine, min(_CHUNK, self.num_samples - start))
            yield from kernels.multinomial_pick(cumulative, unit).tolist()

    def _checked_weights(self):
        """The weights, refused as multinomial refuses them."""
        weights = self.weights._data
        if np.any(weights < 0) or not np.all(np.isfinite(weights)):
            raise RuntimeError("multinomial: probability tensor contains either `inf`, `nan` or element < 0")
        if weights.sum() <= 0:
            raise RuntimeError("multinomial: invalid multinomial distribution (sum of probabilities <= 0)")
        return weights

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of `sampler` into lists of `batch_size` (the last one shorter unless `drop_last`)."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        indices = iter(self.sampler)
        while True:
            batch = list(itertools.islice(indices, self.batch_size))
            if len(batch) < self.batch_size:
                if batch and not self.drop_last:
                    yield batch
                return
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
