"""ember.load checks before it allocates: crafted sizes, compression and every field of the format;
and it reads arrays straight into their final memory."""

import copy
import io
import json
import tracemalloc
import zipfile

import numpy as np
import pytest

import ember


def _archive(structure, members, compression=zipfile.ZIP_STORED):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
        archive.writestr("ember/structure.json", structure if isinstance(structure, str) else json.dumps(structure))
        for name, payload in members.items():
            archive.writestr(name, payload)
    buffer.seek(0)
    return buffer


def _valid_structure():
    buffer = io.BytesIO()
    ember.save(
        {
            "w": ember.arange(6.0).reshape(2, 3),
            "a": np.arange(3, dtype=np.int16),
            "d": ember.float64,
            "s": ember.Size([2, 3]),
        },
        buffer,
    )
    with zipfile.ZipFile(buffer) as archive:
        structure = json.loads(archive.read("ember/structure.json"))
        members = {name: archive.read(name) for name in archive.namelist() if name.startswith("ember/data/")}
    return structure, members


def _tensor_node(structure):
    return structure["root"]["items"][0][1]


def test_the_valid_structure_loads():
    structure, members = _valid_structure()
    loaded = ember.load(_archive(structure, members))
    assert loaded["w"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and loaded["d"] is ember.float64


def test_a_member_that_inflates_far_beyond_its_shape_fails_fast_and_small():
    """A crafted 70 KB checkpoint whose member inflates to 64 MB: refused before inflating."""
    structure, _ = _valid_structure()
    bomb = _archive(
        structure, {"ember/data/0": b"\0" * (64 << 20), "ember/data/1": b"\0" * 6}, compression=zipfile.ZIP_DEFLATED
    )
    assert len(bomb.getvalue()) < 100_000
    tracemalloc.start()
    try:
        with pytest.raises(RuntimeError, match="array 0") as error:
            ember.load(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20, f"peak memory {peak} bytes while rejecting a 64 MB bomb"
    assert "corrupt" in str(error.value)


def test_a_compressed_member_of_the_right_size_is_refused_before_inflating():
    structure, members = _valid_structure()
    archive = _archive(structure, members, compression=zipfile.ZIP_DEFLATED)
    with pytest.raises(RuntimeError, match="compressed"):
        ember.load(archive)


def test_a_member_whose_declared_size_lies_is_refused():
    structure, members = _valid_structure()
    _tensor_node(structure)["shape"] = [1000, 1000, 1000]  # 4 GB declared, 24 bytes stored
    with pytest.raises(RuntimeError, match=r"array 0 has 24 bytes, expected 4000000000"):
        ember.load(_archive(structure, members))


def _mutated(change):
    structure, members = _valid_structure()
    change(structure)
    return _archive(structure, members)


def _set(field, value):
    return lambda structure: _tensor_node(structure).__setitem__(field, value)


@pytest.mark.parametrize(
    "change, field",
    [
        (_set("dtype", "<f3"), "dtype"),
        (_set("dtype", "|O"), "dtype"),
        (_set("dtype", ">f4"), "dtype"),
        (_set("dtype", "<u2"), "dtype"),  # uint16 is no tensor dtype of ember's
        (_set("dtype", 7), "dtype"),
        (_set("shape", [2.0, 3]), "shape"),
        (_set("shape", ["2", 3]), "shape"),
        (_set("shape", [True, 6]), "shape"),
        (_set("shape", [-2, -3]), "shape"),
        (_set("shape", "6"), "shape"),
        (_set("shape", None), "shape"),
        (_set("requires_grad", 1), "requires_grad"),
        (_set("requires_grad", "yes"), "requires_grad"),
        (_set("parameter", None), "parameter"),
        (_set("key", 0), "key"),
        (_set("key", "../0"), "key"),
        (_set("extra", 1), "extra"),
        (lambda s: _tensor_node(s).pop("requires_grad"), "requires_grad"),
        (lambda s: s.__setitem__("version", "1"), "version"),
        (lambda s: s.__setitem__("version", True), "version"),
        (lambda s: s.__setitem__("comment", "x"), "comment"),
        (lambda s: s["root"].__setitem__("class", "defaultdict"), "class"),
        (lambda s: s["root"]["items"].append(["w", 1]), "twice"),
        (lambda s: s["root"]["items"][3][1].__setitem__("items", [2.5, 3]), "size"),
        (lambda s: s["root"]["items"][2][1].__setitem__("name", "float128"), "name"),
        (lambda s: s["root"]["items"][1][1].__setitem__("dtype", "|O"), "dtype"),
    ],
)
def test_every_field_is_validated_and_named(change, field):
    with pytest.raises(RuntimeError, match="corrupt") as error:
        ember.load(_mutated(change))
    assert field in str(error.value), str(error.value)


def test_duplicate_json_fields_are_refused():
    structure, members = _valid_structure()
    text = json.dumps(structure).replace('"requires_grad": false', '"requires_grad": false, "requires_grad": true', 1)
    with pytest.raises(RuntimeError, match="'requires_grad' appears twice"):
        ember.load(_archive(text, members))


def test_one_member_cannot_be_read_into_many_arrays():
    """Many nodes naming one big member would multiply memory: each array member is read once."""
    structure, members = _valid_structure()
    array_node = structure["root"]["items"][1][1]
    structure["root"] = {"type": "list", "items": [copy.deepcopy(array_node) for _ in range(3)]}
    with pytest.raises(RuntimeError, match="referenced twice"):
        ember.load(_archive(structure, members))


def test_the_same_tensor_saved_twice_still_loads_as_one():
    shared = ember.ones(3)
    buffer = io.BytesIO()
    ember.save([shared, shared], buffer)
    buffer.seek(0)
    first, second = ember.load(buffer)
    assert first is second


def test_loading_allocates_about_the_checkpoint_size_once(tmp_path):
    path = tmp_path / "big.pt"
    size = 32 << 20
    ember.save({"w": ember.ones(size // 4)}, path)
    tracemalloc.start()
    try:
        loaded = ember.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert loaded["w"].shape == (size // 4,) and float(loaded["w"][-1]) == 1.0
    assert peak < 1.1 * size, f"peak {peak / size:.2f}x the data size (a second copy is being made)"


def test_loaded_arrays_are_writable_native_and_own_their_memory(tmp_path):
    ember.save({"w": ember.arange(4.0)}, tmp_path / "w.pt")
    weight = ember.load(tmp_path / "w.pt")["w"]
    weight.add_(1)
    assert weight.tolist() == [1.0, 2.0, 3.0, 4.0] and weight.numpy().dtype.isnative


def test_mmap_loads_copy_on_write(tmp_path):
    path = tmp_path / "m.pt"
    ember.save({"w": ember.arange(5.0)}, path)
    before = path.read_bytes()
    weight = ember.load(path, mmap=True)["w"]
    assert weight.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    weight.mul_(2)
    assert weight.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]
    assert path.read_bytes() == before, "writing to a memory-mapped tensor changed the file"


def test_a_flipped_byte_in_a_large_array_is_caught(tmp_path):
    """Large arrays are checked in a second thread: the error must still reach the caller."""
    path = tmp_path / "large.pt"
    ember.save({"a": ember.zeros(1 << 20), "b": ember.zeros(1 << 20)}, path)
    data = bytearray(path.read_bytes())
    data[len(data) // 4] ^= 0x01  # inside the first array's data
    path.write_bytes(bytes(data))
    with pytest.raises(RuntimeError, match="CRC"):
        ember.load(path)
