"""ember.nn.functional: errors, dtypes, options and edge cases, with torch as the oracle where it helps.

Gradient checks of every op live in the op table (tests/ops/table_nn.py); these tests cover what a
table row cannot: error classes and messages, running statistics, randomness, warnings, options.
"""

import numpy as np
import pytest

import ember
import ember.nn.functional as F
from ember.autograd import gradcheck, gradgradcheck

from ..conftest import assert_close


def _pair(torch, array, requires_grad=True):
    """The same values as an ember tensor and a torch tensor."""
    return (ember.tensor(array).requires_grad_(requires_grad), torch.tensor(array).requires_grad_(requires_grad))


def _check_grads(ours, theirs, what, rtol=1e-5, atol=1e-6):
    for index, (mine, reference) in enumerate(zip(ours, theirs)):
        assert_close(mine.grad, reference.grad.numpy(), rtol=rtol, atol=atol, what=f"{what} grad {index}")


# ---------------------------------------------------------------- convolution
def test_conv2d_matches_torch_float32_values_and_grads(torch):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in [(4, 3, 9, 8), (6, 3, 3, 3), (6,)]]
    ours = [_pair(torch, a)[0] for a in arrays]
    theirs = [torch.tensor(a).requires_grad_() for a in arrays]
    y = F.conv2d(*ours, stride=2, padding=1)
    expected = torch.nn.functional.conv2d(*theirs, stride=2, padding=1)
    assert y.dtype == ember.float32 and y.grad_fn.name() == "ConvolutionBackward0"
    assert y.is_contiguous()
    assert_close(y, expected.detach().numpy(), rtol=1e-4, atol=1e-5)
    (y * y).sum().backward()
    (expected * expected).sum().backward()
    _check_grads(ours, theirs, "conv2d", rtol=1e-4, atol=1e-4)


def test_conv2d_channel_mismatch_names_both_shapes():
    x, w = ember.randn(2, 4, 8, 8), ember.randn(6, 3, 3, 3)
    with pytest.raises(RuntimeError) as error:
        F.conv2d(x, w)
    message = str(error.value)
    assert "[6, 3, 3, 3]" in message and "[2, 4, 8, 8]" in message and "3 channels" in message


def test_conv2d_shape_errors():
    with pytest.raises(RuntimeError, match="Expected 3D \\(unbatched\\) or 4D \\(batched\\) input to conv2d"):
        F.conv2d(ember.randn(3, 4), ember.randn(2, 3, 1, 1))
    with pytest.raises(RuntimeError, match="Kernel size can't be greater than actual input size"):
        F.conv2d(ember.randn(1, 1, 2, 2), ember.randn(1, 1, 3, 3))
    with pytest.raises(RuntimeError, match="expected bias to be 1-dimensional with 2 elements"):
        F.conv2d(ember.randn(1, 1, 4, 4), ember.randn(2, 1, 3, 3), ember.randn(3))
    with pytest.raises(RuntimeError, match="divisible by 2"):
        F.conv2d(ember.randn(1, 4, 4, 4), ember.randn(3, 2, 3, 3), groups=2)
    with pytest.raises(RuntimeError, match="padding='same' is not supported for strided"):
        F.conv2d(ember.randn(1, 1, 4, 4), ember.randn(1, 1, 3, 3), stride=2, padding="same")
    with pytest.raises(RuntimeError, match="float64.*float32|Input type"):
        F.conv2d(ember.randn(1, 1, 4, 4, dtype=ember.float64), ember.randn(1, 1, 3, 3))
    with pytest.raises(TypeError):
        F.conv2d(np.zeros((1, 1, 4, 4)), ember.randn(1, 1, 3, 3))


def test_conv2d_unbatched_and_keyword_forms(torch):
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((3, 6, 5)), rng.standard_normal((2, 3, 2, 2))
    y = F.conv2d(input=ember.tensor(x), weight=ember.tensor(w), padding=(1, 0), dilation=(1, 2))
    expected = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), padding=(1, 0), dilation=(1, 2))
    assert tuple(y.shape) == tuple(expected.shape) == (2, 7, 3)
    assert_close(y, expected.numpy(), rtol=1e-10, atol=1e-12)
    assert ember.conv2d is not None and ember.conv2d(ember.tensor(x), ember.tensor(w)).shape == (2, 5, 4)


def test_conv_double_backward_gradient_penalty(torch):
    """A WGAN-GP style penalty: the gradient of |d conv(x)/dx|^2 with respect to the weight."""
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal((2, 2, 6, 6)), rng.standard_normal((3, 2, 3, 3))]
    results = []
    for lib in (ember, torch):
        x, w = (lib.tensor(a).requires_grad_() for a in arrays)
        y = lib.nn.functional.conv2d(x, w, padding=1, stride=2)
        (grad_x,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        penalty = (grad_x * grad_x).sum()
        penalty.backward()
        results.append((penalty.item(), w.grad, x.grad))
    assert np.isclose(results[0][0], results[1][0])
    assert_close(results[0][1], results[1][1].numpy(), rtol=1e-8, atol=1e-10, what="d penalty / d w")
    assert_close(results[0][2], results[1][2].numpy(), rtol=1e-8, atol=1e-10, what="d penalty / d x")


def test_conv_transpose2d_is_the_adjoint_of_conv2d():
    """<conv(x), y> == <x, conv_transpose(y)> for the same weight and geometry."""
    rng = np.random.default_rng(3)
    x = ember.tensor(rng.standard_normal((2, 3, 8, 7)))
    w = ember.tensor(rng.standard_normal((4, 3, 3, 2)))
    y = ember.tensor(rng.standard_normal((2, 4, 4, 4)))
    forward = F.conv2d(x, w, stride=2, padding=1)
    back = F.conv_transpose2d(y, w, stride=2, padding=1, output_padding=1)
    assert back.shape == x.shape
    assert np.isclose((forward * y).sum().item(), (x * back).sum().item())


def test_conv_weight_gradient_is_twice_differentiable():
    rng = np.random.default_rng(4)
    x = ember.tensor(rng.standard_normal((2, 2, 5, 5))).requires_grad_()
    w = ember.tensor(rng.standard_normal((2, 2, 3, 3))).requires_grad_()

    def weight_gradient(x, w):
        y = F.conv2d(x, w, stride=2, padding=1)
        return ember.autograd.grad((y * y).sum(), w, create_graph=True)[0]

    assert gradcheck(weight_gradient, (x, w), atol=1e-5, rtol=1e-4)
    assert gradgradcheck(weight_gradient, (x, w), atol=1e-5, rtol=1e-4)


def test_conv1d_and_conv_transpose1d_match_torch(torch):
    rng = np.random.default_rng(5)
    x, w, b = rng.standard_normal((2, 4, 9)), rng.standard_normal((6, 2, 3)), rng.standard_normal(6)
    for ours, theirs in [
        (
            F.conv1d(ember.tensor(x), ember.tensor(w), ember.tensor(b), 2, 1, 1, 2),
            torch.nn.functional.conv1d(torch.tensor(x), torch.tensor(w), torch.tensor(b), 2, 1, 1, 2),
        ),
        (F.conv_transpose1d(ember.tensor(x), ember.tensor(rng.standard_normal((4, 3, 3))), None, 2), None),
    ]:
        if theirs is not None:
            assert_close(ours, theirs.numpy(), rtol=1e-10, atol=1e-12)
        else:
            assert tuple(ours.shape) == (2, 3, 19)


# ---------------------------------------------------------------- linear
def test_linear_grad_fn_names_and_errors():
    x = ember.randn(3, 4, requires_grad=True)
    assert F.linear(x, ember.randn(2, 4), ember.randn(2)).grad_fn.name() == "AddmmBackward0"
    assert F.linear(x, ember.randn(2, 4)).grad_fn.name() == "MmBackward0"
    with pytest.raises(RuntimeError, match=r"3x4 and 5x2"):
        F.linear(x, ember.randn(2, 5))


def test_linear_batched_matches_torch(torch):
    rng = np.random.default_rng(6)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in [(2, 3, 5), (4, 5), (4,)]]
    ours = [ember.tensor(a).requires_grad_() for a in arrays]
    theirs = [torch.tensor(a).requires_grad_() for a in arrays]
    y, expected = F.linear(*ours), torch.nn.functional.linear(*theirs)
    assert_close(y, expected.detach().numpy(), rtol=1e-5, atol=1e-6)
    y.sum().backward()
    expected.sum().backward()
    _check_grads(ours, theirs, "linear")


def _graph_names(node, depth):
    """Node names down `depth` levels, depth-first in next_functions order (PyTorch's walk order)."""
    if node is None or depth == 0:
        return []
    names = [node.name()]
    for child, _ in node.next_functions:
        names += _graph_names(child, depth - 1)
    return names


def test_linear_records_pytorchs_graph(torch):
    # A graph walk (the blitz tutorial's `loss.grad_fn.next_functions[0][0]...`) meets PyTorch's nodes:
    # addmm(bias, input, weight.t()), and views around it for other contiguous inputs; batched inputs
    # without a bias go through matmul, whose inner nodes are its own business (only the top is compared).
    cases = [((5, 4), True, 5), ((5, 4), False, 4), ((4,), True, 5), ((2, 5, 4), True, 5), ((2, 5, 4), False, 1)]
    for shape, with_bias, compared in cases:
        graphs = []
        for library in (ember, torch):
            weight = library.randn(3, 4, requires_grad=True)
            bias = library.randn(3, requires_grad=True) if with_bias else None
            x = library.randn(*shape, requires_grad=True) * 2
            graphs.append(_graph_names(library.nn.functional.linear(x, weight, bias).grad_fn, 3))
        ours, theirs = graphs
        assert ours[:compared] == theirs[:compared], (shape, with_bias, ours, theirs)


def test_linear_weight_grad_is_contiguous_and_inplace_weight_change_is_caught():
    layer = ember.nn.Linear(4, 3)
    out = layer(ember.randn(5, 4))
    out.sum().backward()
    assert layer.weight.grad.is_contiguous() and layer.weight.grad.stride() == (4, 1)
    out = layer(ember.randn(5, 4, requires_grad=True))
    with ember.no_grad():
        layer.weight.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_linear_without_grad_mode_records_nothing():
    layer = ember.nn.Linear(4, 3)
    with ember.no_grad():
        out = layer(ember.randn(2, 5, 4))
    assert out.grad_fn is None and not out.requires_grad and out.shape == (2, 5, 3)


# ---------------------------------------------------------------- pooling
def test_max_pool2d_indices_ceil_mode_and_grad_fn(torch):
    rng = np.random.default_rng(7)
    x = rng.permutation(2 * 3 * 7 * 6).reshape(2, 3, 7, 6).astype(np.float32)
    ours, theirs = _pair(torch, x)
    out, indices = F.max_pool2d(ours, 3, 2, padding=1, ceil_mode=True, return_indices=True)
    expected, expected_indices = torch.nn.functional.max_pool2d(
        theirs, 3, 2, padding=1, ceil_mode=True, return_indices=True
    )
    assert out.grad_fn.name() == "MaxPool2DWithIndicesBackward0"
    assert indices.dtype == ember.int64
    assert_close(out, expected.detach().numpy())
    np.testing.assert_array_equal(indices.numpy(), expected_indices.numpy())
    out.sum().backward()
    expected.sum().backward()
    _check_grads([ours], [theirs], "max_pool2d")


def test_max_pool_ties_go_to_the_first_maximum_and_nan_propagates(torch):
    x = np.array([[[[1.0, 1.0], [1.0, 0.0]]]], dtype=np.float32)
    ours, theirs = _pair(torch, x)
    F.max_pool2d(ours, 2).sum().backward()
    torch.nn.functional.max_pool2d(theirs, 2).sum().backward()
    _check_grads([ours], [theirs], "ties")
    with_nan = np.array([[[[1.0, np.nan], [3.0, 0.0]]]], dtype=np.float32)
    assert np.isnan(F.max_pool2d(ember.tensor(with_nan), 2).item())


def test_max_pool_errors():
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel size"):
        F.max_pool2d(ember.randn(1, 1, 4, 4), 2, padding=2)
    with pytest.raises(RuntimeError, match="Output size is too small"):
        F.max_pool2d(ember.randn(1, 1, 2, 2), 3)


def test_avg_pool2d_options_match_torch(torch):
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 2, 7, 5))
    for kwargs in [
        dict(count_include_pad=True),
        dict(count_include_pad=False),
        dict(divisor_override=3),
        dict(ceil_mode=True, count_include_pad=True),
    ]:
        ours, theirs = _pair(torch, x)
        y = F.avg_pool2d(ours, 3, 2, 1, **kwargs)
        expected = torch.nn.functional.avg_pool2d(theirs, 3, 2, 1, **kwargs)
        assert_close(y, expected.detach().numpy(), rtol=1e-10, atol=1e-12, what=str(kwargs))
        y.sum().backward()
        expected.sum().backward()
        _check_grads([ours], [theirs], str(kwargs))
    assert F.avg_pool2d(ember.randn(1, 1, 4, 4, requires_grad=True), 2).grad_fn.name() == "AvgPool2DBackward0"


def test_adaptive_pools_match_torch_for_uneven_windows(torch):
    rng = np.random.default_rng(9)
    x = rng.permutation(2 * 2 * 7 * 9).reshape(2, 2, 7, 9).astype(np.float64)
    for size in [(3, 4), (7, 9), (None, 2), 1]:
        for ours_fn, torch_fn in [
            (F.adaptive_avg_pool2d, torch.nn.functional.adaptive_avg_pool2d),
            (F.adaptive_max_pool2d, torch.nn.functional.adaptive_max_pool2d),
        ]:
            ours, theirs = _pair(torch, x)
            y, expected = ours_fn(ours, size), torch_fn(theirs, size)
            assert_close(y, expected.detach().numpy(), rtol=1e-10, atol=1e-12, what=f"{ours_fn.__name__} {size}")
            (y * y).sum().backward()
            (expected * expected).sum().backward()
            _check_grads([ours], [theirs], f"{ours_fn.__name__} {size}")


def test_max_unpool2d_inverts_max_pool2d_positions(torch):
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    pooled, indices = F.max_pool2d(ember.tensor(x), 2, return_indices=True)
    restored = F.max_unpool2d(pooled, indices, 2)
    expected = torch.nn.functional.max_unpool2d(
        *torch.nn.functional.max_pool2d(torch.tensor(x), 2, return_indices=True), 2
    )
    assert_close(restored, expected.numpy())


# ---------------------------------------------------------------- softmax family
def test_softmax_is_stable_for_huge_inputs():
    x = ember.tensor([[1000.0, 1000.0, -1000.0], [-1e30, 0.0, 1e30]])
    assert_close(F.softmax(x, 1), np.array([[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]]))
    log_probabilities = F.log_softmax(ember.tensor([[0.0, -200.0]]), dim=1)
    assert_close(log_probabilities, np.array([[0.0, -200.0]]), rtol=1e-6)
    assert np.isfinite(F.log_softmax(x, 1).numpy()[0]).all()


def test_softmax_dtype_argument_and_method_forms(torch):
    x = ember.tensor([[1, 2, 3]])
    y = F.softmax(x, dim=1, dtype=ember.float64)
    assert y.dtype == ember.float64
    assert_close(y, torch.softmax(torch.tensor([[1, 2, 3]]), 1, dtype=torch.float64).numpy())
    z = ember.randn(2, 3, requires_grad=True)
    assert z.softmax(1).grad_fn.name() == "SoftmaxBackward0"
    assert z.log_softmax(-1).grad_fn.name() == "LogSoftmaxBackward0"
    assert_close(ember.softmax(z, 0), F.softmax(z, 0))
    with pytest.raises(RuntimeError, match="not implemented for"):
        F.softmax(x, 1)
    with pytest.raises(IndexError):
        F.softmax(z, 2)


@pytest.mark.parametrize("shape", [(64, 10), (8, 4, 32, 32), (40, 63)])
def test_softmax_over_many_short_rows_matches_torch_with_masks_and_nan(torch, shape):
    # Many rows shorter than 64 take the transposed row maximum (activations._max_along).
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(shape) * 5).astype(np.float32)
    x.reshape(-1, shape[-1])[1, 2:] = -np.inf  # a masked row
    x.reshape(-1, shape[-1])[3, 0] = np.nan
    for name in ("softmax", "log_softmax"):
        ours = getattr(F, name)(ember.tensor(x), -1).numpy()
        theirs = getattr(torch.nn.functional, name)(torch.tensor(x), -1).numpy()
        assert np.isnan(ours.reshape(-1, shape[-1])[3]).all()
        assert_close(ours, theirs, rtol=1e-6, atol=1e-6)


def test_masked_fill_with_a_broadcast_mask_matches_torch(torch):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 2, 8, 8)).astype(np.float32)
    mask = np.triu(np.ones((8, 8), bool), 1)
    x_ember, x_torch = _pair(torch, x)
    y_ember = x_ember.masked_fill(ember.tensor(mask), float("-inf"))
    y_torch = x_torch.masked_fill(torch.tensor(mask), float("-inf"))
    np.testing.assert_array_equal(y_ember.detach().numpy(), y_torch.detach().numpy())
    assert y_ember.is_contiguous()
    weights = rng.standard_normal(x.shape).astype(np.float32)
    (y_ember.clamp(min=-1) * ember.tensor(weights)).sum().backward()
    (y_torch.clamp(min=-1) * torch.tensor(weights)).sum().backward()
    np.testing.assert_array_equal(x_ember.grad.numpy(), x_torch.grad.numpy())
    transposed = ember.tensor(x).transpose(2, 3).masked_fill(ember.tensor(mask), 0.0)
    expected = np.where(mask, np.float32(0), x.transpose(0, 1, 3, 2))
    np.testing.assert_array_equal(transposed.numpy(), expected)


def test_softmax_implicit_dim_warns():
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        y = F.softmax(ember.randn(2, 3))
    assert_close(y.sum(1), np.ones(2), rtol=1e-6)


# ---------------------------------------------------------------- losses
def test_cross_entropy_grad_fn_and_float32(torch):
    logits = ember.randn(4, 3, requires_grad=True)
    loss = F.cross_entropy(logits, ember.tensor([0, 2, 1, 2]))
    assert loss.dtype == ember.float32 and loss.shape == ()
    assert loss.grad_fn.name() == "NllLossBackward0"
    assert loss.grad_fn.next_functions[0][0].name() == "LogSoftmaxBackward0"


def test_cross_entropy_options_match_torch(torch):
    rng = np.random.default_rng(10)
    logits = rng.standard_normal((5, 4, 3))
    target = rng.integers(0, 4, size=(5, 3))
    target[0, 0] = -100
    weight = rng.uniform(0.5, 2, size=4)
    for kwargs in [
        {},
        dict(reduction="sum"),
        dict(reduction="none"),
        dict(label_smoothing=0.3),
        dict(label_smoothing=0.3, reduction="none"),
        dict(label_smoothing=0.1, reduction="sum"),
    ]:
        for with_weight in (False, True):
            ours, theirs = _pair(torch, logits)
            extra = dict(kwargs, weight=ember.tensor(weight)) if with_weight else kwargs
            extra_torch = dict(kwargs, weight=torch.tensor(weight)) if with_weight else kwargs
            y = F.cross_entropy(ours, ember.tensor(target), **extra)
            expected = torch.nn.functional.cross_entropy(theirs, torch.tensor(target), **extra_torch)
            what = f"{kwargs} weight={with_weight}"
            assert_close(y, expected.detach().numpy(), rtol=1e-10, atol=1e-12, what=what)
            y.sum().backward()
            expected.sum().backward()
            _check_grads([ours], [theirs], what)


def test_cross_entropy_all_targets_ignored_is_nan(torch):
    logits = ember.randn(2, 3)
    loss = F.cross_entropy(logits, ember.tensor([-100, -100]))
    expected = torch.nn.functional.cross_entropy(torch.randn(2, 3), torch.tensor([-100, -100]))
    assert np.isnan(loss.item()) and np.isnan(expected.item())


def test_nll_loss_errors():
    with pytest.raises(ValueError, match=r"Expected input batch_size \(3\) to match target batch_size \(2\)"):
        F.nll_loss(ember.randn(3, 4), ember.tensor([0, 1]))
    with pytest.raises(IndexError, match="Target 7 is out of bounds"):
        F.nll_loss(ember.randn(2, 4), ember.tensor([0, 7]))
    with pytest.raises(RuntimeError, match="integer dtype"):
        F.nll_loss(ember.randn(2, 4), ember.tensor([0.0, 1.0]))
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        F.nll_loss(ember.randn(2, 4), ember.tensor([0, 1]), reduction="average")


def test_legacy_size_average_and_reduce_warn():
    x, t = ember.randn(3, 2), ember.randn(3, 2)
    with pytest.warns(UserWarning, match="reduction='sum'"):
        summed = F.mse_loss(x, t, size_average=False)
    assert_close(summed, ((x - t) ** 2).sum())
    with pytest.warns(UserWarning, match="reduction='none'"):
        assert F.l1_loss(x, t, reduce=False).shape == (3, 2)


def test_mse_loss_warns_about_broadcasting():
    with pytest.warns(UserWarning, match="different to the input size"):
        F.mse_loss(ember.randn(3, 1), ember.randn(3))


def test_binary_cross_entropy_clamps_logs_and_checks_range(torch):
    x = np.array([0.0, 1.0, 0.5], dtype=np.float32)
    t = np.array([1.0, 0.0, 1.0], dtype=np.float32)
    ours, theirs = _pair(torch, x)
    loss = F.binary_cross_entropy(ours, ember.tensor(t), reduction="none")
    expected = torch.nn.functional.binary_cross_entropy(theirs, torch.tensor(t), reduction="none")
    assert_close(loss, expected.detach().numpy())
    assert loss.grad_fn.name().startswith("BinaryCrossEntropyBackward")
    loss.sum().backward()
    expected.sum().backward()
    _check_grads([ours], [theirs], "bce at 0 and 1", rtol=1e-5, atol=1.0)  # both are about +-1e12
    with pytest.raises(RuntimeError, match="input should be between 0 and 1"):
        F.binary_cross_entropy(ember.tensor([1.5]), ember.tensor([1.0]))


@pytest.mark.parametrize("target", [2.0, -0.1])
def test_bce_target_outside_zero_one_raises_as_torch(torch, target):
    for library in (torch, ember):
        with pytest.raises(RuntimeError, match="target should be between 0 and 1"):
            library.nn.functional.binary_cross_entropy(library.tensor([0.5]), library.tensor([target]))


def test_bce_with_logits_is_stable_for_large_logits(torch):
    x = np.array([-200.0, -30.0, 0.0, 30.0, 200.0])
    t = np.array([1.0, 0.0, 1.0, 1.0, 0.0])
    ours, theirs = _pair(torch, x)
    y = F.binary_cross_entropy_with_logits(ours, ember.tensor(t), reduction="none")
    expected = torch.nn.functional.binary_cross_entropy_with_logits(theirs, torch.tensor(t), reduction="none")
    assert_close(y, expected.detach().numpy(), rtol=1e-12, atol=0)
    y.sum().backward()
    expected.sum().backward()
    _check_grads([ours], [theirs], "bce with logits", rtol=1e-12, atol=1e-300)


def test_kl_div_mean_warns():
    with pytest.warns(UserWarning, match="batchmean"):
        F.kl_div(ember.randn(2, 3), ember.rand(2, 3))


# ---------------------------------------------------------------- activations
def test_activation_inplace_forms():
    x = ember.tensor([-1.0, 2.0])
    assert F.relu(x, inplace=True) is x
    assert x.tolist() == [0.0, 2.0]
    y = ember.tensor([-1.0, 2.0])
    F.leaky_relu_(y, 0.5)
    assert y.tolist() == [-0.5, 2.0]
    leaf = ember.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        F.elu(leaf, inplace=True)
    z = ember.randn(3, requires_grad=True).clone()
    F.hardtanh(z, inplace=True).sum().backward()


def test_gelu_rejects_unknown_approximation():
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        F.gelu(ember.randn(2), approximate="fast")


def test_softplus_threshold_and_logsigmoid_stability(torch):
    x = np.array([-100.0, -20.0, 0.0, 15.0, 40.0])
    for ours, theirs in [
        (F.softplus(ember.tensor(x), 0.5, 10), torch.nn.functional.softplus(torch.tensor(x), 0.5, 10)),
        (F.logsigmoid(ember.tensor(x)), torch.nn.functional.logsigmoid(torch.tensor(x))),
    ]:
        assert_close(ours, theirs.numpy(), rtol=1e-12, atol=0)


def test_elu_gradient_is_finite_for_huge_inputs():
    x = ember.tensor([1000.0, -1000.0], requires_grad=True)
    F.elu(x).sum().backward()
    assert x.grad.tolist() == [1.0, 0.0]


# ---------------------------------------------------------------- normalization
def test_batch_norm_updates_running_statistics_like_torch(torch):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((4, 3, 2, 2)).astype(np.float32)
    running = [np.zeros(3, np.float32), np.ones(3, np.float32)]
    ours_stats = [ember.tensor(a) for a in running]
    torch_stats = [torch.tensor(a) for a in running]
    y = F.batch_norm(ember.tensor(x), *ours_stats, training=True, momentum=0.3)
    expected = torch.nn.functional.batch_norm(torch.tensor(x), *torch_stats, training=True, momentum=0.3)
    assert_close(y, expected.numpy(), rtol=1e-4, atol=1e-5)
    for mine, reference in zip(ours_stats, torch_stats):
        assert_close(mine, reference.numpy(), rtol=1e-5, atol=1e-6, what="running statistics")
        assert mine._version == 1
    evaluated = F.batch_norm(ember.tensor(x), *ours_stats)
    assert_close(evaluated, torch.nn.functional.batch_norm(torch.tensor(x), *torch_stats).numpy(), rtol=1e-4, atol=1e-5)


def test_batch_norm_needs_more_than_one_value_per_channel():
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        F.batch_norm(ember.randn(1, 3), None, None, training=True)


def test_layer_and_group_norm_shape_errors():
    with pytest.raises(RuntimeError, match=r"expected input with shape \[\*, 4\]"):
        F.layer_norm(ember.randn(2, 3), (4,))
    with pytest.raises(RuntimeError, match="divisible by num_groups"):
        F.group_norm(ember.randn(2, 6, 3), 4)


# ---------------------------------------------------------------- dropout and embedding
def test_dropout_scales_kept_values_and_is_seeded():
    ember.manual_seed(3)
    x = ember.ones(1000)
    y = F.dropout(x, 0.25)
    kept = y.numpy()[y.numpy() != 0]
    assert np.allclose(kept, 1 / 0.75)
    assert 650 < kept.size < 850
    ember.manual_seed(3)
    assert (F.dropout(x, 0.25).numpy() == y.numpy()).all()
    assert F.dropout(x, 0.25, training=False) is x
    assert (F.dropout(x, 1.0).numpy() == 0).all()
    with pytest.raises(ValueError, match="between 0 and 1"):
        F.dropout(x, 1.5)


def test_dropout2d_zeroes_whole_channels():
    y = F.dropout2d(ember.ones(4, 8, 3, 3), 0.5).numpy()
    per_channel = y.reshape(4, 8, -1)
    assert ((per_channel == 0).all(-1) | (per_channel == 2).all(-1)).all()


def test_alpha_dropout_keeps_mean_and_variance():
    ember.manual_seed(0)
    x = ember.randn(200000)
    y = F.alpha_dropout(x, 0.2, training=True).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02


def test_embedding_padding_max_norm_and_errors(torch):
    weight = np.random.default_rng(12).standard_normal((6, 3)).astype(np.float32) * 3
    indices = np.array([[0, 2, 2], [5, 2, 1]])
    ours, theirs = _pair(torch, weight)
    y = F.embedding(ember.tensor(indices), ours, padding_idx=2, max_norm=1.0)
    expected = torch.nn.functional.embedding(torch.tensor(indices), theirs, padding_idx=2, max_norm=1.0)
    assert_close(y, expected.detach().numpy(), rtol=1e-5, atol=1e-6)
    y.sum().backward()
    expected.sum().backward()
    _check_grads([ours], [theirs], "embedding")
    assert y.grad_fn.name() == "EmbeddingBackward0"
    with pytest.raises(IndexError, match="out of range"):
        F.embedding(ember.tensor([6]), ours)
    with pytest.raises(RuntimeError, match="Long, Int"):
        F.embedding(ember.tensor([0.0]), ours)


def test_embedding_scale_grad_by_freq_matches_torch(torch):
    weight = np.random.default_rng(13).standard_normal((4, 2))
    indices = np.array([1, 1, 3, 1])
    ours, theirs = _pair(torch, weight)
    F.embedding(ember.tensor(indices), ours, scale_grad_by_freq=True).sum().backward()
    torch.nn.functional.embedding(torch.tensor(indices), theirs, scale_grad_by_freq=True).sum().backward()
    _check_grads([ours], [theirs], "scale_grad_by_freq")


def test_embedding_gradient_summed_in_blocks_equals_np_add_at(monkeypatch):
    """The weight gradient sums rows through flat positions, block by block: the same sums, bit for bit."""
    from ember.ops import embeddings

    rng = np.random.default_rng(5)
    indices = rng.integers(0, 6, (4, 5))
    grad = rng.standard_normal((4, 5, 3)).astype(np.float32)
    expected = np.zeros((6, 3), np.float32)
    np.add.at(expected, indices.ravel(), grad.reshape(-1, 3))
    monkeypatch.setattr(embeddings, "_INDEX_BLOCK", 7)  # blocks of 2 rows, the last one short
    weight = ember.zeros(6, 3, requires_grad=True)
    F.embedding(ember.tensor(indices), weight).backward(ember.tensor(grad))
    np.testing.assert_array_equal(weight.grad.numpy(), expected)


def test_one_hot():
    result = F.one_hot(ember.tensor([0, 2]), 4)
    assert result.dtype == ember.int64 and result.tolist() == [[1, 0, 0, 0], [0, 0, 1, 0]]
    assert F.one_hot(ember.tensor([[1], [0]])).shape == (2, 1, 2)
    with pytest.raises(RuntimeError, match="smaller than num_classes"):
        F.one_hot(ember.tensor([3]), 3)


# ---------------------------------------------------------------- pad, interpolate, unfold
def test_pad_errors():
    with pytest.raises(RuntimeError, match="Padding size should be less than the corresponding input dimension"):
        F.pad(ember.randn(1, 2, 3), (3, 0), mode="reflect")
    with pytest.raises(NotImplementedError):
        F.pad(ember.randn(1, 2, 3), (1, 1), mode="mirror")


def test_interpolate_nearest_scale_and_errors(torch):
    x = np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4)
    for kwargs in [
        dict(size=(5, 7)),
        dict(scale_factor=1.7),
        dict(size=(2, 3), mode="nearest-exact"),
        dict(size=(4, 6), mode="area"),
    ]:
        assert_close(
            F.interpolate(ember.tensor(x), **kwargs),
            torch.nn.functional.interpolate(torch.tensor(x), **kwargs).numpy(),
            what=str(kwargs),
        )
    with pytest.raises(ValueError, match="either size or scale_factor"):
        F.interpolate(ember.tensor(x))
    with pytest.raises(ValueError, match="align_corners"):
        F.interpolate(ember.tensor(x), size=2, align_corners=True)


def test_unfold_fold_round_trip_counts_overlaps(torch):
    x = np.random.default_rng(14).standard_normal((2, 3, 5, 6)).astype(np.float32)
    columns = F.unfold(ember.tensor(x), 3, padding=1)
    assert tuple(columns.shape) == (2, 27, 30)
    folded = F.fold(columns, (5, 6), 3, padding=1)
    expected = torch.nn.functional.fold(torch.nn.functional.unfold(torch.tensor(x), 3, padding=1), (5, 6), 3, padding=1)
    assert_close(folded, expected.numpy(), rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- top-level names
def test_top_level_functions_and_signatures():
    x = ember.randn(2, 3, 4, 4)
    assert ember.max_pool2d(x, 2).shape == (2, 3, 2, 2)
    assert ember.dropout(x, 0.5, False) is x
    weight = ember.randn(5, 2)
    assert ember.embedding(weight, ember.tensor([1, 4])).shape == (2, 2)
    assert ember.layer_norm(x, (4,)).shape == x.shape
    values, indices = ember.adaptive_max_pool1d(ember.randn(1, 2, 5), 2)
    assert indices.dtype == ember.int64
    assert ember.kl_div(ember.randn(3), ember.rand(3), 2).shape == ()


_NAMED_LOSSES = {
    "mse_loss": lambda F, a, t, r: F.mse_loss(a, t, reduction=r),
    "smooth_l1_loss": lambda F, a, t, r: F.smooth_l1_loss(a, t, reduction=r),
    "huber_loss": lambda F, a, t, r: F.huber_loss(a, t, reduction=r),
    "binary_cross_entropy": lambda F, a, t, r: F.binary_cross_entropy(a, t, reduction=r),
    "binary_cross_entropy_with_logits": lambda F, a, t, r: F.binary_cross_entropy_with_logits(a, t, reduction=r),
    "soft_margin_loss": lambda F, a, t, r: F.soft_margin_loss(a, t, reduction=r),
}


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name", sorted(_NAMED_LOSSES))
def test_a_loss_is_its_own_graph_node_as_in_torch(torch, name, reduction):
    """The book prints `loss.grad_fn`: PyTorch shows the loss's own node (MseLossBackward0 ...)."""
    values, targets = np.random.default_rng(0).uniform(0.1, 0.9, (2, 4, 3))
    names = []
    for library in (torch, ember):
        loss = _NAMED_LOSSES[name](
            library.nn.functional, library.tensor(values, requires_grad=True), library.tensor(targets), reduction
        )
        names.append(loss.grad_fn.name())
    assert names[1] == names[0]


def test_avg_pool_takes_int64_and_truncates_as_torch(torch):
    for pool, shape in (("avg_pool1d", (1, 1, 16)), ("avg_pool2d", (1, 1, 4, 4)), ("avg_pool3d", (1, 1, 4, 4, 4))):
        size = int(np.prod(shape))
        results = [
            getattr(library.nn.functional, pool)(
                library.arange(-size // 2, size - size // 2).view(*shape), 2, padding=1, count_include_pad=True
            )
            for library in (torch, ember)
        ]
        assert results[1].dtype == ember.int64
        assert results[1].tolist() == results[0].tolist(), pool
    with pytest.raises(NotImplementedError, match="'Int'"):
        ember.nn.functional.avg_pool2d(ember.ones(1, 1, 4, 4, dtype=ember.int32), 2)


def test_pointwise_losses_promote_or_refuse_targets_of_another_dtype(torch):
    # The dtypes PyTorch gives: an integer target is promoted (not to NumPy's float64); huber and soft
    # margin compute in the input's dtype; BCE-with-logits widens to a float64 target.
    prediction = np.random.default_rng(3).random((2, 5)).astype(np.float32)
    targets = {"int64": np.ones((2, 5), dtype=np.int64), "float64": np.full((2, 5), 0.5)}
    names = ["mse_loss", "smooth_l1_loss", "huber_loss", "soft_margin_loss", "l1_loss"]
    for name in names + ["binary_cross_entropy_with_logits"]:
        for kind, target in targets.items():
            if name == "binary_cross_entropy_with_logits" and kind == "int64":
                continue
            ours = getattr(F, name)(ember.tensor(prediction), ember.tensor(target))
            theirs = getattr(torch.nn.functional, name)(torch.tensor(prediction), torch.tensor(target))
            assert str(ours.dtype) == str(theirs.dtype), (name, kind, ours.dtype, theirs.dtype)
            assert_close(ours, theirs.numpy(), rtol=1e-6, atol=1e-7, what=f"{name} with {kind} target")


def test_losses_that_refuse_a_target_dtype():
    x = ember.rand(2, 3)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        F.binary_cross_entropy_with_logits(x, ember.ones(2, 3, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="Found dtype Double but expected Float"):
        F.binary_cross_entropy(x, ember.rand(2, 3, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="kl_div: Integral inputs not supported"):
        F.kl_div(x, ember.ones(2, 3, dtype=ember.int64), reduction="batchmean")
