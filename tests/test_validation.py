"""No silent wrong values and errors of PyTorch's classes: sizes, integer overflow, ragged lists and
allocations that cannot succeed, across every creation op, shape op and layer (differential with
torch where it is installed)."""

import numpy as np
import pytest

import ember


def _outcome(library, text):
    """('ok', values) or (exception class name, message) of evaluating `text` with `t` = library."""
    try:
        result = eval(text, {"t": library, "np": np})
    except Exception as error:  # noqa: BLE001  (the class is what is compared)
        return type(error).__name__, str(error)
    return "ok", np.asarray(result.tolist() if hasattr(result, "tolist") else result)


def _same_as_torch(text):
    torch = pytest.importorskip("torch")
    theirs, ours = _outcome(torch, text), _outcome(ember, text)
    assert ours[0] == theirs[0], f"{text}: ember {ours}, torch {theirs}"
    if ours[0] == "ok":
        np.testing.assert_array_equal(ours[1], theirs[1], err_msg=text)
    return ours


FLOAT_SIZES = [
    "t.ones(2.5)",
    "t.zeros(2.0)",
    "t.empty(2, 2.0)",
    "t.zeros((2.0, 3))",
    "t.rand(2.0)",
    "t.randn(2, 2.0)",
    "t.full((2.5,), 1)",
    "t.randint(0, 5, (2.0,))",
    "t.zeros(True)",
    "t.ones([2, 3.0])",
    "t.zeros(2).new_zeros(2.0)",
    "t.zeros(2).new_ones((2.0,))",
    "t.zeros(2).new_empty(2.0)",
    "t.zeros(2).new_full((2.0,), 1.0)",
    "t.zeros(2).reshape(2.0)",
    "t.zeros(2).view(2.0)",
    "t.zeros(2).view(1, 2.0)",
    "t.zeros(1).expand(2.0)",
    "t.zeros(2).repeat(2.0)",
    "t.zeros(2, 1).permute(0.0, 1)",
    "t.eye(2.0)",
    "t.eye(2, 3.0)",
    "t.randperm(2.0)",
    "t.linspace(0, 1, 2.0)",
    "t.logspace(0, 1, 3.0)",
    "t.zeros(2).tile((2.0,))",
    "t.Tensor(2.5)",
    "t.Tensor(2, 3.0)",
    "t.FloatTensor(2.0)",
    "t.Tensor(True)",
    "t.zeros(4).narrow(0, 0, 1.0)",
    "t.zeros(4).chunk(2.0)",
    "t.zeros(4).unfold(0, 2.0, 1)",
    "t.zeros(4).kthvalue(1.0)",
    "t.zeros(4).topk(2.0)",
    "t.zeros(2, 4).unflatten(1, (2.0, 2))",
    "t.randint(2.5, (2,))",
    "t.randint(0, 5.0, (2,))",
]


@pytest.mark.parametrize("text", FLOAT_SIZES)
def test_float_sizes_are_type_errors(text):
    name, message = _outcome(ember, text)
    assert name == "TypeError", f"{text} gave {name}: {message}"
    assert "float" in message or "bool" in message, message


@pytest.mark.parametrize("text", FLOAT_SIZES)
def test_float_sizes_match_torch(text):
    _same_as_torch(text)


@pytest.mark.parametrize(
    "text",
    [
        "t.zeros(t.tensor(2))",
        "t.ones(np.int64(3))",
        "t.zeros(2).reshape(np.int32(2))",
        "t.zeros((np.int64(1), 2))",
        "t.arange(2.5)",
        "t.arange(0, 1, 0.25)",
    ],
)
def test_integer_likes_and_float_ranges_still_work(text):
    _same_as_torch(text)


@pytest.mark.parametrize(
    "layer",
    [
        "t.nn.Linear(2.5, 2)",
        "t.nn.Linear(2, 2.0)",
        "t.nn.Bilinear(2, 2, 2.0)",
        "t.nn.Conv1d(1, 2, 3.0)",
        "t.nn.Conv2d(1.0, 2, 3)",
        "t.nn.Conv2d(1, 2, (3, 2.0))",
        "t.nn.ConvTranspose2d(1, 2, 3.0)",
        "t.nn.Embedding(2.0, 3)",
        "t.nn.Embedding(10, 3.0)",
        "t.nn.RNN(2, 3.0)",
        "t.nn.LSTM(2.0, 3)",
        "t.nn.GRUCell(2, 3.0)",
        "t.nn.BatchNorm1d(2.0)",
        "t.nn.InstanceNorm2d(3.0)",
        "t.nn.LayerNorm(2.0)",
        "t.nn.GroupNorm(2, 4.0)",
    ],
)
def test_layers_refuse_float_sizes_with_their_name(layer):
    name, message = _outcome(ember, layer)
    assert name == "TypeError", f"{layer} gave {name}: {message}"
    assert "float" in message


@pytest.mark.parametrize(
    "layer",
    [
        "t.nn.Linear(2.5, 2)",
        "t.nn.Conv2d(1, 2, 3.0)",
        "t.nn.Embedding(2.0, 3)",
        "t.nn.RNN(2, 3.0)",
        "t.nn.BatchNorm1d(2.0)",
    ],
)
def test_layer_errors_match_torch_class(layer):
    _same_as_torch(layer)


def test_layer_message_names_the_layer_and_argument():
    with pytest.raises(TypeError, match="Linear: argument 'in_features' must be int, not float"):
        ember.nn.Linear(2.5, 2)
    with pytest.raises(TypeError, match="Conv2d: argument 'kernel_size'"):
        ember.nn.Conv2d(1, 2, 3.0)


# ---------------------------------------------------------------- integer overflow
OVERFLOWS = [
    "t.tensor([2**63])",
    "t.tensor(2**70)",
    "t.tensor([-2**63 - 1])",
    "t.tensor([2**64 - 1])",
    "t.tensor([2**63, -1])",
    "t.tensor([True, 2**63])",
    "t.tensor([[1, 2], [3, 2**64]])",
    "t.as_tensor([2**63])",
    "t.tensor(2**63, dtype=t.uint8)",
    "t.zeros(1).new_tensor([2**63], dtype=t.int64)",
    "t.tensor([300], dtype=t.int8)",
    "t.tensor([256], dtype=t.uint8)",
    "t.tensor([-129], dtype=t.int8)",
    "t.tensor([2**31], dtype=t.int32)",
    "t.tensor([1.5e10], dtype=t.int32)",
    "t.tensor([300.0], dtype=t.int8)",
    "t.as_tensor([300], dtype=t.int8)",
    "t.tensor(float('nan'), dtype=t.int64)",
    "t.tensor([float('inf')], dtype=t.int32)",
    "t.full((2,), 300, dtype=t.int8)",
    "t.full((1,), 300, dtype=t.uint8)",
    "t.full((1,), 2**63)",
    "t.full((1,), 2**31, dtype=t.int32)",
    "t.full((1,), 1e10, dtype=t.int32)",
    "t.zeros(2, dtype=t.int8).fill_(300)",
    "t.zeros(1, dtype=t.uint8).fill_(256)",
    "t.zeros(1, dtype=t.int64).fill_(2**63)",
    "t.zeros(1, dtype=t.int32).fill_(2**40)",
    "t.zeros(1, dtype=t.int16).new_full((1,), 70000)",
    "t.full_like(t.zeros(1, dtype=t.int8), 300)",
    "t.zeros(2, dtype=t.int8).masked_fill_(t.tensor([True, False]), 300)",
    "t.zeros(1, dtype=t.int8).index_fill_(0, t.tensor([0]), 300)",
    "t.zeros(2, dtype=t.int8).__setitem__(0, 300)",
    "t.arange(2**63)",
    "t.LongTensor([2**63])",
    "t.randint(0, 2**63, (2,))",
    "t.zeros(2, dtype=t.int8).clamp(max=300)",
    "t.zeros(2, dtype=t.uint8).clamp(min=-300)",
]


@pytest.mark.parametrize("text", OVERFLOWS)
def test_integer_overflow_is_an_error_not_a_wrapped_value(text):
    name, message = _outcome(ember, text)
    assert name in ("ValueError", "RuntimeError"), f"{text} gave {name}: {message}"
    assert "overflow" in message.lower(), message


@pytest.mark.parametrize("text", OVERFLOWS)
def test_integer_overflow_matches_torch(text):
    _same_as_torch(text)


@pytest.mark.parametrize(
    "text",
    [
        "t.tensor([2**63 - 1])",
        "t.tensor([-2**63])",
        "t.tensor([1.0, 2**63])",
        "t.tensor([1.0, 2**70])",
        "t.tensor(2**70, dtype=t.float32)",
        "t.tensor([-1], dtype=t.uint8)",
        "t.full((1,), -1, dtype=t.uint8)",
        "t.zeros(1, dtype=t.uint8).fill_(-1)",
        "t.zeros(1, dtype=t.int8).fill_(t.tensor(300))",
        "t.tensor([2**40], dtype=t.bool)",
        "t.tensor(np.array([300]), dtype=t.int8)",
        "t.tensor([127], dtype=t.int8)",
        "t.full((2,), 3)",
        "t.full((2,), True)",
        "t.tensor([[1, 2], [3, 4]])",
        "t.tensor([])",
        "t.tensor([[], []])",
        "t.scalar_tensor(2**63)",
        "t.Tensor(2, 3).shape",
        "t.LongTensor([1, 2])",
        "t.Tensor(range(3))",
        "t.arange(5).clamp(max=2.5)",
        "t.zeros(2, dtype=t.int8).clamp(-5, 100)",
        "t.zeros(4).narrow(0, t.tensor(1), 2)",
    ],
)
def test_values_in_range_and_pytorchs_wrapping_cases_still_work(text):
    _same_as_torch(text)


def test_overflow_message_is_pytorchs():
    with pytest.raises(ValueError, match="^Overflow when unpacking long long"):
        ember.tensor([2**63])
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int8 without overflow"):
        ember.tensor([300], dtype=ember.int8)


# ---------------------------------------------------------------- ragged nested lists
@pytest.mark.parametrize(
    "text",
    [
        "t.Tensor([[1, 2], [3]])",
        "t.tensor([[1, 2, 3], [4]])",
        "t.tensor([[1, 2], [3, 4, 5]])",
        "t.tensor([[[1], [2]], [[3], [4, 5]]])",
        "t.tensor([[1.0, 2.0], [3.0]])",
        "t.tensor([1, [2]])",
        "t.tensor([[1], 2])",
        "t.as_tensor([[1, 2], [3]])",
        "t.tensor([[1, 2], [3]], dtype=t.float64)",
    ],
)
def test_ragged_lists_match_torch(text):
    _same_as_torch(text)


def test_ragged_list_message_is_pytorchs():
    with pytest.raises(ValueError, match=r"^expected sequence of length 3 at dim 1 \(got 1\)$"):
        ember.tensor([[1, 2, 3], [4]])
    with pytest.raises(ValueError, match=r"expected sequence of length 1 at dim 2 \(got 2\)"):
        ember.tensor([[[1], [2]], [[3], [4, 5]]])


# ---------------------------------------------------------------- allocations that cannot succeed
HUGE = [
    "t.zeros(10**12)",
    "t.ones(10**12)",
    "t.empty(10**12)",
    "t.empty(10**10, 10**10)",
    "t.zeros(2**62, 2**62)",
    "t.rand(10**12)",
    "t.randn(10**12)",
    "t.full((10**12,), 1.0)",
    "t.randint(0, 3, (10**12,))",
    "t.eye(10**7)",
    "t.arange(10**13)",
    "t.linspace(0, 1, 10**13)",
    "t.randperm(10**13)",
    "t.zeros(1).new_zeros(10**12)",
    "t.zeros(1).new_empty((10**10, 10**10))",
    "t.normal(0.0, 1.0, size=(10**12,))",
    "t.Tensor(10**12)",
    "t.zeros(2).repeat(10**12)",
    "t.zeros_like(t.zeros(1).expand(10**12))",
    "t.ones_like(t.zeros(1).expand(10**12))",
    "t.zeros(1).expand(10**12).clone()",
    "t.zeros(1).expand(10**12).contiguous()",
]


@pytest.mark.parametrize("text", HUGE)
def test_impossible_allocations_are_runtime_errors_naming_the_bytes(text):
    name, message = _outcome(ember, text)
    assert name == "RuntimeError", f"{text} gave {name}: {message}"
    assert "bytes" in message and ("allocate" in message or "overflowed" in message), message


@pytest.mark.parametrize("text", ["t.zeros(10**12)", "t.empty(10**10, 10**10)", "t.rand(10**12)", "t.eye(10**7)"])
def test_impossible_allocations_match_torch_class(text):
    _same_as_torch(text)


def test_reshaping_an_expanded_tensor_is_a_view_not_an_allocation():
    """As in PyTorch: splitting a stride-0 dim needs no memory, however large the shape."""
    huge = ember.zeros(1).expand(10**12).reshape(10**6, 10**6)
    assert huge.shape == (10**6, 10**6) and huge.stride() == (0, 0)


def test_allocation_message_names_the_bytes_requested():
    with pytest.raises(RuntimeError, match="you tried to allocate 4000000000000 bytes"):
        ember.zeros(10**12)
    with pytest.raises(RuntimeError, match=r"Storage size calculation overflowed with sizes=\[10000000000, "):
        ember.empty(10**10, 10**10)


def test_negative_sizes_use_pytorchs_wording():
    with pytest.raises(RuntimeError, match=r"Trying to create tensor with negative dimension -1: \[2, -1\]"):
        ember.ones((2, -1))
