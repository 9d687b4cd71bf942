"""Recurrent layers: `RNN`, `LSTM`, `GRU` and their single-step cells.

Parameter names, shapes and gate order are PyTorch's (`weight_ih_l0`, `weight_hh_l0_reverse`, ...;
LSTM gates i, f, g, o; GRU gates r, z, n), so state dicts move between ember and PyTorch. The time
loop is Python; each step is a few matrix products on the whole batch, and the input projections of
all time steps are computed in one product before the loop.
"""

import math
import numbers

from ..._validation import check_int_arguments
from ... import ops
from ...ops import creation
from ...ops.joining import Stack
from ..._dtype import float32
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils import rnn as rnn_utils
from ..utils.rnn import PackedSequence
from .module import Module
from ..._warn import warn as _warn

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


# ---------------------------------------------------------------------- one time step
def _linear(input, weight, bias):
    output = input.matmul(weight.t())
    return output if bias is None else output + bias


def _gate(gates, index, hidden_size):
    """The index-th block of `hidden_size` columns of the stacked gate pre-activations."""
    return gates[:, index * hidden_size : (index + 1) * hidden_size]


def _rnn_tanh_step(input_gates, hidden, w_hh, b_hh, w_hr=None):
    return ops.tanh(input_gates + _linear(hidden, w_hh, b_hh))


def _rnn_relu_step(input_gates, hidden, w_hh, b_hh, w_hr=None):
    return ops.relu(input_gates + _linear(hidden, w_hh, b_hh))


def _lstm_step(input_gates, state, w_hh, b_hh, w_hr=None):
    """LSTM with gates (input, forget, cell, output) in that order; `w_hr` projects h (proj_size)."""
    h, c = state
    gates = input_gates + _linear(h, w_hh, b_hh)
    size = c.shape[-1]
    i = ops.sigmoid(_gate(gates, 0, size))
    f = ops.sigmoid(_gate(gates, 1, size))
    g = ops.tanh(_gate(gates, 2, size))
    o = ops.sigmoid(_gate(gates, 3, size))
    c = f * c + i * g
    h = o * ops.tanh(c)
    if w_hr is not None:
        h = h.matmul(w_hr.t())
    return h, c


def _gru_step(input_gates, hidden, w_hh, b_hh, w_hr=None):
    """GRU with gates (reset, update, new); the reset gate scales the hidden part of the new gate."""
    hidden_gates = _linear(hidden, w_hh, b_hh)
    size = hidden.shape[-1]
    r = ops.sigmoid(_gate(input_gates, 0, size) + _gate(hidden_gates, 0, size))
    z = ops.sigmoid(_gate(input_gates, 1, size) + _gate(hidden_gates, 1, size))
    n = ops.tanh(_gate(input_gates, 2, size) + r * _gate(hidden_gates, 2, size))
    return (1 - z) * n + z * hidden


_STEPS = {"RNN_TANH": _rnn_tanh_step, "RNN_RELU": _rnn_relu_step, "LSTM": _lstm_step, "GRU": _gru_step}
_GATE_COUNT = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


class _FusedLstmLayerOutputs(Stack, node="MkldnnRnnLayerBackward0"):
    """The stacked outputs of one LSTM layer. PyTorch's CPU LSTM (float32, no projections) runs each
    layer as one oneDNN kernel, so its outputs show `grad_fn=<MkldnnRnnLayerBackward0>`; ember steps in
    ember ops and names the node that joins the steps as PyTorch's, so printed outputs read the same."""


def _run_direction(step, input, state, weights, reverse, batch_sizes=None):
    """Run one layer in one direction over a (L, N, H_in) sequence; returns (outputs (L, N, H), last state).

    With `batch_sizes` (a packed batch, longest sequences first), step t updates only the first
    batch_sizes[t] rows, so each sequence's state stops at its own length; padded outputs are zeros.
    """
    w_ih, w_hh, b_ih, b_hh, w_hr = weights
    input_gates = _linear(input, w_ih, b_ih)  # every time step at once
    steps = range(input.shape[0] - 1, -1, -1) if reverse else range(input.shape[0])
    outputs = [None] * input.shape[0]
    batch = input.shape[1]
    for t in steps:
        active = batch if batch_sizes is None else int(batch_sizes[t])
        if active == batch:
            state = step(input_gates[t], state, w_hh, b_hh, w_hr)
            outputs[t] = state[0] if isinstance(state, tuple) else state
        else:
            state, outputs[t] = _step_first_rows(step, input_gates[t], state, (w_hh, b_hh, w_hr), active)
    if step is _lstm_step and w_hr is None and input.dtype == float32:
        return _FusedLstmLayerOutputs.apply(0, *outputs), state
    return ops.stack(outputs, 0), state


def _step_first_rows(step, input_gates, state, weights, active):
    """One step for the first `active` rows only; the other rows keep their state and output zeros."""
    states = state if isinstance(state, tuple) else (state,)
    sliced = tuple(s[:active] for s in states)
    updated = step(input_gates[:active], sliced if isinstance(state, tuple) else sliced[0], *weights)
    updated = updated if isinstance(updated, tuple) else (updated,)
    merged = tuple(ops.cat([new, old[active:]], 0) for new, old in zip(updated, states))
    output = ops.cat(
        [
            updated[0],
            creation.zeros((states[0].shape[0] - active,) + tuple(updated[0].shape[1:]), dtype=updated[0].dtype),
        ],
        0,
    )
    return (merged if isinstance(state, tuple) else merged[0]), output


# ---------------------------------------------------------------------- full layers
class RNNBase(Module):
    """What RNN, LSTM and GRU share: parameters per layer and direction, checks, the layer loop."""

    def __init__(
        self,
        mode,
        input_size,
        hidden_size,
        num_layers=1,
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        proj_size=0,
        device=None,
        dtype=None,
    ):
        super().__init__()
        _check_rnn_arguments(input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size)
        if mode not in _GATE_COUNT:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        gate_size = _GATE_COUNT[mode] * hidden_size
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = {"weight_ih": (gate_size, layer_input_size), "weight_hh": (gate_size, real_hidden_size)}
                if bias:
                    shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
                if proj_size > 0:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                names = []
                for name, shape in shapes.items():
                    setattr(self, name + suffix, Parameter(creation.empty(shape, device=device, dtype=dtype)))
                    names.append(name + suffix)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self):
        """Every weight and bias from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), as PyTorch."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self):
        """No-op (PyTorch packs weights for cuDNN here)."""

    @property
    def _flat_weights(self):
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        """The parameters per layer (and direction): `[[w_ih, w_hh, b_ih, b_hh], ...]`, in PyTorch's order."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def _layer_weights(self, layer, direction):
        """(w_ih, w_hh, b_ih, b_hh, w_hr) of one layer and direction, None where absent."""
        suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
        return tuple(
            self._parameters.get(name + suffix)
            for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")
        )

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            text += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if self.batch_first is not False:
            text += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            text += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            text += f", bidirectional={self.bidirectional}"
        return text

    # ------------------------------------------------------------------ forward
    def _expected_hidden_size(self, input):
        mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (
            self.num_layers * num_directions,
            mini_batch,
            self.proj_size if self.proj_size > 0 else self.hidden_size,
        )

    def _check_input(self, input):
        weight_dtype = self.weight_ih_l0.dtype
        if input.dtype != weight_dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight_dtype}). "
                f"Convert input: input.to({weight_dtype}), or convert model: model.to({input.dtype})"
            )
        if input.dim() != 3:
            raise RuntimeError(f"input must have 3 dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {input.size(-1)}"
            )

    @staticmethod
    def _check_hidden_size(hx, expected, message="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != expected:
            raise RuntimeError(message.format(expected, list(hx.size())))

    def _batch_input(self, input, hx, is_lstm):
        """Add the batch dimension to unbatched (L, H_in) input and its hidden state; checks dims."""
        if input.dim() not in (2, 3):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D "
                f"{'tensor ' if self.mode.startswith('RNN') else ''}instead"
            )
        is_batched = input.dim() == 3
        if not is_batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
        if hx is None:
            return input, hx, is_batched
        wanted = 3 if is_batched else 2
        kind = "batched 3-D" if is_batched else "unbatched 2-D"
        if is_lstm:
            if hx[0].dim() != wanted or hx[1].dim() != wanted:
                raise RuntimeError(
                    f"For {kind} input, hx and cx should also be {wanted}-D but got "
                    f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors"
                )
            if not is_batched:
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        else:
            if hx.dim() != wanted:
                raise RuntimeError(f"For {kind} input, hx should also be {wanted}-D but got {hx.dim()}-D tensor")
            if not is_batched:
                hx = hx.unsqueeze(1)
        return input, hx, is_batched

    def _run(self, input, initial_states, batch_sizes=None):
        """Run all layers over a (L, N, H_in) sequence from per-(layer, direction) initial states
        (`batch_sizes`: of a packed batch, see `_run_direction`)."""
        step = _STEPS[self.mode]
        num_directions = 2 if self.bidirectional else 1
        final_states = []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(num_directions):
                index = layer * num_directions + direction
                output, state = _run_direction(
                    step,
                    input,
                    initial_states[index],
                    self._layer_weights(layer, direction),
                    reverse=direction == 1,
                    batch_sizes=batch_sizes,
                )
                outputs.append(output)
                final_states.append(state)
            input = outputs[0] if num_directions == 1 else ops.cat(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                input = (
                    F.dropout(input, self.dropout, True)
                    if batch_sizes is None
                    else _packed_dropout(input, self.dropout, batch_sizes)
                )
        return input, final_states

    def _forward(self, input, hx, is_lstm):
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx, is_lstm)
        input, hx, is_batched = self._batch_input(input, hx, is_lstm)
        self._check_input(input)
        initial = self._initial_states(hx, self._expected_hidden_size(input), input.dtype, is_lstm)
        if self.batch_first:
            input = input.transpose(0, 1)
        output, final_states = self._run(input, initial)
        if self.batch_first:
            # PyTorch's GRU and RNN turn the output in place (TransposeBackward1); its LSTM does not.
            output = output.transpose(0, 1) if is_lstm else output.transpose_(0, 1)
        if is_lstm:
            hidden = (ops.stack([h for h, _ in final_states], 0), ops.stack([c for _, c in final_states], 0))
        else:
            hidden = ops.stack(final_states, 0)
        if not is_batched:
            output = output.squeeze(0 if self.batch_first else 1)
            hidden = (hidden[0].squeeze(1), hidden[1].squeeze(1)) if is_lstm else hidden.squeeze(1)
        return output, hidden

    def _initial_states(self, hx, expected, dtype, is_lstm):
        """Checked per-(layer, direction) initial states from hx (zeros when None)."""
        if hx is None:
            zeros = creation.zeros(expected, dtype=dtype)
            hx = (zeros, creation.zeros(expected[:2] + (self.hidden_size,), dtype=dtype)) if is_lstm else zeros
        if is_lstm:
            self._check_hidden_size(hx[0], expected, "Expected hidden[0] size {}, got {}")
            self._check_hidden_size(hx[1], expected[:2] + (self.hidden_size,), "Expected hidden[1] size {}, got {}")
            return [(hx[0][i], hx[1][i]) for i in range(expected[0])]
        self._check_hidden_size(hx, expected)
        return [hx[i] for i in range(expected[0])]

    def _forward_packed(self, packed, hx, is_lstm):
        """A PackedSequence in, a PackedSequence out; hidden states in and out in the caller's batch order."""
        data, batch_sizes, sorted_indices, unsorted_indices = packed
        if data.dim() != 2:
            raise RuntimeError(f"input must have 2 dimensions, got {data.dim()}")
        self._check_input(data.unsqueeze(0))
        sizes = batch_sizes.numpy()
        num_directions = 2 if self.bidirectional else 1
        expected = (
            self.num_layers * num_directions,
            int(sizes[0]),
            self.proj_size if self.proj_size > 0 else self.hidden_size,
        )
        if hx is not None and sorted_indices is not None:
            hx = tuple(h.index_select(1, sorted_indices) for h in hx) if is_lstm else hx.index_select(1, sorted_indices)
        initial = self._initial_states(hx, expected, data.dtype, is_lstm)
        padded, _ = rnn_utils.pad_packed_sequence(rnn_utils.PackedSequence(data, batch_sizes))
        output, final_states = self._run(padded, initial, batch_sizes=sizes)
        times, rows = rnn_utils._packed_positions(sizes)
        output = rnn_utils.PackedSequence(
            output[ops.tensor(times), ops.tensor(rows)], batch_sizes, sorted_indices, unsorted_indices
        )
        if is_lstm:
            hidden = (ops.stack([h for h, _ in final_states], 0), ops.stack([c for _, c in final_states], 0))
        else:
            hidden = ops.stack(final_states, 0)
        if unsorted_indices is not None:
            hidden = (
                tuple(h.index_select(1, unsorted_indices) for h in hidden)
                if is_lstm
                else hidden.index_select(1, unsorted_indices)
            )
        return output, hidden


def _packed_dropout(padded, p, batch_sizes):
    """Dropout of a packed batch's layer output drawn over its packed elements only, in packed order
    (as PyTorch applies it to PackedSequence data), so the random draws are the same as PyTorch's."""
    times, rows = rnn_utils._packed_positions(batch_sizes)
    times, rows = ops.tensor(times), ops.tensor(rows)
    return padded.index_put((times, rows), F.dropout(padded[times, rows], p, True))


def _check_rnn_arguments(input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size):
    if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
        raise ValueError(
            "dropout should be a number in range [0, 1] representing the probability of an element being zeroed"
        )
    if dropout > 0 and num_layers == 1:
        _warn(
            "dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
            f"num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
            stacklevel=3,
        )
    if not isinstance(bias, bool):
        raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
    if not isinstance(batch_first, bool):
        raise TypeError(f"batch_first should be of type bool, got: {type(batch_first).__name__}")
    if not isinstance(input_size, int):
        raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
    if input_size <= 0:
        raise ValueError("input_size must be greater than zero")
    if not isinstance(hidden_size, int):
        raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
    if hidden_size <= 0:
        raise ValueError("hidden_size must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


class RNN(RNNBase):
    """Elman RNN: `h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)` (or relu), stacked `num_layers` deep.

    Input (L, N, H_in), or (N, L, H_in) with `batch_first`, or unbatched (L, H_in); returns
    `(output, h_n)`: output (L, N, D * H_out) with every step's last-layer state, h_n
    (D * num_layers, N, H_out) with every layer's last state (D = 2 if bidirectional).

    Example::

        >>> rnn = nn.RNN(10, 20, 2)
        >>> output, hn = rnn(ember.randn(5, 3, 10))
        >>> output.shape, hn.shape
        (torch.Size([5, 3, 20]), torch.Size([2, 3, 20]))
    """

    def __init__(
        self,
        input_size,
        hidden_size,
        num_layers=1,
        nonlinearity="tanh",
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        device=None,
        dtype=None,
    ):
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(
            mode,
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            device=device,
            dtype=dtype,
        )
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        return self._forward(input, hx, is_lstm=False)


class LSTM(RNNBase):
    """Long short-term memory, PyTorch's formulation and gate order (i, f, g, o).

    Returns `(output, (h_n, c_n))`; `proj_size > 0` projects the hidden state to that size (`weight_hr_l*`).
    """

    def __init__(
        self,
        input_size,
        hidden_size,
        num_layers=1,
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        proj_size=0,
        device=None,
        dtype=None,
    ):
        super().__init__(
            "LSTM",
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            proj_size,
            device=device,
            dtype=dtype,
        )

    def forward(self, input, hx=None):
        return self._forward(input, hx, is_lstm=True)


class GRU(RNNBase):
    """Gated recurrent unit, PyTorch's formulation and gate order (r, z, n). Returns `(output, h_n)`."""

    def __init__(
        self,
        input_size,
        hidden_size,
        num_layers=1,
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        device=None,
        dtype=None,
    ):
        super().__init__(
            "GRU",
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            device=device,
            dtype=dtype,
        )

    def forward(self, input, hx=None):
        return self._forward(input, hx, is_lstm=False)


# ---------------------------------------------------------------------- cells
class RNNCellBase(Module):
    """One time step: parameters `weight_ih`, `weight_hh`, `bias_ih`, `bias_hh`, all from
    U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        check_int_arguments(type(self).__name__, input_size=input_size, hidden_size=hidden_size)
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(creation.empty((num_chunks * hidden_size, input_size), device=device, dtype=dtype))
        self.weight_hh = Parameter(creation.empty((num_chunks * hidden_size, hidden_size), device=device, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(creation.empty(num_chunks * hidden_size, device=device, dtype=dtype))
            self.bias_hh = Parameter(creation.empty(num_chunks * hidden_size, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            text += f", bias={self.bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            text += f", nonlinearity={self.nonlinearity}"
        return text

    def reset_parameters(self):
        """Every weight and bias from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), as PyTorch."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _check_dims(self, input, hidden_states):
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        for index, value in enumerate(hidden_states):
            if value is not None and value.dim() not in (1, 2):
                what = f"hx[{index}]" if len(hidden_states) > 1 else "hidden"
                raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got {value.dim()}D instead")
        return input.dim() == 2

    def _step(self, mode, input, state):
        input_gates = _linear(input, self.weight_ih, self.bias_ih)
        return _STEPS[mode](input_gates, state, self.weight_hh, self.bias_hh)


def _batched(tensor, is_batched):
    return tensor if is_batched else tensor.unsqueeze(0)


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: `h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)` (or relu)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        is_batched = self._check_dims(input, (hx,))
        input = _batched(input, is_batched)
        hx = (
            creation.zeros(input.size(0), self.hidden_size, dtype=input.dtype)
            if hx is None
            else _batched(hx, is_batched)
        )
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        result = self._step("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", input, hx)
        return result if is_batched else result.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step; `forward(input, (h, c))` returns `(h', c')`."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        is_batched = self._check_dims(input, tuple(hx) if hx is not None else (None, None))
        input = _batched(input, is_batched)
        if hx is None:
            zeros = creation.zeros(input.size(0), self.hidden_size, dtype=input.dtype)
            hx = (zeros, zeros)
        else:
            hx = (_batched(hx[0], is_batched), _batched(hx[1], is_batched))
        h, c = self._step("LSTM", input, hx)
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step: `forward(input, h)` returns `h'`."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        is_batched = self._check_dims(input, (hx,))
        input = _batched(input, is_batched)
        hx = (
            creation.zeros(input.size(0), self.hidden_size, dtype=input.dtype)
            if hx is None
            else _batched(hx, is_batched)
        )
        result = self._step("GRU", input, hx)
        return result if is_batched else result.squeeze(0)
