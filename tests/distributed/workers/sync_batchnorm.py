"""SyncBatchNorm on 2 ranks, each with half the batch, against BatchNorm in one process on the whole batch."""

import traceback

import numpy as np

import ember
import ember.distributed as dist
from ember import nn

from _report import report  # noqa: E402  (beside this script)

dist.init_process_group("gloo")
rank, size = dist.get_rank(), dist.get_world_size()
results = {}


def model(seed):
    ember.manual_seed(seed)
    return nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.ReLU(), nn.Flatten(), nn.Linear(12, 1))


def assert_close(actual, expected, what):
    difference = float(np.max(np.abs(np.asarray(actual) - np.asarray(expected))))
    assert difference < 1e-5, f"{what}: max difference {difference}"


try:
    rng = np.random.default_rng(0)
    x_all = rng.standard_normal((8, 2, 4, 4)).astype(np.float32)
    reference = model(seed=3)
    synced = nn.SyncBatchNorm.convert_sync_batchnorm(model(seed=3))
    assert type(synced[1]) is nn.SyncBatchNorm
    x_full = ember.tensor(x_all, requires_grad=True)
    expected = reference(x_full)
    expected.pow(2).mean().backward()
    per_rank = len(x_all) // size
    x_mine = ember.tensor(x_all[rank * per_rank : (rank + 1) * per_rank], requires_grad=True)
    output = synced(x_mine)
    output.pow(2).mean().backward()
    mine = slice(rank * per_rank, (rank + 1) * per_rank)
    assert_close(output.detach().numpy(), expected.detach().numpy()[mine], "output")
    # Each rank's loss is the mean over its half: the input gradient is that of the sum of both losses.
    assert_close(x_mine.grad.numpy(), size * x_full.grad.numpy()[mine], "input grad")
    for (name, ours), theirs in zip(synced.named_parameters(), reference.parameters()):
        grad = ours.grad.clone()
        dist.all_reduce(grad)
        assert_close(grad.numpy() / size, theirs.grad.numpy(), f"{name}.grad averaged over ranks")
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        assert_close(getattr(synced[1], name).numpy(), getattr(reference[1], name).numpy(), name)
    synced.eval()
    reference.eval()
    assert_close(synced(x_mine).detach().numpy(), reference(x_full).detach().numpy()[mine], "eval")
    results["matches_whole_batch"] = "ok"
except Exception:
    results["matches_whole_batch"] = traceback.format_exc()

report(rank, {"results": results})
dist.destroy_process_group()
