"""Learning-rate schedulers against PyTorch: the same schedule gives the same lr sequence."""

import math
import warnings

import pytest

import ember
import ember.optim as optim
from ember.optim import lr_scheduler

EPOCHS = 60

# name -> (positional args, keyword args); each builds the scheduler in both libraries.
SCHEDULES = {
    "StepLR": [((3,), {}), ((4,), dict(gamma=0.5))],
    "MultiStepLR": [(([2, 5, 5, 11],), {}), (([3, 7],), dict(gamma=0.3))],
    "ExponentialLR": [((0.9,), {})],
    "CosineAnnealingLR": [((10,), {}), ((7,), dict(eta_min=0.01))],
    "LambdaLR": [((lambda epoch: 0.95**epoch,), {}), ((lambda epoch: 1 / (epoch + 1),), {})],
    "MultiplicativeLR": [((lambda epoch: 0.9,), {})],
    "ConstantLR": [((), {}), ((), dict(factor=0.5, total_iters=4)), ((), dict(factor=1.0, total_iters=0))],
    "LinearLR": [
        ((), {}),
        ((), dict(start_factor=0.2, total_iters=7)),
        ((), dict(start_factor=1.0, end_factor=0.1, total_iters=10)),
    ],
    "PolynomialLR": [((), {}), ((), dict(total_iters=20, power=2.0)), ((), dict(total_iters=9, power=0.5))],
    "CosineAnnealingWarmRestarts": [((3,), {}), ((5,), dict(T_mult=2, eta_min=0.001)), ((4,), dict(T_mult=3))],
    "CyclicLR": [
        ((0.01, 0.1), dict(step_size_up=4)),
        ((0.01, [0.1, 0.05]), dict(step_size_up=3, step_size_down=5, mode="triangular2")),
        ((0.01, 0.1), dict(step_size_up=4, mode="exp_range", gamma=0.97)),
        ((0.01, 0.1), dict(step_size_up=2, scale_fn=lambda x: 0.5**x, scale_mode="iterations")),
        (([0.01, 0.02], 0.1), dict(step_size_up=5, cycle_momentum=False)),
    ],
    "OneCycleLR": [
        ((0.5,), dict(total_steps=EPOCHS)),
        (([0.5, 0.2],), dict(epochs=6, steps_per_epoch=10, anneal_strategy="linear", three_phase=True)),
        (
            (0.3,),
            dict(
                total_steps=EPOCHS + 5,
                pct_start=0.1,
                div_factor=10.0,
                final_div_factor=100.0,
                base_momentum=[0.8, 0.7],
                max_momentum=0.9,
            ),
        ),
        ((0.3,), dict(total_steps=EPOCHS, cycle_momentum=False)),
    ],
}
CASES = [(name, args, kwargs) for name, variants in SCHEDULES.items() for args, kwargs in variants]


def _optimizers(torch, lrs=(0.1, 0.02), kind="SGD", **options):
    if kind == "SGD":
        options.setdefault("momentum", 0.9)  # CyclicLR and OneCycleLR cycle it
    ours = getattr(optim, kind)(
        [{"params": [ember.zeros(1, requires_grad=True)], "lr": lr} for lr in lrs], lr=lrs[0], **options
    )
    theirs = getattr(torch.optim, kind)(
        [{"params": [torch.zeros(1, requires_grad=True)], "lr": lr} for lr in lrs], lr=lrs[0], **options
    )
    return ours, theirs


def _group_options(optimizer):
    """Every option of every group but the parameters: the rates, momenta and betas the schedulers set."""
    return [{key: value for key, value in group.items() if key != "params"} for group in optimizer.param_groups]


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
        assert _group_options(opt_ours) == _group_options(opt_theirs), f"epoch {epoch}"


CASE_IDS = [f"{case[0]}-{index}" for index, case in enumerate(CASES)]


@pytest.mark.parametrize("kind", ["SGD", "Adam"])
@pytest.mark.parametrize("name, args, kwargs", CASES, ids=CASE_IDS)
def test_lr_sequence_matches_torch(torch, name, args, kwargs, kind):
    """Rates (and momenta, or Adam's beta1, where cycled) equal PyTorch's at every one of 60 steps."""
    opt_ours, opt_theirs = _optimizers(torch, kind=kind)
    mine = getattr(lr_scheduler, name)(opt_ours, *args, **kwargs)
    other = getattr(torch.optim.lr_scheduler, name)(opt_theirs, *args, **kwargs)
    _assert_lrs_equal(mine.get_last_lr(), other.get_last_lr(), "initial")
    assert mine.base_lrs == other.base_lrs and mine.last_epoch == other.last_epoch == 0
    assert _group_options(opt_ours) == _group_options(opt_theirs)
    _run([mine], [other], opt_ours, opt_theirs)
    assert mine.last_epoch == other.last_epoch == EPOCHS


@pytest.mark.parametrize("name, args, kwargs", CASES, ids=CASE_IDS)
def test_state_dict_matches_torch_and_resumes(torch, tmp_path, name, args, kwargs):
    """Same keys and values as PyTorch's state_dict; saved and loaded into a fresh scheduler, the
    schedule continues exactly where it was."""
    opt_ours, opt_theirs = _optimizers(torch)
    mine = getattr(lr_scheduler, name)(opt_ours, *args, **kwargs)
    other = getattr(torch.optim.lr_scheduler, name)(opt_theirs, *args, **kwargs)
    _run([mine], [other], opt_ours, opt_theirs, epochs=17)
    state, reference = mine.state_dict(), other.state_dict()
    assert sorted(state) == sorted(reference)
    for key, value in reference.items():
        if key not in ("lr_lambdas", "_scale_fn_custom"):  # functions are not saved, only their attributes
            assert state[key] == value, key

    ember.save({"scheduler": state, "optimizer": opt_ours.state_dict()}, tmp_path / "checkpoint.pt")
    checkpoint = ember.load(tmp_path / "checkpoint.pt")
    resumed_optimizer, _ = _optimizers(torch)
    resumed = getattr(lr_scheduler, name)(resumed_optimizer, *args, **kwargs)
    resumed_optimizer.load_state_dict(checkpoint["optimizer"])
    resumed.load_state_dict(checkpoint["scheduler"])
    for epoch in range(10):
        opt_ours.step()
        resumed_optimizer.step()
        mine.step()
        resumed.step()
        assert resumed.get_last_lr() == mine.get_last_lr(), f"epoch {epoch}"
        assert _group_options(resumed_optimizer) == _group_options(opt_ours)


def test_exports_match_torch(torch):
    assert sorted(lr_scheduler.__all__) == sorted(torch.optim.lr_scheduler.__all__)


@pytest.mark.parametrize("name", sorted(lr_scheduler.__all__))
def test_signature_matches_torch_besides_the_old_verbose_flag(torch, name):
    import inspect

    def parameters(cls):
        return [
            (p.name, p.kind, p.default)
            for p in inspect.signature(cls.__init__).parameters.values()
            if p.name != "verbose"
        ]

    assert parameters(getattr(lr_scheduler, name)) == parameters(getattr(torch.optim.lr_scheduler, name))


def test_chained_schedulers_multiply_like_torch(torch):
    opt_ours, opt_theirs = _optimizers(torch)
    ours = [
        lr_scheduler.ExponentialLR(opt_ours, 0.9),
        lr_scheduler.MultiStepLR(opt_ours, [4, 9], gamma=0.5),
        lr_scheduler.CosineAnnealingLR(opt_ours, 6),
    ]
    theirs = [
        torch.optim.lr_scheduler.ExponentialLR(opt_theirs, 0.9),
        torch.optim.lr_scheduler.MultiStepLR(opt_theirs, [4, 9], gamma=0.5),
        torch.optim.lr_scheduler.CosineAnnealingLR(opt_theirs, 6),
    ]
    _run(ours, theirs, opt_ours, opt_theirs)


@pytest.mark.parametrize(
    "name, args",
    [
        ("StepLR", (3,)),
        ("MultiStepLR", ([2, 6],)),
        ("ExponentialLR", (0.8,)),
        ("CosineAnnealingLR", (5,)),
        ("ConstantLR", (0.5, 3)),
        ("LinearLR", (0.25, 1.0, 6)),
        ("PolynomialLR", (8, 2.0)),
        ("LambdaLR", (lambda epoch: 0.9**epoch,)),
        ("CyclicLR", (0.01, 0.1, 3)),
    ],
)
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


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(),
        dict(mode="max", factor=0.5, patience=2),
        dict(patience=1, cooldown=2),
        dict(threshold_mode="abs", threshold=0.1, patience=0, min_lr=0.015),
        dict(patience=0, min_lr=[0.05, 0.0], eps=1e-3),
    ],
)
def test_reduce_lr_on_plateau_matches_torch(torch, kwargs):
    opt_ours, opt_theirs = _optimizers(torch)
    mine = lr_scheduler.ReduceLROnPlateau(opt_ours, **kwargs)
    other = torch.optim.lr_scheduler.ReduceLROnPlateau(opt_theirs, **kwargs)
    metrics = [
        1.0,
        0.9,
        0.95,
        0.95,
        0.95,
        0.89,
        0.9,
        0.9,
        0.9,
        0.9,
        0.5,
        0.6,
        0.7,
        0.8,
        0.9,
        1.0,
        1.0,
        1.0,
        1.0,
        1.0,
        1.0,
        1.0,
        1.0,
        1.0,
        1.0,
    ]
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

    optimizer = optim.SGD(
        [{"params": [ember.zeros(1, requires_grad=True)]}, {"params": [ember.zeros(1, requires_grad=True)]}], lr=1.0
    )
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


def _both(torch, build):
    """Build the same composite schedule in both libraries: `build(lib_scheduler_module, optimizer)`."""
    opt_ours, opt_theirs = _optimizers(torch)
    return build(lr_scheduler, opt_ours), build(torch.optim.lr_scheduler, opt_theirs), opt_ours, opt_theirs


SEQUENCES = {
    "warmup-then-decay": lambda lib, opt: lib.SequentialLR(
        opt, [lib.LinearLR(opt, start_factor=0.1, total_iters=5), lib.ExponentialLR(opt, gamma=0.9)], milestones=[5]
    ),
    "three-phases": lambda lib, opt: lib.SequentialLR(
        opt,
        [
            lib.ConstantLR(opt, factor=0.5, total_iters=3),
            lib.CosineAnnealingLR(opt, T_max=8),
            lib.StepLR(opt, 4, gamma=0.5),
        ],
        milestones=[4, 12],
    ),
    "chained": lambda lib, opt: lib.ChainedScheduler(
        [lib.ConstantLR(opt, factor=0.1, total_iters=4), lib.ExponentialLR(opt, gamma=0.9)]
    ),
    "chained-with-optimizer": lambda lib, opt: lib.ChainedScheduler(
        [
            lib.MultiStepLR(opt, [3, 9], gamma=0.5),
            lib.LinearLR(opt, start_factor=0.5, total_iters=6),
            lib.PolynomialLR(opt, total_iters=30),
        ],
        optimizer=opt,
    ),
    "sequence-of-chains": lambda lib, opt: lib.SequentialLR(
        opt,
        [
            lib.ChainedScheduler(
                [lib.LinearLR(opt, start_factor=0.2, total_iters=4), lib.ExponentialLR(opt, gamma=0.95)]
            ),
            lib.CosineAnnealingLR(opt, T_max=10),
        ],
        milestones=[6],
    ),
}


# A ChainedScheduler inside a SequentialLR steps before any optimizer step, and PyTorch warns about it.
@pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler.step\\(\\)` before `optimizer.step\\(\\)`")
@pytest.mark.parametrize("name", list(SEQUENCES))
def test_sequential_and_chained_schedules_match_torch(torch, name):
    mine, other, opt_ours, opt_theirs = _both(torch, SEQUENCES[name])
    _assert_lrs_equal(mine.get_last_lr(), other.get_last_lr(), "initial")
    _assert_lrs_equal([g["lr"] for g in opt_ours.param_groups], [g["lr"] for g in opt_theirs.param_groups], "initial")
    _run([mine], [other], opt_ours, opt_theirs, epochs=40)
    state, reference = mine.state_dict(), other.state_dict()
    assert sorted(state) == sorted(reference)
    assert [sorted(inner) for inner in state["_schedulers"]] == [sorted(inner) for inner in reference["_schedulers"]]


def test_sequential_state_dict_resumes_inner_schedulers(torch):
    build = SEQUENCES["three-phases"]
    opt_ours, _ = _optimizers(torch)
    scheduler = build(lr_scheduler, opt_ours)
    for _ in range(7):
        opt_ours.step()
        scheduler.step()
    state, optimizer_state = scheduler.state_dict(), opt_ours.state_dict()
    resumed_optimizer, _ = _optimizers(torch)
    resumed = build(lr_scheduler, resumed_optimizer)
    resumed_optimizer.load_state_dict(optimizer_state)
    resumed.load_state_dict(state)
    for _ in range(15):
        opt_ours.step()
        resumed_optimizer.step()
        scheduler.step()
        resumed.step()
        assert resumed.get_last_lr() == scheduler.get_last_lr()


def test_composite_schedulers_reject_bad_inputs_like_torch(torch):
    def errors(lib_scheduler, lib_optimizer, make_optimizer):
        other_optimizer = make_optimizer()
        messages = []
        attempts = [
            lambda: lib_scheduler.SequentialLR(lib_optimizer, [], milestones=[]),
            lambda: lib_scheduler.SequentialLR(lib_optimizer, [lib_scheduler.StepLR(lib_optimizer, 2)], milestones=[3]),
            lambda: lib_scheduler.SequentialLR(
                lib_optimizer, [lib_scheduler.ReduceLROnPlateau(lib_optimizer)], milestones=[]
            ),
            lambda: lib_scheduler.SequentialLR(lib_optimizer, [object()], milestones=[]),
            lambda: lib_scheduler.ChainedScheduler([]),
            lambda: lib_scheduler.ChainedScheduler(
                [lib_scheduler.StepLR(lib_optimizer, 2), lib_scheduler.StepLR(other_optimizer, 2)]
            ),
        ]
        for attempt in attempts:
            with pytest.raises((ValueError, TypeError)) as error:
                attempt()
            messages.append((type(error.value), str(error.value).split(" has ")[0]))
        return messages

    def make(lib, module):
        return lambda: module.SGD([lib.zeros(1, requires_grad=True)], lr=0.1)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert errors(lr_scheduler, make(ember, optim)(), make(ember, optim)) == errors(
            torch.optim.lr_scheduler, make(torch, torch.optim)(), make(torch, torch.optim)
        )


def test_cosine_warm_restarts_with_fractional_epochs_match_torch(torch):
    """Stepping inside the batch loop with `epoch + batch / batches`, and jumping around, as SGDR allows."""
    for T_mult in (1, 2, 3):
        opt_ours, opt_theirs = _optimizers(torch)
        mine = lr_scheduler.CosineAnnealingWarmRestarts(opt_ours, T_0=3, T_mult=T_mult, eta_min=0.001)
        other = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt_theirs, T_0=3, T_mult=T_mult, eta_min=0.001)
        epochs = [epoch + batch / 4 for epoch in range(20) for batch in range(4)] + [2.5, 0, 17.25, 40, 9]
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no deprecation warning for the epoch argument here, as in PyTorch
            for epoch in epochs:
                mine.step(epoch)
                other.step(epoch)
                _assert_lrs_equal(mine.get_last_lr(), other.get_last_lr(), epoch)
                assert (mine.T_cur, mine.T_i, mine.last_epoch) == (other.T_cur, other.T_i, other.last_epoch)


def test_one_cycle_refuses_to_step_past_total_steps_like_torch(torch):
    for lib_scheduler, make in (
        (lr_scheduler, lambda: _optimizers(torch)[0]),
        (torch.optim.lr_scheduler, lambda: _optimizers(torch)[1]),
    ):
        optimizer = make()
        scheduler = lib_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=3)
        for _ in range(3):
            optimizer.step()
            scheduler.step()
        with pytest.raises(ValueError, match="Tried to step 4 times. The specified number of total steps is 3"):
            scheduler.step()


def _bad_inputs(lib_scheduler, optimizer, adagrad):
    return [
        lambda: lib_scheduler.ConstantLR(optimizer, factor=1.5),
        lambda: lib_scheduler.ConstantLR(optimizer, factor=-0.1),
        lambda: lib_scheduler.LinearLR(optimizer, start_factor=0),
        lambda: lib_scheduler.LinearLR(optimizer, end_factor=1.5),
        lambda: lib_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=0),
        lambda: lib_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=2.5),
        lambda: lib_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=2, T_mult=0),
        lambda: lib_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=2, eta_min="0"),
        lambda: lib_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=2).step(-1),
        lambda: lib_scheduler.CyclicLR(optimizer, 0.01, 0.1, mode="sawtooth"),
        lambda: lib_scheduler.CyclicLR(optimizer, [0.01], 0.1),
        lambda: lib_scheduler.CyclicLR(optimizer, 0.01, [0.1, 0.2, 0.3]),
        lambda: lib_scheduler.CyclicLR(adagrad, 0.01, 0.1),
        lambda: lib_scheduler.CyclicLR([], 0.01, 0.1),
        lambda: lib_scheduler.OneCycleLR(optimizer, 0.1),
        lambda: lib_scheduler.OneCycleLR(optimizer, 0.1, total_steps=0),
        lambda: lib_scheduler.OneCycleLR(optimizer, 0.1, total_steps=5.0),
        lambda: lib_scheduler.OneCycleLR(optimizer, 0.1, epochs=0, steps_per_epoch=3),
        lambda: lib_scheduler.OneCycleLR(optimizer, 0.1, epochs=2, steps_per_epoch=-3),
        lambda: lib_scheduler.OneCycleLR(optimizer, 0.1, total_steps=10, pct_start=1.5),
        lambda: lib_scheduler.OneCycleLR(optimizer, 0.1, total_steps=10, pct_start=0),
        lambda: lib_scheduler.OneCycleLR(optimizer, 0.1, total_steps=10, anneal_strategy="exp"),
        lambda: lib_scheduler.OneCycleLR(optimizer, [0.1], total_steps=10),
        lambda: lib_scheduler.OneCycleLR(adagrad, 0.1, total_steps=10),
        lambda: lib_scheduler.StepLR("optimizer", 3),
    ]


def test_bad_arguments_raise_torch_errors(torch):
    opt_ours, opt_theirs = _optimizers(torch)
    adagrad_ours = optim.Adagrad([ember.zeros(1, requires_grad=True)])
    adagrad_theirs = torch.optim.Adagrad([torch.zeros(1, requires_grad=True)])
    for mine, other in zip(
        _bad_inputs(lr_scheduler, opt_ours, adagrad_ours),
        _bad_inputs(torch.optim.lr_scheduler, opt_theirs, adagrad_theirs),
    ):
        with pytest.raises(Exception) as expected:
            other()
        with pytest.raises(type(expected.value)) as actual:
            mine()
        assert str(actual.value) == str(expected.value)


def test_warns_when_optimizer_step_was_replaced_after_the_scheduler(torch):
    for module, lib in ((optim, ember), (torch.optim, torch)):
        optimizer = module.SGD([lib.zeros(1, requires_grad=True)], lr=1.0)
        scheduler = getattr(lr_scheduler if lib is ember else torch.optim.lr_scheduler, "StepLR")(optimizer, 2)
        optimizer.step = lambda closure=None: None
        optimizer.step()
        with pytest.warns(UserWarning, match="`optimizer.step\\(\\)` has been overridden after learning rate"):
            scheduler.step()


@pytest.mark.parametrize("calls_the_original", [True, False])
def test_a_step_replaced_before_the_scheduler_still_counts(calls_the_original):
    """The scheduler wraps a replaced step so calling it counts (PyTorch's wrapper needs a bound method and
    fails with AttributeError on a plain function)."""
    optimizer = optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
    original = optimizer.step
    optimizer.step = (lambda closure=None: original(closure)) if calls_the_original else (lambda closure=None: None)
    scheduler = lr_scheduler.StepLR(optimizer, 2)
    optimizer.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scheduler.step()


def test_cyclic_lr_custom_scale_function_object_state_is_saved():
    class Halving:
        def __init__(self):
            self.base = 0.5

        def __call__(self, cycle):
            return self.base**cycle

    optimizer = optim.SGD([ember.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
    scale = Halving()
    scheduler = lr_scheduler.CyclicLR(optimizer, 0.01, 0.1, step_size_up=2, scale_fn=scale)
    state = scheduler.state_dict()
    assert state["_scale_fn_custom"] == {"base": 0.5}
    scale.base = 0.9
    scheduler.load_state_dict(state)
    assert scale.base == 0.5
    assert lr_scheduler.CyclicLR(optimizer, 0.01, 0.1, scale_fn=lambda x: 1.0).state_dict()["_scale_fn_custom"] is None


@pytest.mark.parametrize("name, args, kwargs", CASES, ids=CASE_IDS)
def test_order_warning_matches_torch(torch, name, args, kwargs):
    """scheduler.step() before any optimizer.step() warns where PyTorch warns (not in
    CosineAnnealingWarmRestarts, whose step is its own), and only the first time."""

    def warnings_of(lib_scheduler, optimizer):
        scheduler = getattr(lib_scheduler, name)(optimizer, *args, **kwargs)
        caught = []
        for _ in range(2):
            with warnings.catch_warnings(record=True) as record:
                warnings.simplefilter("always")
                scheduler.step()
            caught.append([str(warning.message)[:60] for warning in record])
        return caught

    opt_ours, opt_theirs = _optimizers(torch)
    assert warnings_of(lr_scheduler, opt_ours) == warnings_of(torch.optim.lr_scheduler, opt_theirs)
