"""AdaptiveLogSoftmaxWithLoss, NLLLoss2d and CrossMapLRN2d: float64 gradient checks of first and
second order, and differential tests against PyTorch (weights copied across through state_dict):
values, gradients of the input and of every parameter, repr, state_dict keys, warnings and errors."""

import warnings

import numpy as np
import pytest

import ember
from ember import nn
from ember.autograd import gradcheck, gradgradcheck
from ember.func import functional_call
from tests.conftest import assert_close
from tests.nn.differential import copy_weights, to_ember, to_torch

rng = np.random.default_rng(0)

# (in_features, n_classes, cutoffs, div_value, head_bias)
CONFIGS = [(8, 10, [3, 6], 2.0, False), (6, 7, [2], 4.0, True), (9, 12, [1, 4, 8], 1.5, True)]


def _asm(library, config, **options):
    in_features, n_classes, cutoffs, div_value, head_bias = config
    return library.nn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes, cutoffs, div_value, head_bias, **options)


def _targets_in_every_cluster(config, batch):
    """Targets that visit the shortlist and every cluster (so every tail runs), in shuffled order."""
    _, n_classes, cutoffs, _, _ = config
    bounds = [0] + cutoffs + [n_classes]
    targets = [int(rng.integers(low, high)) for low, high in zip(bounds[:-1], bounds[1:])]
    targets += [int(t) for t in rng.integers(0, n_classes, batch - len(targets))]
    return rng.permutation(np.array(targets, dtype=np.int64))


class _Method(nn.Module):
    """Calls one method of the wrapped module, so functional_call can swap its parameters for any method."""

    def __init__(self, module, method):
        super().__init__()
        self.module = module
        self.method = method

    def forward(self, *args):
        return getattr(self.module, self.method)(*args)


def _differentiable_in_parameters(module, method):
    """(f, parameters): f(input, *parameter values, *other args) calls `module.method(input, *other args)`."""
    wrapper = _Method(module, method)
    names = [name for name, _ in wrapper.named_parameters()]
    parameters = tuple(param.detach().clone().requires_grad_(True) for _, param in wrapper.named_parameters())

    def function(input, *values_then_args):
        values, args = values_then_args[: len(names)], values_then_args[len(names) :]
        return functional_call(wrapper, dict(zip(names, values)), (input, *args))

    return function, parameters


# --- AdaptiveLogSoftmaxWithLoss: gradients -------------------------------------------------------


@pytest.mark.parametrize("config", CONFIGS)
def test_adaptive_softmax_output_and_loss_pass_gradcheck_and_gradgradcheck(config):
    module = _asm(ember, config, dtype=ember.float64)
    function, parameters = _differentiable_in_parameters(module, "forward")
    input = ember.tensor(rng.standard_normal((7, config[0])), requires_grad=True)
    target = ember.tensor(_targets_in_every_cluster(config, 7))
    inputs = (input, *parameters, target)
    assert gradcheck(function, inputs)
    assert gradgradcheck(function, inputs)


def test_adaptive_softmax_unbatched_passes_gradcheck_and_gradgradcheck():
    module = _asm(ember, CONFIGS[0], dtype=ember.float64)
    function, parameters = _differentiable_in_parameters(module, "forward")
    input = ember.tensor(rng.standard_normal(8), requires_grad=True)
    for target in (1, 4, 8):  # the shortlist and both clusters
        inputs = (input, *parameters, ember.tensor(target))
        assert gradcheck(function, inputs) and gradgradcheck(function, inputs)


@pytest.mark.parametrize("config", CONFIGS)
def test_adaptive_softmax_log_prob_passes_gradcheck_and_gradgradcheck(config):
    module = _asm(ember, config, dtype=ember.float64)
    function, parameters = _differentiable_in_parameters(module, "log_prob")
    inputs = (ember.tensor(rng.standard_normal((3, config[0])), requires_grad=True), *parameters)
    assert gradcheck(function, inputs) and gradgradcheck(function, inputs)


def test_adaptive_softmax_log_prob_is_a_distribution_that_forward_reads():
    module = _asm(ember, CONFIGS[2], dtype=ember.float64)
    input = ember.tensor(rng.standard_normal((5, 9)))
    log_prob = module.log_prob(input).detach().numpy()
    np.testing.assert_allclose(np.exp(log_prob).sum(1), np.ones(5), rtol=1e-12)
    target = _targets_in_every_cluster(CONFIGS[2], 5)
    output = module(input, ember.tensor(target)).output.detach().numpy()
    np.testing.assert_allclose(output, log_prob[np.arange(5), target], rtol=1e-12)


# --- AdaptiveLogSoftmaxWithLoss: against PyTorch -------------------------------------------------


def _torch_and_ember_modules(torch, config):
    torch_module = _asm(torch, config, dtype=torch.float64)
    ember_module = _asm(ember, config, dtype=ember.float64)
    with torch.no_grad():  # weights larger than the default draw, so that predict visits the clusters
        for param in torch_module.parameters():
            param.mul_(4)
    copy_weights(torch_module, ember_module)
    return torch_module, ember_module


def _compare_parameter_gradients(torch_module, ember_module):
    ember_parameters = dict(ember_module.named_parameters())
    assert list(ember_parameters) == [name for name, _ in torch_module.named_parameters()]
    for name, param in torch_module.named_parameters():
        assert_close(ember_parameters[name].grad, param.grad, rtol=1e-10, atol=1e-12, what=f"gradient of {name}")


@pytest.mark.parametrize("config", CONFIGS)
def test_adaptive_softmax_repr_and_state_dict_keys_match_torch(torch, config):
    torch_module, ember_module = _asm(torch, config), _asm(ember, config)
    assert repr(ember_module) == repr(torch_module)
    assert list(ember_module.state_dict()) == list(torch_module.state_dict())
    for key, value in torch_module.state_dict().items():
        assert ember_module.state_dict()[key].shape == tuple(value.shape), key
    for attribute in ("cutoffs", "shortlist_size", "n_clusters", "head_size", "div_value", "head_bias"):
        assert getattr(ember_module, attribute) == getattr(torch_module, attribute), attribute


def test_adaptive_softmax_default_weights_are_torchs_after_the_same_seed(torch):
    torch.manual_seed(5)
    ember.manual_seed(5)
    torch_module, ember_module = _asm(torch, CONFIGS[2]), _asm(ember, CONFIGS[2])
    for key, value in torch_module.state_dict().items():
        np.testing.assert_array_equal(ember_module.state_dict()[key].numpy(), value.numpy(), err_msg=key)
    torch_module.reset_parameters()
    ember_module.reset_parameters()
    for key, value in torch_module.state_dict().items():
        np.testing.assert_array_equal(ember_module.state_dict()[key].numpy(), value.numpy(), err_msg=key)


@pytest.mark.parametrize("config", CONFIGS)
def test_adaptive_softmax_forward_and_gradients_match_torch(torch, config):
    torch_module, ember_module = _torch_and_ember_modules(torch, config)
    input = rng.standard_normal((11, config[0]))
    target = _targets_in_every_cluster(config, 11)
    torch_input, ember_input = to_torch(torch, input, True), to_ember(torch.tensor(input), True)
    torch_result = torch_module(torch_input, torch.tensor(target))
    ember_result = ember_module(ember_input, ember.tensor(target))
    assert type(ember_result).__name__ == "_ASMoutput" and ember_result._fields == torch_result._fields
    assert_close(ember_result.output, torch_result.output, rtol=1e-12, atol=1e-12, what="output")
    assert_close(ember_result.loss, torch_result.loss, rtol=1e-12, atol=1e-12, what="loss")
    upstream = rng.standard_normal(11)
    torch.autograd.backward([torch_result.output, torch_result.loss], [torch.tensor(upstream), torch.tensor(0.7)])
    ember.autograd.backward([ember_result.output, ember_result.loss], [ember.tensor(upstream), ember.tensor(0.7)])
    assert_close(ember_input.grad, torch_input.grad, rtol=1e-10, atol=1e-12, what="gradient of the input")
    _compare_parameter_gradients(torch_module, ember_module)


def test_adaptive_softmax_unbatched_matches_torch(torch):
    torch_module, ember_module = _torch_and_ember_modules(torch, CONFIGS[0])
    for target in (2, 5, 9):
        input = rng.standard_normal(8)
        torch_input, ember_input = to_torch(torch, input, True), to_ember(torch.tensor(input), True)
        torch_result = torch_module(torch_input, torch.tensor(target))
        ember_result = ember_module(ember_input, ember.tensor(target))
        assert ember_result.output.shape == tuple(torch_result.output.shape) == ()
        assert_close(ember_result.output, torch_result.output, rtol=1e-12, atol=1e-12, what="output")
        assert_close(ember_result.loss, torch_result.loss, rtol=1e-12, atol=1e-12, what="loss")
        torch_result.loss.backward()
        ember_result.loss.backward()
        assert_close(ember_input.grad, torch_input.grad, rtol=1e-10, atol=1e-12, what="gradient of the input")
    _compare_parameter_gradients(torch_module, ember_module)


@pytest.mark.parametrize("config", CONFIGS)
def test_adaptive_softmax_log_prob_and_predict_match_torch(torch, config):
    torch_module, ember_module = _torch_and_ember_modules(torch, config)
    input = rng.standard_normal((40, config[0]))
    torch_input, ember_input = to_torch(torch, input, True), to_ember(torch.tensor(input), True)
    torch_log_prob, ember_log_prob = torch_module.log_prob(torch_input), ember_module.log_prob(ember_input)
    assert_close(ember_log_prob, torch_log_prob, rtol=1e-12, atol=1e-12, what="log_prob")
    upstream = rng.standard_normal(tuple(torch_log_prob.shape))
    torch_log_prob.backward(torch.tensor(upstream))
    ember_log_prob.backward(ember.tensor(upstream))
    assert_close(ember_input.grad, torch_input.grad, rtol=1e-10, atol=1e-12, what="gradient of the input")
    _compare_parameter_gradients(torch_module, ember_module)

    expected = torch_module.predict(torch_input.detach()).numpy()
    assert (expected >= config[2][0]).any() and (expected < config[2][0]).any(), "want both kinds of rows"
    predicted = ember_module.predict(ember_input.detach())
    assert predicted.dtype == ember.int64
    np.testing.assert_array_equal(predicted.numpy(), expected)


def test_adaptive_softmax_loads_a_torch_state_dict_and_is_exported_where_torch_has_it(torch):
    torch_module = _asm(torch, CONFIGS[1])
    ember_module = _asm(ember, CONFIGS[1])
    result = ember_module.load_state_dict({key: to_ember(value) for key, value in torch_module.state_dict().items()})
    assert not result.missing_keys and not result.unexpected_keys
    assert nn.modules.adaptive.AdaptiveLogSoftmaxWithLoss is nn.AdaptiveLogSoftmaxWithLoss
    assert nn.modules.AdaptiveLogSoftmaxWithLoss is nn.AdaptiveLogSoftmaxWithLoss
    assert nn.modules.adaptive._ASMoutput._fields == torch.nn.modules.adaptive._ASMoutput._fields


# --- errors: the class PyTorch raises --------------------------------------------------------------


def _torch_error(call):
    with pytest.raises(Exception) as caught:
        call()
    return caught.type


@pytest.mark.parametrize("cutoffs", [[], [0, 3], [3, 3], [5, 3], [3, 10], [-1], [2.5], [3, 12]])
def test_bad_cutoffs_raise_torchs_error(torch, cutoffs):
    error = _torch_error(lambda: torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs))
    with pytest.raises(error, match="AdaptiveLogSoftmaxWithLoss: cutoffs"):
        nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs)


@pytest.mark.parametrize("target", [[0, 1, 2, 10], [-1, 0, 4, 9], [12, 0, 1, 2]])
def test_out_of_range_targets_raise_torchs_error(torch, target):
    torch_module, ember_module = _asm(torch, CONFIGS[0]), _asm(ember, CONFIGS[0])
    input = rng.standard_normal((4, 8)).astype(np.float32)
    error = _torch_error(lambda: torch_module(torch.tensor(input), torch.tensor(target)))
    low, high = min(target), max(target)
    with pytest.raises(error, match=rf"should be in \[0, 9\], but values in range \[{low}, {high}\]"):
        ember_module(ember.tensor(input), ember.tensor(target))


@pytest.mark.parametrize(
    "input_shape, target",
    [((4, 8, 2), [0, 1, 2, 3]), ((4, 8), [0, 1, 2]), ((4, 8), [[0, 1, 2, 3]]), ((4, 8), 3), ((8,), [3]), ((), [1])],
)
def test_input_and_target_of_wrong_dimensions_raise_torchs_error(torch, input_shape, target):
    torch_module, ember_module = _asm(torch, CONFIGS[0]), _asm(ember, CONFIGS[0])
    input = rng.standard_normal(input_shape).astype(np.float32)
    error = _torch_error(lambda: torch_module(torch.tensor(input), torch.tensor(target)))
    with pytest.raises(error):
        ember_module(ember.tensor(input), ember.tensor(target))


def test_log_prob_and_predict_of_an_unbatched_input_raise_torchs_error(torch):
    torch_module, ember_module = _asm(torch, CONFIGS[0]), _asm(ember, CONFIGS[0])
    for method in ("log_prob", "predict"):
        error = _torch_error(lambda: getattr(torch_module, method)(torch.randn(8)))
        with pytest.raises(error):
            getattr(ember_module, method)(ember.randn(8))


# --- NLLLoss2d ---------------------------------------------------------------------------------------


def test_nll_loss_2d_warns_as_torch_and_computes_nll_loss(torch):
    with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated") as caught:
        torch.nn.NLLLoss2d()
    torch_message = str(caught[0].message)
    with pytest.warns(FutureWarning) as caught:
        loss = nn.NLLLoss2d(weight=ember.tensor([1.0, 2.0, 0.5], dtype=ember.float64), ignore_index=1, reduction="sum")
    assert str(caught[0].message) == torch_message
    assert isinstance(loss, nn.NLLLoss) and nn.modules.loss.NLLLoss2d is nn.NLLLoss2d
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        torch_loss = torch.nn.NLLLoss2d(
            weight=torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64), ignore_index=1, reduction="sum"
        )
    assert repr(loss) == repr(torch_loss)
    assert list(loss.state_dict()) == list(torch_loss.state_dict())
    log_probs = rng.standard_normal((2, 3, 4, 5))
    target = rng.integers(0, 3, (2, 4, 5))
    torch_input, ember_input = to_torch(torch, log_probs, True), to_ember(torch.tensor(log_probs), True)
    torch_value, ember_value = torch_loss(torch_input, torch.tensor(target)), loss(ember_input, ember.tensor(target))
    assert_close(ember_value, torch_value, rtol=1e-12, atol=1e-12, what="loss")
    torch_value.backward()
    ember_value.backward()
    assert_close(ember_input.grad, torch_input.grad, rtol=1e-12, atol=1e-12, what="gradient")


# --- CrossMapLRN2d -----------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 6, 7])
@pytest.mark.parametrize("channels", [1, 2, 3, 5, 8, 11])
def test_cross_map_lrn_2d_forward_matches_torch(torch, size, channels):
    x = rng.standard_normal((2, channels, 3, 4))
    options = dict(alpha=0.7, beta=0.6, k=1.5)
    expected = torch.nn.CrossMapLRN2d(size, **options)(torch.tensor(x))
    assert_close(nn.CrossMapLRN2d(size, **options)(ember.tensor(x)), expected, rtol=1e-13, atol=1e-14)
    expected32 = torch.nn.CrossMapLRN2d(size, **options)(torch.tensor(x, dtype=torch.float32))
    actual32 = nn.CrossMapLRN2d(size, **options)(ember.tensor(x, dtype=ember.float32))
    assert actual32.dtype == ember.float32
    assert_close(actual32, expected32, rtol=1e-6, atol=1e-6, what="float32")


def test_cross_map_lrn_2d_repr_and_defaults_match_torch(torch):
    for args in ((3,), (5, 1e-3, 0.5, 2.0)):
        assert repr(nn.CrossMapLRN2d(*args)) == repr(torch.nn.CrossMapLRN2d(*args))
    assert nn.modules.normalization.CrossMapLRN2d is nn.CrossMapLRN2d
    x = rng.standard_normal((1, 6, 2, 2))
    assert_close(nn.CrossMapLRN2d(3)(ember.tensor(x)), torch.nn.CrossMapLRN2d(3)(torch.tensor(x)), 1e-13, 1e-14)


@pytest.mark.parametrize("shape", [(3,), (2, 3, 4), (1, 2, 3, 4, 5)])
def test_cross_map_lrn_2d_rejects_other_ranks_as_torch(torch, shape):
    error = _torch_error(lambda: torch.nn.CrossMapLRN2d(3)(torch.randn(shape)))
    with pytest.raises(error, match=f"Expected input to be 4D, got {len(shape)}D"):
        nn.CrossMapLRN2d(3)(ember.randn(*shape))


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5])
def test_cross_map_lrn_2d_passes_gradcheck_and_gradgradcheck(size):
    lrn = nn.CrossMapLRN2d(size, alpha=0.8, beta=0.7, k=1.2)
    x = ember.tensor(rng.standard_normal((2, 6, 2, 3)), requires_grad=True)
    assert gradcheck(lrn, (x,)) and gradgradcheck(lrn, (x,))


@pytest.mark.parametrize("size", [1, 3, 4, 5])
def test_cross_map_lrn_2d_gradient_is_the_derivative_of_torchs_forward(torch, size):
    """Finite differences of torch's forward (its own backward disagrees with it, see the docstring)."""
    x = rng.standard_normal((1, 6, 2, 2))
    upstream = rng.standard_normal(x.shape)
    lrn_torch, step = torch.nn.CrossMapLRN2d(size, alpha=0.8, beta=0.7, k=1.2), 1e-6
    expected = np.zeros(x.size)
    for i in range(x.size):
        shift = np.zeros(x.size)
        shift[i] = step
        plus = lrn_torch(torch.tensor(x + shift.reshape(x.shape))).numpy()
        minus = lrn_torch(torch.tensor(x - shift.reshape(x.shape))).numpy()
        expected[i] = ((plus - minus) * upstream).sum() / (2 * step)
    ember_x = ember.tensor(x, requires_grad=True)
    nn.CrossMapLRN2d(size, alpha=0.8, beta=0.7, k=1.2)(ember_x).backward(ember.tensor(upstream))
    assert_close(ember_x.grad, expected.reshape(x.shape), rtol=1e-6, atol=1e-8, what="gradient")


@pytest.mark.parametrize("size, channels", [(6, 3), (4, 1), (2, 1)])
def test_cross_map_lrn_2d_gradient_matches_torchs_where_torchs_backward_is_exact(torch, size, channels):
    x = rng.standard_normal((2, channels, 3, 3))
    torch_x, ember_x = to_torch(torch, x, True), to_ember(torch.tensor(x), True)
    torch_lrn = torch.nn.CrossMapLRN2d(size, alpha=0.8, beta=0.7, k=1.2)
    assert torch.autograd.gradcheck(torch_lrn, (torch_x,))
    upstream = rng.standard_normal(x.shape)
    torch_lrn(torch_x).backward(torch.tensor(upstream))
    nn.CrossMapLRN2d(size, alpha=0.8, beta=0.7, k=1.2)(ember_x).backward(ember.tensor(upstream))
    assert_close(ember_x.grad, torch_x.grad, rtol=1e-10, atol=1e-12, what="gradient")


def test_cross_map_lrn_2d_refuses_integer_input_as_torch(torch):
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.CrossMapLRN2d(3)(torch.ones(1, 2, 2, 2, dtype=torch.int64))
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type") as ours:
        nn.CrossMapLRN2d(3)(ember.ones(1, 2, 2, 2, dtype=ember.int64))
    assert "can't be cast to the desired output type" in str(theirs.value) and "float()" in str(ours.value)
