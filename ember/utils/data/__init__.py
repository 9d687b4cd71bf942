"""ember.utils.data: datasets, samplers and the DataLoader, as torch.utils.data."""

from .dataset import (
    Dataset,
    IterableDataset,
    TensorDataset,
    ConcatDataset,
    ChainDataset,
    StackDataset,
    Subset,
    random_split,
)
from .sampler import Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler, WeightedRandomSampler, BatchSampler
from .dataloader import DataLoader, get_worker_info
from .distributed import DistributedSampler
from ._collate import default_collate, default_convert
from . import dataloader, dataset, sampler  # noqa: F401  (torch.utils.data.dataloader.default_collate etc.)

__all__ = [
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "ConcatDataset",
    "ChainDataset",
    "StackDataset",
    "Subset",
    "random_split",
    "Sampler",
    "SequentialSampler",
    "RandomSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
    "BatchSampler",
    "DistributedSampler",
    "DataLoader",
    "get_worker_info",
    "default_collate",
    "default_convert",
]
