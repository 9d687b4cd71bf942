"""ember.datasets: the MNIST IDX reader on the real test-set files, and download's checksum check."""

import gzip
import hashlib
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import ember
from ember.datasets import MNIST, FashionMNIST, read_idx
from ember.utils.data import DataLoader

MNIST_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "mnist"
needs_mnist = pytest.mark.skipif(
    not (MNIST_DIR / "t10k-images-idx3-ubyte.gz").exists(), reason=f"MNIST test files not found in {MNIST_DIR}"
)


@needs_mnist
def test_mnist_test_split_matches_the_published_facts():
    dataset = MNIST(MNIST_DIR, train=False)
    assert len(dataset) == 10000
    assert dataset.data.shape == (10000, 28, 28) and dataset.data.dtype is ember.uint8
    assert dataset.targets.dtype is ember.int64
    # The first test labels and the class balance are well known (e.g. 980 zeros, 1135 ones).
    assert dataset.targets[:10].tolist() == [7, 2, 1, 0, 4, 1, 4, 9, 5, 9]
    counts = np.bincount(dataset.targets.numpy(), minlength=10).tolist()
    assert counts == [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009]
    assert int(dataset.data.numpy().max()) == 255 and int(dataset.data.numpy().min()) == 0


@needs_mnist
def test_mnist_sample_is_what_to_tensor_gives():
    dataset = MNIST(MNIST_DIR, train=False)
    image, label = dataset[0]
    assert image.shape == (1, 28, 28) and image.dtype is ember.float32 and label == 7 and type(label) is int
    np.testing.assert_array_equal(image.numpy()[0], dataset.data.numpy()[0].astype(np.float32) / 255)


@needs_mnist
def test_mnist_transforms_and_loader():
    dataset = MNIST(
        MNIST_DIR,
        train=False,
        transform=lambda image: (image - 0.1307) / 0.3081,
        target_transform=lambda label: label + 100,
    )
    images, labels = next(iter(DataLoader(dataset, batch_size=16)))
    assert images.shape == (16, 1, 28, 28) and images.dtype is ember.float32
    assert labels.dtype is ember.int64 and labels[:3].tolist() == [107, 102, 101]
    assert float(images.min()) == pytest.approx(-0.1307 / 0.3081)


@needs_mnist
def test_torchvision_layout_and_uncompressed_files(tmp_path):
    raw = tmp_path / "MNIST" / "raw"
    raw.mkdir(parents=True)
    for name in ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"):
        with gzip.open(MNIST_DIR / f"{name}.gz", "rb") as source, open(raw / name, "wb") as target:
            shutil.copyfileobj(source, target)
    dataset = MNIST(tmp_path, train=False)
    assert len(dataset) == 10000 and dataset[1][1] == 2


def test_missing_files_say_where_they_were_looked_for_and_how_to_get_them(tmp_path):
    with pytest.raises(RuntimeError) as error:
        MNIST(tmp_path, train=True)
    message = str(error.value)
    assert "train-images-idx3-ubyte.gz not found" in message
    assert str(tmp_path / "MNIST" / "raw" / "train-images-idx3-ubyte.gz") in message
    assert str(tmp_path / "train-images-idx3-ubyte") in message
    assert "download=True" in message and "https://" in message


def _idx_bytes(array, type_code):
    header = bytes([0, 0, type_code, array.ndim]) + np.array(array.shape, dtype=">i4").tobytes()
    return header + array.astype(array.dtype.newbyteorder(">")).tobytes()


def test_read_idx_types_and_errors(tmp_path):
    values = np.arange(12, dtype=np.int32).reshape(3, 4) - 5
    (tmp_path / "a.idx").write_bytes(_idx_bytes(values, 0x0C))
    np.testing.assert_array_equal(read_idx(tmp_path / "a.idx"), values)
    floats = np.linspace(0, 1, 5).astype(np.float32)
    with gzip.open(tmp_path / "b.idx.gz", "wb") as file:
        file.write(_idx_bytes(floats, 0x0D))
    np.testing.assert_array_equal(read_idx(str(tmp_path / "b.idx.gz")), floats)
    (tmp_path / "short.idx").write_bytes(_idx_bytes(values, 0x0C)[:-3])
    with pytest.raises(RuntimeError, match="truncated"):
        read_idx(tmp_path / "short.idx")
    (tmp_path / "junk.idx").write_bytes(b"hello world")
    with pytest.raises(RuntimeError, match="not an IDX file"):
        read_idx(tmp_path / "junk.idx")
    (tmp_path / "broken.gz").write_bytes(b"\x1f\x8b\x08\x00garbage")
    with pytest.raises(RuntimeError, match="could not read"):
        read_idx(str(tmp_path / "broken.gz"))


def _local_mirror(tmp_path, files):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    for name, payload in files.items():
        (mirror / name).write_bytes(payload)
    return mirror.as_uri() + "/"


def _fake_split(count=5):
    images = np.random.default_rng(0).integers(0, 256, (count, 28, 28)).astype(np.uint8)
    labels = np.arange(count, dtype=np.uint8) % 10
    return {
        "t10k-images-idx3-ubyte.gz": gzip.compress(_idx_bytes(images, 0x08)),
        "t10k-labels-idx1-ubyte.gz": gzip.compress(_idx_bytes(labels, 0x08)),
    }


def test_download_fetches_and_checks_md5(tmp_path, monkeypatch):
    files = _fake_split()
    monkeypatch.setattr(FashionMNIST, "mirrors", [_local_mirror(tmp_path, files)])
    monkeypatch.setattr(
        FashionMNIST, "resources", [(name, hashlib.md5(payload).hexdigest()) for name, payload in files.items()]
    )
    dataset = FashionMNIST(tmp_path / "root", train=False, download=True)
    assert len(dataset) == 5 and dataset.targets.tolist() == [0, 1, 2, 3, 4]
    assert sorted(os.listdir(tmp_path / "root" / "FashionMNIST" / "raw")) == sorted(files)


def test_download_refuses_a_file_with_the_wrong_checksum(tmp_path, monkeypatch):
    files = _fake_split()
    monkeypatch.setattr(MNIST, "mirrors", [_local_mirror(tmp_path, files)])
    with pytest.raises(RuntimeError, match="MD5 .* does not match the expected 9fb629c4189551a2d022fa330f9573f3"):
        MNIST(tmp_path / "root", train=False, download=True)
    assert not (tmp_path / "root").exists()  # no partial or unverified file, not even the empty folders


def test_download_reports_unreachable_mirrors(tmp_path, monkeypatch):
    monkeypatch.setattr(MNIST, "mirrors", [(tmp_path / "nowhere").as_uri() + "/"])
    with pytest.raises(RuntimeError, match="could not download t10k-images-idx3-ubyte.gz"):
        MNIST(tmp_path / "root", train=False, download=True)
