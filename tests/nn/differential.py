"""Helpers for comparing ember modules with PyTorch's: move tensors and weights across through NumPy."""

import numpy as np

import ember
from tests.conftest import assert_close


def to_torch(torch, value, requires_grad=False):
    """An ember tensor (or array) as a torch tensor with the same values and dtype."""
    array = value.detach().numpy() if isinstance(value, ember.Tensor) else np.asarray(value)
    return torch.from_numpy(array.copy()).requires_grad_(requires_grad)


def to_ember(value, requires_grad=False):
    """A torch tensor as an ember tensor with the same values and dtype."""
    return ember.from_numpy(value.detach().cpu().numpy().copy()).requires_grad_(requires_grad)


def copy_weights(torch_module, ember_module):
    """Load torch_module's state dict into ember_module (the keys must match exactly)."""
    state = {key: to_ember(value) for key, value in torch_module.state_dict().items()}
    result = ember_module.load_state_dict(state)
    assert not result.missing_keys and not result.unexpected_keys


def compare_with_torch(torch, torch_module, ember_module, inputs, rtol=1e-4, atol=1e-5, grad=True):
    """Run both modules on the same inputs (float arrays require grad), backpropagate the same random
    upstream gradient, and compare outputs, input gradients and parameter gradients."""
    copy_weights(torch_module, ember_module)
    differentiable = [np.asarray(array).dtype.kind == "f" and grad for array in inputs]
    torch_inputs = [to_torch(torch, array, flag) for array, flag in zip(inputs, differentiable)]
    ember_inputs = [
        ember.from_numpy(np.array(array)).requires_grad_(flag) for array, flag in zip(inputs, differentiable)
    ]
    torch_output = torch_module(*torch_inputs)
    ember_output = ember_module(*ember_inputs)
    torch_outputs = _flatten(torch_output)
    ember_outputs = _flatten(ember_output)
    assert len(torch_outputs) == len(ember_outputs)
    for index, (expected, actual) in enumerate(zip(torch_outputs, ember_outputs)):
        assert actual.dtype == to_ember(expected).dtype, f"output {index} dtype {actual.dtype} vs {expected.dtype}"
        assert_close(actual, expected, rtol, atol, what=f"output {index}")
    if not grad:
        return ember_output
    rng = np.random.default_rng(1)
    upstream = [rng.standard_normal(tuple(output.shape)).astype(np.float32) for output in torch_outputs]
    torch.autograd.backward(
        [o for o in torch_outputs if o.requires_grad],
        [to_torch(torch, u).to(o.dtype) for u, o in zip(upstream, torch_outputs) if o.requires_grad],
    )
    ember.autograd.backward(
        [o for o in ember_outputs if o.requires_grad],
        [ember.from_numpy(u).to(o.dtype) for u, o in zip(upstream, ember_outputs) if o.requires_grad],
    )
    for index, (torch_input, ember_input) in enumerate(zip(torch_inputs, ember_inputs)):
        if torch_input.requires_grad:
            assert_close(ember_input.grad, torch_input.grad, rtol, atol, what=f"gradient of input {index}")
    ember_parameters = dict(ember_module.named_parameters())
    for name, param in torch_module.named_parameters():
        if param.grad is None:
            assert ember_parameters[name].grad is None, f"{name}: ember has a gradient, torch has none"
        else:
            assert_close(ember_parameters[name].grad, param.grad, rtol, atol, what=f"gradient of {name}")
    return ember_output


def _flatten(output):
    if isinstance(output, (tuple, list)):
        return [item for element in output for item in _flatten(element)]
    return [output]
