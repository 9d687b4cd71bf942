"""Learning-rate schedulers against PyTorch: the same schedule gives the same lr sequence."""
import math
import warnings

import pytest

import ember
import ember.optim as optim
from ember.optim import lr_scheduler

EPOCHS = 25

# name -> (positional args, keyword args); each builds the scheduler in both libraries.
SCHEDULES = {
    "StepLR": [((3,), {}), ((4,), dict(gamma=0.5))],
    "MultiStepLR": [(([2, 5, 5, 11],), {}), (([3, 7],), dict(gamma=0.3))],
    "ExponentialLR": [((0.9,), {})],
    "CosineAnnealingLR": [((10,), {}), ((7,), dict(eta_min=0.01))],
    "LambdaLR": [((lambda epoch: 0.95 ** epoch,), {}), ((lambda epoch: 1 / (epoch + 1),), {})],
    "MultiplicativeLR": [((lambda epoch: 0.9,), {})],
}
CASES = [(name, args, kwargs) for name, variants in SCHEDULES.items() for args, kwargs in variants]


def _optimizers(torch, lrs=(0.1, 0.02)):
    ours = optim.SGD([{"params": [ember.zeros(1, requires_grad=True)], "lr": lr} for lr in lrs], lr=lrs[0])
    theirs = torch.optim.SGD([{"params": [torch.zeros(1, requires_grad=True)], "lr": lr} for lr in lrs], lr=lrs[0])
    return ours, theirs


def _assert_lrs_equal(ours, theirs, epoch):
    assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-15), f"epoch {epoch}: {ours} != {theirs}"


def _run(schedulers_ours, schedulers_theirs, opt_ours, opt_theirs, epochs=EPOCHS):
    for epoch in range(epochs):
        opt_ours.step()
        opt_theirs.step()
        for mine, other in zip(schedulers_ours, schedulers_theirs):
            mine.step()
            other.step()
            _assert_lrs_equal(mine.get_last_lr(), other.get_last_lr(), epoch)
        _assert_lrs_equal([g["lr"] for g in opt_ours.param_groups], [g["lr"] for g in opt_theirs.param_groups], epoch)


@pytest.mark.parametrize("name, args, kwargs", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_lr_sequence_matches_torch(torch, name, args, kwargs):
    opt_ours, opt_theirs = _optimizers(torch)
    mine = getattr(lr_scheduler, name)(opt_ours, *args, **kwargs)
    other = getattr(torch.optim.lr_scheduler, name)(opt_theirs, *args, **kwargs)
    _assert_lrs_equal(mine.get_last_lr(), other.get_last_lr(), "initial")
    assert mine.base_lrs == other.base_lrs and mine.last_epoch == other.last_epoch == 0
    _run([mine], [other], opt_ours, opt_theirs)
    assert mine.last_epoch == other.last_epoch == EPOCHS


def test_chained_schedulers_multiply_like_torch(torch):
    opt_ours, opt_theirs = _optimizers(torch)
    ours = [lr_scheduler.ExponentialLR(opt_ours, 0.9), lr_scheduler.MultiStepLR(opt_ours, [4, 9], gamma=0.5),
            lr_scheduler.CosineAnnealingLR(opt_ours, 6)]
    theirs = [torch.optim.lr_scheduler.ExponentialLR(opt_theirs, 0.9),
              torch.optim.lr_scheduler.MultiStepLR(opt_theirs, [4, 9], gamma=0.5),
              torch.optim.lr_scheduler.CosineAnnealingLR(opt_theirs, 6)]
    _run(ours, theirs, opt_ours, opt_theirs)


@pytest.mark.parametrize("name, args", [("StepLR", (3,)), ("MultiStepLR", ([2, 6],)), ("ExponentialLR", (0.8,)),
                                        ("CosineAnnealingLR", (5,))])
def test_step_with_epoch_uses_closed_form_like_torch(torch, name, args):
    opt_ours, opt_theirs = _optimizers(torch)
    mine = getattr(lr_scheduler, name)(opt_ours, *args)
    other = getattr(torch.optim.lr_scheduler, name)(opt_theirs, *args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for epoch in (4, 2, 9):
            opt_ours.step()
            opt_theirs.step()
            mine.step(epoch)
            other.step(epoch)
            _assert_lrs_equal(mine.get_last_lr(), other.get_last_lr(), epoch)
    with pytest.warns(UserWarning, match="epoch parameter in `scheduler.step\\(\\)` was not necessary"):
        mine.step(3)


@pytest.mark.parametrize("kwargs", [dict(), dict(mode="max", factor=0.5, patience=2), dict(patience=1, cooldown=2),
                                    dict(threshold_mode="abs", threshold=0.1, patience=0, min_lr=0.015),
                                    dict(patience=0, min_lr=[0.05, 0.0], eps=1e-3)])
def test_reduce_lr_on_plateau_matches_torch(torch, kwargs):
    opt_ours, opt_theirs = _optimizers(torch)
    mine = lr_scheduler.ReduceLROnPlateau(opt_ours, **kwargs)
    other = torch.optim.lr_scheduler.ReduceLROnPlateau(opt_theirs, **kwargs)
    metrics = [1.0, 0.9, 0.95, 0.95, 0.95, 0.89, 0.9, 0.9, 0.9, 0.9, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
               1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    for epoch, metric in enumerate(metrics):
        mine.step(metric)
        other.step(metric)
        _assert_lrs_equal(mine.get_last_lr(), other.get_last_lr(), epoch)
        assert mine.num_bad_epochs == other.num_bad_epochs and mine.best == other.best


def test_reduce_lr_on_plateau_accepts_a_tensor_metric():
    optimizer = optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
    scheduler = lr_scheduler.ReduceLROnPlateau(optimizer, patience=0)
    scheduler.step(ember.tensor(1.0))
    scheduler.step(ember.tensor(2.0))
    assert scheduler.get_last_lr() == [pytest.approx(0.1)]


def test_reduce_lr_on_plateau_rejects_bad_arguments():
    optimizer = optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
    with pytest.raises(ValueError, match="Factor should be < 1.0"):
        lr_scheduler.ReduceLROnPlateau(optimizer, factor=1.0)
    with pytest.raises(ValueError, match="mode sideways is unknown"):
        lr_scheduler.ReduceLROnPlateau(optimizer, mode="sideways")


def test_state_dict_round_trip_through_save(tmp_path):
    optimizer = optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
    scheduler = lr_scheduler.MultiStepLR(optimizer, [2, 4], gamma=0.5)
    for _ in range(3):
        optimizer.step()
        scheduler.step()
    ember.save({"scheduler": scheduler.state_dict(), "optimizer": optimizer.state_dict()}, tmp_path / "s.pt")
    checkpoint = ember.load(tmp_path / "s.pt")
    resumed_optimizer = optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
    resumed_optimizer.load_state_dict(checkpoint["optimizer"])
    resumed = lr_scheduler.MultiStepLR(resumed_optimizer, [9], gamma=0.9)
    resumed.load_state_dict(checkpoint["scheduler"])
    assert resumed.last_epoch == 3 and resumed.milestones == scheduler.milestones
    for _ in range(3):
        optimizer.step()
        resumed_optimizer.step()
        scheduler.step()
        resumed.step()
        assert resumed.get_last_lr() == scheduler.get_last_lr()
    assert scheduler.get_last_lr() == [0.25]


def test_lambda_state_dict_keeps_callable_objects_state_only():
    class Warmup:
        def __init__(self):
            self.factor = 2.0

        def __call__(self, epoch):
            return self.factor * epoch

    optimizer = optim.SGD([{"params": [ember.zeros(1, requires_grad=True)]},
                           {"params": [ember.zeros(1, requires_grad=True)]}], lr=1.0)
    warmup = Warmup()
    scheduler = lr_scheduler.LambdaLR(optimizer, [lambda epoch: 1.0, warmup])
    state = scheduler.state_dict()
    assert state["lr_lambdas"] == [None, {"factor": 2.0}]
    warmup.factor = 5.0
    scheduler.load_state_dict(state)
    assert warmup.factor == 2.0


def test_resuming_needs_initial_lr():
    optimizer = optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
    with pytest.raises(KeyError, match="initial_lr"):
        lr_scheduler.StepLR(optimizer, 2, last_epoch=5)


def test_resuming_with_last_epoch_continues_the_schedule(torch):
    opt_ours, opt_theirs = _optimizers(torch)
    for group in opt_ours.param_groups + opt_theirs.param_groups:
        group["initial_lr"] = group["lr"]
    mine = lr_scheduler.StepLR(opt_ours, 2, last_epoch=3)
    other = torch.optim.lr_scheduler.StepLR(opt_theirs, 2, last_epoch=3)
    _run([mine], [other], opt_ours, opt_theirs, epochs=6)


def test_warns_when_scheduler_steps_before_optimizer():
    optimizer = optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
    scheduler = lr_scheduler.StepLR(optimizer, 2)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        scheduler.step()


def test_no_warning_in_the_right_order():
    optimizer = optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
    scheduler = lr_scheduler.StepLR(optimizer, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        optimizer.step()
        scheduler.step()


def test_verbose_is_accepted_with_a_deprecation_warning():
    optimizer = optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
    with pytest.warns(UserWarning, match="verbose parameter is deprecated"):
        lr_scheduler.ExponentialLR(optimizer, 0.5, verbose=True)


def test_get_lr_outside_step_warns():
    optimizer = optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
    scheduler = lr_scheduler.ExponentialLR(optimizer, 0.5)
    with pytest.warns(UserWarning, match="use `get_last_lr\\(\\)`"):
        scheduler.get_lr()


def test_not_an_optimizer_is_a_type_error():
    with pytest.raises(TypeError, match="list is not an Optimizer"):
        lr_scheduler.StepLR([], 2)


def test_cosine_reaches_eta_min_at_t_max():
    optimizer = optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
    scheduler = lr_scheduler.CosineAnnealingLR(optimizer, T_max=4, eta_min=0.1)
    lrs = []
    for _ in range(4):
        optimizer.step()
        scheduler.step()
        lrs.append(scheduler.get_last_lr()[0])
    expected = [0.1 + 0.9 * (1 + math.cos(math.pi * t / 4)) / 2 for t in range(1, 5)]
    assert lrs == pytest.approx(expected)
