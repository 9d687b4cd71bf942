"""nll_loss / cross_entropy / multi_margin_loss / multilabel_margin_loss against PyTorch: the node
each shows (its own Function, as PyTorch names it), values, gradients and the errors raised."""

import numpy as np
import pytest

import ember
import ember.nn.functional as F

torch = pytest.importorskip("torch")

SHAPES = [(3,), (4, 3), (4, 3, 5), (2, 3, 4, 5), (2, 3, 2, 3, 2)]


def _pair(array, requires_grad=False):
    return ember.tensor(array, requires_grad=requires_grad), torch.tensor(array, requires_grad=requires_grad)


def _class_problem(shape, seed=0):
    rng = np.random.default_rng(seed)
    target_shape = () if len(shape) == 1 else (shape[0],) + shape[2:]
    classes = shape[0] if len(shape) == 1 else shape[1]
    return rng.standard_normal(shape), rng.integers(0, classes, target_shape), rng.uniform(0.5, 2, classes)


def _check_same(ember_loss, torch_loss, ember_input, torch_input):
    assert ember_loss.grad_fn.name() == torch_loss.grad_fn.name()
    assert ember_loss.shape == tuple(torch_loss.shape)
    np.testing.assert_allclose(ember_loss.detach().numpy(), torch_loss.detach().numpy(), rtol=1e-10, atol=1e-12)
    seed = np.random.default_rng(1).standard_normal(tuple(torch_loss.shape))
    ember_loss.backward(ember.tensor(seed))
    torch_loss.backward(torch.tensor(seed))
    np.testing.assert_allclose(ember_input.grad.numpy(), torch_input.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("function", ["nll_loss", "cross_entropy"])
def test_class_index_losses_show_pytorchs_nodes_and_values(shape, reduction, function):
    x, target, weight = _class_problem(shape)
    for options in ({}, {"weight": weight, "ignore_index": 1}):
        ex, tx = _pair(x, requires_grad=True)
        et, tt = _pair(target)
        ember_options = {k: ember.tensor(v) if k == "weight" else v for k, v in options.items()}
        torch_options = {k: torch.tensor(v) if k == "weight" else v for k, v in options.items()}
        ember_loss = getattr(F, function)(ex, et, reduction=reduction, **ember_options)
        torch_loss = getattr(torch.nn.functional, function)(tx, tt, reduction=reduction, **torch_options)
        _check_same(ember_loss, torch_loss, ex, tx)


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 4, 5)])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_cross_entropy_label_smoothing_with_weight_and_ignore_index(shape, reduction):
    x, target, weight = _class_problem(shape, seed=3)
    ex, tx = _pair(x, requires_grad=True)
    ember_loss = F.cross_entropy(
        ex, ember.tensor(target), ember.tensor(weight), ignore_index=0, reduction=reduction, label_smoothing=0.25
    )
    torch_loss = torch.nn.functional.cross_entropy(
        tx, torch.tensor(target), torch.tensor(weight), ignore_index=0, reduction=reduction, label_smoothing=0.25
    )
    _check_same(ember_loss, torch_loss, ex, tx)


def _margin_problem(seed, unbatched=False):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((5, 4))
    labels = np.full((5, 4), -1)
    labels[0, :3] = [3, 3, 0]  # a class listed twice counts twice, as in PyTorch
    labels[2] = [0, 1, 2, 3]
    labels[3, :2] = [2, -1]
    labels[4, [0, 2, 3]] = [1, 0, 1]  # anything after the first -1 is ignored
    if unbatched:
        return x[4], labels[4], rng.integers(0, 4, ()), rng.uniform(0.5, 2, 4)
    return x, labels, rng.integers(0, 4, 5), rng.uniform(0.5, 2, 4)


@pytest.mark.parametrize("unbatched", [False, True])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_multilabel_margin_loss_matches_torch(reduction, unbatched):
    x, labels, _, _ = _margin_problem(0, unbatched)
    ex, tx = _pair(x, requires_grad=True)
    ember_loss = F.multilabel_margin_loss(ex, ember.tensor(labels), reduction=reduction)
    torch_loss = torch.nn.functional.multilabel_margin_loss(tx, torch.tensor(labels), reduction=reduction)
    _check_same(ember_loss, torch_loss, ex, tx)
    module = ember.nn.MultiLabelMarginLoss(reduction=reduction)
    assert repr(module) == repr(torch.nn.MultiLabelMarginLoss(reduction=reduction))


@pytest.mark.parametrize("unbatched", [False, True])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("p, margin", [(1, 1.0), (2, 1.0), (1, 0.4), (2, 2.5)])
def test_multi_margin_loss_matches_torch(reduction, p, margin, unbatched):
    x, _, target, weight = _margin_problem(1, unbatched)
    for weighted in (False, True):
        ex, tx = _pair(x, requires_grad=True)
        ember_module = ember.nn.MultiMarginLoss(
            p, margin, ember.tensor(weight) if weighted else None, reduction=reduction
        )
        torch_module = torch.nn.MultiMarginLoss(
            p, margin, torch.tensor(weight) if weighted else None, reduction=reduction
        )
        _check_same(ember_module(ex, ember.tensor(target)), torch_module(tx, torch.tensor(target)), ex, tx)
        assert list(ember_module.state_dict()) == list(torch_module.state_dict())


def _raises_like_torch(ember_call, torch_call):
    with pytest.raises(Exception) as torch_error:
        torch_call(torch)
    with pytest.raises(type(torch_error.value)):
        ember_call(ember)


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.nn.functional.multilabel_margin_loss(t.zeros(3, 4), t.zeros(3, 4)),  # float target
        lambda t: t.nn.functional.multilabel_margin_loss(t.zeros(3, 4), t.zeros(2, 4, dtype=t.long)),
        lambda t: t.nn.functional.multilabel_margin_loss(t.zeros(2, 4), t.full((2, 4), 4)),
        lambda t: t.nn.functional.multilabel_margin_loss(t.zeros(2, 4), t.full((2, 4), -2)),
        lambda t: t.nn.functional.multilabel_margin_loss(t.zeros(2, 3, 4), t.zeros(2, 3, 4, dtype=t.long)),
        lambda t: t.nn.functional.multi_margin_loss(t.zeros(3, 4), t.tensor([0, 1, 4])),
        lambda t: t.nn.functional.multi_margin_loss(t.zeros(3, 4), t.tensor([0, 1, -1])),
        lambda t: t.nn.functional.multi_margin_loss(t.zeros(3, 4), t.tensor([0, 1])),
        lambda t: t.nn.functional.multi_margin_loss(t.zeros(3, 4), t.tensor([0, 1, 1]), p=3),
        lambda t: t.nn.functional.multi_margin_loss(t.zeros(3, 4), t.tensor([0, 1, 1]), weight=t.ones(3)),
        lambda t: t.nn.functional.multi_margin_loss(t.zeros(2, 0), t.zeros(2, dtype=t.long)),
        lambda t: t.nn.MultiMarginLoss(p=3),
        lambda t: t.nn.MultiMarginLoss(weight=t.ones(2, 2)),
    ],
)
def test_margin_loss_errors_match_torch(call):
    _raises_like_torch(call, call)


def test_margin_losses_differentiate_twice():
    x = ember.randn(4, 3, dtype=ember.float64, requires_grad=True)
    target = ember.tensor([0, 2, 1, 1])
    assert ember.autograd.gradgradcheck(lambda x: F.multi_margin_loss(x, target, p=2, margin=2.0), (x,))
    labels = ember.tensor([[0, -1, 1], [2, 1, -1], [1, 0, 2], [-1, 0, 0]])
    assert ember.autograd.gradgradcheck(lambda x: F.multilabel_margin_loss(x, labels), (x,))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_a_zero_loss_has_torchs_sign(reduction, weighted):
    """A perfect prediction's loss prints as PyTorch's `tensor(0.)`, not `tensor(-0.)` (a reduced sum
    starts from +0); unreduced, each -0. stays as PyTorch keeps it."""
    results = []
    for lib in (ember, torch):
        weight = lib.ones(3) if weighted else None
        loss = lib.nn.functional.nll_loss(lib.zeros(2, 3), lib.tensor([0, 1]), weight=weight, reduction=reduction)
        results.append(np.signbit(loss.numpy()).tolist())
    assert results[0] == results[1]
