"""RNN, LSTM, GRU and their cells against PyTorch: parameter names, outputs, hidden states, gradients."""

import numpy as np
import pytest

import ember
import ember.nn as nn
from tests.conftest import assert_close
from tests.nn.differential import compare_with_torch, copy_weights, to_ember

rng = np.random.default_rng(0)


def normal(*shape):
    return rng.standard_normal(shape).astype(np.float32)


RECURRENT_CASES = [
    ("RNN", dict(), (5, 3, 4)),
    ("RNN", dict(nonlinearity="relu", num_layers=2), (4, 2, 4)),
    ("RNN", dict(bias=False, bidirectional=True), (3, 2, 4)),
    ("LSTM", dict(), (5, 3, 4)),
    ("LSTM", dict(num_layers=2, bidirectional=True), (4, 2, 4)),
    ("LSTM", dict(batch_first=True), (2, 6, 4)),
    ("LSTM", dict(proj_size=3, num_layers=2), (4, 2, 4)),
    ("LSTM", dict(proj_size=2, bidirectional=True, batch_first=True), (2, 3, 4)),
    ("GRU", dict(), (5, 3, 4)),
    ("GRU", dict(num_layers=3, batch_first=True, bidirectional=True), (2, 4, 4)),
    ("GRU", dict(bias=False), (3, 2, 4)),
]


@pytest.mark.parametrize(
    "kind, options, shape",
    RECURRENT_CASES,
    ids=[f"{kind}-{'-'.join(f'{k}={v}' for k, v in o.items())}" for kind, o, _ in RECURRENT_CASES],
)
def test_recurrent_layer_matches_torch(torch, kind, options, shape):
    torch_module = getattr(torch.nn, kind)(4, 5, **options)
    ember_module = getattr(nn, kind)(4, 5, **options)
    assert list(ember_module.state_dict()) == list(torch_module.state_dict())
    for (name, ember_param), (_, torch_param) in zip(ember_module.named_parameters(), torch_module.named_parameters()):
        assert ember_param.shape == tuple(torch_param.shape), name
    assert repr(ember_module) == repr(torch_module)
    compare_with_torch(torch, torch_module, ember_module, [normal(*shape)], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_initial_hidden_state_and_unbatched_input(torch, kind):
    torch_module = getattr(torch.nn, kind)(3, 4, num_layers=2)
    ember_module = getattr(nn, kind)(3, 4, num_layers=2)
    h0 = normal(2, 2, 4)
    hidden = (h0, normal(2, 2, 4)) if kind == "LSTM" else h0

    class WithHidden:
        """Call the module with a fixed initial state (a tuple of arrays for the LSTM)."""

        def __init__(self, module, convert):
            self.module, self.convert = module, convert

        def __call__(self, x):
            state = tuple(self.convert(h) for h in hidden) if kind == "LSTM" else self.convert(hidden)
            return self.module(x, state)

    copy_weights(torch_module, ember_module)
    x = normal(5, 2, 3)
    expected = WithHidden(torch_module, torch.from_numpy)(torch.from_numpy(x))
    actual = WithHidden(ember_module, ember.from_numpy)(ember.from_numpy(x))
    assert_close(actual[0], expected[0], 1e-4, 1e-5, what="output")
    if kind == "LSTM":
        assert_close(actual[1][0], expected[1][0], 1e-4, 1e-5, what="h_n")
        assert_close(actual[1][1], expected[1][1], 1e-4, 1e-5, what="c_n")
    else:
        assert_close(actual[1], expected[1], 1e-4, 1e-5, what="h_n")
    # unbatched (L, H_in) input gives unbatched outputs
    unbatched = normal(5, 3)
    expected = torch_module(torch.from_numpy(unbatched))
    actual = ember_module(ember.from_numpy(unbatched))
    assert actual[0].shape == tuple(expected[0].shape)
    assert_close(actual[0], expected[0], 1e-4, 1e-5, what="unbatched output")


def test_dropout_between_layers_only_in_training():
    ember.manual_seed(0)
    module = nn.GRU(3, 4, num_layers=2, dropout=0.5)
    x = ember.randn(6, 2, 3)
    module.eval()
    first, _ = module(x)
    second, _ = module(x)
    assert_close(first, second, rtol=0, atol=0)
    module.train()
    trained, _ = module(x)
    assert not np.allclose(trained.detach().numpy(), first.detach().numpy())
    with pytest.warns(UserWarning, match="dropout option adds dropout after all but last recurrent layer"):
        nn.LSTM(3, 4, dropout=0.2)


@pytest.mark.parametrize(
    "kind, options",
    [
        ("RNNCell", dict()),
        ("RNNCell", dict(nonlinearity="relu")),
        ("LSTMCell", dict()),
        ("GRUCell", dict()),
        ("GRUCell", dict(bias=False)),
    ],
)
def test_cells_match_torch(torch, kind, options):
    torch_module = getattr(torch.nn, kind)(4, 3, **options)
    ember_module = getattr(nn, kind)(4, 3, **options)
    assert list(ember_module.state_dict()) == list(torch_module.state_dict())
    assert repr(ember_module) == repr(torch_module)
    compare_with_torch(torch, torch_module, ember_module, [normal(5, 4)])
    unbatched = normal(4)
    expected = torch_module(torch.from_numpy(unbatched))
    actual = ember_module(ember.from_numpy(unbatched))
    for ember_part, torch_part in zip(
        actual if kind == "LSTMCell" else [actual], expected if kind == "LSTMCell" else [expected]
    ):
        assert_close(ember_part, torch_part, 1e-4, 1e-5)


def test_cell_with_given_state_matches_torch(torch):
    torch_cell, ember_cell = torch.nn.LSTMCell(3, 2), nn.LSTMCell(3, 2)
    copy_weights(torch_cell, ember_cell)
    x, h, c = normal(4, 3), normal(4, 2), normal(4, 2)
    h_torch, c_torch = torch_cell(torch.from_numpy(x), (torch.from_numpy(h), torch.from_numpy(c)))
    h_ember, c_ember = ember_cell(ember.from_numpy(x), (ember.from_numpy(h), ember.from_numpy(c)))
    assert_close(h_ember, h_torch, 1e-5, 1e-6)
    assert_close(c_ember, c_torch, 1e-5, 1e-6)


def test_recurrent_weights_transfer_from_torch_and_back(torch):
    torch_module = torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    ember_module = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    ember_module.load_state_dict({k: to_ember(v) for k, v in torch_module.state_dict().items()})
    torch_module.load_state_dict({k: torch.from_numpy(v.numpy().copy()) for k, v in ember_module.state_dict().items()})
    ember_names = [name for name, _ in ember_module.named_parameters()]
    assert ember_names == [name for name, _ in torch_module.named_parameters()]
    assert len(ember_module.all_weights) == 4 and len(ember_module._flat_weights) == 16


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda: nn.RNN(3, 4)(ember.zeros(2, 2, 2, 3)),
            ValueError,
            "RNN: Expected input to be 2D or 3D, got 4D tensor",
        ),
        (
            lambda: nn.LSTM(3, 4)(ember.zeros(1, 1, 1, 3)),
            ValueError,
            "LSTM: Expected input to be 2D or 3D, got 4D instead",
        ),
        (
            lambda: nn.GRU(3, 4)(ember.zeros(5, 2, 7)),
            RuntimeError,
            "input.size\\(-1\\) must be equal to input_size. Expected 3, got 7",
        ),
        (
            lambda: nn.GRU(3, 4)(ember.zeros(5, 2, 3), ember.zeros(1, 3, 4)),
            RuntimeError,
            "Expected hidden size \\(1, 2, 4\\), got \\[1, 3, 4\\]",
        ),
        (
            lambda: nn.RNN(3, 4)(ember.zeros(5, 2, 3), ember.zeros(2, 4)),
            RuntimeError,
            "For batched 3-D input, hx should also be 3-D but got 2-D tensor",
        ),
        (
            lambda: nn.LSTM(3, 4)(ember.zeros(5, 2, 3), (ember.zeros(1, 2, 4), ember.zeros(1, 2, 5))),
            RuntimeError,
            "Expected hidden\\[1\\] size \\(1, 2, 4\\), got \\[1, 2, 5\\]",
        ),
        (
            lambda: nn.LSTM(3, 4)(ember.zeros(5, 2, 3, dtype=ember.float64)),
            ValueError,
            "RNN input dtype \\(torch.float64\\) does not match weight dtype \\(torch.float32\\)",
        ),
        (lambda: nn.RNN(3, 4, nonlinearity="sigmoid"), ValueError, "Unknown nonlinearity 'sigmoid'"),
        (lambda: nn.LSTM(3, 4, proj_size=4), ValueError, "proj_size has to be smaller than hidden_size"),
        (lambda: nn.GRU(3, 0), ValueError, "hidden_size must be greater than zero"),
        (lambda: nn.GRU(3, 4, dropout=2), ValueError, "dropout should be a number in range \\[0, 1\\]"),
        (lambda: nn.GRU(3, 4.0), TypeError, "hidden_size should be of type int, got: float"),
        (lambda: nn.GRUCell(3, 4)(ember.zeros(1, 2, 3)), ValueError, "GRUCell: Expected input to be 1D or 2D, got 3D"),
        (
            lambda: nn.LSTMCell(3, 4)(ember.zeros(2, 3), (ember.zeros(1, 1, 4), ember.zeros(2, 4))),
            ValueError,
            "LSTMCell: Expected hx\\[0\\] to be 1D or 2D, got 3D instead",
        ),
    ],
)
def test_recurrent_errors(call, error, message):
    with pytest.raises(error, match=message.replace("torch.", "(torch|ember)\\.")):
        call()


def test_double_precision_module():
    module = nn.LSTM(2, 3).double()
    output, (h, c) = module(ember.zeros(4, 1, 2, dtype=ember.float64))
    assert output.dtype == h.dtype == c.dtype == ember.float64


def test_gradcheck_through_a_gru():
    module = nn.GRU(2, 3, bidirectional=True).double()
    x = ember.randn(3, 1, 2, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda inp: module(inp)[0], (x,))


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("options", [{}, {"batch_first": True}, {"bidirectional": True}, {"num_layers": 2}])
def test_output_nodes_are_named_as_pytorch_names_them(torch, kind, options):
    # Printed outputs show grad_fn=<...>: PyTorch's CPU LSTM names its fused layer MkldnnRnnLayerBackward0,
    # and its GRU/RNN turn batch-first outputs in place (TransposeBackward1).
    names = []
    for library in (ember, torch):
        library.manual_seed(0)
        layer = getattr(library.nn, kind)(3, 4, **options)
        output, _ = layer(library.randn(5, 2, 3))
        names.append([output.grad_fn.name()] + [node.name() for node, _ in output.grad_fn.next_functions if node])
    ours, theirs = names
    assert ours[0] == theirs[0], (ours, theirs)
    if output.grad_fn.name() in ("CatBackward0", "TransposeBackward0", "TransposeBackward1"):
        assert ours == theirs


def test_lstm_in_float64_keeps_the_plain_stack_node():
    layer = nn.LSTM(3, 4).double()
    output, _ = layer(ember.randn(5, 2, 3, dtype=ember.float64))
    assert output.grad_fn.name() == "StackBackward0"
