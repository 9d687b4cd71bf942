"""DDP on 2 ranks with the batch split in two against one process on the whole batch."""

import copy
import traceback

import numpy as np

import ember
import ember.distributed as dist
from ember import nn
from ember.nn.parallel import DistributedDataParallel as DDP

from _report import report  # noqa: E402  (beside this script)

dist.init_process_group("gloo")
rank, size = dist.get_rank(), dist.get_world_size()
results = {}


def check(name):
    def decorate(function):
        try:
            function()
            results[name] = "ok"
        except Exception:
            results[name] = traceback.format_exc()

    return decorate


def make_model(seed):
    ember.manual_seed(seed)
    return nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))


def data(batch=8):
    rng = np.random.default_rng(0)
    return (
        ember.tensor(rng.standard_normal((batch, 5)), dtype=ember.float32),
        ember.tensor(rng.standard_normal((batch, 1)), dtype=ember.float32),
    )


def shard(tensor):
    per_rank = tensor.shape[0] // size
    return tensor[rank * per_rank : (rank + 1) * per_rank]


def assert_close(actual, expected, what):
    difference = float(np.max(np.abs(actual.detach().numpy() - expected.detach().numpy())))
    assert difference < 1e-5, f"{what}: max difference {difference}"


@check("matches_single_process")
def _():
    model = make_model(seed=100 + rank)  # different on each rank: DDP must broadcast rank 0's
    reference = copy.deepcopy(make_model(seed=100))
    ddp = DDP(model, bucket_cap_mb=0.0005)  # several buckets
    assert len(ddp._buckets) > 1
    for p, q in zip(model.parameters(), reference.parameters()):
        assert_close(p, q, "after construction")
    optimizer = ember.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
    reference_optimizer = ember.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    x, y = data()
    for _ in range(6):
        optimizer.zero_grad()
        nn.functional.mse_loss(ddp(shard(x)), shard(y)).backward()
        optimizer.step()
        reference_optimizer.zero_grad()
        nn.functional.mse_loss(reference(x), y).backward()
        reference_optimizer.step()
    for (name, p), q in zip(model.named_parameters(), reference.parameters()):
        assert_close(p, q, f"{name} after 6 steps")
    assert list(ddp.state_dict())[0] == "module.0.weight", list(ddp.state_dict())


@check("no_sync_accumulates")
def _():
    model = make_model(seed=7)
    reference = copy.deepcopy(model)
    ddp = DDP(model)
    x, y = data(batch=4 * size)
    micro = [x[i::2] for i in range(2)], [y[i::2] for i in range(2)]
    with ddp.no_sync():
        nn.functional.mse_loss(ddp(shard(micro[0][0])), shard(micro[1][0])).backward()
    nn.functional.mse_loss(ddp(shard(micro[0][1])), shard(micro[1][1])).backward()
    for r in range(size):  # the plain sum over every rank's micro-batches, averaged over ranks
        per_rank = micro[0][0].shape[0] // size
        for i in range(2):
            rows = slice(r * per_rank, (r + 1) * per_rank)
            nn.functional.mse_loss(reference(micro[0][i][rows]), micro[1][i][rows]).backward()
    for (name, p), q in zip(model.named_parameters(), reference.parameters()):
        assert_close(p.grad, q.grad / size, f"{name}.grad")


def train_side_by_side(model, steps, set_to_none=True, **ddp_options):
    """Train `model` under DDP on this rank's half of the batch and a copy of it on the whole batch;
    their parameters and gradients must agree after every step."""
    reference = copy.deepcopy(model)
    ddp = DDP(model, **ddp_options)
    optimizer = ember.optim.SGD(ddp.parameters(), lr=0.01, momentum=0.9)
    reference_optimizer = ember.optim.SGD(reference.parameters(), lr=0.01, momentum=0.9)
    x, y = data()
    for step in range(steps):
        optimizer.zero_grad(set_to_none=set_to_none)
        nn.functional.mse_loss(ddp(shard(x)), shard(y)).backward()
        reference_optimizer.zero_grad(set_to_none=set_to_none)
        nn.functional.mse_loss(reference(x), y).backward()
        for (name, p), q in zip(model.named_parameters(), reference.parameters()):
            # float32 sums in another order: differences relative to the gradient's largest element
            scale = max(float(np.max(np.abs(q.grad.numpy()))), 1.0)
            difference = float(np.max(np.abs(p.grad.numpy() - q.grad.numpy())))
            assert difference < 1e-5 * scale, f"{name}.grad at step {step}: max difference {difference}, scale {scale}"
        optimizer.step()
        reference_optimizer.step()
    return ddp


def wide_model():
    # 5 -> 16 -> 32768 -> 1: the 2 MiB weights are reduced in place, the rest share flat buckets.
    ember.manual_seed(11)
    return nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 32768), nn.Tanh(), nn.Linear(32768, 1))


@check("large_gradients_reduced_in_place")
def _():
    ddp = train_side_by_side(wide_model(), steps=3)
    in_place = [bucket.in_place for bucket in ddp._buckets]
    assert any(in_place) and not all(in_place), in_place


@check("gradient_as_bucket_view_zeroed_in_place")
def _():
    ddp = train_side_by_side(wide_model(), steps=3, set_to_none=False, gradient_as_bucket_view=True)
    flat = [bucket for bucket in ddp._buckets if not bucket.in_place]
    for bucket in flat:  # the gradients live in the bucket's buffer, kept from step to step
        for parameter in bucket.parameters:
            assert np.shares_memory(parameter.grad._data, bucket.buffer)


@check("gradients_arriving_out_of_bucket_order")
def _():
    ddp = train_side_by_side(make_model(seed=5), steps=2, bucket_cap_mb=0.000001, gradient_as_bucket_view=True)
    assert len(ddp._buckets) == len(list(ddp.parameters()))


class TwoBranches(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(3, 2)
        self.b = nn.Linear(3, 2)

    def forward(self, x, use_a):
        return (self.a if use_a else self.b)(x)


@check("each_rank_leaves_other_parameters_unused")
def _():
    # Rank 0 uses branch a, rank 1 branch b: the buckets of the unused branch are ready at forward on
    # one rank and during backward on the other; both must start the all-reduces in the same order.
    ember.manual_seed(4)
    model = TwoBranches()
    reference = copy.deepcopy(model)
    ddp = DDP(model, find_unused_parameters=True, bucket_cap_mb=0.000001)
    inputs = [ember.ones(2, 3) * (r + 1) for r in range(size)]
    ddp(inputs[rank], use_a=rank % 2 == 0).pow(2).sum().backward()
    for r in range(size):
        reference(inputs[r], use_a=r % 2 == 0).pow(2).sum().backward()
    for (name, p), q in zip(model.named_parameters(), reference.parameters()):
        assert_close(p.grad, q.grad / size, f"{name}.grad")


class WithUnused(nn.Module):
    def __init__(self):
        super().__init__()
        self.used = nn.Linear(3, 1)
        self.unused = nn.Linear(3, 1)

    def forward(self, x):
        return self.used(x)


@check("find_unused_parameters")
def _():
    ember.manual_seed(3)
    ddp = DDP(WithUnused(), find_unused_parameters=True)
    x = ember.ones(2, 3) * (rank + 1)
    ddp(x).sum().backward()
    assert ddp.module.unused.weight.grad is None
    expected = np.mean([np.full((1, 3), 2.0 * (r + 1)) for r in range(size)], axis=0)
    np.testing.assert_allclose(ddp.module.used.weight.grad.numpy(), expected)


@check("unused_without_detection_raises")
def _():
    ember.manual_seed(3)
    ddp = DDP(WithUnused())
    ddp(ember.ones(2, 3)).sum().backward()
    try:
        ddp(ember.ones(2, 3))
    except RuntimeError as error:
        assert "find_unused_parameters=True" in str(error) and "unused.weight" in str(error), str(error)
    else:
        raise AssertionError("the second forward must raise: the prior reduction never finished")


@check("broadcast_buffers")
def _():
    ember.manual_seed(rank)
    ddp = DDP(nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4)))
    ddp(ember.randn(6, 3) + 10 * rank).sum().backward()  # each rank updates its own running statistics
    ddp.eval()
    with ember.no_grad():
        ddp(ember.randn(6, 3))  # rank 0's statistics are broadcast before this forward (eval: no update)
    means = [None] * size
    dist.all_gather_object(means, ddp.module[1].running_mean.tolist())
    assert means[0] != ember.zeros(4).tolist()
    for other in means[1:]:
        assert other == means[0], means


report(rank, {"results": results})
dist.destroy_process_group()
