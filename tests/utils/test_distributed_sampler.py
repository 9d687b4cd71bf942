"""DistributedSampler: PyTorch's index sets, padding and drop_last, and per-epoch shuffling."""

import pytest

from ember.utils.data import DistributedSampler

CASES = [
    (length, replicas, drop_last)
    for length in (1, 7, 10, 12, 13)
    for replicas in (1, 2, 3, 4)
    for drop_last in (False, True)
    if not (drop_last and length < replicas)
]


def shares(length, replicas, drop_last, sampler_class, **options):
    return [
        list(sampler_class(range(length), num_replicas=replicas, rank=rank, drop_last=drop_last, **options))
        for rank in range(replicas)
    ]


@pytest.mark.parametrize("length,replicas,drop_last", CASES)
def test_unshuffled_shares_equal_pytorch(length, replicas, drop_last):
    torch = pytest.importorskip("torch")
    ours = shares(length, replicas, drop_last, DistributedSampler, shuffle=False)
    theirs = shares(length, replicas, drop_last, torch.utils.data.DistributedSampler, shuffle=False)
    assert ours == theirs
    expected_length = len(
        torch.utils.data.DistributedSampler(range(length), replicas, 0, shuffle=False, drop_last=drop_last)
    )
    assert len(DistributedSampler(range(length), replicas, 0, shuffle=False, drop_last=drop_last)) == expected_length


@pytest.mark.parametrize("length,replicas,drop_last", CASES)
def test_shuffled_shares_partition_one_permutation(length, replicas, drop_last):
    ours = shares(length, replicas, drop_last, DistributedSampler, shuffle=True, seed=5)
    counts = {len(share) for share in ours}
    assert len(counts) == 1, "every rank gets the same number of indices"
    every = [index for share in ours for index in share]
    if drop_last:
        assert len(set(every)) == len(every) and len(every) == length - length % replicas
    else:
        assert set(every) == set(range(length)) and len(every) == -(-length // replicas) * replicas


def test_set_epoch_changes_the_order_and_seed_fixes_it():
    first = list(DistributedSampler(range(100), num_replicas=2, rank=0, seed=1))
    assert list(DistributedSampler(range(100), num_replicas=2, rank=0, seed=1)) == first
    samplers = [DistributedSampler(range(100), num_replicas=2, rank=rank, seed=1) for rank in (0, 1)]
    for sampler in samplers:
        sampler.set_epoch(1)
    epoch_one = [list(sampler) for sampler in samplers]
    assert epoch_one[0] != first
    assert sorted(epoch_one[0] + epoch_one[1]) == list(range(100))


def test_rank_out_of_range_and_no_process_group():
    with pytest.raises(ValueError, match=r"Invalid rank 2, rank should be in the interval \[0, 1\]"):
        DistributedSampler(range(4), num_replicas=2, rank=2)
    with pytest.raises(RuntimeError, match="init_process_group"):
        DistributedSampler(range(4))
