"""ember.utils.data: datasets, samplers, collation and the DataLoader, checked against torch.utils.data."""

import collections
import warnings

import numpy as np
import pytest

import ember
from ember.utils.data import (
    BatchSampler,
    ConcatDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    default_collate,
    default_convert,
    random_split,
)

Point = collections.namedtuple("Point", "x y")


def _structure(value):
    """A comparable description of a collated batch: nested containers, tensors as (dtype, shape, values)."""
    if hasattr(value, "detach") and hasattr(value, "dtype"):
        return (
            "tensor",
            str(value.dtype).replace("torch.", ""),
            tuple(value.shape),
            np.asarray(value.detach().numpy()).tolist(),
        )
    if isinstance(value, dict):
        return (type(value).__name__, {key: _structure(item) for key, item in value.items()})
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return ("namedtuple", [_structure(item) for item in value])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_structure(item) for item in value])
    return value


def _samples(module):
    """The same batch of samples of every collatable kind, built with ember or torch."""
    return [
        [module.tensor([1.0, 2.0]), module.tensor([3.0, 4.0])],
        [np.array([1, 2], dtype=np.int32), np.array([3, 4], dtype=np.int32)],
        [np.float32(1.5), np.float32(2.5)],
        [1, 2, 3],
        [True, False],
        [0.5, 1.5],
        [1, 2.5],
        ["a", "b"],
        [(module.tensor(1), 2.0, "x"), (module.tensor(3), 4.0, "y")],
        [[1, 2], [3, 4]],
        [{"image": module.zeros(2, 2), "label": 1}, {"image": module.ones(2, 2), "label": 0}],
        [collections.OrderedDict(a=1.0), collections.OrderedDict(a=2.0)],
        [Point(1, 2.0), Point(3, 4.0)],
    ]


def test_default_collate_matches_torch_for_every_kind(torch):
    from torch.utils.data import default_collate as torch_collate

    for ours, theirs in zip(_samples(ember), _samples(torch)):
        assert _structure(default_collate(ours)) == _structure(torch_collate(theirs)), ours


def test_default_convert_matches_torch(torch):
    from torch.utils.data import default_convert as torch_convert

    samples = [np.arange(3), (np.float64(2.0), "s", 3), {"a": np.ones(2, dtype=np.float32)}, [np.int64(1)], 7]
    for sample in samples:
        assert _structure(default_convert(sample)) == _structure(torch_convert(sample))


def test_default_collate_errors():
    with pytest.raises(TypeError, match="batch must contain tensors, numpy arrays, numbers, dicts or lists; found "):
        default_collate([object(), object()])
    with pytest.raises(TypeError, match="found <U1"):
        default_collate([np.array(["a"]), np.array(["b"])])
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(
        RuntimeError,
        match=r"stack expects each tensor to be equal size, but got \[2\] at entry 0 "
        r"and \[3\] at entry 1",
    ):
        default_collate([ember.zeros(2), ember.zeros(3)])


def test_collating_a_tensor_with_a_number_names_the_element_as_torch(torch):
    for library in (torch, ember):
        with pytest.raises(TypeError, match="expected Tensor as element 1 in argument 0, but got int"):
            library.utils.data.default_collate([library.zeros(2), 3])
    with pytest.raises(TypeError, match="element 2 in argument 0, but got tuple"):
        default_collate([ember.zeros(2), ember.zeros(2), (1, 2)])


def test_collated_tensors_do_not_share_memory_with_samples():
    samples = [ember.zeros(2), ember.ones(2)]
    batch = default_collate(samples)
    batch[0, 0] = 5.0
    assert samples[0].tolist() == [0.0, 0.0]


def test_collate_keeps_the_graph_of_samples_that_require_grad():
    leaf = ember.ones(2, requires_grad=True)
    batch = default_collate([leaf * 2, leaf * 3])
    batch.sum().backward()
    assert leaf.grad.tolist() == [5.0, 5.0]


def _tensor_pair(module, n=10):
    x = module.arange(n * 2, dtype=module.float32).reshape(n, 2)
    y = module.arange(n)
    return x, y


@pytest.mark.parametrize(
    "batch_size, drop_last", [(1, False), (3, False), (3, True), (10, False), (4, True), (None, False)]
)
def test_sequential_loading_matches_torch(torch, batch_size, drop_last):
    ours = DataLoader(TensorDataset(*_tensor_pair(ember)), batch_size=batch_size, drop_last=drop_last)
    theirs = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(*_tensor_pair(torch)), batch_size=batch_size, drop_last=drop_last
    )
    assert len(ours) == len(theirs)
    assert [_structure(batch) for batch in ours] == [_structure(batch) for batch in theirs]


def test_shuffle_visits_every_sample_once_in_a_new_order_each_epoch():
    x, y = _tensor_pair(ember, 50)
    loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True)
    epochs = [ember.cat([labels for _, labels in loader]).tolist() for _ in range(2)]
    assert sorted(epochs[0]) == list(range(50)) and sorted(epochs[1]) == list(range(50))
    assert epochs[0] != epochs[1] and epochs[0] != list(range(50))


def test_shuffle_is_repeatable_with_a_generator_or_the_global_seed():
    dataset = TensorDataset(*_tensor_pair(ember, 30))

    def order(**kwargs):
        return [
            int(label) for _, labels in DataLoader(dataset, batch_size=4, shuffle=True, **kwargs) for label in labels
        ]

    assert order(generator=ember.Generator().manual_seed(7)) == order(generator=ember.Generator().manual_seed(7))
    assert order(generator=ember.Generator().manual_seed(7)) != order(generator=ember.Generator().manual_seed(8))
    ember.manual_seed(3)
    first = order()
    ember.manual_seed(3)
    assert order() == first


def test_dict_samples_are_collated_per_key():
    class Pairs(Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, index):
            return {"value": float(index), "name": f"item{index}", "vector": np.full(3, index, dtype=np.float32)}

    batch = next(iter(DataLoader(Pairs(), batch_size=2)))
    assert batch["value"].dtype is ember.float64 and batch["value"].tolist() == [0.0, 1.0]
    assert batch["name"] == ["item0", "item1"]
    assert batch["vector"].shape == (2, 3) and batch["vector"].dtype is ember.float32


def test_sampler_and_batch_sampler_options():
    dataset = TensorDataset(*_tensor_pair(ember))
    loader = DataLoader(dataset, batch_size=2, sampler=[9, 8, 7])
    assert [labels.tolist() for _, labels in loader] == [[9, 8], [7]]
    loader = DataLoader(dataset, batch_sampler=[[0, 5], [1]])
    assert [labels.tolist() for _, labels in loader] == [[0, 5], [1]]
    assert len(loader) == 2


def test_custom_collate_fn_receives_the_list_of_samples():
    dataset = TensorDataset(*_tensor_pair(ember))
    loader = DataLoader(dataset, batch_size=3, collate_fn=lambda samples: len(samples))
    assert list(loader) == [3, 3, 3, 1]


def test_getitems_is_used_when_the_dataset_has_it():
    class Batched(Dataset):
        def __len__(self):
            return 4

        def __getitems__(self, indices):
            return [index * 10 for index in indices]

    assert [batch.tolist() for batch in DataLoader(Batched(), batch_size=3)] == [[0, 10, 20], [30]]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(sampler=[0], shuffle=True), "sampler option is mutually exclusive with shuffle"),
        (dict(batch_sampler=[[0]], batch_size=2), "batch_sampler option is mutually exclusive"),
        (dict(batch_sampler=[[0]], drop_last=True), "batch_sampler option is mutually exclusive"),
        (dict(batch_size=None, drop_last=True), "mutually exclusive with drop_last"),
        (dict(num_workers=-1), "num_workers option should be non-negative"),
        (dict(batch_size=0), "batch_size should be a positive integer value, but got batch_size=0"),
    ],
)
def test_bad_options_raise_like_torch(torch, kwargs, message):
    with pytest.raises(ValueError, match=message):
        DataLoader(TensorDataset(*_tensor_pair(ember)), **kwargs)
    with pytest.raises(ValueError, match=message):
        torch.utils.data.DataLoader(torch.utils.data.TensorDataset(*_tensor_pair(torch)), **kwargs)


def test_num_workers_loads_in_worker_processes_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loader = DataLoader(TensorDataset(*_tensor_pair(ember)), batch_size=5, num_workers=2)
        assert [labels.tolist() for _, labels in loader] == [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))


def test_iterable_dataset_batches_in_order(torch):
    class TorchStream(torch.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(7))

    for batch_size, drop_last in [(3, False), (3, True), (None, False)]:
        ours = [_structure(b) for b in DataLoader(Stream(7), batch_size=batch_size, drop_last=drop_last)]
        theirs = [
            _structure(b)
            for b in torch.utils.data.DataLoader(TorchStream(), batch_size=batch_size, drop_last=drop_last)
        ]
        assert ours == theirs


def test_iterable_dataset_refuses_shuffle():
    with pytest.raises(ValueError, match="expected unspecified shuffle option"):
        DataLoader(Stream(3), shuffle=True)


def test_tensor_dataset():
    x, y = _tensor_pair(ember)
    dataset = TensorDataset(x, y)
    sample = dataset[3]
    assert isinstance(sample, tuple) and sample[0].tolist() == [6.0, 7.0] and sample[1].item() == 3
    assert len(dataset) == 10
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(x, ember.arange(3))


def test_subset_concat_and_add():
    dataset = TensorDataset(*_tensor_pair(ember))
    subset = Subset(dataset, [4, 1])
    assert len(subset) == 2 and subset[0][1].item() == 4 and subset[1][1].item() == 1
    joined = subset + dataset
    assert isinstance(joined, ConcatDataset) and len(joined) == 12
    assert joined[2][1].item() == 0 and joined[-1][1].item() == 9 and joined[1][1].item() == 1


def test_random_split_lengths_and_fractions(torch):
    dataset = TensorDataset(*_tensor_pair(ember, 11))
    parts = random_split(dataset, [6, 5], generator=ember.Generator().manual_seed(0))
    assert [len(part) for part in parts] == [6, 5]
    assert sorted(parts[0].indices + parts[1].indices) == list(range(11))
    ours = [len(part) for part in random_split(dataset, [0.3, 0.3, 0.4])]
    theirs = [len(part) for part in torch.utils.data.random_split(range(11), [0.3, 0.3, 0.4])]
    assert ours == theirs
    again = random_split(dataset, [6, 5], generator=ember.Generator().manual_seed(0))
    assert again[0].indices == parts[0].indices
    with pytest.raises(ValueError, match="Sum of input lengths does not equal"):
        random_split(dataset, [5, 5])


def test_samplers():
    data = list(range(6))
    assert list(SequentialSampler(data)) == data
    assert sorted(RandomSampler(data)) == data
    drawn = list(RandomSampler(data, replacement=True, num_samples=20))
    assert len(drawn) == 20 and set(drawn) <= set(data)
    longer = list(RandomSampler(data, num_samples=9))
    assert len(longer) == 9 and sorted(longer[:6]) == data
    seeded = [list(RandomSampler(data, generator=ember.Generator().manual_seed(1))) for _ in range(2)]
    assert seeded[0] == seeded[1]
    assert sorted(SubsetRandomSampler([10, 20, 30])) == [10, 20, 30]
    weighted = list(WeightedRandomSampler([0.0, 1.0, 0.0], 5))
    assert weighted == [1] * 5
    assert sorted(WeightedRandomSampler([1.0, 1.0, 1.0], 3, replacement=False)) == [0, 1, 2]
    assert list(BatchSampler(SequentialSampler(data), 4, drop_last=False)) == [[0, 1, 2, 3], [4, 5]]
    assert list(BatchSampler(SequentialSampler(data), 4, drop_last=True)) == [[0, 1, 2, 3]]
    assert len(BatchSampler(data, 4, False)) == 2 and len(BatchSampler(data, 4, True)) == 1


def test_sampler_argument_errors():
    with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
        RandomSampler([1], num_samples=0)
    with pytest.raises(TypeError, match="replacement should be a boolean value"):
        RandomSampler([1], replacement=1)
    with pytest.raises(ValueError, match="drop_last should be a boolean value"):
        BatchSampler([1], 2, drop_last=None)
    with pytest.raises(ValueError, match="weights should be a 1d sequence"):
        WeightedRandomSampler([[1.0]], 1)


def test_worker_info_is_none():
    from ember.utils.data import get_worker_info

    assert get_worker_info() is None


def test_dataloader_is_reachable_as_torch_names():
    import ember.utils.data.dataloader as module

    assert module.default_collate is default_collate and ember.utils.data.DataLoader is DataLoader
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        list(DataLoader(TensorDataset(*_tensor_pair(ember)), batch_size=4))


@pytest.mark.parametrize("num_workers", [0, 1])
def test_iterator_class_names_are_pytorchs(torch, num_workers):
    """Old scripts call `data_iter.next()`; the AttributeError names PyTorch's iterator class."""
    messages = []
    for lib in (ember, torch):
        iterator = iter(lib.utils.data.DataLoader(list(range(4)), batch_size=2, num_workers=num_workers))
        with pytest.raises(AttributeError) as error:
            iterator.next()
        messages.append(str(error.value))
        del iterator
    assert messages[0] == messages[1]
