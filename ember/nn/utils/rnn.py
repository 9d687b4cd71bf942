"""Variable-length sequences for recurrent layers (as `torch.nn.utils.rnn`).

A `PackedSequence` stores a batch of sequences time step by time step, without padding: `data`
holds, for t = 0, 1, ..., the t-th element of every sequence still running, longest sequences
first; `batch_sizes[t]` says how many there are. `nn.RNN`, `nn.LSTM` and `nn.GRU` accept one and
return one, with each sequence's final hidden state taken at its own length. Packing and
unpacking are indexing ops, so gradients flow through them.
"""

from collections import namedtuple
from collections.abc import Iterable

import numpy as np

from ... import ops
from ..._tensor import Tensor, new_tensor
from ...ops import creation

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpad_sequence",
    "pack_sequence",
    "unpack_sequence",
]

_PackedSequenceBase = namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


class PackedSequence(_PackedSequenceBase):
    """A packed batch of sequences: `(data, batch_sizes, sorted_indices, unsorted_indices)`.

    Make one with `pack_padded_sequence` or `pack_sequence`, not by hand. `sorted_indices` orders
    the original batch by decreasing length (None when it already was); `unsorted_indices` undoes it.
    Tensor-like conversions (`to`, `double`, `float`, `cpu`, ...) convert `data` only.

    Example::

        >>> packed = pack_sequence([ember.ones(3, 2), ember.ones(1, 2)])
        >>> packed.batch_sizes
        tensor([2, 1, 1])
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # PackedSequence(*packed) style: data is the whole tuple
            data, batch_sizes = data[0], data[1]
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """A PackedSequence whose data is `data.to(*args, **kwargs)` (self if nothing changes)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def _with_data(self, data):
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self, *args, **kwargs):
        """The same packed sequence with its data on the CPU (where it already is)."""
        return self._with_data(self.data.cpu(*args, **kwargs))

    def cuda(self, *args, **kwargs):
        """Raises, as `Tensor.cuda`: ember has no CUDA backend."""
        return self._with_data(self.data.cuda(*args, **kwargs))

    def pin_memory(self):
        """Raises, as `Tensor.pin_memory` without an accelerator."""
        return self._with_data(self.data.pin_memory())

    def double(self):
        """The same packed sequence with float64 data."""
        return self._with_data(self.data.double())

    def float(self):
        """The same packed sequence with float32 data."""
        return self._with_data(self.data.float())

    def half(self):
        """The same packed sequence with float16 data."""
        return self._with_data(self.data.half())

    def long(self):
        """The same packed sequence with int64 data."""
        return self._with_data(self.data.long())

    def int(self):
        """The same packed sequence with int32 data."""
        return self._with_data(self.data.int())

    def short(self):
        """The same packed sequence with int16 data."""
        return self._with_data(self.data.short())

    def char(self):
        """The same packed sequence with int8 data."""
        return self._with_data(self.data.char())

    def byte(self):
        """The same packed sequence with uint8 data."""
        return self._with_data(self.data.byte())

    @property
    def is_cuda(self):
        """Always False (the data is on the CPU)."""
        return self.data.is_cuda

    def is_pinned(self):
        """Always False."""
        return False


def invert_permutation(permutation):
    """The permutation that undoes `permutation` (None stays None)."""
    if permutation is None:
        return None
    inverse = np.empty_like(permutation.numpy())
    inverse[permutation.numpy()] = np.arange(len(inverse))
    return new_tensor(inverse)


def _lengths_array(lengths):
    if isinstance(lengths, Tensor):
        if lengths.dim() != 1:
            raise RuntimeError(
                f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.dim()}D {lengths.dtype} tensor"
            )
        return lengths.numpy().astype(np.int64)
    return np.asarray(list(lengths), dtype=np.int64)


def _packed_positions(batch_sizes):
    """(time, batch) index of each row of a PackedSequence's data with these batch sizes."""
    times = np.repeat(np.arange(len(batch_sizes)), batch_sizes)
    rows = np.concatenate([np.arange(size) for size in batch_sizes]) if len(batch_sizes) else np.zeros(0, np.int64)
    return times, rows


def _batch_sizes(sorted_lengths):
    """How many sequences (sorted by decreasing length) are still running at each time step."""
    return (sorted_lengths[None, :] > np.arange(sorted_lengths[0])[:, None]).sum(1).astype(np.int64)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch (T, B, *) — (B, T, *) with `batch_first` — of sequences with these lengths.

    Args:
        input: the padded batch.
        lengths: each sequence's length (a list or a 1-D int tensor), all > 0.
        batch_first: whether `input` is (B, T, *).
        enforce_sorted: require lengths in decreasing order; with False, the batch is sorted here
            and `sorted_indices` records how.

    Returns:
        a PackedSequence. Unlike PyTorch, a length greater than T raises instead of reading past the end.
    """
    lengths = _lengths_array(lengths)
    batch_dim = 0 if batch_first else 1
    if len(lengths) != input.shape[batch_dim]:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} "
            f"(batch_size={input.shape[batch_dim]})"
        )
    if enforce_sorted:
        if np.any(lengths[1:] > lengths[:-1]):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                "sidestep this requirement if you do not need ONNX exportability."
            )
        sorted_indices = None
        order = np.arange(len(lengths))
    else:
        order = np.argsort(-lengths, kind="stable")
        sorted_indices = new_tensor(order.astype(np.int64))
    sorted_lengths = lengths[order]
    if len(lengths) == 0 or sorted_lengths[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0"
        )
    time_dim = 1 - batch_dim
    if sorted_lengths[0] > input.shape[time_dim]:
        raise RuntimeError(
            f"pack_padded_sequence: a length ({sorted_lengths[0]}) exceeds the input's sequence "
            f"length ({input.shape[time_dim]}; input shape {list(input.shape)}, "
            f"batch_first={batch_first})"
        )
    batch_sizes = _batch_sizes(sorted_lengths)
    times, rows = _packed_positions(batch_sizes)
    batch = order[rows]
    index = (new_tensor(batch), new_tensor(times)) if batch_first else (new_tensor(times), new_tensor(batch))
    return PackedSequence(input[index], new_tensor(batch_sizes), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Undo `pack_padded_sequence`: returns `(padded, lengths)`, padded (T, B, *) or (B, T, *).

    `total_length` pads to that many time steps (at least the longest sequence); lengths is an
    int64 tensor in the original batch order.
    """
    batch_sizes = sequence.batch_sizes.numpy()
    max_length = len(batch_sizes)
    if total_length is not None:
        if total_length < max_length:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in input, "
                f"but got total_length={total_length} and max sequence length being {max_length}"
            )
    else:
        total_length = max_length
    batch = int(batch_sizes[0]) if max_length else 0
    data = sequence.data
    times, rows = _packed_positions(batch_sizes)
    padded = creation.full((total_length, batch) + tuple(data.shape[1:]), padding_value, dtype=data.dtype)
    padded = ops.index_put(padded, (new_tensor(times), new_tensor(rows)), data)
    lengths = (batch_sizes[None, :] > np.arange(batch)[:, None]).sum(1).astype(np.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices.numpy()]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, new_tensor(lengths)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack tensors of shape (L_i, *) into one (T, B, *) — (B, T, *) with `batch_first` — padded
    with `padding_value` on the `padding_side` ("right" or "left") up to the longest, T.

    Example::

        >>> pad_sequence([ember.ones(2), ember.ones(3)], batch_first=True)
        tensor([[1., 1., 0.],
                [1., 1., 1.]])
    """
    if not isinstance(sequences, Iterable):
        raise RuntimeError(
            f"pad_sequence: Expected iterable for input sequences, but got arg of type: {type(sequences)}"
        )
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    trailing = tuple(sequences[0].shape[1:])
    for index, sequence in enumerate(sequences):
        if tuple(sequence.shape[1:]) != trailing:
            raise RuntimeError(
                f"pad_sequence: sequence {index} has shape {list(sequence.shape)}, but every "
                f"sequence must be (L, {', '.join(map(str, trailing))}) like sequence 0"
            )
    longest = max(sequence.shape[0] for sequence in sequences)
    columns = []
    for sequence in sequences:
        missing = longest - sequence.shape[0]
        if missing:
            padding = creation.full((missing,) + trailing, padding_value, dtype=sequence.dtype)
            sequence = ops.cat([sequence, padding] if padding_side == "right" else [padding, sequence])
        columns.append(sequence)
    return ops.stack(columns, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """Split a padded batch back into a list of tensors with the given lengths (right padding)."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [sequence[: int(length)] for sequence, length in zip(padded_sequences, _lengths_array(lengths))]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of tensors (L_i, *) — sorted by decreasing length unless `enforce_sorted=False`."""
    lengths = [sequence.shape[0] for sequence in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """Undo `pack_sequence`: the list of tensors, in the original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
