"""Layers and helpers beyond the book: unpooling, power-average pooling, channel shuffle, pdist,
Gumbel-softmax, the triplet loss with any distance, chained and stacked datasets."""

import numpy as np
import pytest

import ember
from ember import nn
from ember.autograd import gradcheck, gradgradcheck
import ember.nn.functional as F

torch = pytest.importorskip("torch")
rng = np.random.default_rng(0)


def _both(array, requires_grad=False):
    return ember.tensor(array, requires_grad=requires_grad), torch.tensor(array, requires_grad=requires_grad)


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_max_unpool_modules_match_torch(dims):
    shape = (2, 3) + (4,) * dims
    ours, theirs = _both(rng.standard_normal(shape))
    pool = f"MaxPool{dims}d"
    pooled, indices = getattr(nn, pool)(2, return_indices=True)(ours)
    pooled_t, indices_t = getattr(torch.nn, pool)(2, return_indices=True)(theirs)
    unpool, unpool_t = getattr(nn, f"MaxUnpool{dims}d")(2), getattr(torch.nn, f"MaxUnpool{dims}d")(2)
    assert repr(unpool) == repr(unpool_t)
    np.testing.assert_array_equal(unpool(pooled, indices).numpy(), unpool_t(pooled_t, indices_t).numpy())


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_lp_pool_modules_match_torch_with_gradients(dims):
    shape = (1, 2) + (4,) * dims
    array = np.abs(rng.standard_normal(shape)) + 0.1
    ours, theirs = _both(array, requires_grad=True)
    pool, pool_t = getattr(nn, f"LPPool{dims}d")(2, 2), getattr(torch.nn, f"LPPool{dims}d")(2, 2)
    assert repr(pool) == repr(pool_t)
    np.testing.assert_allclose(pool(ours).detach().numpy(), pool_t(theirs).detach().numpy(), rtol=1e-10)
    assert gradcheck(lambda x: pool(x), (ours,))


def test_channel_shuffle_matches_torch_and_checks_groups():
    array = rng.standard_normal((2, 6, 3, 3))
    ours, theirs = _both(array, requires_grad=True)
    assert repr(nn.ChannelShuffle(3)) == repr(torch.nn.ChannelShuffle(3))
    np.testing.assert_array_equal(
        nn.ChannelShuffle(3)(ours).detach().numpy(), torch.nn.ChannelShuffle(3)(theirs).detach().numpy()
    )
    assert gradcheck(lambda x: F.channel_shuffle(x, 2), (ours,))
    with pytest.raises(RuntimeError, match="divisible by groups"):
        F.channel_shuffle(ours, 4)


def test_pdist_matches_torch_with_first_and_second_order_gradients():
    array = rng.standard_normal((5, 3))
    ours, theirs = _both(array, requires_grad=True)
    for p in (1.0, 2.0, 3.0):
        np.testing.assert_allclose(
            F.pdist(ours, p).detach().numpy(), torch.nn.functional.pdist(theirs, p).detach().numpy(), rtol=1e-12
        )
    assert gradcheck(F.pdist, (ours,)) and gradgradcheck(F.pdist, (ours,))
    assert F.pdist(ember.ones(1, 3)).shape == (0,)


def test_gumbel_softmax_soft_and_straight_through_hard():
    logits = ember.randn(64, 5, requires_grad=True)
    soft = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(soft.sum(-1).detach().numpy(), np.ones(64), rtol=1e-5)
    hard = F.gumbel_softmax(logits, hard=True)
    assert set(np.unique(hard.detach().numpy())) <= {0.0, 1.0} and hard.sum().item() == 64
    hard.mul(ember.arange(5.0)).sum().backward()
    assert logits.grad is not None and float(logits.grad.abs().sum()) > 0  # the soft sample's gradient


def test_gumbel_softmax_samples_follow_the_softmax():
    logits = ember.tensor([[0.0, 1.0, 2.0]]).expand(20000, 3)
    frequencies = F.gumbel_softmax(logits, hard=True).mean(0).numpy()
    np.testing.assert_allclose(frequencies, np.exp([0, 1, 2]) / np.exp([0, 1, 2]).sum(), atol=0.02)


def test_triplet_margin_with_distance_loss_matches_torch():
    arrays = [rng.standard_normal((4, 3)) for _ in range(3)]
    ours = [ember.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    for kwargs in ({}, {"swap": True, "margin": 0.5}, {"reduction": "none"}):
        loss = nn.TripletMarginWithDistanceLoss(**kwargs)(*ours)
        expected = torch.nn.TripletMarginWithDistanceLoss(**kwargs)(*theirs)
        np.testing.assert_allclose(loss.detach().numpy(), expected.detach().numpy(), rtol=1e-10)
    cosine = lambda a, b: 1 - F.cosine_similarity(a, b)  # noqa: E731
    cosine_t = lambda a, b: 1 - torch.nn.functional.cosine_similarity(a, b)  # noqa: E731
    np.testing.assert_allclose(
        F.triplet_margin_with_distance_loss(*ours, distance_function=cosine).item(),
        torch.nn.functional.triplet_margin_with_distance_loss(*theirs, distance_function=cosine_t).item(),
    )
    assert gradcheck(lambda a, p, n: F.triplet_margin_with_distance_loss(a, p, n), tuple(ours))
    with pytest.raises(ValueError, match="margin to be greater than 0"):
        nn.TripletMarginWithDistanceLoss(margin=0)


def test_adaptive_max_pool3d_matches_torch():
    ours, theirs = _both(rng.standard_normal((1, 2, 5, 5, 5)))
    values, indices = F.adaptive_max_pool3d(ours, 2, return_indices=True)
    values_t, indices_t = torch.nn.functional.adaptive_max_pool3d(theirs, 2, return_indices=True)
    np.testing.assert_array_equal(values.numpy(), values_t.numpy())
    np.testing.assert_array_equal(indices.numpy(), indices_t.numpy())


class _Count(ember.utils.data.IterableDataset):
    def __init__(self, start, stop):
        self.start, self.stop = start, stop

    def __iter__(self):
        return iter(range(self.start, self.stop))

    def __len__(self):
        return self.stop - self.start


def test_chain_and_stack_datasets():
    data = ember.utils.data
    chained = data.ChainDataset([_Count(0, 3), _Count(10, 12)])
    assert list(chained) == [0, 1, 2, 10, 11] and len(chained) == 5
    with pytest.raises(AssertionError, match="only supports IterableDataset"):
        list(data.ChainDataset([[1, 2]]))
    images, labels = data.TensorDataset(ember.arange(4.0)), [10, 11, 12, 13]
    stacked = data.StackDataset(images, labels)
    assert len(stacked) == 4 and stacked[1][1] == 11 and stacked[1][0][0].item() == 1.0
    named = data.StackDataset(image=images, label=labels)
    assert named[2]["label"] == 12
    batch = next(iter(data.DataLoader(named, batch_size=2)))
    assert batch["label"].tolist() == [10, 11]
    with pytest.raises(ValueError, match="Size mismatch"):
        data.StackDataset(images, [1])
    with pytest.raises(ValueError, match="both types are given"):
        data.StackDataset(images, label=labels)
    with pytest.raises(ValueError, match="At least one dataset"):
        data.StackDataset()
