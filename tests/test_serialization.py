"""ember.save / ember.load: round trips, atomic writes, corruption detection, and no code execution."""

import io
import os
import pickle
import sys
import zipfile
from collections import Counter, OrderedDict

import numpy as np
import pytest

import ember
from ember import serialization


def _assert_same(loaded, original):
    """Structural equality: same container types, same tensor dtypes/shapes/values."""
    assert type(loaded) is type(original) or (isinstance(original, ember.Tensor) and isinstance(loaded, ember.Tensor))
    if isinstance(original, ember.Tensor):
        assert loaded.dtype is original.dtype and loaded.shape == original.shape
        assert loaded.requires_grad == original.requires_grad
        np.testing.assert_array_equal(loaded.detach().numpy(), original.detach().numpy())
    elif isinstance(original, dict):
        assert list(loaded) == list(original)
        for key in original:
            _assert_same(loaded[key], original[key])
    elif isinstance(original, (list, tuple)):
        assert len(loaded) == len(original)
        for a, b in zip(loaded, original):
            _assert_same(a, b)
    elif isinstance(original, np.ndarray):
        assert loaded.dtype == original.dtype
        np.testing.assert_array_equal(loaded, original)
    else:
        assert loaded == original or (loaded != loaded and original != original)  # NaN


@pytest.mark.parametrize(
    "dtype",
    ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool", "complex64", "complex128"],
)
def test_tensor_round_trip_every_dtype(tmp_path, dtype):
    array = (np.arange(24).reshape(2, 3, 4) % 7 - 3).astype(dtype)
    tensor = ember.tensor(array)
    ember.save(tensor, tmp_path / "t.pt")
    _assert_same(ember.load(tmp_path / "t.pt"), tensor)


def test_nested_structures_round_trip(tmp_path):
    original = {
        "weights": OrderedDict([("fc.weight", ember.randn(3, 4)), ("fc.bias", ember.zeros(3))]),
        "grad_leaf": ember.ones(2, requires_grad=True),
        "scalar": ember.tensor(3.5),
        "empty": ember.zeros(0, 5),
        "non_contiguous": ember.arange(12.0).reshape(3, 4).t(),
        "numbers": [1, -2, 3.25, float("inf"), float("nan"), True, False, None, "text", "ünïcode"],
        "tuple": (1, (2.0, "three")),
        5: "int key",
        (1, 2): "tuple key",
        2.5: [],
        "counter": Counter({3: 2, 7: 1}),
        "dtype": ember.float64,
        "size": ember.Size([2, 3]),
        "array": np.arange(6, dtype=np.int16).reshape(2, 3),
        "bytes": b"\x00\xffabc",
        "np_scalar": np.float32(1.5),
    }
    ember.save(original, tmp_path / "nested.pt")
    loaded = ember.load(tmp_path / "nested.pt")
    expected = dict(original, np_scalar=1.5)
    _assert_same(loaded, expected)
    assert loaded["dtype"] is ember.float64 and isinstance(loaded["size"], ember.Size)
    assert isinstance(loaded["counter"], Counter) and isinstance(loaded["weights"], OrderedDict)


def test_same_tensor_saved_twice_loads_as_one_object(tmp_path):
    shared = ember.ones(3)
    ember.save({"a": shared, "b": shared, "c": ember.ones(3)}, tmp_path / "s.pt")
    loaded = ember.load(tmp_path / "s.pt")
    assert loaded["a"] is loaded["b"] and loaded["a"] is not loaded["c"]


def test_file_objects_and_path_strings(tmp_path):
    buffer = io.BytesIO()
    ember.save([ember.arange(3)], buffer)
    buffer.seek(0)
    assert ember.load(buffer)[0].tolist() == [0, 1, 2]
    ember.save({"x": 1}, str(tmp_path / "p.pt"))
    assert ember.load(str(tmp_path / "p.pt")) == {"x": 1}


def test_module_state_dict_and_optimizer_round_trip(tmp_path):
    nn = pytest.importorskip("ember.nn")
    if not hasattr(nn, "Linear"):
        pytest.skip("ember.nn.Linear not available yet")
    model = nn.Linear(4, 2)
    optimizer = ember.optim.Adam(model.parameters(), lr=0.01)
    model(ember.randn(5, 4)).sum().backward()
    optimizer.step()
    ember.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": 3}, tmp_path / "ck.pt")
    checkpoint = ember.load(tmp_path / "ck.pt", map_location="cpu", weights_only=True)
    restored = nn.Linear(4, 2)
    restored.load_state_dict(checkpoint["model"])
    np.testing.assert_array_equal(restored.weight.detach().numpy(), model.weight.detach().numpy())
    restored_optimizer = ember.optim.Adam(restored.parameters(), lr=0.01)
    restored_optimizer.load_state_dict(checkpoint["optimizer"])
    assert float(restored_optimizer.state[restored.weight]["step"]) == 1.0


def test_parameters_come_back_as_parameters_when_nn_is_available(tmp_path):
    nn = pytest.importorskip("ember.nn")
    if not hasattr(nn, "Parameter"):
        pytest.skip("ember.nn.Parameter not available yet")
    ember.save({"p": nn.Parameter(ember.ones(2))}, tmp_path / "p.pt")
    loaded = ember.load(tmp_path / "p.pt")["p"]
    assert isinstance(loaded, nn.Parameter) and loaded.requires_grad


def test_unsupported_objects_are_refused_at_save_with_pickles_exception_class(tmp_path):
    class Custom:
        pass

    # pickle's class, as PyTorch lets it through: AttributeError for a local class, TypeError for a file
    with pytest.raises(AttributeError, match="cannot store an object of type .*Custom.*pickling it failed"):
        ember.save({"x": Custom()}, tmp_path / "x.pt")
    assert not (tmp_path / "x.pt").exists()
    with open(tmp_path / "file.txt", "w") as handle, pytest.raises(TypeError, match="state_dict"):
        ember.save({"x": handle}, tmp_path / "x.pt")
    with pytest.raises(TypeError, match="dtype object"):
        ember.save(np.array([object()]), tmp_path / "y.pt")


def test_crash_mid_write_keeps_the_old_checkpoint_and_leaves_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "model.pt"
    ember.save({"version": 1, "w": ember.ones(1000)}, path)
    before = path.read_bytes()
    real_write = serialization._write_archive

    def crash_half_way(file, obj):
        real_write(file, obj)
        file.truncate(file.tell() // 2)  # half of the new archive is on disk when the "power fails"
        raise KeyboardInterrupt("simulated crash")

    monkeypatch.setattr(serialization, "_write_archive", crash_half_way)
    with pytest.raises(KeyboardInterrupt):
        ember.save({"version": 2, "w": ember.zeros(1000)}, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["model.pt"]
    assert ember.load(path)["version"] == 1


def test_saved_file_keeps_normal_permissions(tmp_path):
    ember.save(1, tmp_path / "a.pt")
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "a.pt").stat().st_mode & 0o777 == 0o666 & ~umask


def _checkpoint_bytes():
    buffer = io.BytesIO()
    ember.save({"weight": ember.arange(256, dtype=ember.float32), "step": 7}, buffer)
    return buffer.getvalue()


@pytest.mark.parametrize("keep", [0.05, 0.5, 0.9, 0.999])
def test_truncated_file_is_a_clear_error(tmp_path, keep):
    data = _checkpoint_bytes()
    (tmp_path / "cut.pt").write_bytes(data[: int(len(data) * keep)])
    with pytest.raises(RuntimeError, match="cut.pt.* (truncated|corrupt)"):
        ember.load(tmp_path / "cut.pt")


def test_every_flipped_byte_is_detected_or_harmless(tmp_path):
    """Flip each byte of a small checkpoint: loading either fails with RuntimeError or gives the exact
    original values (a byte in zip metadata that nothing reads) — never different weights."""
    data = _checkpoint_bytes()
    expected = np.arange(256, dtype=np.float32)
    detected = 0
    for position in range(len(data)):
        damaged = bytearray(data)
        damaged[position] ^= 0x5A
        try:
            loaded = ember.load(io.BytesIO(bytes(damaged)))
        except RuntimeError as error:
            assert "ember.load" in str(error)
            detected += 1
            continue
        np.testing.assert_array_equal(loaded["weight"].numpy(), expected, err_msg=f"byte {position} flipped")
        assert loaded["step"] == 7
    assert detected > len(data) * 0.9


def test_empty_and_foreign_files(tmp_path):
    (tmp_path / "empty.pt").write_bytes(b"")
    with pytest.raises(RuntimeError, match="is empty"):
        ember.load(tmp_path / "empty.pt")
    (tmp_path / "text.pt").write_text("hello")
    with pytest.raises(RuntimeError, match="not an ember checkpoint"):
        ember.load(tmp_path / "text.pt")
    with zipfile.ZipFile(tmp_path / "other.zip", "w") as archive:
        archive.writestr("readme.txt", "hi")
    with pytest.raises(RuntimeError, match="not an ember checkpoint"):
        ember.load(tmp_path / "other.zip")


class _Exploit:
    """Unpickling this would run code: loading must never unpickle."""

    def __reduce__(self):
        return (os.system, ("touch /tmp/ember_pwned_marker",))


def test_pickle_files_are_refused_without_running_code(tmp_path):
    marker = "/tmp/ember_pwned_marker"
    if os.path.exists(marker):
        os.remove(marker)
    (tmp_path / "evil.pt").write_bytes(pickle.dumps(_Exploit(), protocol=2))
    with pytest.raises(pickle.UnpicklingError, match="weights only load failed.*system"):
        ember.load(tmp_path / "evil.pt")
    with zipfile.ZipFile(tmp_path / "evil_zip.pt", "w") as archive:  # torch.save's layout, with a payload
        archive.writestr("archive/data.pkl", pickle.dumps(_Exploit()))
    with pytest.raises(pickle.UnpicklingError, match="weights only load failed"):
        ember.load(tmp_path / "evil_zip.pt")
    assert not os.path.exists(marker)


def test_a_plain_pickle_is_not_a_checkpoint(tmp_path):
    (tmp_path / "numbers.pkl").write_bytes(pickle.dumps([1, 2], protocol=2))
    with pytest.raises(RuntimeError, match="a pickle file, not a checkpoint"):
        ember.load(tmp_path / "numbers.pkl")


def test_npz_files_load_as_dicts_of_tensors(tmp_path, torch):
    """The documented bridge from PyTorch: numpy.savez of a state_dict."""
    state = {"w": torch.arange(6.0).reshape(2, 3), "b": torch.zeros(2, dtype=torch.int64)}
    np.savez(tmp_path / "w.npz", **{key: value.numpy() for key, value in state.items()})
    loaded = ember.load(tmp_path / "w.npz")
    assert loaded["w"].tolist() == state["w"].tolist() and loaded["b"].dtype is ember.int64


def test_crafted_structure_cannot_reach_arbitrary_objects(tmp_path):
    """A hand-written structure naming an unknown node type or an object dtype is refused."""
    for root in (
        {"type": "object", "module": "os", "name": "system"},
        {"type": "ndarray", "key": "0", "dtype": "|O", "shape": [1]},
    ):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr(
                "ember/structure.json", __import__("json").dumps({"format": "ember.save", "version": 1, "root": root})
            )
            archive.writestr("ember/data/0", b"\x00" * 8)
        buffer.seek(0)
        with pytest.raises(RuntimeError, match="corrupt"):
            ember.load(buffer)


def test_map_location_options(tmp_path):
    ember.save({"w": ember.ones(2)}, tmp_path / "m.pt")
    for location in ("cpu", ember.device("cpu"), {"cuda:0": "cpu"}, lambda storage, location: storage):
        assert ember.load(tmp_path / "m.pt", map_location=location)["w"].tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="cuda"):
        ember.load(tmp_path / "m.pt", map_location="cuda:0")


def test_map_location_errors_are_not_reported_as_corruption(tmp_path):
    ember.save({"w": ember.ones(2)}, tmp_path / "m.pt")
    with pytest.raises(RuntimeError, match="deserialize object on a CUDA device") as error:
        ember.load(tmp_path / "m.pt", map_location="cuda")
    assert "corrupt" not in str(error.value)

    def refuse(storage, location):
        raise KeyError("mine")

    with pytest.raises(KeyError, match="mine"):
        ember.load(tmp_path / "m.pt", map_location=refuse)


class _Model(ember.nn.Module):
    """A module saved whole (`torch.save(model, path)`), as tutorials do."""

    def __init__(self):
        super().__init__()
        self.linear = ember.nn.Linear(3, 2)
        self.register_buffer("steps", ember.zeros(1))
        self.table = np.arange(4)

    def forward(self, x):
        return self.linear(x) + self.steps


def test_whole_objects_load_only_when_the_caller_trusts_the_file(tmp_path):
    model = _Model()
    ember.save({"model": model, "epoch": 3}, tmp_path / "whole.pt")
    with zipfile.ZipFile(tmp_path / "whole.pt") as archive:
        pickled = [name for name in archive.namelist() if name.startswith("ember/objects/")]
        assert len(pickled) == 1 and b"linear" in archive.read(pickled[0])
        weight_bytes = model.linear.weight.detach().numpy().tobytes()
        assert weight_bytes not in archive.read(pickled[0])  # tensors stay raw arrays, outside the pickle
    with pytest.raises(pickle.UnpicklingError, match="_Model.*weights_only=False"):
        ember.load(tmp_path / "whole.pt")
    loaded = ember.load(tmp_path / "whole.pt", weights_only=False)
    assert loaded["epoch"] == 3 and type(loaded["model"]) is _Model
    again = loaded["model"]
    assert isinstance(again.linear.weight, ember.nn.Parameter) and again.linear.weight.requires_grad
    assert list(dict(again.named_parameters())) == ["linear.weight", "linear.bias"]
    np.testing.assert_array_equal(again.linear.weight.detach().numpy(), model.linear.weight.detach().numpy())
    np.testing.assert_array_equal(again.table, model.table)
    x = ember.ones(4, 3)
    np.testing.assert_array_equal(again(x).detach().numpy(), model(x).detach().numpy())


def test_state_dicts_stay_pickle_free(tmp_path):
    ember.save(_Model().state_dict(), tmp_path / "state.pt")
    with zipfile.ZipFile(tmp_path / "state.pt") as archive:
        assert not any(name.startswith("ember/objects/") for name in archive.namelist())
        assert b'"version": 1' in archive.read("ember/structure.json")
    assert set(ember.load(tmp_path / "state.pt")) == {"linear.weight", "linear.bias", "steps"}


def test_a_class_the_program_no_longer_has_is_the_unpicklers_error(tmp_path, monkeypatch):
    ember.save(_Model(), tmp_path / "whole.pt")
    monkeypatch.delattr(sys.modules[__name__], "_Model")
    with pytest.raises(AttributeError, match="_Model"):
        ember.load(tmp_path / "whole.pt", weights_only=False)


def test_torch_refuses_whole_models_by_default_as_ember_does(tmp_path, torch):
    torch.save(torch.nn.Linear(2, 2), tmp_path / "torch_whole.pt")
    with pytest.raises(pickle.UnpicklingError):
        torch.load(tmp_path / "torch_whole.pt")
    assert isinstance(torch.load(tmp_path / "torch_whole.pt", weights_only=False), torch.nn.Linear)


def test_whole_models_load_by_default_once_their_classes_are_named_safe(tmp_path):
    """PyTorch's allow-list: `safe_globals([...])` around one load, or `add_safe_globals` for the process."""
    from ember.serialization import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals

    model = _Model()
    model.kind, model.where, model.shape = ember.float64, ember.device("cpu"), ember.Size([2, 3])
    ember.save(model, tmp_path / "whole.pt")
    with pytest.raises(pickle.UnpicklingError, match="_Model.*add_safe_globals"):
        ember.load(tmp_path / "whole.pt")
    with safe_globals([_Model]):
        assert get_safe_globals() == [_Model]
        with pytest.raises(
            pickle.UnpicklingError, match=r"global ember\.nn\.modules\.linear\.Linear, which is not trusted"
        ):
            ember.load(tmp_path / "whole.pt")
    assert get_safe_globals() == []
    with safe_globals([_Model, ember.nn.Linear]):
        loaded = ember.load(tmp_path / "whole.pt")
    # dtypes, devices and sizes need no naming, as in PyTorch
    assert (loaded.kind, loaded.where, loaded.shape) == (ember.float64, ember.device("cpu"), (2, 3))
    np.testing.assert_array_equal(loaded.linear.weight.detach().numpy(), model.linear.weight.detach().numpy())
    with pytest.raises(pickle.UnpicklingError):
        ember.load(tmp_path / "whole.pt")  # the block's trust ended with it
    add_safe_globals([_Model, (ember.nn.Linear, "ember.nn.modules.linear.Linear")])
    try:
        assert type(ember.load(tmp_path / "whole.pt").linear) is ember.nn.Linear
    finally:
        clear_safe_globals()
    assert get_safe_globals() == []
    with pytest.raises(ValueError, match="module.name"):
        add_safe_globals([(ember.nn.Linear, "a", "b")])


def test_torch_has_the_same_allow_list_functions(tmp_path, torch):
    torch.save(torch.nn.Linear(2, 2), tmp_path / "torch_whole.pt")
    with torch.serialization.safe_globals([torch.nn.Linear]):
        assert torch.nn.Linear in torch.serialization.get_safe_globals()
        assert isinstance(torch.load(tmp_path / "torch_whole.pt"), torch.nn.Linear)
    assert torch.nn.Linear not in torch.serialization.get_safe_globals()
