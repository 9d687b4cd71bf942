"""nn.utils.rnn (padding and packing) and packed batches through RNN/LSTM/GRU, against PyTorch."""

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.nn.utils import rnn
from tests.conftest import assert_close
from tests.nn.differential import copy_weights

rng = np.random.default_rng(0)


def normal(*shape):
    return rng.standard_normal(shape).astype(np.float32)


LENGTHS = [3, 5, 1, 4]


def _sequences():
    return [normal(length, 2) for length in LENGTHS]


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence_matches_torch(torch, batch_first, padding_side):
    arrays = _sequences()
    expected = torch.nn.utils.rnn.pad_sequence([torch.from_numpy(a) for a in arrays], batch_first, -1.0, padding_side)
    inputs = [ember.from_numpy(a).requires_grad_() for a in arrays]
    actual = rnn.pad_sequence(inputs, batch_first=batch_first, padding_value=-1.0, padding_side=padding_side)
    assert_close(actual, expected)
    (actual * actual).sum().backward()
    for array, tensor in zip(arrays, inputs):
        assert_close(tensor.grad, 2 * array, what="gradient through pad_sequence")


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths_as_tensor", [False, True])
def test_pack_and_pad_round_trip_matches_torch(torch, batch_first, lengths_as_tensor):
    padded = rnn.pad_sequence([ember.from_numpy(a) for a in _sequences()], batch_first=batch_first)
    padded_torch = torch.from_numpy(padded.numpy())
    lengths = ember.tensor(LENGTHS) if lengths_as_tensor else LENGTHS
    expected = torch.nn.utils.rnn.pack_padded_sequence(
        padded_torch, torch.tensor(LENGTHS), batch_first, enforce_sorted=False
    )
    source = padded.clone().requires_grad_()
    actual = rnn.pack_padded_sequence(source, lengths, batch_first=batch_first, enforce_sorted=False)
    assert isinstance(actual, tuple) and actual._fields == expected._fields
    for name in ("data", "batch_sizes", "sorted_indices", "unsorted_indices"):
        assert_close(getattr(actual, name), getattr(expected, name), what=name)
    assert actual.batch_sizes.dtype == ember.int64
    unpacked, unpacked_lengths = rnn.pad_packed_sequence(
        actual, batch_first=batch_first, padding_value=7.0, total_length=6
    )
    torch_unpacked, torch_lengths = torch.nn.utils.rnn.pad_packed_sequence(expected, batch_first, 7.0, 6)
    assert_close(unpacked, torch_unpacked)
    assert_close(unpacked_lengths, torch_lengths)
    unpacked.sum().backward()
    mask = (np.arange(5)[:, None] < np.array(LENGTHS)[None, :]).astype(np.float32)
    mask = mask.T if batch_first else mask
    assert_close(source.grad, np.broadcast_to(mask[..., None], padded.shape), what="gradient of the padded input")


def test_pack_sequence_sorted_and_unpack(torch):
    arrays = sorted(_sequences(), key=len, reverse=True)
    packed = rnn.pack_sequence([ember.from_numpy(a) for a in arrays])
    expected = torch.nn.utils.rnn.pack_sequence([torch.from_numpy(a) for a in arrays])
    assert packed.sorted_indices is None and packed.unsorted_indices is None
    assert_close(packed.data, expected.data)
    assert_close(packed.batch_sizes, expected.batch_sizes)
    for array, tensor in zip(arrays, rnn.unpack_sequence(packed)):
        assert_close(tensor, array)
    unpadded = rnn.unpad_sequence(
        rnn.pad_sequence([ember.from_numpy(a) for a in arrays]), ember.tensor([len(a) for a in arrays])
    )
    for array, tensor in zip(arrays, unpadded):
        assert_close(tensor, array)


def test_packed_sequence_conversions():
    packed = rnn.pack_sequence([ember.ones(3, 2), ember.ones(2, 2)])
    assert packed.double().data.dtype == ember.float64
    assert packed.to(ember.float64).data.dtype == ember.float64
    assert packed.to(ember.float32) is packed
    assert not packed.is_cuda
    data, batch_sizes, sorted_indices, unsorted_indices = packed
    assert batch_sizes.tolist() == [2, 2, 1]


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda x: rnn.pack_padded_sequence(x, [2, 4, 1]), RuntimeError, "sorted in decreasing order"),
        (lambda x: rnn.pack_padded_sequence(x, [4, 0, 0], enforce_sorted=False), RuntimeError, "greater than 0"),
        (lambda x: rnn.pack_padded_sequence(x, [4, 3]), RuntimeError, r"len\(lengths\)` to be equal to batch_size"),
        (lambda x: rnn.pack_padded_sequence(x, [5, 3, 1]), RuntimeError, r"length \(5\) exceeds"),
        (
            lambda x: rnn.pad_packed_sequence(rnn.pack_padded_sequence(x, [4, 3, 1]), total_length=3),
            ValueError,
            "total_length=3 and max sequence length being 4",
        ),
        (lambda x: rnn.pad_sequence([]), RuntimeError, "empty list"),
        (lambda x: rnn.pad_sequence([x[0]], padding_side="up"), RuntimeError, "left or right, but got up"),
    ],
)
def test_packing_errors(call, error, message):
    with pytest.raises(error, match=message):
        call(ember.randn(4, 3, 2))


RECURRENT = [
    ("RNN", dict()),
    ("LSTM", dict(num_layers=2, bidirectional=True)),
    ("GRU", dict(bidirectional=True)),
    ("LSTM", dict(proj_size=2, batch_first=True)),
    ("GRU", dict(num_layers=2, batch_first=True)),
]


@pytest.mark.parametrize("kind, options", RECURRENT)
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("with_hidden", [False, True])
def test_packed_batch_through_recurrent_layers_matches_torch(torch, kind, options, enforce_sorted, with_hidden):
    torch_module = getattr(torch.nn, kind)(2, 3, **options)
    ember_module = getattr(nn, kind)(2, 3, **options)
    copy_weights(torch_module, ember_module)
    lengths = sorted(LENGTHS, reverse=True) if enforce_sorted else LENGTHS
    arrays = [normal(length, 2) for length in lengths]
    torch_inputs = [torch.from_numpy(a).requires_grad_() for a in arrays]
    ember_inputs = [ember.from_numpy(a).requires_grad_() for a in arrays]
    torch_packed = torch.nn.utils.rnn.pack_sequence(torch_inputs, enforce_sorted=enforce_sorted)
    ember_packed = rnn.pack_sequence(ember_inputs, enforce_sorted=enforce_sorted)
    directions = 2 if options.get("bidirectional") else 1
    hidden_shape = (options.get("num_layers", 1) * directions, len(arrays), options.get("proj_size") or 3)
    torch_args, ember_args = [torch_packed], [ember_packed]
    if with_hidden:
        h0 = normal(*hidden_shape)
        if kind == "LSTM":
            c0 = normal(*hidden_shape[:2], 3)
            torch_args.append((torch.from_numpy(h0), torch.from_numpy(c0)))
            ember_args.append((ember.from_numpy(h0), ember.from_numpy(c0)))
        else:
            torch_args.append(torch.from_numpy(h0))
            ember_args.append(ember.from_numpy(h0))
    torch_output, torch_hidden = torch_module(*torch_args)
    ember_output, ember_hidden = ember_module(*ember_args)
    assert isinstance(ember_output, rnn.PackedSequence)
    assert_close(ember_output.data, torch_output.data, 1e-5, 1e-5, what="packed output")
    assert_close(ember_output.batch_sizes, torch_output.batch_sizes)
    torch_hidden = torch_hidden if isinstance(torch_hidden, tuple) else (torch_hidden,)
    ember_hidden = ember_hidden if isinstance(ember_hidden, tuple) else (ember_hidden,)
    for index, (actual, expected) in enumerate(zip(ember_hidden, torch_hidden)):
        assert_close(actual, expected, 1e-5, 1e-5, what=f"final hidden state {index}")
    upstream = normal(*torch_output.data.shape)

    def loss(output, hidden, framework):
        return (output.data * framework.from_numpy(upstream)).sum() + sum(h.sum() for h in hidden)

    loss(torch_output, torch_hidden, torch).backward()
    loss(ember_output, ember_hidden, ember).backward()
    for index, (actual, expected) in enumerate(zip(ember_inputs, torch_inputs)):
        assert_close(actual.grad, expected.grad, 1e-4, 1e-5, what=f"gradient of sequence {index}")
    ember_parameters = dict(ember_module.named_parameters())
    for name, parameter in torch_module.named_parameters():
        assert_close(ember_parameters[name].grad, parameter.grad, 1e-4, 1e-5, what=f"gradient of {name}")


def test_packed_input_checks():
    lstm = nn.LSTM(2, 3)
    packed = rnn.pack_sequence([ember.randn(3, 2), ember.randn(2, 2)])
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 2, 3\)"):
        lstm(packed, (ember.zeros(1, 3, 3), ember.zeros(1, 3, 3)))
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size"):
        nn.GRU(4, 3)(packed)
