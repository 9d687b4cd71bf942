"""GradScaler against PyTorch's: the enabled CPU scaler over many steps (scale growth and back-off,
skipped steps, state dicts), the disabled CUDA scaler as a pass-through, and the misuse errors."""

import warnings

import numpy as np
import pytest

import ember

from ..conftest import assert_close


def _train(m, scaler, steps, losses_with_inf):
    """A few SGD steps of a linear model; the steps listed in `losses_with_inf` get an inf gradient."""
    rng = np.random.default_rng(0)
    weight = m.nn.Parameter(m.tensor(rng.standard_normal((3, 4)).astype(np.float32)))
    optimizer = m.optim.SGD([weight], lr=0.01, momentum=0.9)
    x = m.tensor(rng.standard_normal((5, 4)).astype(np.float32))
    history = []
    for step in range(steps):
        optimizer.zero_grad()
        loss = (x @ weight.T).square().mean()
        if step in losses_with_inf:
            loss = loss * float("inf")
        scaler.scale(loss).backward()
        returned = scaler.step(optimizer)
        scaler.update()
        history.append((returned, scaler.get_scale(), scaler.state_dict()))
    return weight.detach().numpy(), history


def test_cpu_scaler_trains_as_torch_with_growth_and_backoff(torch):
    make = lambda m: m.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=3)  # noqa: E731
    ours, our_history = _train(ember, make(ember), 12, {4, 5, 9})
    theirs, their_history = _train(torch, make(torch), 12, {4, 5, 9})
    assert our_history == their_history
    assert_close(ours, theirs, rtol=1e-6, atol=1e-7, what="weights after training")


def test_disabled_cuda_scaler_is_a_pass_through_as_torch(torch):
    with pytest.warns(UserWarning, match="CUDA is not available"):
        ours_scaler = ember.amp.GradScaler()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs_scaler = torch.amp.GradScaler()
    assert not ours_scaler.is_enabled() and ours_scaler.get_scale() == 1.0 and ours_scaler.state_dict() == {}
    ours, our_history = _train(ember, ours_scaler, 3, set())
    theirs, their_history = _train(torch, theirs_scaler, 3, set())
    assert our_history == their_history
    assert_close(ours, theirs, rtol=1e-6, atol=1e-7, what="weights after training")
    loss = ember.ones(2)
    assert ours_scaler.scale(loss) is loss
    ours_scaler.load_state_dict({})


def test_deprecated_spellings_warn_as_torch():
    with pytest.warns(FutureWarning, match="torch.amp.GradScaler\\('cuda'"), pytest.warns(UserWarning):
        assert not ember.cuda.amp.GradScaler().is_enabled()
    with pytest.warns(FutureWarning, match="torch.amp.GradScaler\\('cpu'"):
        assert ember.cpu.amp.GradScaler().is_enabled()


def test_state_dict_round_trip_and_nested_outputs(torch):
    scaler = ember.amp.GradScaler("cpu", init_scale=8.0)
    scaled = scaler.scale([ember.ones(()), (ember.ones(()) * 2, ember.ones(()))])
    assert [scaled[0].item(), scaled[1][0].item()] == [8.0, 16.0] and isinstance(scaled[1], tuple)
    state = {"scale": 4.0, "growth_factor": 3.0, "backoff_factor": 0.25, "growth_interval": 7, "_growth_tracker": 2}
    restored = ember.amp.GradScaler("cpu")
    restored.load_state_dict(state)
    assert restored.state_dict() == state
    reference = torch.amp.GradScaler("cpu")
    reference.load_state_dict(state)
    assert reference.state_dict() == restored.state_dict()
    with pytest.raises(RuntimeError, match="state dict is empty"):
        restored.load_state_dict({})


@pytest.mark.parametrize(
    "misuse", ["unscale_twice", "step_twice", "unscale_after_step", "closure", "update_before_scale", "scale_a_number"]
)
def test_misuse_raises_as_torch(torch, misuse):
    def outcome(m):
        weight = m.nn.Parameter(m.ones(2))
        optimizer = m.optim.SGD([weight], lr=0.1)
        scaler = m.amp.GradScaler("cpu")
        try:
            if misuse == "update_before_scale":
                scaler.update()
            if misuse == "scale_a_number":
                scaler.scale(3.0)
            scaler.scale(weight.sum()).backward()
            if misuse == "closure":
                scaler.step(optimizer, closure=lambda: None)
            scaler.unscale_(optimizer)
            if misuse == "unscale_twice":
                scaler.unscale_(optimizer)
            scaler.step(optimizer)
            if misuse == "step_twice":
                scaler.step(optimizer)
            if misuse == "unscale_after_step":
                scaler.unscale_(optimizer)
        except Exception as error:  # noqa: BLE001 - the class and message are compared
            return type(error).__name__, str(error)
        return None

    ours, theirs = outcome(ember), outcome(torch)
    assert ours is not None and ours[0] == theirs[0]
    assert ours[1].split()[:3] == theirs[1].split()[:3]
