"""DataLoader with worker processes: batches, seeding, worker info, sharding, persistence, prefetching,
timeouts, errors re-raised from workers, clean shutdown (no process left behind) and batch memory.

Datasets live at module level so that 'spawn' workers can unpickle them.
"""

import warnings
import gc
import multiprocessing
import os
import random
import signal
import time
import weakref

import numpy as np
import pytest

import ember
from ember.utils.data import DataLoader, Dataset, IterableDataset, TensorDataset, get_worker_info

IMAGE = (3, 32, 32)  # 12 KiB of float32: a batch of 8 is large enough to travel through shared memory


class Images(Dataset):
    """Sample i: an image filled with i, and i."""

    def __init__(self, length=24):
        self.length = length

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        return np.full(IMAGE, index, dtype=np.float32), index


class WhoLoads(Dataset):
    """Each sample says which worker loaded it and what the worker's generators give."""

    def __len__(self):
        return 8

    def __getitem__(self, index):
        info = get_worker_info()
        return {
            "worker": info.id,
            "seed": info.seed,
            "ember_seed": ember.initial_seed(),
            "num_workers": info.num_workers,
            "same_dataset_class": type(info.dataset) is WhoLoads,
            "python": random.random(),
            "numpy": float(np.random.rand()),
            "ember": float(ember.rand(1)),
            "pid": os.getpid(),
            "init": _initialized_as,
        }


_initialized_as = None


def _remember_worker_id(worker_id):
    global _initialized_as
    _initialized_as = worker_id * 10


class Shards(IterableDataset):
    """Items [0, length) split among the workers by get_worker_info(), as PyTorch's docs shard a stream."""

    def __init__(self, length):
        self.length = length

    worker_info = staticmethod(get_worker_info)

    def __iter__(self):
        info = self.worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, self.length, step))


class Failing(Dataset):
    """Raises `error` for sample `bad`."""

    def __init__(self, error, bad=5):
        self.error, self.bad = error, bad

    def __len__(self):
        return 8

    def __getitem__(self, index):
        if index == self.bad:
            raise self.error
        return index


class NeedsTwoArguments(Exception):
    def __init__(self, first, second):
        super().__init__(first, second)


class Slow(Dataset):
    """Sleeps `delays.get(index, 0)` seconds before giving `index`; counts loads in `counter` if given."""

    def __init__(self, length, delays=None, counter=None):
        self.length, self.delays, self.counter = length, delays or {}, counter

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        if self.counter is not None:
            with self.counter.get_lock():
                self.counter.value += 1
        time.sleep(self.delays.get(index, 0))
        return index


class DiesAt(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        if index == 3:
            os.kill(os.getpid(), signal.SIGKILL)
        return index


def _reaped(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _worker_pids(iterator):
    return [process.pid for process in iterator._workers.processes]


def _values(batches):
    return [(images[:, 0, 0, 0].tolist(), labels.tolist()) for images, labels in batches]


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_workers_give_the_batches_of_single_process_loading(method):
    expected = _values(DataLoader(Images(), batch_size=8))
    loader = DataLoader(Images(), batch_size=8, num_workers=2, multiprocessing_context=method)
    batches = list(loader)
    assert _values(batches) == expected
    images, labels = batches[0]
    assert images.dtype is ember.float32 and images.shape == (8,) + IMAGE and labels.dtype is ember.int64
    assert images.is_shared() and not labels.is_shared()  # large tensors came through shared memory
    assert np.array_equal(images.numpy()[3], np.full(IMAGE, 3, dtype=np.float32))


def test_batches_match_torch_with_workers(torch):
    ours = DataLoader(Images(10), batch_size=4, num_workers=2)
    theirs = torch.utils.data.DataLoader(Images(10), batch_size=4, num_workers=2)
    assert _values(ours) == _values(theirs) and len(ours) == len(theirs)


def test_shuffled_order_does_not_depend_on_the_number_of_workers():
    def order(num_workers):
        ember.manual_seed(11)
        loader = DataLoader(Images(20), batch_size=3, shuffle=True, num_workers=num_workers)
        return [label for _, labels in loader for label in labels.tolist()]

    assert order(2) == order(0)
    assert sorted(order(2)) == list(range(20))


def test_batches_kept_by_the_user_are_never_overwritten():
    loader = DataLoader(Images(64), batch_size=8, num_workers=2)
    for _ in range(2):
        kept = list(loader)  # every batch held at once: no block may be reused under them
        for number, (images, labels) in enumerate(kept):
            assert labels.tolist() == list(range(8 * number, 8 * number + 8))
            assert np.array_equal(images.numpy()[:, 0, 0, 0], labels.numpy().astype(np.float32))
            assert np.all(images.numpy() == images.numpy()[:, :1, :1, :1])


def test_batch_memory_is_reused_and_removed_at_shutdown():
    loader = DataLoader(Images(400), batch_size=8, num_workers=2)
    iterator = iter(loader)
    directory = iterator._workers.directory
    files = set()
    for images, _ in iterator:
        files.update(os.listdir(directory))
        del images
    assert 0 < len(files) <= 12, f"{len(files)} blocks made for 50 batches: freed batches' blocks are not reused"
    assert not os.path.exists(directory)


def test_worker_seeds_info_and_init_fn():
    ember.manual_seed(5)
    loader = DataLoader(WhoLoads(), batch_size=None, num_workers=2, worker_init_fn=_remember_worker_id)
    samples = list(loader)
    by_worker = {sample["worker"]: sample for sample in samples}
    assert sorted(by_worker) == [0, 1]
    assert by_worker[1]["seed"] == by_worker[0]["seed"] + 1  # base_seed + worker_id
    for worker_id, sample in by_worker.items():
        assert sample["ember_seed"] == sample["seed"] and sample["num_workers"] == 2
        assert sample["same_dataset_class"] and sample["init"] == worker_id * 10
    for generator in ["python", "numpy", "ember"]:
        assert by_worker[0][generator] != by_worker[1][generator], generator
    ember.manual_seed(5)
    assert [sample["numpy"] for sample in DataLoader(WhoLoads(), batch_size=None, num_workers=2)] == [
        sample["numpy"] for sample in samples
    ]
    ember.manual_seed(6)
    assert [sample["seed"] for sample in DataLoader(WhoLoads(), batch_size=None, num_workers=2)] != [
        sample["seed"] for sample in samples
    ]


def test_base_seed_comes_from_the_loaders_generator():
    def seeds(generator_seed):
        loader = DataLoader(
            WhoLoads(), batch_size=None, num_workers=1, generator=ember.Generator().manual_seed(generator_seed)
        )
        return {sample["seed"] for sample in loader}

    assert seeds(1) == seeds(1) != seeds(2)


def test_worker_info_matches_torch(torch):
    import dataclasses
    from torch.utils.data._utils.worker import WorkerInfo as TorchWorkerInfo
    from ember.utils.data._worker import WorkerInfo

    assert get_worker_info() is None
    info = WorkerInfo(id=0, num_workers=1, seed=3, dataset=None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.id = 1
    assert set(WorkerInfo.__dataclass_fields__) <= set(TorchWorkerInfo.__dataclass_fields__)


def _torch_twin(torch, ember_class):
    """The same dataset as a torch IterableDataset that shards with torch's get_worker_info."""
    return type(
        "Torch" + ember_class.__name__,
        (ember_class, torch.utils.data.IterableDataset),
        {"worker_info": staticmethod(torch.utils.data.get_worker_info)},
    )


def _as_lists(loader):
    return [batch.tolist() if hasattr(batch, "tolist") else batch for batch in loader]


@pytest.mark.parametrize("length, batch_size", [(12, 3), (12, None), (13, 2)])
def test_sharded_iterable_dataset_matches_torch(torch, length, batch_size):
    ours = _as_lists(DataLoader(Shards(length), batch_size=batch_size, num_workers=2))
    theirs = _as_lists(
        torch.utils.data.DataLoader(_torch_twin(torch, Shards)(length), batch_size=batch_size, num_workers=2)
    )
    if length % 2 == 0:  # even shards: the interleaving is fixed
        assert ours == theirs
    else:
        assert sorted(map(str, ours)) == sorted(map(str, theirs))
    flat = sorted(value for batch in ours for value in (batch if isinstance(batch, list) else [batch]))
    assert flat == list(range(length))


class Unsharded(IterableDataset):
    def __init__(self, length):
        self.length = length

    def __iter__(self):
        return iter(range(self.length))


def test_unsharded_iterable_dataset_is_copied_into_every_worker(torch):
    ours = sorted(DataLoader(Unsharded(5), batch_size=None, num_workers=2))
    theirs = sorted(torch.utils.data.DataLoader(_torch_twin(torch, Unsharded)(5), batch_size=None, num_workers=2))
    assert ours == theirs == sorted(list(range(5)) * 2)


def test_persistent_workers_survive_epochs_and_restart_streams():
    loader = DataLoader(WhoLoads(), batch_size=None, num_workers=2, persistent_workers=True)
    first = {sample["pid"] for sample in loader}
    second = {sample["pid"] for sample in loader}
    assert first == second and len(first) == 2
    stream = DataLoader(Shards(10), batch_size=2, num_workers=2, persistent_workers=True)
    for _ in range(3):
        assert sorted(value for batch in stream for value in batch.tolist()) == list(range(10))
    processes = list(stream._iterator._workers.processes)
    iterator = weakref.ref(stream._iterator)
    del loader, stream
    gc.collect()
    assert iterator() is None, f"the persistent iterator outlived its loader: {gc.get_referrers(iterator())}"
    assert all(process.exitcode is not None for process in processes), "the workers must be joined"


def test_persistent_workers_discard_the_rest_of_an_abandoned_epoch():
    loader = DataLoader(Images(40), batch_size=4, num_workers=2, persistent_workers=True, prefetch_factor=4)
    for images, labels in loader:
        break
    assert _values(loader) == _values(DataLoader(Images(40), batch_size=4))


def test_prefetch_factor_bounds_the_batches_loaded_ahead():
    counter = multiprocessing.get_context("fork").Value("i", 0)
    loader = DataLoader(
        Slow(100, counter=counter), batch_size=1, num_workers=2, prefetch_factor=1, multiprocessing_context="fork"
    )
    iterator = iter(loader)
    next(iterator)
    time.sleep(0.5)
    assert 2 <= counter.value <= 3  # 1 given + at most prefetch_factor * num_workers in flight
    del iterator


def test_in_order_false_gives_batches_as_they_are_ready():
    delays = {0: 1.0}
    ordered = [int(batch) for batch in DataLoader(Slow(6, delays), batch_size=None, num_workers=2)]
    assert ordered == list(range(6))
    unordered = [int(batch) for batch in DataLoader(Slow(6, delays), batch_size=None, num_workers=2, in_order=False)]
    assert sorted(unordered) == list(range(6)) and unordered[0] != 0


def test_timeout_raises_when_a_batch_is_late():
    loader = DataLoader(Slow(4, {0: 1.5}), batch_size=None, num_workers=1, timeout=0.3)
    with pytest.raises(RuntimeError, match=r"DataLoader timed out after 0.3 seconds"):
        next(iter(loader))


def test_pin_memory_is_accepted_with_pytorchs_warnings():
    loader = DataLoader(Images(8), batch_size=4, num_workers=1, pin_memory=True, pin_memory_device="cuda")
    with warnings.catch_warnings(record=True) as caught:  # (3.12+ also warns about fork in a threaded process)
        warnings.simplefilter("always")
        values = _values(loader)
    assert values == _values(DataLoader(Images(8), batch_size=4))
    messages = [str(warning.message) for warning in caught if warning.category is UserWarning]
    assert any("pin_memory_device is deprecated" in message for message in messages)
    assert any("no accelerator is found" in message for message in messages)


def test_worker_errors_are_reraised_with_class_worker_sample_and_traceback():
    loader = DataLoader(Failing(ValueError("bad sample")), batch_size=2, num_workers=2)
    with pytest.raises(ValueError) as caught:
        list(loader)
    message = str(caught.value)
    assert message.startswith("Caught ValueError in DataLoader worker process 0.\n")  # batch [4, 5]: worker 0
    assert "The worker was loading sample index 5.\n" in message
    assert "Original Traceback (most recent call last):" in message and "raise self.error" in message
    assert message.rstrip().endswith("ValueError: bad sample")


def test_worker_error_message_matches_torch_first_line(torch):
    with pytest.raises(ValueError) as theirs:
        list(torch.utils.data.DataLoader(Failing(ValueError("x")), batch_size=2, num_workers=2))
    with pytest.raises(ValueError) as ours:
        list(DataLoader(Failing(ValueError("x")), batch_size=2, num_workers=2))
    assert str(ours.value).splitlines()[0] == str(theirs.value).splitlines()[0]


def test_error_classes_that_cannot_be_rebuilt_become_runtime_errors():
    with pytest.raises(KeyError) as caught:
        list(DataLoader(Failing(KeyError("missing")), batch_size=None, num_workers=1))
    assert "Caught KeyError in DataLoader worker process 0." in str(caught.value)
    assert "\n" in str(caught.value)  # readable, not the repr of a string
    with pytest.raises(RuntimeError, match="Caught NeedsTwoArguments in DataLoader worker process 0"):
        list(DataLoader(Failing(NeedsTwoArguments(1, 2)), batch_size=None, num_workers=1))


def test_iteration_can_go_on_after_a_worker_error():
    iterator = iter(DataLoader(Failing(ValueError("bad"), bad=1), batch_size=None, num_workers=2))
    assert int(next(iterator)) == 0
    with pytest.raises(ValueError):
        next(iterator)
    assert [int(value) for value in iterator] == [2, 3, 4, 5, 6, 7]


def test_errors_in_worker_init_fn_and_collate_fn_name_the_step():
    def bad_init(worker_id):
        raise OSError("no device")

    with pytest.raises(OSError, match="worker_init_fn"):
        list(
            DataLoader(Images(4), batch_size=2, num_workers=1, worker_init_fn=bad_init, multiprocessing_context="fork")
        )

    def bad_collate(samples):
        raise TypeError("cannot collate")

    with pytest.raises(TypeError, match=r"calling the collate_fn on sample indices \[0, 1\]"):
        list(DataLoader(Images(4), batch_size=2, num_workers=1, collate_fn=bad_collate, multiprocessing_context="fork"))


def test_a_batch_that_cannot_be_pickled_is_an_error_not_a_hang():
    loader = DataLoader(
        Images(4),
        batch_size=2,
        num_workers=1,
        collate_fn=lambda samples: lambda: samples,
        multiprocessing_context="fork",
    )  # local functions: fork, which does not pickle them
    with pytest.raises(Exception, match="pickling the batch to send it to the main process"):
        list(loader)


def test_no_worker_is_left_behind_after_exhaustion_error_break_or_garbage_collection():
    iterator = iter(DataLoader(Images(8), batch_size=4, num_workers=2))
    pids = _worker_pids(iterator)
    list(iterator)
    assert all(_reaped(pid) for pid in pids)

    iterator = iter(DataLoader(Failing(ValueError("x")), batch_size=2, num_workers=2))
    pids = _worker_pids(iterator)
    with pytest.raises(ValueError) as caught:
        list(iterator)
    del iterator
    assert all(_reaped(pid) for pid in pids), "workers must go with the iterator even while the error is held"
    assert caught.value is not None

    def loop_that_raises():
        for _ in DataLoader(Failing(ValueError("x")), batch_size=2, num_workers=2):
            pass

    before = {child.pid for child in multiprocessing.active_children()}
    with pytest.raises(ValueError) as caught:
        loop_that_raises()
    assert not [child for child in multiprocessing.active_children() if child.pid not in before]

    for _ in DataLoader(Images(40), batch_size=2, num_workers=2):
        pids = [child.pid for child in multiprocessing.active_children() if child.pid not in before]
        break
    assert len(pids) == 2 and all(_reaped(pid) for pid in pids)

    def first_batch():
        iterator = iter(DataLoader(Images(40), batch_size=2, num_workers=2))
        first_batch.pids = _worker_pids(iterator)
        return next(iterator)

    first_batch()
    assert all(_reaped(pid) for pid in first_batch.pids)


def test_spawned_workers_are_reaped_after_an_early_break():
    loader = DataLoader(Images(40), batch_size=4, num_workers=2, multiprocessing_context="spawn")
    iterator = iter(loader)
    next(iterator)
    pids = _worker_pids(iterator)
    del iterator
    assert all(_reaped(pid) for pid in pids)


def test_a_killed_worker_is_reported_not_waited_for():
    iterator = iter(DataLoader(DiesAt(), batch_size=None, num_workers=2))
    pids = _worker_pids(iterator)
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly.*SIGKILL"):
        list(iterator)
    assert all(_reaped(pid) for pid in pids)
    with pytest.raises(RuntimeError, match="workers were shut down"):
        next(iterator)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(num_workers=2, multiprocessing_context="bogus"),
        dict(multiprocessing_context="spawn"),
        dict(prefetch_factor=2),
        dict(persistent_workers=True),
        dict(timeout=-1),
        dict(num_workers=-1),
    ],
)
def test_worker_option_errors_match_torch(torch, kwargs):
    with pytest.raises(ValueError) as theirs:
        torch.utils.data.DataLoader(Images(4), **kwargs)
    with pytest.raises(ValueError) as ours:
        DataLoader(Images(4), **kwargs)
    assert str(ours.value).split()[:3] == str(theirs.value).split()[:3]


def test_multiprocessing_context_object_and_type_error():
    loader = DataLoader(Images(8), batch_size=4, num_workers=1, multiprocessing_context=multiprocessing.get_context())
    assert len(list(loader)) == 2
    with pytest.raises(TypeError, match="multiprocessing_context option should be a valid context object"):
        DataLoader(Images(8), num_workers=1, multiprocessing_context=3)


def test_len_of_the_iterator_and_tensors_as_dataset():
    dataset = TensorDataset(ember.arange(200.0).reshape(100, 2), ember.arange(100))
    iterator = iter(DataLoader(dataset, batch_size=16, num_workers=2))
    assert len(iterator) == 7
    assert ember.cat([labels for _, labels in iterator]).tolist() == list(range(100))
