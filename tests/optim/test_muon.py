"""Muon against PyTorch: momentum, Newton–Schulz orthogonalisation in bfloat16, learning-rate adjustment."""

import numpy as np
import pytest

import ember
import ember.optim as optim
from ember.optim.muon import _orthogonalize
from tests.conftest import assert_close

SHAPES = [(8, 6), (2, 8), (6, 8)]
CONFIGS = [
    dict(),
    dict(lr=0.02),
    dict(lr=0.02, nesterov=False, momentum=0.9),
    dict(lr=0.01, adjust_lr_fn="match_rms_adamw", weight_decay=0.0),
    dict(lr=0.02, adjust_lr_fn="original", weight_decay=0.3),
    dict(lr=0.02, ns_steps=3, ns_coefficients=(2.0, -1.5, 0.5), eps=1e-5),
]


def _case_id(options):
    return "-".join(f"{key}={value}" for key, value in options.items()) or "defaults"


def _pair(torch, options, dtype=np.float32):
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal(shape).astype(dtype) for shape in SHAPES]
    ours = [ember.tensor(array, requires_grad=True) for array in arrays]
    theirs = [torch.tensor(array, requires_grad=True) for array in arrays]
    return ours, theirs, optim.Muon(ours, **options), torch.optim.Muon(theirs, **options)


def test_newton_schulz_matches_torch_in_bfloat16(torch):
    from torch.optim._muon import _zeropower_via_newtonschulz

    rng = np.random.default_rng(0)
    for shape in SHAPES + [(5, 5), (1, 7), (7, 1)]:
        matrix = rng.standard_normal(shape).astype(np.float32)
        expected = _zeropower_via_newtonschulz(torch.tensor(matrix), (3.4445, -4.775, 2.0315), 5, 1e-7).float()
        assert_close(
            _orthogonalize(matrix, (3.4445, -4.775, 2.0315), 5, 1e-7),
            expected.numpy(),
            rtol=0,
            atol=0,
            what=f"Newton-Schulz of a {shape} matrix",
        )


def test_newton_schulz_makes_singular_values_near_one():
    matrix = np.random.default_rng(1).standard_normal((6, 4)).astype(np.float32)
    singular_values = np.linalg.svd(_orthogonalize(matrix, (3.4445, -4.775, 2.0315), 5, 1e-7), compute_uv=False)
    assert np.all((singular_values > 0.6) & (singular_values < 1.3)), singular_values


@pytest.mark.parametrize("options", CONFIGS, ids=_case_id)
def test_updates_from_the_same_gradients_match_torch(torch, options):
    """Fed the same gradients, the float32 updates round as PyTorch's do, bfloat16 steps included."""
    ours, theirs, our_optimizer, their_optimizer = _pair(torch, options)
    rng = np.random.default_rng(2)
    for step in range(10):
        for mine, other in zip(ours, theirs):
            grad = rng.standard_normal(mine.shape).astype(np.float32)
            mine.grad, other.grad = ember.tensor(grad), torch.tensor(grad)
        our_optimizer.step()
        their_optimizer.step()
        for index, (mine, other) in enumerate(zip(ours, theirs)):
            assert_close(mine, other.detach().numpy(), rtol=1e-6, atol=1e-7, what=f"parameter {index} step {step + 1}")
    mine, other = our_optimizer.state_dict(), their_optimizer.state_dict()
    assert mine["param_groups"] == other["param_groups"]
    for index, buffers in other["state"].items():
        assert sorted(mine["state"][index]) == sorted(buffers) == ["momentum_buffer"]
        assert_close(mine["state"][index]["momentum_buffer"], buffers["momentum_buffer"].numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("options", CONFIGS, ids=_case_id)
def test_fifty_training_steps_stay_with_torch(torch, options, dtype):
    """Training a two-layer network: a last-bit difference in a gradient can move a bfloat16 rounding,
    which shifts the update by lr * 2**-8 relative, so the iterates agree to about that."""
    rng = np.random.default_rng(3)
    inputs, targets = rng.standard_normal((16, 6)).astype(dtype), rng.standard_normal((16, 2)).astype(dtype)
    initial = [0.5 * rng.standard_normal((8, 6)).astype(dtype), 0.5 * rng.standard_normal((2, 8)).astype(dtype)]
    ours = [ember.tensor(array, requires_grad=True) for array in initial]
    theirs = [torch.tensor(array, requires_grad=True) for array in initial]
    our_optimizer, their_optimizer = optim.Muon(ours, **options), torch.optim.Muon(theirs, **options)

    def loss(lib, params, x, y):
        return ((lib.tanh(x @ params[0].T) @ params[1].T - y) ** 2).mean()

    for step in range(50):
        our_optimizer.zero_grad()
        our_loss = loss(ember, ours, ember.tensor(inputs), ember.tensor(targets))
        our_loss.backward()
        our_optimizer.step()
        their_optimizer.zero_grad()
        their_loss = loss(torch, theirs, torch.tensor(inputs), torch.tensor(targets))
        their_loss.backward()
        their_optimizer.step()
        assert our_loss.item() == pytest.approx(their_loss.item(), rel=1e-2), f"loss at step {step}"
    for mine, other in zip(ours, theirs):
        assert_close(mine, other.detach().numpy(), rtol=0, atol=2e-2)
        assert mine.dtype.name == np.dtype(dtype).name


def test_repr_and_signature_match_torch(torch):
    import inspect

    ours = optim.Muon([ember.zeros(2, 3, requires_grad=True)], lr=0.02, adjust_lr_fn="match_rms_adamw")
    theirs = torch.optim.Muon([torch.zeros(2, 3, requires_grad=True)], lr=0.02, adjust_lr_fn="match_rms_adamw")
    assert repr(ours).splitlines() == repr(theirs).splitlines()

    def parameters(cls):
        return [(p.name, p.kind, p.default) for p in inspect.signature(cls.__init__).parameters.values()]

    assert parameters(optim.Muon) == parameters(torch.optim.Muon)


@pytest.mark.parametrize(
    "make_params, options",
    [
        (lambda lib: [lib.zeros(3, requires_grad=True)], {}),
        (lambda lib: [lib.zeros(2, 3, requires_grad=True)], dict(lr=-1.0)),
        (lambda lib: [lib.zeros(2, 3, requires_grad=True)], dict(momentum=-0.5)),
        (lambda lib: [lib.zeros(2, 3, requires_grad=True)], dict(weight_decay=-0.1)),
        (lambda lib: [lib.zeros(2, 3, requires_grad=True)], dict(adjust_lr_fn="sqrt")),
    ],
)
def test_bad_arguments_raise_like_torch(torch, make_params, options):
    with pytest.raises(ValueError) as expected:
        torch.optim.Muon(make_params(torch), **options)
    with pytest.raises(ValueError) as actual:
        optim.Muon(make_params(ember), **options)
    assert str(actual.value).split("size:")[0] == str(expected.value).split("size:")[0]


def test_too_many_newton_schulz_steps_raise_like_torch(torch):
    for lib, module in ((ember, optim), (torch, torch.optim)):
        param = lib.zeros(2, 3, requires_grad=True)
        param.grad = lib.ones(2, 3)
        with pytest.raises(ValueError, match="Number of steps must be less than 100"):
            module.Muon([param], ns_steps=100).step()
