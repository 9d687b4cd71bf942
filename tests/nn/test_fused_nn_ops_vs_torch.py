"""The nn functions written as one primitive each (normalizations, activations) against PyTorch, in
float32 and float64: values, gradients of every input, the running statistics they update, and the
node they show."""

import numpy as np
import pytest

import ember
import ember.nn.functional as F

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64"]


def _tolerances(dtype):
    return dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)


def _close(actual, expected, dtype, what):
    np.testing.assert_allclose(actual.numpy(), expected.numpy(), **_tolerances(dtype), err_msg=what)


def _copy_parameters(ember_module, torch_module):
    rng = np.random.default_rng(2)
    for (_, mine), (_, theirs) in zip(ember_module.named_parameters(), torch_module.named_parameters()):
        values = rng.uniform(0.5, 1.5, tuple(theirs.shape)).astype(str(mine.dtype).split(".")[-1])
        with ember.no_grad():
            mine.copy_(ember.tensor(values))
        with torch.no_grad():
            theirs.copy_(torch.tensor(values))


def _run_both(ember_module, torch_module, shape, dtype, rng):
    """One forward and backward of both modules on the same input; compares everything they touch."""
    array = (rng.standard_normal(shape) * 2 + 1).astype(dtype)
    upstream = rng.standard_normal(shape).astype(dtype)
    mine, theirs = ember.tensor(array, requires_grad=True), torch.tensor(array, requires_grad=True)
    ember_output, torch_output = ember_module(mine), torch_module(theirs)
    ember_output.backward(ember.tensor(upstream))
    torch_output.backward(torch.tensor(upstream))
    assert type(ember_output.grad_fn).__name__ == type(torch_output.grad_fn).__name__
    assert str(ember_output.dtype) == str(torch_output.dtype)
    _close(ember_output.detach(), torch_output.detach(), dtype, "output")
    _close(mine.grad, theirs.grad, dtype, "input gradient")
    for (name, mine_parameter), (_, their_parameter) in zip(
        ember_module.named_parameters(), torch_module.named_parameters()
    ):
        _close(mine_parameter.grad, their_parameter.grad, dtype, f"gradient of {name}")
    for (name, mine_buffer), (_, their_buffer) in zip(ember_module.named_buffers(), torch_module.named_buffers()):
        _close(mine_buffer, their_buffer, dtype, f"buffer {name}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(8, 5), (4, 5, 6), (3, 5, 4, 4), (2, 5, 3, 2, 2)])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("momentum", [0.1, None])
def test_batch_norm_train_and_eval_with_running_statistics(dtype, shape, affine, momentum):
    name = f"BatchNorm{max(len(shape) - 2, 1)}d"
    mine = getattr(ember.nn, name)(5, affine=affine, momentum=momentum).to(getattr(ember, dtype))
    theirs = getattr(torch.nn, name)(5, affine=affine, momentum=momentum).to(getattr(torch, dtype))
    _copy_parameters(mine, theirs)
    rng = np.random.default_rng(0)
    for mode in ("train", "eval", "train", "eval"):
        getattr(mine, mode)()
        getattr(theirs, mode)()
        _run_both(mine, theirs, shape, dtype, rng)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("affine, track", [(False, False), (True, True), (False, True)])
def test_instance_norm_train_and_eval(dtype, affine, track):
    mine = ember.nn.InstanceNorm2d(3, affine=affine, track_running_stats=track).to(getattr(ember, dtype))
    theirs = torch.nn.InstanceNorm2d(3, affine=affine, track_running_stats=track).to(getattr(torch, dtype))
    _copy_parameters(mine, theirs)
    rng = np.random.default_rng(0)
    for mode in ("train", "eval", "train"):
        getattr(mine, mode)()
        getattr(theirs, mode)()
        _run_both(mine, theirs, (2, 3, 4, 5), dtype, rng)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, groups", [((4, 6), 3), ((3, 6, 5), 2), ((2, 6, 3, 4), 6), ((2, 4, 2, 2, 3), 1)])
@pytest.mark.parametrize("affine", [True, False])
def test_group_norm(dtype, shape, groups, affine):
    mine = ember.nn.GroupNorm(groups, shape[1], affine=affine).to(getattr(ember, dtype))
    theirs = torch.nn.GroupNorm(groups, shape[1], affine=affine).to(getattr(torch, dtype))
    _copy_parameters(mine, theirs)
    _run_both(mine, theirs, shape, dtype, np.random.default_rng(0))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(16,), (3, 4, 16)])
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm(dtype, shape, affine):
    mine = ember.nn.LayerNorm(16, elementwise_affine=affine).to(getattr(ember, dtype))
    theirs = torch.nn.LayerNorm(16, elementwise_affine=affine).to(getattr(torch, dtype))
    _copy_parameters(mine, theirs)
    _run_both(mine, theirs, shape, dtype, np.random.default_rng(0))


ACTIVATIONS = {
    "leaky_relu": lambda F, x: F.leaky_relu(x, 0.2),
    "hardtanh": lambda F, x: F.hardtanh(x, -1.0, 2.0),
    "relu6": lambda F, x: F.relu6(x),
    "elu": lambda F, x: F.elu(x, 0.7),
    "selu": lambda F, x: F.selu(x),
    "celu": lambda F, x: F.celu(x, 2.0),
    "logsigmoid": lambda F, x: F.logsigmoid(x),
    "silu": lambda F, x: F.silu(x),
    "mish": lambda F, x: F.mish(x),
    "hardsigmoid": lambda F, x: F.hardsigmoid(x),
    "hardswish": lambda F, x: F.hardswish(x),
    "glu": lambda F, x: F.glu(x, 1),
    "gelu": lambda F, x: F.gelu(x),
    "gelu_tanh": lambda F, x: F.gelu(x, approximate="tanh"),
    "prelu": lambda F, x: F.prelu(x, x.new_full((6,), 0.3)),
    "prelu_one_weight": lambda F, x: F.prelu(x, x.new_full((1,), 0.3)),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation(dtype, name):
    rng = np.random.default_rng(0)
    array = rng.uniform(-5, 5, (3, 6, 4)).astype(dtype)
    array[0, 0, :2] = [-40.0, 40.0]  # the tails, where a naive formula overflows
    mine, theirs = ember.tensor(array, requires_grad=True), torch.tensor(array, requires_grad=True)
    ember_output, torch_output = ACTIVATIONS[name](F, mine), ACTIVATIONS[name](torch.nn.functional, theirs)
    upstream = rng.standard_normal(tuple(torch_output.shape)).astype(dtype)
    ember_output.backward(ember.tensor(upstream))
    torch_output.backward(torch.tensor(upstream))
    assert type(ember_output.grad_fn).__name__ == type(torch_output.grad_fn).__name__
    assert str(ember_output.dtype) == str(torch_output.dtype)
    _close(ember_output.detach(), torch_output.detach(), dtype, "output")
    _close(mine.grad, theirs.grad, dtype, "gradient")


def test_functional_batch_norm_momentum_none_raises_as_pytorch():
    with pytest.raises(TypeError, match="momentum"):
        torch.nn.functional.batch_norm(torch.ones(4, 2), torch.zeros(2), torch.ones(2), training=True, momentum=None)
    with pytest.raises(TypeError, match="momentum"):
        F.batch_norm(ember.ones(4, 2), ember.zeros(2), ember.ones(2), training=True, momentum=None)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape, pad", [((2, 3, 4, 4), (1, 1)), ((2, 3, 4, 4, 4), (1, 1, 1, 1)), ((4,), (1, 1))])
def test_non_constant_pad_of_unsupported_sizes_raises_as_pytorch(mode, shape, pad):
    with pytest.raises(NotImplementedError, match=f"Padding size {len(pad)} is not supported"):
        torch.nn.functional.pad(torch.ones(shape), pad, mode=mode)
    with pytest.raises(NotImplementedError, match=f"Padding size {len(pad)} is not supported for {len(shape)}D"):
        F.pad(ember.ones(shape), pad, mode=mode)


def test_non_constant_pad_of_odd_length_raises_as_pytorch():
    with pytest.raises(RuntimeError, match="Padding length must be divisible by 2"):
        torch.nn.functional.pad(torch.ones(2, 3, 4), (1,), mode="reflect")
    with pytest.raises(RuntimeError, match="Padding length must be divisible by 2"):
        F.pad(ember.ones(2, 3, 4), (1,), mode="reflect")
