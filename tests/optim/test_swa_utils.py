"""ember.optim.swa_utils against torch.optim.swa_utils: averaged weights, batch-norm refresh, SWALR."""

import warnings

import numpy as np
import pytest

import ember
import ember.optim as optim
from ember.optim import swa_utils
from tests.conftest import assert_close

AVERAGINGS = {
    "swa": lambda lib: {},
    "swa-buffers": lambda lib: dict(use_buffers=True),
    "swa-multi": lambda lib: dict(multi_avg_fn=lib.get_swa_multi_avg_fn()),
    "ema-multi": lambda lib: dict(multi_avg_fn=lib.get_ema_multi_avg_fn(0.9)),
    "ema-multi-buffers": lambda lib: dict(multi_avg_fn=lib.get_ema_multi_avg_fn(0.7), use_buffers=True),
    "ema-one-by-one": lambda lib: dict(avg_fn=lib.get_ema_avg_fn(0.8)),
    "ema-one-by-one-buffers": lambda lib: dict(avg_fn=lib.get_ema_avg_fn(0.8), use_buffers=True),
    "swa-one-by-one": lambda lib: dict(avg_fn=lib.get_swa_avg_fn()),
}


def _copy_into_torch(torch, ours, theirs):
    theirs.load_state_dict({key: torch.tensor(value.numpy()) for key, value in ours.state_dict().items()})


def _models(torch):
    ours = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.BatchNorm1d(4), ember.nn.ReLU(), ember.nn.Linear(4, 2))
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    _copy_into_torch(torch, ours, theirs)
    return ours, theirs


def _assert_state_dicts_close(mine, other, atol=1e-6):
    assert list(mine) == list(other)
    for key, value in other.items():
        assert mine[key].dtype.name == str(value.dtype).replace("torch.", ""), key
        assert_close(
            mine[key].numpy().astype(np.float64), value.numpy().astype(np.float64), rtol=1e-5, atol=atol, what=key
        )


@pytest.mark.parametrize("averaging", list(AVERAGINGS))
def test_averaged_model_follows_torch(torch, averaging):
    ours, theirs = _models(torch)
    averaged_ours = swa_utils.AveragedModel(ours, **AVERAGINGS[averaging](swa_utils))
    averaged_theirs = torch.optim.swa_utils.AveragedModel(theirs, **AVERAGINGS[averaging](torch.optim.swa_utils))
    rng = np.random.default_rng(0)
    for _ in range(6):
        with ember.no_grad():
            for param in ours.parameters():
                param.add_(ember.tensor(0.1 * rng.standard_normal(param.shape).astype(np.float32)))
        ours(ember.tensor(rng.standard_normal((8, 3)).astype(np.float32)))  # moves the batch-norm buffers
        _copy_into_torch(torch, ours, theirs)
        averaged_ours.update_parameters(ours)
        averaged_theirs.update_parameters(theirs)
        _assert_state_dicts_close(averaged_ours.state_dict(), averaged_theirs.state_dict())
    assert int(averaged_ours.n_averaged) == 6
    inputs = rng.standard_normal((5, 3)).astype(np.float32)
    averaged_ours.eval()
    averaged_theirs.eval()
    assert_close(averaged_ours(ember.tensor(inputs)), averaged_theirs(torch.tensor(inputs)).detach().numpy())

    loader = [(rng.standard_normal((8, 3)).astype(np.float32), 0) for _ in range(4)]
    averaged_ours.train()
    averaged_theirs.train()
    swa_utils.update_bn([(ember.tensor(x), y) for x, y in loader], averaged_ours)
    torch.optim.swa_utils.update_bn([(torch.tensor(x), y) for x, y in loader], averaged_theirs)
    _assert_state_dicts_close(averaged_ours.state_dict(), averaged_theirs.state_dict())
    assert averaged_ours.training and averaged_ours.module[1].momentum == 0.1


def test_averaged_model_is_a_copy_and_the_equal_weight_mean():
    model = ember.nn.Linear(2, 1)
    averaged = swa_utils.AveragedModel(model)
    snapshots = []
    for value in (1.0, 2.0, 6.0):
        with ember.no_grad():
            model.weight.fill_(value)
        averaged.update_parameters(model)
        snapshots.append(value)
    assert averaged.module.weight.tolist() == [[pytest.approx(np.mean(snapshots))] * 2]
    assert model.weight.tolist() == [[6.0, 6.0]] and averaged.module is not model


def test_update_bn_without_batch_norm_is_a_no_op():
    model = ember.nn.Linear(2, 1)
    swa_utils.update_bn([ember.ones(1, 2)], model)


def test_only_one_averaging_function_is_accepted():
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
        swa_utils.AveragedModel(
            ember.nn.Linear(1, 1), avg_fn=swa_utils.get_swa_avg_fn(), multi_avg_fn=swa_utils.get_swa_multi_avg_fn()
        )
    for make in (swa_utils.get_ema_avg_fn, swa_utils.get_ema_multi_avg_fn):
        with pytest.raises(ValueError, match="Invalid decay value 1.5 provided"):
            make(1.5)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(swa_lr=0.05),
        dict(swa_lr=[0.05, 0.01], anneal_epochs=3),
        dict(swa_lr=0.2, anneal_epochs=4, anneal_strategy="linear"),
        dict(swa_lr=0.05, anneal_epochs=0),
    ],
)
def test_swalr_sequence_and_state_match_torch(torch, kwargs):
    ours = optim.SGD([{"params": [ember.zeros(1, requires_grad=True)], "lr": lr} for lr in (0.1, 0.02)], lr=0.1)
    theirs = torch.optim.SGD([{"params": [torch.zeros(1, requires_grad=True)], "lr": lr} for lr in (0.1, 0.02)], lr=0.1)
    mine, other = swa_utils.SWALR(ours, **kwargs), torch.optim.swa_utils.SWALR(theirs, **kwargs)
    for epoch in range(15):
        ours.step()
        theirs.step()
        mine.step()
        other.step()
        assert mine.get_last_lr() == pytest.approx(other.get_last_lr(), rel=1e-12), f"epoch {epoch}"
    assert sorted(mine.state_dict()) == sorted(other.state_dict())
    state = mine.state_dict()
    resumed = swa_utils.SWALR(ours, swa_lr=1.0, anneal_strategy="linear")
    resumed.load_state_dict(state)
    assert resumed.anneal_func is swa_utils.SWALR._cosine_anneal or kwargs.get("anneal_strategy") == "linear"


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(swa_lr=0.1, anneal_strategy="exp"),
        dict(swa_lr=0.1, anneal_epochs=-1),
        dict(swa_lr=0.1, anneal_epochs=2.5),
        dict(swa_lr=[0.1, 0.2, 0.3]),
    ],
)
def test_swalr_bad_arguments_raise_like_torch(torch, kwargs):
    with pytest.raises(ValueError) as expected:
        torch.optim.swa_utils.SWALR(torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1), **kwargs)
    with pytest.raises(ValueError) as actual:
        swa_utils.SWALR(optim.SGD([ember.zeros(1, requires_grad=True)], lr=0.1), **kwargs)
    assert str(actual.value) == str(expected.value)


def test_swa_training_recipe_runs_end_to_end():
    """The recipe from PyTorch's documentation: train, then average while SWALR holds the rate."""
    rng = np.random.default_rng(1)
    inputs = ember.tensor(rng.standard_normal((32, 3)).astype(np.float32))
    targets = inputs @ ember.tensor([[1.0], [-1.0], [0.5]])
    model = ember.nn.Linear(3, 1)
    optimizer = optim.SGD(model.parameters(), lr=0.1)
    swa_model = swa_utils.AveragedModel(model)
    scheduler = optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=100)
    swa_scheduler = swa_utils.SWALR(optimizer, swa_lr=0.05)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for epoch in range(110):
            optimizer.zero_grad()
            ember.nn.functional.mse_loss(model(inputs), targets).backward()
            optimizer.step()
            if epoch >= 100:
                swa_model.update_parameters(model)
                swa_scheduler.step()
            else:
                scheduler.step()
    assert int(swa_model.n_averaged) == 10
    assert ember.nn.functional.mse_loss(swa_model(inputs), targets).item() < 0.01
    assert "swa_utils" in optim.__all__
