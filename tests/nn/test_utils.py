"""nn.utils: gradient clipping and parameters <-> vector, against PyTorch."""

import numpy as np
import pytest

import ember
import ember.nn as nn
from tests.conftest import assert_close
from tests.nn.differential import to_ember


def _with_grads(torch, scale):
    shapes = [(3, 4), (4,), (2, 2)]
    grads = [
        np.random.default_rng(i).standard_normal(shape).astype(np.float32) * scale for i, shape in enumerate(shapes)
    ]
    torch_params = [torch.nn.Parameter(torch.zeros(shape)) for shape in shapes]
    ember_params = [nn.Parameter(ember.zeros(shape)) for shape in shapes]
    for torch_param, ember_param, grad in zip(torch_params, ember_params, grads):
        torch_param.grad = torch.from_numpy(grad.copy())
        ember_param.grad = ember.from_numpy(grad.copy())
    return torch_params, ember_params


@pytest.mark.parametrize("max_norm, norm_type", [(1.0, 2.0), (100.0, 2.0), (0.5, 1.0), (0.3, float("inf"))])
def test_clip_grad_norm_matches_torch(torch, max_norm, norm_type):
    torch_params, ember_params = _with_grads(torch, 3.0)
    expected = torch.nn.utils.clip_grad_norm_(torch_params, max_norm, norm_type)
    actual = nn.utils.clip_grad_norm_(ember_params, max_norm, norm_type)
    assert actual.dtype == ember.float32
    assert_close(actual, expected, 1e-5, 1e-6, what="total norm")
    for ember_param, torch_param in zip(ember_params, torch_params):
        assert_close(ember_param.grad, torch_param.grad, 1e-5, 1e-6)


def test_clip_grad_norm_nonfinite_and_generator():
    param = nn.Parameter(ember.zeros(2))
    param.grad = ember.tensor([float("inf"), 1.0])
    with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients from `parameters` is non-finite"):
        nn.utils.clip_grad_norm_([param], 1.0, error_if_nonfinite=True)
    with pytest.warns(UserWarning, match="`parameters` is an empty generator"):
        nn.utils.clip_grad_norm_((p for p in []), 1.0)
    assert nn.utils.clip_grad_norm_([], 1.0).item() == 0.0


def test_clip_grad_value_matches_torch(torch):
    torch_params, ember_params = _with_grads(torch, 2.0)
    torch.nn.utils.clip_grad_value_(torch_params, 0.7)
    nn.utils.clip_grad_value_(ember_params, 0.7)
    for ember_param, torch_param in zip(ember_params, torch_params):
        assert_close(ember_param.grad, torch_param.grad, 0, 0)


def test_parameters_to_vector_and_back(torch):
    model = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1))
    torch_model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Linear(2, 1))
    model.load_state_dict({k: to_ember(v) for k, v in torch_model.state_dict().items()})
    vector = nn.utils.parameters_to_vector(model.parameters())
    assert_close(vector, torch.nn.utils.parameters_to_vector(torch_model.parameters()))
    vector.sum().backward()  # the vector stays in the graph
    assert_close(model[0].weight.grad, np.ones((2, 3), np.float32))
    new = ember.arange(float(vector.numel()))
    nn.utils.vector_to_parameters(new, model.parameters())
    assert_close(model[0].weight, np.arange(6, dtype=np.float32).reshape(2, 3))
    assert_close(model[1].bias, [10.0])
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        nn.utils.vector_to_parameters([1.0], model.parameters())


def test_fusing_batchnorm_into_conv_and_linear_keeps_eval_outputs():
    torch = pytest.importorskip("torch")
    ember.manual_seed(0)
    for conv, bn, shape, transpose in [
        (nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), (2, 2, 5, 5), False),
        (nn.ConvTranspose2d(2, 3, 3, bias=False), nn.BatchNorm2d(3), (2, 2, 4, 4), True),
        (nn.Linear(4, 3), nn.BatchNorm1d(3), (5, 4), None),
    ]:
        bn.train()
        bn(conv(ember.randn(*shape)))  # running statistics that are not the defaults
        bn.weight.data.uniform_(0.5, 1.5)
        bn.bias.data.uniform_(-1, 1)
        conv.eval()
        bn.eval()
        x = ember.randn(*shape)
        if transpose is None:
            fused = nn.utils.fuse_linear_bn_eval(conv, bn)
        else:
            fused = nn.utils.fuse_conv_bn_eval(conv, bn, transpose=transpose)
        np.testing.assert_allclose(fused(x).detach().numpy(), bn(conv(x)).detach().numpy(), rtol=1e-4, atol=1e-5)
        assert isinstance(fused.weight, nn.Parameter) and fused is not conv
    with pytest.raises(AssertionError, match="Fusion only for eval"):
        nn.utils.fuse_conv_bn_eval(nn.Conv2d(1, 1, 1), nn.BatchNorm2d(1))
    layer = nn.utils.skip_init(nn.Linear, 3, 2)
    assert layer.weight.shape == (2, 3)
    with pytest.raises(RuntimeError, match="must support a 'device' arg"):
        nn.utils.skip_init(nn.ReLU)
    assert torch.nn.utils.skip_init(torch.nn.Linear, 3, 2).weight.shape == (2, 3)
