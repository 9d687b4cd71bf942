"""Datasets: the map-style `Dataset` protocol, tensors as a dataset, subsets, concatenation, splits."""

import bisect
import math

from ..._tensor import Tensor
from ...ops.creation import default_generator, randperm
from ..._warn import warn as _warn

__all__ = [
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "ConcatDataset",
    "ChainDataset",
    "StackDataset",
    "Subset",
    "random_split",
]


class Dataset:
    """A map-style dataset: `dataset[index]` gives one sample; define `__getitem__` and `__len__`.

    Datasets can be concatenated with `+`. Example::

        class Squares(Dataset):
            def __len__(self): return 10
            def __getitem__(self, i): return ember.tensor([float(i)]), i * i
    """

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset that is a stream: define `__iter__`; the DataLoader batches what it yields in order."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        raise TypeError("ember's IterableDataset does not support `+` (ChainDataset is not implemented)")


class TensorDataset(Dataset):
    """Samples are the `index`-th rows of each tensor: `TensorDataset(images, labels)[i] == (images[i], labels[i])`."""

    def __init__(self, *tensors):
        if any(not isinstance(tensor, Tensor) for tensor in tensors):
            raise TypeError(
                "TensorDataset takes tensors, got " + ", ".join(type(tensor).__name__ for tensor in tensors)
            )
        if any(tensors[0].size(0) != tensor.size(0) for tensor in tensors):
            raise AssertionError(
                "Size mismatch between tensors: " + ", ".join(str(tensor.size(0)) for tensor in tensors)
            )
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class ConcatDataset(Dataset):
    """Several map-style datasets one after the other."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for dataset in self.datasets:
            if isinstance(dataset, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = []
        total = 0
        for dataset in self.datasets:
            total += len(dataset)
            self.cumulative_sizes.append(total)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, index):
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index = len(self) + index
        dataset_index = bisect.bisect_right(self.cumulative_sizes, index)
        start = self.cumulative_sizes[dataset_index - 1] if dataset_index > 0 else 0
        return self.datasets[dataset_index][index - start]


class ChainDataset(IterableDataset):
    """Iterable datasets one after another (what ConcatDataset is for map-style datasets)."""

    def __init__(self, datasets):
        super().__init__()
        self.datasets = datasets

    def __iter__(self):
        for dataset in self.datasets:
            _require_iterable(dataset)
            yield from dataset

    def __len__(self):
        total = 0
        for dataset in self.datasets:
            _require_iterable(dataset)
            total += len(dataset)
        return total


def _require_iterable(dataset):
    if not isinstance(dataset, IterableDataset):
        raise AssertionError("ChainDataset only supports IterableDataset")


class StackDataset(Dataset):
    """Datasets of equal length side by side: `StackDataset(images, labels)[i]` is
    `(images[i], labels[i])`, `StackDataset(image=images, label=labels)[i]` a dict."""

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError(
                "Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like input/output, "
                "but both types are given."
            )
        datasets = args or tuple(kwargs.values())
        if not datasets:
            raise ValueError("At least one dataset should be passed")
        self._length = len(datasets[0])
        if any(len(dataset) != self._length for dataset in datasets):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else dict(kwargs)

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {name: dataset[index] for name, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __len__(self):
        return self._length


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, index):
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __len__(self):
        return len(self.indices)


def _lengths_from_fractions(fractions, total):
    """Floor each fraction's share, then hand out the remainder one by one, round robin (PyTorch's rule)."""
    if not math.isclose(sum(fractions), 1) or sum(fractions) > 1:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    lengths = []
    for index, fraction in enumerate(fractions):
        if fraction < 0 or fraction > 1:
            raise ValueError(f"Fraction at index {index} is not between 0 and 1")
        lengths.append(int(math.floor(total * fraction)))
    for index in range(total - sum(lengths)):
        lengths[index % len(lengths)] += 1
    for index, length in enumerate(lengths):
        if length == 0:
            _warn(f"Length of split at index {index} is 0. This might result in an empty dataset.", stacklevel=3)
    return lengths


def random_split(dataset, lengths, generator=default_generator):
    """Split `dataset` into non-overlapping random `Subset`s of the given lengths (or fractions summing to 1).

    Example: `train, test = random_split(data, [0.8, 0.2], generator=ember.Generator().manual_seed(42))`.
    """
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _lengths_from_fractions(lengths, len(dataset))
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths), generator=generator).tolist()
    subsets, offset = [], 0
    for length in lengths:
        subsets.append(Subset(dataset, indices[offset : offset + length]))
        offset += length
    return subsets
