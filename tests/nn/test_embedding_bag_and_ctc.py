"""EmbeddingBag / F.embedding_bag and CTCLoss / F.ctc_loss against PyTorch, plus float64 gradchecks."""

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.autograd import gradcheck, gradgradcheck
from tests.conftest import assert_close

rng = np.random.default_rng(0)


def normal(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


INDICES = np.array([1, 2, 4, 5, 4, 3, 2, 9, 0, 2])
BAG_CASES = [
    dict(mode="sum", offsets=[0, 4, 4, 7]),
    dict(mode="mean", offsets=[0, 4, 4, 7]),
    dict(mode="max", offsets=[0, 4, 4, 7]),
    dict(mode="mean", offsets=[0, 3, 7], padding_idx=2),
    dict(mode="max", offsets=[0, 3, 7], padding_idx=2),
    dict(mode="sum", offsets=[0, 2, 6, 10], include_last_offset=True),
    dict(mode="sum", offsets=[0, 5], per_sample_weights=True),
    dict(mode="mean", two_dimensional=True),
    dict(mode="max", two_dimensional=True),
    dict(mode="sum", two_dimensional=True, per_sample_weights=True, padding_idx=4),
]


@pytest.mark.parametrize("case", BAG_CASES, ids=[str(i) for i in range(len(BAG_CASES))])
def test_embedding_bag_matches_torch(torch, case):
    case = dict(case)
    weight = normal(10, 3)
    two_dimensional = case.pop("two_dimensional", False)
    indices = INDICES.reshape(2, 5) if two_dimensional else INDICES
    offsets = case.pop("offsets", None)
    weighted = case.pop("per_sample_weights", False)
    psw = normal(*indices.shape) if weighted else None

    def run(framework, functional):
        table = framework.from_numpy(weight.copy()).requires_grad_()
        sample_weights = framework.from_numpy(psw).requires_grad_() if weighted else None
        output = functional.embedding_bag(
            framework.from_numpy(indices),
            table,
            None if offsets is None else framework.tensor(offsets),
            per_sample_weights=sample_weights,
            **case,
        )
        output.backward(framework.from_numpy(upstream[: output.shape[0]]))
        return output, table.grad, None if sample_weights is None else sample_weights.grad

    upstream = normal(4, 3)
    expected = run(torch, torch.nn.functional)
    actual = run(ember, F)
    for what, a, e in zip(("output", "weight gradient", "per_sample_weights gradient"), actual, expected):
        if e is not None:
            assert_close(a, e, 1e-5, 1e-6, what=what)


def test_embedding_bag_module_matches_torch(torch):
    torch_bag = torch.nn.EmbeddingBag(10, 4, mode="max", padding_idx=2)
    ember_bag = nn.EmbeddingBag(10, 4, mode="max", padding_idx=2)
    assert repr(ember_bag) == repr(torch_bag)
    assert list(ember_bag.state_dict()) == list(torch_bag.state_dict())
    assert not ember_bag.weight.detach().numpy()[2].any()
    ember_bag.load_state_dict({"weight": ember.from_numpy(torch_bag.weight.detach().numpy().copy())})
    expected = torch_bag(torch.from_numpy(INDICES), torch.tensor([0, 5]))
    assert_close(ember_bag(ember.from_numpy(INDICES), ember.tensor([0, 5])), expected)
    frozen = nn.EmbeddingBag.from_pretrained(ember.randn(5, 2), mode="sum")
    assert not frozen.weight.requires_grad and frozen.mode == "sum"


def test_embedding_bag_gradcheck_float64():
    weight = ember.from_numpy(normal(6, 2, dtype=np.float64)).requires_grad_()
    psw = ember.from_numpy(normal(7, dtype=np.float64)).requires_grad_()
    indices, offsets = ember.tensor([0, 1, 5, 2, 3, 1, 4]), ember.tensor([0, 3, 3])
    assert gradcheck(lambda w, s: F.embedding_bag(indices, w, offsets, mode="sum", per_sample_weights=s), [weight, psw])
    assert gradgradcheck(
        lambda w, s: F.embedding_bag(indices, w, offsets, mode="sum", per_sample_weights=s), [weight, psw]
    )
    for mode in ("mean", "max"):
        assert gradcheck(lambda w, mode=mode: F.embedding_bag(indices, w, offsets, mode=mode), [weight])
        assert gradgradcheck(lambda w, mode=mode: F.embedding_bag(indices, w, offsets, mode=mode), [weight])


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda i, w: F.embedding_bag(i, w), ValueError, "offsets has to be a 1D Tensor but got None"),
        (lambda i, w: F.embedding_bag(i.reshape(2, 5), w, ember.tensor([0])), ValueError, "input is 2D"),
        (lambda i, w: F.embedding_bag(i, w, ember.tensor([1, 4])), RuntimeError, r"offsets\[0\] has to be 0"),
        (lambda i, w: F.embedding_bag(i, w, ember.tensor([0, 11])), RuntimeError, "greater than input's length 10"),
        (lambda i, w: F.embedding_bag(i, w, ember.tensor([0]), mode="min"), ValueError, "sum, mean or max"),
        (
            lambda i, w: F.embedding_bag(i, w, ember.tensor([0]), per_sample_weights=ember.ones(10)),
            NotImplementedError,
            "only supported for mode='sum'",
        ),
        (
            lambda i, w: F.embedding_bag(i, w, ember.tensor([0]), mode="sum", per_sample_weights=ember.ones(9)),
            ValueError,
            "same shape as the input",
        ),
        (lambda i, w: F.embedding_bag(i.float(), w, ember.tensor([0])), RuntimeError, "'indices'"),
        (lambda i, w: F.embedding_bag(i.reshape(1, 2, 5), w), ValueError, "1D or 2D Tensor"),
    ],
)
def test_embedding_bag_errors(call, error, message):
    with pytest.raises(error, match=message):
        call(ember.from_numpy(INDICES), ember.randn(10, 3))


# ---------------------------------------------------------------------- CTC
def _ctc_problem():
    frames, batch, classes, longest = 12, 4, 6, 5
    logits = normal(frames, batch, classes)
    targets = rng.integers(1, classes, (batch, longest))
    targets[0, 2] = targets[0, 1]  # a repeated label needs a blank between its copies
    return logits, targets, [12, 10, 12, 7], [5, 3, 0, 4]


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("concatenated", [False, True])
@pytest.mark.parametrize("through_log_softmax", [False, True])
def test_ctc_loss_matches_torch(torch, reduction, concatenated, through_log_softmax):
    logits, targets, input_lengths, target_lengths = _ctc_problem()
    if concatenated:
        targets = np.concatenate([row[:length] for row, length in zip(targets, target_lengths)])

    def run(framework, functional, lengths_type):
        inputs = framework.from_numpy(logits.copy()).requires_grad_()
        log_probs = inputs.log_softmax(2) if through_log_softmax else inputs
        loss = functional.ctc_loss(
            log_probs,
            framework.from_numpy(targets),
            lengths_type(input_lengths),
            lengths_type(target_lengths),
            reduction=reduction,
        )
        loss.sum().backward()
        return loss, inputs.grad

    expected_loss, expected_grad = run(torch, torch.nn.functional, torch.tensor)
    actual_loss, actual_grad = run(ember, F, list)
    assert_close(actual_loss, expected_loss, 1e-5, 1e-5, what="loss")
    assert_close(actual_grad, expected_grad, 1e-5, 1e-5, what="gradient")


@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_impossible_alignment_and_zero_infinity(torch, zero_infinity):
    logits = normal(3, 2, 5)
    targets = np.array([[1, 1, 2, 3], [1, 2, 0, 0]])  # the first needs at least 5 frames
    results = []
    for framework, functional in ((torch, torch.nn.functional), (ember, F)):
        inputs = framework.from_numpy(logits.copy()).requires_grad_()
        loss = functional.ctc_loss(
            inputs.log_softmax(2),
            framework.from_numpy(targets),
            framework.tensor([3, 3]),
            framework.tensor([4, 2]),
            reduction="none",
            zero_infinity=zero_infinity,
        )
        loss.sum().backward()
        results.append((loss, inputs.grad))
    (expected_loss, expected_grad), (actual_loss, actual_grad) = results
    assert_close(actual_loss, expected_loss, 1e-5, 1e-5, what="loss")
    assert_close(actual_grad, expected_grad, 1e-5, 1e-5, what="gradient")


def test_ctc_module_unbatched_and_blank(torch):
    logits = normal(8, 5)
    targets = np.array([0, 1, 3, 3])
    expected = torch.nn.CTCLoss(blank=4)(
        torch.from_numpy(logits).log_softmax(1), torch.from_numpy(targets), torch.tensor(8), torch.tensor(4)
    )
    actual = nn.CTCLoss(blank=4)(
        ember.from_numpy(logits).log_softmax(1), ember.from_numpy(targets), ember.tensor(8), ember.tensor(4)
    )
    assert_close(actual, expected, 1e-5, 1e-6)


def test_ctc_gradcheck_through_log_softmax_float64():
    """PyTorch's CTC gradient is the one through log_softmax, so check it there (as PyTorch's tests do)."""
    logits = ember.from_numpy(normal(6, 2, 4, dtype=np.float64)).requires_grad_()
    targets = ember.tensor([[1, 2, 2], [3, 1, 0]])
    assert gradcheck(lambda x: F.ctc_loss(x.log_softmax(2), targets, [6, 5], [3, 2]), [logits])


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda x, t: F.ctc_loss(x, t, [7, 6], [3, 2]), "input_lengths to have value at most 6"),
        (lambda x, t: F.ctc_loss(x, t, [6, 6], [4, 2]), "size at least 4"),
        (lambda x, t: F.ctc_loss(x, t, [6, 6], [3, 2], blank=4), "blank must be in label range"),
        (lambda x, t: F.ctc_loss(x, t, [6], [3, 2]), "input_lengths must have one entry per sample"),
    ],
)
def test_ctc_errors(call, message):
    with pytest.raises(RuntimeError, match=message):
        call(ember.randn(6, 2, 4).log_softmax(2), ember.tensor([[1, 2, 2], [3, 1, 0]]))


def test_embedding_bag_scale_grad_by_freq_divides_by_each_index_count():
    weight = ember.randn(10, 3, requires_grad=True)
    offsets = np.array([0, 4, 6])
    upstream = normal(3, 3)
    F.embedding_bag(
        ember.from_numpy(INDICES), weight, ember.from_numpy(offsets), mode="sum", scale_grad_by_freq=True
    ).backward(ember.from_numpy(upstream))
    bag = np.searchsorted(offsets, np.arange(len(INDICES)), side="right") - 1
    counts = np.bincount(INDICES, minlength=10)
    expected = np.zeros((10, 3), np.float32)
    for index, bag_number in zip(INDICES, bag):
        expected[index] += upstream[bag_number] / counts[index]
    assert_close(weight.grad, expected, 1e-5, 1e-6)
