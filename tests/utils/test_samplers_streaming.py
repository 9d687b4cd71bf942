"""Samplers stream their indices (nothing the size of the sampler is built) and behave as torch's."""

import itertools
import tracemalloc

import numpy as np
import pytest

import ember
from ember.utils.data import (
    BatchSampler,
    DataLoader,
    DistributedSampler,
    RandomSampler,
    SequentialSampler,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
)

HUGE = 10**10  # 80 GB of int64 indices, were they drawn at once


def _peak_traced_bytes(run):
    """Peak memory traced by tracemalloc (NumPy's buffers included) while `run()` executes."""
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    "make",
    [
        lambda data: RandomSampler(data, replacement=True, num_samples=HUGE),
        lambda data: RandomSampler(data, replacement=False, num_samples=HUGE),
        lambda data: WeightedRandomSampler(ember.rand(len(data)).double() + 0.1, HUGE),
    ],
    ids=["with-replacement", "repeated-permutations", "weighted"],
)
def test_huge_samplers_stream_in_flat_memory(make):
    data = range(1000)
    sampler = make(data)
    assert len(sampler) == HUGE

    def draw():
        drawn = list(itertools.islice(iter(sampler), 20_000))
        assert len(drawn) == 20_000 and 0 <= min(drawn) and max(drawn) < 1000

    assert _peak_traced_bytes(draw) < 4 * 2**20


@pytest.mark.parametrize("num_workers", [0, 2])
def test_dataloader_over_a_huge_sampler_gives_batches_at_once_in_flat_memory(num_workers):
    dataset = TensorDataset(ember.arange(100.0))
    loader = DataLoader(
        dataset,
        batch_size=64,
        sampler=RandomSampler(dataset, replacement=True, num_samples=HUGE),
        num_workers=num_workers,
    )
    assert len(loader) == -(-HUGE // 64)

    def load():
        batches = iter(loader)
        for _ in range(300):
            (values,) = next(batches)
            assert values.shape == (64,)

    assert _peak_traced_bytes(load) < 4 * 2**20


def test_distributed_sampler_streams_a_huge_dataset():
    class Huge:
        def __len__(self):
            return HUGE

    sampler = DistributedSampler(Huge(), num_replicas=3, rank=1, shuffle=False)
    first = []
    assert _peak_traced_bytes(lambda: first.extend(itertools.islice(iter(sampler), 5))) < 2**20
    assert first == [1, 4, 7, 10, 13]


@pytest.mark.parametrize(
    "length, replicas, shuffle, drop_last",
    [(10, 3, False, False), (10, 3, False, True), (2, 5, False, False), (11, 4, True, False), (11, 4, True, True)],
)
def test_distributed_sampler_pads_and_splits_as_torch(torch, length, replicas, shuffle, drop_last):
    from torch.utils.data import DistributedSampler as TorchDistributedSampler

    for rank in range(replicas):
        ours = list(DistributedSampler(range(length), replicas, rank, shuffle=shuffle, drop_last=drop_last))
        theirs = list(TorchDistributedSampler(range(length), replicas, rank, shuffle=shuffle, drop_last=drop_last))
        assert len(ours) == len(theirs)
        if not shuffle:
            assert ours == theirs
    orders = [
        list(DistributedSampler(range(length), replicas, rank, shuffle=shuffle, drop_last=drop_last))
        for rank in range(replicas)
    ]
    together = sorted(itertools.chain(*orders))
    if drop_last:
        assert len(set(together)) == len(together)  # no index twice
    else:
        assert set(together) == set(range(length))


def test_sequential_and_batch_samplers_match_torch(torch):
    from torch.utils.data import BatchSampler as TorchBatchSampler, SequentialSampler as TorchSequentialSampler

    for length in [0, 1, 7, 8, 9]:
        data = list(range(length))
        assert list(SequentialSampler(data)) == list(TorchSequentialSampler(data))
        for batch_size, drop_last in itertools.product([1, 3, 4, 10], [False, True]):
            ours = BatchSampler(SequentialSampler(data), batch_size, drop_last)
            theirs = TorchBatchSampler(TorchSequentialSampler(data), batch_size, drop_last)
            assert list(ours) == list(theirs) and len(ours) == len(theirs), (length, batch_size, drop_last)


def test_batch_sampler_accepts_a_plain_iterable_and_streams():
    assert list(BatchSampler(iter(range(5)), 2, drop_last=False)) == [[0, 1], [2, 3], [4]]
    batches = BatchSampler(RandomSampler(range(10), replacement=True, num_samples=HUGE), 8, drop_last=True)
    assert [len(batch) for batch in itertools.islice(iter(batches), 3)] == [8, 8, 8]


def test_random_sampler_shapes_match_torch(torch):
    from torch.utils.data import RandomSampler as TorchRandomSampler

    for kwargs in [{}, dict(num_samples=7), dict(num_samples=2), dict(replacement=True, num_samples=40)]:
        ours, theirs = list(RandomSampler(range(3), **kwargs)), list(TorchRandomSampler(range(3), **kwargs))
        assert len(ours) == len(theirs)
        if not kwargs.get("replacement"):  # whole permutations first, then part of one
            for start in range(0, len(ours) - len(ours) % 3, 3):
                assert sorted(ours[start : start + 3]) == [0, 1, 2]
            assert len(set(ours[len(ours) - len(ours) % 3 :])) == len(ours) % 3


def test_generators_are_honoured():
    def seeded(seed):
        return ember.Generator().manual_seed(seed)

    for make in [
        lambda g: RandomSampler(range(50), generator=g),
        lambda g: RandomSampler(range(50), replacement=True, num_samples=100, generator=g),
        lambda g: SubsetRandomSampler(list(range(100, 150)), generator=g),
        lambda g: WeightedRandomSampler([1.0] * 50, 100, generator=g),
        lambda g: WeightedRandomSampler([1.0] * 50, 30, replacement=False, generator=g),
    ]:
        first = list(make(seeded(5)))
        ember.manual_seed(123)  # the global seed plays no part once a generator is given
        assert list(make(seeded(5))) == first
        assert list(make(seeded(6))) != first


def test_samplers_without_a_generator_follow_the_global_seed():
    for make in [
        lambda: RandomSampler(range(50)),
        lambda: SubsetRandomSampler(list(range(50))),
        lambda: WeightedRandomSampler([1.0] * 50, 100),
    ]:
        ember.manual_seed(3)
        first = list(make())
        ember.manual_seed(3)
        assert list(make()) == first


def test_subset_random_sampler_permutes_the_given_indices():
    indices = [10, 30, 20, 50]
    drawn = list(SubsetRandomSampler(indices))
    assert sorted(drawn) == sorted(indices)
    assert len(SubsetRandomSampler(indices)) == 4


def test_weighted_sampler_draws_in_proportion_and_never_a_zero_weight():
    weights = [0.0, 1.0, 3.0, 0.0, 4.0, 0.0]
    drawn = np.array(list(WeightedRandomSampler(weights, 40_000, generator=ember.Generator().manual_seed(0))))
    counts = np.bincount(drawn, minlength=6) / len(drawn)
    assert counts[[0, 3, 5]].tolist() == [0.0, 0.0, 0.0]
    expected = np.array(weights) / sum(weights)
    assert np.abs(counts - expected).max() < 0.01, (counts, expected)
    without = list(WeightedRandomSampler(weights, 3, replacement=False))
    assert sorted(without) == [1, 2, 4]


@pytest.mark.parametrize("weights", [[1.0, -1.0], [0.0, 0.0], [float("nan"), 1.0]])
def test_weighted_sampler_refuses_bad_weights_when_drawing_as_torch(torch, weights):
    from torch.utils.data import WeightedRandomSampler as TorchWeightedRandomSampler

    ours, theirs = WeightedRandomSampler(weights, 3), TorchWeightedRandomSampler(weights, 3)
    with pytest.raises(RuntimeError, match="multinomial"):
        list(theirs)
    with pytest.raises(RuntimeError, match="multinomial"):
        list(ours)
