"""ember.multiprocessing: the standard module re-exported, spawn and its exceptions, shared-memory tensors and
Hogwild training with the fork and spawn start methods. Process targets live at module level (spawn)."""

import multiprocessing as stdlib_multiprocessing
import os
import pickle
import signal
import sys

import numpy as np
import pytest

import ember
import ember.multiprocessing as mp
from ember import nn


# ---------------------------------------------------------------- process targets
def _write_index(index, directory, text):
    with open(os.path.join(directory, f"{index}.txt"), "w") as file:
        file.write(f"{text}{index}")


def _raise_in_process_one(index):
    if index == 1:
        raise ValueError(f"boom in {index}")


def _exit_with_three(index):
    sys.exit(3)


def _kill_self(index):
    os.kill(os.getpid(), signal.SIGKILL)


def _train_own_layer(rank, model, steps):
    """Hogwild without races: process `rank` trains layer `rank` of the shared model (d loss/dw = -(rank+1))."""
    optimizer = ember.optim.SGD(model[rank].parameters(), lr=0.5)
    for _ in range(steps):
        optimizer.zero_grad()
        (-(rank + 1.0) * model[rank].weight.sum()).backward()
        optimizer.step()


def _add_under_lock(rank, model, lock, steps):
    """Both processes update the same parameter: only shared memory makes the total come out right."""
    optimizer = ember.optim.SGD(model.parameters(), lr=1.0)
    for _ in range(steps):
        with lock:
            optimizer.zero_grad()
            (-model.weight.sum()).backward()  # gradient -1 everywhere: each step adds 1 to every weight
            optimizer.step()


def _double_what_arrives(queue, done):
    tensor = queue.get()
    tensor.mul_(2)
    done.put(tensor.is_shared())


# ---------------------------------------------------------------- the standard module
def test_everything_of_the_standard_module_is_reexported(torch):
    for name in stdlib_multiprocessing.__all__:
        assert getattr(mp, name) is getattr(stdlib_multiprocessing, name), name
    assert set(torch.multiprocessing.__all__) <= set(mp.__all__)
    assert mp.get_all_sharing_strategies() == torch.multiprocessing.get_all_sharing_strategies()


def test_set_start_method_with_force_and_get_context():
    original = mp.get_start_method()
    try:
        mp.set_start_method("spawn", force=True)
        assert mp.get_start_method() == "spawn"
        with pytest.raises(RuntimeError, match="context has already been set"):
            mp.set_start_method("fork")
    finally:
        mp.set_start_method(original, force=True)
    assert mp.get_context("spawn").get_start_method() == "spawn"


def test_sharing_strategies(torch):
    mp.set_sharing_strategy("file_system")
    assert mp.get_sharing_strategy() == "file_system"
    with pytest.raises(AssertionError, match="invalid sharing strategy"):
        torch.multiprocessing.set_sharing_strategy("nope")
    with pytest.raises(AssertionError, match="invalid sharing strategy 'nope'"):
        mp.set_sharing_strategy("nope")


def test_torch_multiprocessing_resolves_to_ember_under_compat():
    from ember import compat

    compat.install()
    try:
        import torch.multiprocessing as torch_mp

        assert torch_mp.spawn is mp.spawn and torch_mp.Queue is mp.Queue
        import torch

        assert torch.multiprocessing.get_start_method() == mp.get_start_method()
    finally:
        compat.uninstall()
    assert ember.multiprocessing is mp


# ---------------------------------------------------------------- spawn
def test_spawn_calls_fn_with_the_process_index(tmp_path):
    with pytest.warns(FutureWarning, match="start_processes"):  # as torch: spawn() always spawns
        assert mp.spawn(_write_index, args=(str(tmp_path), "process "), nprocs=2, start_method="fork") is None
    assert sorted(path.read_text() for path in tmp_path.iterdir()) == ["process 0", "process 1"]


def test_spawn_reraises_a_child_exception_with_its_traceback():
    with pytest.raises(mp.ProcessRaisedException) as caught:
        mp.spawn(_raise_in_process_one, nprocs=2)
    error = caught.value
    assert error.error_index == 1 and isinstance(error.error_pid, int)
    assert "-- Process 1 terminated with the following error:" in str(error)
    assert "Traceback (most recent call last):" in str(error) and "ValueError: boom in 1" in str(error)
    assert isinstance(error, mp.ProcessException)


@pytest.mark.parametrize(
    "target, message, code, signal_name",
    [
        (_exit_with_three, "process 0 terminated with exit code 3", 3, None),
        (_kill_self, "process 0 terminated with signal SIGKILL", -signal.SIGKILL, "SIGKILL"),
    ],
)
def test_start_processes_reports_exit_codes_and_signals(target, message, code, signal_name):
    with pytest.raises(mp.ProcessExitedException, match=message) as caught:
        mp.start_processes(target, nprocs=1, start_method="fork")
    assert caught.value.exit_code == code and caught.value.signal_name == signal_name
    again = pickle.loads(pickle.dumps(caught.value))
    assert (again.exit_code, again.signal_name, again.error_index, str(again)) == (code, signal_name, 0, message)


def test_process_context_join_and_pids(tmp_path):
    context = mp.start_processes(_write_index, args=(str(tmp_path), ""), nprocs=2, join=False, start_method="fork")
    assert isinstance(context, mp.ProcessContext) and len(context.pids()) == 2
    while not context.join():
        pass
    assert context.join() is True and len(list(tmp_path.iterdir())) == 2


def test_exception_classes_match_torch(torch):
    for name in ["ProcessRaisedException", "ProcessExitedException"]:
        assert [cls.__name__ for cls in getattr(mp, name).__mro__] == [
            cls.__name__ for cls in getattr(torch.multiprocessing, name).__mro__ if cls.__name__ != "object"
        ] + ["object"]


# ---------------------------------------------------------------- shared tensors
def test_share_memory_moves_the_tensor_in_place(torch):
    ours, theirs = ember.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(2, 3)
    assert ours.is_shared() == theirs.is_shared() is False
    address = ours.data_ptr()
    assert ours.share_memory_() is ours and theirs.share_memory_() is theirs
    assert ours.is_shared() == theirs.is_shared() is True
    assert ours.data_ptr() != address and ours.tolist() == theirs.tolist()
    ours.add_(1)
    assert ours.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


def test_share_memory_moves_a_view_with_its_base():
    base = ember.arange(10.0)
    view = base[2:5]
    view.share_memory_()
    assert view.is_shared() and base.is_shared()
    view.fill_(-1.0)
    assert base.tolist()[:6] == [0.0, 1.0, -1.0, -1.0, -1.0, 5.0]


def test_module_share_memory_shares_parameters_and_buffers(torch):
    model = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    assert model.share_memory() is model
    tensors = list(model.parameters()) + list(model.buffers())
    assert tensors and all(tensor.is_shared() for tensor in tensors)
    assert all(isinstance(parameter, nn.Parameter) for parameter in model.parameters())
    reference = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2)).share_memory()
    assert len(tensors) == len(list(reference.parameters()) + list(reference.buffers()))


def test_plain_pickle_copies_a_shared_tensor_but_multiprocessing_pickle_aliases_it():
    from multiprocessing.reduction import ForkingPickler

    tensor = ember.zeros(4).share_memory_()
    copied = pickle.loads(pickle.dumps(tensor))
    aliased = pickle.loads(ForkingPickler.dumps(tensor))
    tensor.fill_(7.0)
    assert copied.tolist() == [0.0] * 4 and not copied.is_shared()
    assert aliased.tolist() == [7.0] * 4 and aliased.is_shared()
    parameter = nn.Parameter(ember.ones(2)).share_memory_()
    received = pickle.loads(ForkingPickler.dumps(parameter))
    assert isinstance(received, nn.Parameter) and received.requires_grad and received.is_shared()


def test_a_tensor_in_a_graph_cannot_be_sent(torch):
    from multiprocessing.reduction import ForkingPickler
    import torch.multiprocessing  # noqa: F401  (registers torch's reducers)

    with pytest.raises(RuntimeError):
        ForkingPickler.dumps(torch.ones(2, requires_grad=True) * 2)
    with pytest.raises(RuntimeError, match="detach"):
        ForkingPickler.dumps(ember.ones(2, requires_grad=True) * 2)


def _shared_files():
    from ember.multiprocessing._shared_blocks import SHARED_DIRECTORY

    return {name for name in os.listdir(SHARED_DIRECTORY) if name.startswith(f"ember-{os.getpid()}-")}


def test_the_shared_file_goes_when_the_tensor_is_freed():
    before = _shared_files()
    tensor = ember.ones(1000).share_memory_()
    assert len(_shared_files() - before) == 1
    del tensor
    assert _shared_files() == before


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_a_shared_tensor_sent_through_a_queue_is_updated_in_place(method):
    context = mp.get_context(method)
    queue, done = context.Queue(), context.Queue()
    tensor = ember.arange(4.0).share_memory_()
    process = context.Process(target=_double_what_arrives, args=(queue, done))
    process.start()
    queue.put(tensor)
    assert done.get(timeout=60) is True
    process.join(60)
    assert process.exitcode == 0 and tensor.tolist() == [0.0, 2.0, 4.0, 6.0]


# ---------------------------------------------------------------- Hogwild
@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_hogwild_updates_of_both_processes_reach_the_parent(method):
    model = nn.Sequential(nn.Linear(3, 1, bias=False), nn.Linear(3, 1, bias=False))
    start = [layer.weight.detach().clone() for layer in model]
    model.share_memory()
    context = mp.get_context(method)
    processes = [context.Process(target=_train_own_layer, args=(rank, model, 4)) for rank in range(2)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(60)
    assert [process.exitcode for process in processes] == [0, 0]
    for rank, layer in enumerate(model):  # each step: w -= 0.5 * -(rank + 1)
        expected = start[rank].numpy() + 4 * 0.5 * (rank + 1)
        np.testing.assert_allclose(layer.weight.detach().numpy(), expected, rtol=1e-6)


def test_hogwild_processes_see_each_others_updates(method="fork"):
    model = nn.Linear(2, 1, bias=False)
    with ember.no_grad():
        model.weight.zero_()
    model.share_memory()
    context = mp.get_context(method)
    lock = context.Lock()
    processes = [context.Process(target=_add_under_lock, args=(rank, model, lock, 25)) for rank in range(2)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(60)
    assert [process.exitcode for process in processes] == [0, 0]
    assert model.weight.tolist() == [[50.0, 50.0]]


def test_spawn_trains_a_shared_model_hogwild_style():
    model = nn.Sequential(nn.Linear(3, 1, bias=False), nn.Linear(3, 1, bias=False))
    with ember.no_grad():
        for parameter in model.parameters():
            parameter.zero_()
    model.share_memory()
    mp.spawn(_train_own_layer, args=(model, 2), nprocs=2)
    assert [layer.weight.tolist() for layer in model] == [[[1.0] * 3], [[2.0] * 3]]
