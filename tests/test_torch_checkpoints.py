"""ember.load reads torch.save files (zip and legacy formats) as PyTorch's weights_only=True does:
tensors, Parameters and containers come back with torch's values; nothing else is ever resolved."""

import os
import pickle
import zipfile

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def _torch_model():
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 2, 3), torch.nn.BatchNorm2d(2), torch.nn.Flatten(), torch.nn.Linear(8, 3)
    )


def _ember_model():
    return ember.nn.Sequential(
        ember.nn.Conv2d(1, 2, 3), ember.nn.BatchNorm2d(2), ember.nn.Flatten(), ember.nn.Linear(8, 3)
    )


@pytest.mark.parametrize("zip_format", [True, False], ids=["zip", "legacy"])
def test_a_torch_state_dict_loads_into_the_same_ember_model(tmp_path, zip_format):
    model = _torch_model()
    model(torch.randn(4, 1, 4, 4))  # batch norm's running statistics and counter move
    torch.save(model.state_dict(), tmp_path / "weights.pth", _use_new_zipfile_serialization=zip_format)
    state = ember.load(tmp_path / "weights.pth")
    assert list(state) == list(model.state_dict())
    for key, value in model.state_dict().items():
        assert state[key].dtype == getattr(ember, str(value.dtype).split(".")[1]), key
        np.testing.assert_array_equal(state[key].numpy(), value.numpy())
    assert state._metadata == model.state_dict()._metadata
    ours = _ember_model().eval()
    ours.load_state_dict(state)
    x = np.random.default_rng(0).standard_normal((2, 1, 4, 4)).astype(np.float32)
    expected = model.eval()(torch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(ours(ember.from_numpy(x)).detach().numpy(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("zip_format", [True, False], ids=["zip", "legacy"])
def test_views_strides_parameters_and_plain_values(tmp_path, zip_format):
    base = torch.arange(12.0).reshape(3, 4)
    saved = {
        "base": base,
        "row": base[1],  # shares base's storage at an offset
        "transposed": base.t(),
        "column": base[:, 2],
        "parameter": torch.nn.Parameter(torch.ones(2)),
        "frozen": torch.nn.Parameter(torch.ones(2), requires_grad=False),
        "long": torch.tensor([1, 2], dtype=torch.int64),
        "flags": torch.tensor([True, False]),
        "half": torch.tensor([0.5], dtype=torch.float16),
        "complex": torch.tensor([1 + 2j]),
        "scalar": torch.tensor(3.5, dtype=torch.float64),
        "empty": torch.zeros(0, 3),
        "meta": {"epoch": 3, "names": ["a", "b"], "dtype": torch.float16, "size": torch.Size([2, 3]), "b": b"xy"},
    }
    torch.save(saved, tmp_path / "mixed.pt", _use_new_zipfile_serialization=zip_format)
    loaded = ember.load(tmp_path / "mixed.pt")
    for key, value in saved.items():
        if isinstance(value, torch.Tensor):
            assert tuple(loaded[key].shape) == tuple(value.shape), key
            np.testing.assert_array_equal(loaded[key].detach().numpy(), value.detach().numpy())
            assert loaded[key].requires_grad == value.requires_grad, key
    assert isinstance(loaded["parameter"], ember.nn.Parameter) and isinstance(loaded["frozen"], ember.nn.Parameter)
    meta = loaded["meta"]
    assert meta["epoch"] == 3 and meta["names"] == ["a", "b"] and meta["b"] == b"xy"
    assert meta["dtype"] is ember.float16 and meta["size"] == ember.Size([2, 3])
    loaded["base"][1, 0] = -1.0  # views share memory as in PyTorch
    assert loaded["row"][0].item() == -1.0 and loaded["transposed"][0, 1].item() == -1.0


@pytest.mark.parametrize("zip_format", [True, False], ids=["zip", "legacy"])
def test_a_bfloat16_state_dict_loads_as_bfloat16(tmp_path, zip_format):
    pytest.importorskip("ml_dtypes")
    model = torch.nn.Linear(3, 2).to(torch.bfloat16)
    saved = {**model.state_dict(), "row": model.weight.detach()[1]}  # a view into the weight's storage
    torch.save(saved, tmp_path / "bf16.pt", _use_new_zipfile_serialization=zip_format)
    loaded = ember.load(tmp_path / "bf16.pt")
    for key, value in saved.items():
        assert loaded[key].dtype is ember.bfloat16, key
        assert loaded[key].tolist() == value.tolist(), key
    layer = ember.nn.Linear(3, 2).to(ember.bfloat16)
    layer.load_state_dict({key: loaded[key] for key in ("weight", "bias")})
    x = [[0.5, -1.25, 2.0]]
    assert (
        layer(ember.tensor(x, dtype=ember.bfloat16)).tolist() == model(torch.tensor(x, dtype=torch.bfloat16)).tolist()
    )


def test_bfloat16_widens_to_float32_with_a_warning_without_ml_dtypes(tmp_path, monkeypatch):
    monkeypatch.setattr(ember._dtype, "ml_dtypes_available", lambda: False)
    values = torch.tensor([1.5, -2.25, 3e38], dtype=torch.bfloat16)
    torch.save({"w": values}, tmp_path / "bf16.pt")
    with pytest.warns(UserWarning, match="bfloat16.*float32.*pip install ml_dtypes"):
        loaded = ember.load(tmp_path / "bf16.pt")
    assert loaded["w"].dtype is ember.float32
    np.testing.assert_array_equal(loaded["w"].numpy(), values.float().numpy())
    torch.save({"w": values}, tmp_path / "legacy.pt", _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError, match="legacy format.*pip install ml_dtypes"):
        ember.load(tmp_path / "legacy.pt")


def test_a_whole_torch_model_is_refused_naming_the_class(tmp_path):
    torch.save(torch.nn.Linear(2, 2), tmp_path / "whole.pt")
    with pytest.raises(pickle.UnpicklingError, match="torch.nn.modules.linear.Linear.*state_dict"):
        ember.load(tmp_path / "whole.pt")
    with pytest.raises(pickle.UnpicklingError):  # as in PyTorch's own default
        torch.load(tmp_path / "whole.pt")


def test_map_location_applies_to_torch_checkpoints(tmp_path):
    torch.save({"w": torch.ones(2)}, tmp_path / "w.pt")
    seen = []
    loaded = ember.load(tmp_path / "w.pt", map_location=lambda tensor, location: seen.append(location))
    assert seen == ["cpu"] and loaded["w"].tolist() == [1.0, 1.0]

    def failing(tensor, location):
        raise KeyError("the caller's own error")

    with pytest.raises(KeyError, match="caller's own"):
        ember.load(tmp_path / "w.pt", map_location=failing)


def test_damaged_torch_checkpoints_are_clear_errors(tmp_path):
    torch.save({"w": torch.arange(1000.0)}, tmp_path / "w.pt")
    data = (tmp_path / "w.pt").read_bytes()
    with zipfile.ZipFile(tmp_path / "w.pt") as archive:
        member = next(info for info in archive.infolist() if info.filename.endswith("data/0"))
    flipped = bytearray(data)
    flipped[member.header_offset + 200] ^= 0xFF  # inside the tensor's bytes (after the local header)
    (tmp_path / "flipped.pt").write_bytes(bytes(flipped))
    with pytest.raises(RuntimeError, match="damaged|corrupt|CRC"):
        ember.load(tmp_path / "flipped.pt")
    torch.save({"w": torch.arange(1000.0)}, tmp_path / "legacy.pt", _use_new_zipfile_serialization=False)
    (tmp_path / "cut.pt").write_bytes((tmp_path / "legacy.pt").read_bytes()[:-100])
    with pytest.raises(RuntimeError, match="truncated"):
        ember.load(tmp_path / "cut.pt")


def test_a_legacy_stream_cannot_reach_other_globals(tmp_path):
    class Exploit:
        def __reduce__(self):
            return (os.system, ("touch /tmp/ember_pwned_legacy",))

    torch.save({"w": torch.ones(1)}, tmp_path / "legacy.pt", _use_new_zipfile_serialization=False)
    header = b"".join(
        pickle.dumps(part, protocol=2) for part in (0x1950A86A20F9469CFC6C, 1001, {"little_endian": True})
    )
    (tmp_path / "evil.pt").write_bytes(header + pickle.dumps(Exploit(), protocol=2))
    with pytest.raises(pickle.UnpicklingError, match="system"):
        ember.load(tmp_path / "evil.pt")
    assert not os.path.exists("/tmp/ember_pwned_legacy")
