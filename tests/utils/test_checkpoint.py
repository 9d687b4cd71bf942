"""ember.utils.checkpoint: gradients equal to the plain run's, RNG replay, errors, memory saving."""

import tracemalloc
import warnings

import numpy as np
import pytest

import ember
from ember.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential

from ..conftest import assert_close


def _model(dropout=0.5):
    ember.manual_seed(0)
    return ember.nn.Sequential(
        ember.nn.Linear(4, 8),
        ember.nn.Tanh(),
        ember.nn.Dropout(dropout),
        ember.nn.Linear(8, 8),
        ember.nn.GELU(),
        ember.nn.Linear(8, 2),
    )


def _gradients(model, x, run):
    model.zero_grad(set_to_none=True)
    x.grad = None
    ember.manual_seed(123)
    output = run(model, x)
    (output**2).sum().backward()
    return output.detach(), [p.grad.clone() for p in model.parameters()] + [x.grad.clone()]


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_checkpoint_gradients_equal_plain_run_with_dropout(use_reentrant):
    model, x = _model(), ember.randn(5, 4, requires_grad=True)
    expected_out, expected = _gradients(model, x, lambda m, v: m(v))
    out, actual = _gradients(model, x, lambda m, v: checkpoint(m, v, use_reentrant=use_reentrant))
    assert_close(out, expected_out)
    for index, (a, e) in enumerate(zip(actual, expected)):
        assert_close(a, e, what=f"gradient {index}")


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_checkpoint_sequential_gradients_equal_plain_run(use_reentrant):
    model, x = _model(), ember.randn(5, 4, requires_grad=True)
    _, expected = _gradients(model, x, lambda m, v: m(v))
    _, actual = _gradients(model, x, lambda m, v: checkpoint_sequential(m, 3, v, use_reentrant=use_reentrant))
    for index, (a, e) in enumerate(zip(actual, expected)):
        assert_close(a, e, what=f"gradient {index}")


def test_without_preserved_rng_state_dropout_differs():
    model, x = _model(0.5), ember.randn(50, 4, requires_grad=True)
    _, expected = _gradients(model, x, lambda m, v: m(v))
    _, actual = _gradients(model, x, lambda m, v: checkpoint(m, v, use_reentrant=False, preserve_rng_state=False))
    assert not np.allclose(actual[0].numpy(), expected[0].numpy())


def test_non_reentrant_supports_autograd_grad_kwargs_and_double_backward():
    x = ember.randn(3, dtype=ember.float64, requires_grad=True)
    y = checkpoint(lambda v, power: (v**power).sum(), x, power=3, use_reentrant=False)
    (first,) = ember.autograd.grad(y, x, create_graph=True)
    assert_close(first, 3 * x.detach().numpy() ** 2)
    (second,) = ember.autograd.grad(first.sum(), x)
    assert_close(second, 6 * x.detach().numpy())


def test_use_reentrant_warning_and_argument_errors():
    x = ember.randn(3, requires_grad=True)
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed explicitly"):
        checkpoint(ember.sin, x)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
        checkpoint(ember.sin, x, use_reentrant=True, foo=1)
    with pytest.raises(ValueError, match="only supported when use_reentrant=False"):
        checkpoint(ember.sin, x, use_reentrant=True, context_fn=lambda: (None, None))
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        checkpoint(ember.sin, ember.randn(3), use_reentrant=True)


def test_determinism_check_catches_a_different_recomputation():
    calls = []

    def changing(v):
        calls.append(1)
        return (v * v).sum() if len(calls) == 1 else (v * v * v).sum()

    x = ember.randn(3, requires_grad=True)
    y = checkpoint(changing, x, use_reentrant=False, early_stop=False)  # early stop would not look further
    with pytest.raises(CheckpointError, match="save more tensors during recomputation"):
        y.backward()


def test_context_fn_wraps_forward_and_recomputation():
    entered = []

    class Recorder:
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            entered.append(self.name)

        def __exit__(self, *exc):
            return False

    x = ember.randn(3, requires_grad=True)
    checkpoint(
        lambda v: v.exp().sum(), x, use_reentrant=False, context_fn=lambda: (Recorder("forward"), Recorder("recompute"))
    ).backward()
    assert entered == ["forward", "recompute"]


def test_checkpointing_saves_memory_on_a_deep_mlp():
    ember.manual_seed(0)
    layers = []
    for _ in range(16):
        layers += [ember.nn.Linear(64, 64), ember.nn.Tanh()]
    model = ember.nn.Sequential(*layers)
    x = ember.randn(1024, 64, requires_grad=True)

    def peak(run):
        model.zero_grad(set_to_none=True)
        tracemalloc.start()
        run().sum().backward()
        _, result = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return result

    plain = peak(lambda: model(x))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checkpointed = peak(lambda: checkpoint_sequential(model, 4, x, use_reentrant=False))
    assert checkpointed < 0.6 * plain, f"peak {checkpointed} bytes with checkpointing vs {plain} without"


def test_against_torch_checkpoint():
    torch = pytest.importorskip("torch")
    from torch.utils.checkpoint import checkpoint as torch_checkpoint

    rng = np.random.default_rng(0)
    weight, data = rng.standard_normal((3, 3)), rng.standard_normal((4, 3))
    results = []
    for lib, run in ((torch, torch_checkpoint), (ember, checkpoint)):
        w = lib.tensor(weight, requires_grad=True)
        x = lib.tensor(data, requires_grad=True)
        run(lambda v, w=w: (v @ w).tanh() @ w, x, use_reentrant=False).sum().backward()
        results.append((w.grad.numpy(), x.grad.numpy()))
    assert_close(results[1][0], results[0][0])
    assert_close(results[1][1], results[0][1])
