"""Every collective on every rank, checked against the NumPy result the ranks' inputs imply."""

import traceback

import numpy as np

import ember
import ember.distributed as dist

from _report import report  # noqa: E402  (beside this script)

dist.init_process_group("mpi")
rank, size = dist.get_rank(), dist.get_world_size()
results = {}


def value(r, shape=(2, 3), dtype=ember.float32):
    """Rank r's input: distinct per rank and element."""
    return ember.arange(int(np.prod(shape)), dtype=dtype).reshape(shape) * (r + 1) + r


def check(name):
    def decorate(function):
        try:
            function()
            results[name] = "ok"
        except Exception:
            results[name] = traceback.format_exc()
        return function

    return decorate


def same(actual, expected):
    np.testing.assert_allclose(np.asarray(actual.numpy()), np.asarray(expected), rtol=1e-6, atol=1e-6)


inputs = [value(r).numpy() for r in range(size)]


@check("all_reduce_sum")
def _():
    t = value(rank)
    version = t._version
    dist.all_reduce(t)
    same(t, sum(inputs))
    assert t._version > version, "all_reduce must bump the version counter"


@check("all_reduce_ops")
def _():
    for op, reference in (
        (dist.ReduceOp.MAX, np.max),
        (dist.ReduceOp.MIN, np.min),
        (dist.ReduceOp.PRODUCT, np.prod),
        (dist.ReduceOp.AVG, np.mean),
    ):
        t = value(rank)
        dist.all_reduce(t, op=op)
        same(t, reference(np.stack(inputs), axis=0))
    t = ember.tensor([rank + 1, 6], dtype=ember.int64)
    dist.all_reduce(t, op=dist.ReduceOp.BAND)
    assert t.tolist() == [int(np.bitwise_and.reduce(np.arange(1, size + 1))), 6], t
    t = ember.tensor([rank == 0, False])
    dist.all_reduce(t)
    assert t.tolist() == [True, False], t


@check("all_reduce_non_contiguous_and_async")
def _():
    base = value(rank, (3, 4))
    view = base.t()
    work = dist.all_reduce(view, async_op=True)
    assert work.wait() is True
    same(base, sum(value(r, (3, 4)).numpy() for r in range(size)))
    t = value(rank, dtype=ember.float16)
    dist.all_reduce(t)
    same(t, sum(value(r, dtype=ember.float16).numpy().astype(np.float32) for r in range(size)))


@check("broadcast")
def _():
    t = value(rank)
    dist.broadcast(t, src=size - 1)
    same(t, inputs[size - 1])


@check("all_gather")
def _():
    out = [ember.zeros(2, 3) for _ in range(size)]
    dist.all_gather(out, value(rank))
    for r in range(size):
        same(out[r], inputs[r])
    flat = ember.zeros(size * 2, 3)
    dist.all_gather_into_tensor(flat, value(rank))
    same(flat, np.concatenate(inputs))


@check("gather_scatter")
def _():
    gathered = [ember.zeros(2, 3) for _ in range(size)] if rank == 0 else None
    dist.gather(value(rank), gathered, dst=0)
    if rank == 0:
        for r in range(size):
            same(gathered[r], inputs[r])
    out = ember.zeros(2, 3)
    dist.scatter(out, [value(r) * 10 for r in range(size)] if rank == 1 else None, src=1)
    same(out, inputs[rank] * 10)


@check("reduce")
def _():
    t = value(rank)
    dist.reduce(t, dst=1)
    same(t, sum(inputs) if rank == 1 else inputs[rank])


@check("reduce_scatter")
def _():
    out = ember.zeros(2, 3)
    dist.reduce_scatter(out, [value(rank) + s for s in range(size)])
    same(out, sum(inputs) + size * rank)
    out = ember.zeros(2)
    stacked = ember.arange(2 * size, dtype=ember.float32) * (rank + 1)
    dist.reduce_scatter_tensor(out, stacked)
    total = sum(np.arange(2 * size, dtype=np.float32) * (r + 1) for r in range(size))
    same(out, total[2 * rank : 2 * rank + 2])


@check("all_to_all")
def _():
    sends = [ember.full((s + 1,), float(10 * rank + s)) for s in range(size)]
    receives = [ember.zeros(rank + 1) for _ in range(size)]
    dist.all_to_all(receives, sends)
    for s in range(size):
        same(receives[s], np.full(rank + 1, 10 * s + rank))
    single_in = ember.arange(2 * size, dtype=ember.float32) + 100 * rank
    single_out = ember.zeros(2 * size)
    dist.all_to_all_single(single_out, single_in)
    expected = np.concatenate([np.arange(2 * rank, 2 * rank + 2) + 100 * s for s in range(size)])
    same(single_out, expected)


@check("send_recv")
def _():
    if rank == 0:
        dist.send(ember.tensor([1.0, 2.0]), dst=1)
        work = dist.irecv(t := ember.zeros(1), src=1)
        work.wait()
        same(t, [7.0])
    elif rank == 1:
        t = ember.zeros(2)
        assert dist.recv(t) == 0
        same(t, [1.0, 2.0])
        dist.isend(ember.tensor([7.0]), dst=0).wait()


@check("objects")
def _():
    gathered = [None] * size
    dist.all_gather_object(gathered, {"rank": rank, "weights": ember.full((2,), float(rank))})
    assert [item["rank"] for item in gathered] == list(range(size))
    for r in range(size):
        same(gathered[r]["weights"], [r, r])
    objects = [ember.tensor([3.0, 4.0]), "text", None] if rank == 0 else [None, None, None]
    dist.broadcast_object_list(objects, src=0)
    same(objects[0], [3.0, 4.0])
    assert objects[1:] == ["text", None]
    out = [None]
    dist.scatter_object_list(out, [f"for {r}" for r in range(size)] if rank == 0 else None, src=0)
    assert out == [f"for {rank}"]
    collected = [None] * size if rank == 0 else None
    dist.gather_object(rank * 2, collected, dst=0)
    if rank == 0:
        assert collected == [r * 2 for r in range(size)]


@check("new_group")
def _():
    sub = dist.new_group([0])
    t = value(rank)
    if rank == 0:
        assert dist.get_world_size(sub) == 1 and dist.get_rank(sub) == 0
        dist.all_reduce(t, group=sub)
        same(t, inputs[0])
    else:
        assert sub is dist.GroupMember.NON_GROUP_MEMBER and dist.get_rank(sub) == -1


@check("errors")
def _():
    try:
        dist.all_gather([ember.zeros(2)], value(rank))
    except ValueError as error:
        assert "tensor_list" in str(error)
    else:
        raise AssertionError("a short tensor_list must raise ValueError")
    try:
        dist.all_reduce(np.zeros(2))
    except TypeError as error:
        assert "all_reduce" in str(error)
    else:
        raise AssertionError("a NumPy array must raise TypeError")
    try:
        dist.all_reduce(ember.zeros(2, dtype=ember.int64), op=dist.ReduceOp.AVG)
    except ValueError as error:
        assert "AVG" in str(error)
    else:
        raise AssertionError("AVG of integers must raise ValueError")


dist.barrier()
report(rank, {"results": results})
dist.destroy_process_group()
