"""SummaryWriter writes real TensorBoard event files: read them back record by record."""

import struct

import pytest

import ember
from ember import nn

tensorboardX = pytest.importorskip("tensorboardX")
from tensorboardX.proto import event_pb2  # noqa: E402
from tensorboardX.proto.graph_pb2 import GraphDef  # noqa: E402

from ember.utils.tensorboard import SummaryWriter  # noqa: E402


def _events(log_dir):
    """Every Event in the folder's event file (TFRecord framing: length, its CRC, data, its CRC)."""
    (path,) = log_dir.glob("events.out.tfevents.*")
    data, events, offset = path.read_bytes(), [], 0
    while offset < len(data):
        (length,) = struct.unpack_from("<Q", data, offset)
        offset += 12
        events.append(event_pb2.Event.FromString(data[offset : offset + length]))
        offset += length + 4
    return events


def _summaries(log_dir):
    return [(event.step, value) for event in _events(log_dir) for value in event.summary.value]


def test_scalars_from_tensors_and_numbers(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        for step in range(3):
            writer.add_scalar("loss", ember.tensor(1.0 / (step + 1)), step)
        writer.add_scalar("lr", 0.1, 3)
    values = {(value.tag, step): value.simple_value for step, value in _summaries(tmp_path)}
    assert values[("loss", 0)] == 1.0 and values[("loss", 2)] == pytest.approx(1 / 3)
    assert values[("lr", 3)] == pytest.approx(0.1)


def test_histogram_of_a_tensor(tmp_path):
    weights = ember.randn(1000)
    with SummaryWriter(tmp_path) as writer:
        writer.add_histogram("weights", weights, 7)
    ((step, value),) = _summaries(tmp_path)
    assert step == 7 and value.histo.num == 1000
    assert value.histo.sum == pytest.approx(float(weights.sum()), rel=1e-4)
    assert value.histo.min == pytest.approx(float(weights.min()))


def test_image_from_a_chw_tensor(tmp_path):
    image = ember.rand(3, 8, 10)
    with SummaryWriter(tmp_path) as writer:
        writer.add_image("sample", image, 0)
    ((_, value),) = _summaries(tmp_path)
    assert (value.image.height, value.image.width, value.image.colorspace) == (8, 10, 3)
    assert value.image.encoded_image_string.startswith(b"\x89PNG")


def test_scalars_dict_of_tensors(tmp_path):
    with SummaryWriter(tmp_path) as writer:
        writer.add_scalars("run", {"train": ember.tensor(2.0), "test": ember.tensor(3.0)}, 1)
    # tensorboardX writes each series to its own subfolder
    found = {value.simple_value for folder in (tmp_path / "run").iterdir() for _, value in _summaries(folder)}
    assert found == {2.0, 3.0}


def test_graph_of_a_model(tmp_path):
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    with SummaryWriter(tmp_path) as writer:
        writer.add_graph(model, ember.randn(2, 3))
    graphs = [GraphDef.FromString(event.graph_def) for event in _events(tmp_path) if event.graph_def]
    nodes = {node.name: node for node in graphs[0].node}
    assert {"Sequential/0.weight", "Sequential/0.bias", "Sequential/2.weight", "input/0"} <= set(nodes)
    ops = sorted(node.op for node in nodes.values())
    assert ops.count("AddmmBackward0") == 2 and "ReluBackward0" in ops
    (relu,) = [node for node in nodes.values() if node.op == "ReluBackward0"]
    assert len(relu.input) == 1 and nodes[relu.input[0]].op == "AddmmBackward0"


def test_missing_tensorboardx_is_a_clear_import_error(monkeypatch):
    import importlib
    import sys

    monkeypatch.setitem(sys.modules, "tensorboardX", None)
    monkeypatch.delitem(sys.modules, "ember.utils.tensorboard")
    with pytest.raises(ImportError, match="pip install tensorboardX"):
        importlib.import_module("ember.utils.tensorboard")
