"""ember.vision.datasets on small files the tests write: IDX, CIFAR batches, image folders, .mat files."""

import gzip
import hashlib
import io
import os
import pickle
import tarfile
import urllib.error
import zipfile
from pathlib import Path

import numpy as np
import pytest

import ember
from ember.utils.data import DataLoader
from ember.vision import datasets, transforms
from ember.vision.datasets import utils as dataset_utils

Image = pytest.importorskip("PIL.Image")

MNIST_DIR = next(
    (
        path
        for path in (
            Path(__file__).resolve().parents[2].parent / "shared" / "data" / "mnist",
            Path("/work/shared/data/mnist"),
        )
        if path.is_dir()
    ),
    Path("no-mnist-here"),
)


def idx_bytes(array):
    type_code = {np.uint8: 0x08, np.int32: 0x0C}[array.dtype.type]
    header = bytes([0, 0, type_code, array.ndim]) + np.array(array.shape, dtype=">i4").tobytes()
    return header + array.astype(array.dtype.newbyteorder(">")).tobytes()


def write_mnist(folder, prefix="t10k", count=7, compress=False, seed=0):
    rng = np.random.default_rng(seed)
    images = rng.integers(0, 256, (count, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, count).astype(np.uint8)
    folder.mkdir(parents=True, exist_ok=True)
    for kind, array, rank in (("images", images, 3), ("labels", labels, 1)):
        name = f"{prefix}-{kind}-idx{rank}-ubyte"
        data = idx_bytes(array)
        if compress:
            (folder / f"{name}.gz").write_bytes(gzip.compress(data))
        else:
            (folder / name).write_bytes(data)
    return images, labels


# ---------------------------------------------------------------- MNIST family
@pytest.mark.parametrize("compress", [False, True])
def test_mnist_reads_torchvisions_layout(tmp_path, compress):
    images, labels = write_mnist(tmp_path / "MNIST" / "raw", compress=compress)
    dataset = datasets.MNIST(tmp_path, train=False)
    assert len(dataset) == 7 and dataset.data.dtype is ember.uint8 and dataset.data.shape == (7, 28, 28)
    assert dataset.targets.dtype is ember.int64 and dataset.targets.tolist() == labels.tolist()
    image, label = dataset[3]
    assert isinstance(image, Image.Image) and image.mode == "L" and image.size == (28, 28)
    assert np.array_equal(np.asarray(image), images[3]) and label == labels[3] and type(label) is int
    assert dataset.class_to_idx["3 - three"] == 3 and dataset.raw_folder == str(tmp_path / "MNIST" / "raw")


def test_mnist_with_to_tensor_and_loader(tmp_path):
    images, labels = write_mnist(tmp_path / "MNIST" / "raw", prefix="train", count=10)
    pipeline = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    dataset = datasets.MNIST(str(tmp_path), train=True, transform=pipeline, target_transform=lambda y: y + 100)
    batch, targets = next(iter(DataLoader(dataset, batch_size=4)))
    assert batch.shape == (4, 1, 28, 28) and batch.dtype is ember.float32
    np.testing.assert_allclose(batch.numpy()[:, 0], (images[:4] / 255.0 - 0.1307) / 0.3081, rtol=1e-5, atol=1e-5)
    assert targets.tolist() == (labels[:4].astype(int) + 100).tolist()
    text = repr(dataset)
    assert (
        text.startswith("Dataset MNIST\n    Number of datapoints: 10\n    Root location: ") and "Split: Train" in text
    )
    assert "Transform: Compose(" in text and "Target transform:" in text


def test_dataset_repr_is_torchvisions_text(tmp_path):
    """torchvision indents the transforms' first line only; tutorials print the dataset, so the text counts."""
    write_mnist(tmp_path / "FashionMNIST" / "raw", prefix="train", count=3)
    pipeline = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])
    dataset = datasets.FashionMNIST(str(tmp_path), train=True, transform=pipeline)
    dataset.root = "data"  # a fixed folder name for the expected text
    assert repr(dataset) == (
        "Dataset FashionMNIST\n"
        "    Number of datapoints: 3\n"
        "    Root location: data\n"
        "    Split: Train\n"
        "    StandardTransform\n"
        "Transform: Compose(\n"
        "               ToTensor()\n"
        "               Normalize(mean=(0.5,), std=(0.5,))\n"
        "           )"
    )


@pytest.mark.parametrize("dataset_class", [datasets.FashionMNIST, datasets.KMNIST])
def test_mnist_variants_use_their_own_folder(tmp_path, dataset_class):
    write_mnist(tmp_path / dataset_class.__name__ / "raw")
    dataset = dataset_class(tmp_path, train=False)
    assert len(dataset) == 7 and len(dataset.classes) == 10
    with pytest.raises(RuntimeError, match="not found"):
        datasets.MNIST(tmp_path, train=False)


def test_emnist_split_files(tmp_path):
    raw = tmp_path / "EMNIST" / "raw"
    raw.mkdir(parents=True)
    images = np.zeros((3, 28, 28), dtype=np.uint8)
    (raw / "emnist-letters-test-images-idx3-ubyte").write_bytes(idx_bytes(images))
    (raw / "emnist-letters-test-labels-idx1-ubyte").write_bytes(idx_bytes(np.array([1, 2, 26], dtype=np.uint8)))
    dataset = datasets.EMNIST(tmp_path, split="letters", train=False)
    assert dataset.targets.tolist() == [1, 2, 26] and dataset.classes[26] == "z"
    with pytest.raises(ValueError, match="split"):
        datasets.EMNIST(tmp_path, split="cursive")


def test_mnist_damaged_and_missing_files_are_named(tmp_path):
    raw = tmp_path / "MNIST" / "raw"
    write_mnist(raw)
    truncated = raw / "t10k-images-idx3-ubyte"
    truncated.write_bytes(truncated.read_bytes()[:-10])
    with pytest.raises(RuntimeError, match="t10k-images-idx3-ubyte.*truncated"):
        datasets.MNIST(tmp_path, train=False)
    with pytest.raises(RuntimeError, match="train-images-idx3-ubyte.gz not found") as error:
        datasets.MNIST(tmp_path / "elsewhere", train=True)
    assert "download=True" in str(error.value)


def offline(*args, **kwargs):
    raise urllib.error.URLError("no network (test)")


def test_download_offline_names_the_urls_and_the_folder_and_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr("urllib.request.urlretrieve", offline)
    monkeypatch.setattr("urllib.request.urlopen", offline)
    with pytest.raises(RuntimeError) as error:
        datasets.MNIST(tmp_path, train=False, download=True)
    message = str(error.value)
    assert "t10k-images-idx3-ubyte.gz" in message and "https://" in message
    assert str(tmp_path / "MNIST" / "raw") in message
    assert [path for path in tmp_path.rglob("*") if path.is_file()] == []
    with pytest.raises(RuntimeError) as error:
        datasets.CIFAR10(tmp_path, download=True)
    assert "cifar-10-python.tar.gz" in str(error.value) and str(tmp_path) in str(error.value)
    assert [path for path in tmp_path.rglob("*") if path.is_file()] == []


@pytest.mark.skipif(not (MNIST_DIR / "t10k-images-idx3-ubyte.gz").exists(), reason=f"no MNIST files in {MNIST_DIR}")
def test_mnist_real_test_split():
    dataset = datasets.MNIST(MNIST_DIR, train=False, transform=transforms.ToTensor())
    image, label = dataset[0]
    assert len(dataset) == 10000 and label == 7 and image.shape == (1, 28, 28)
    np.testing.assert_allclose(image.numpy()[0], dataset.data.numpy()[0] / 255.0, rtol=1e-6)


# ---------------------------------------------------------------- downloads
class FakeResponse(io.BytesIO):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def serve(monkeypatch, files):
    """urlopen answers from `files` {url: bytes}."""

    def urlopen(request, timeout=None):
        url = request.full_url if hasattr(request, "full_url") else request
        if url not in files:
            raise urllib.error.URLError(f"{url} not served")
        return FakeResponse(files[url])

    monkeypatch.setattr("urllib.request.urlopen", urlopen)


def test_download_url_checks_md5_and_writes_atomically(tmp_path, monkeypatch):
    payload = b"some dataset bytes"
    serve(monkeypatch, {"https://example.org/data.bin": payload})
    with pytest.raises(RuntimeError, match="MD5"):
        dataset_utils.download_url("https://example.org/data.bin", tmp_path, md5="0" * 32)
    assert list(tmp_path.iterdir()) == []
    md5 = hashlib.md5(payload).hexdigest()
    dataset_utils.download_url("https://example.org/data.bin", tmp_path, md5=md5)
    assert (tmp_path / "data.bin").read_bytes() == payload and len(list(tmp_path.iterdir())) == 1


def test_extract_archive_refuses_paths_outside_the_folder(tmp_path):
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("../escaped.txt", "x")
    target = tmp_path / "out"
    with pytest.raises(RuntimeError, match="outside"):
        dataset_utils.extract_archive(archive, target)
    assert not (tmp_path / "escaped.txt").exists() and list(target.iterdir()) == []


# ---------------------------------------------------------------- CIFAR
def write_cifar(
    root,
    folder="cifar-10-batches-py",
    batches=None,
    meta=("batches.meta", "label_names"),
    label_key="labels",
    count=4,
    seed=0,
):
    rng = np.random.default_rng(seed)
    base = root / folder
    base.mkdir(parents=True, exist_ok=True)
    written = {}
    for name in batches or [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        data = rng.integers(0, 256, (count, 3072), dtype=np.uint8)
        labels = rng.integers(0, 10, count).tolist()
        with open(base / name, "wb") as file:
            pickle.dump({"batch_label": "fake", label_key: labels, "data": data}, file, protocol=2)
        written[name] = (data, labels)
    with open(base / meta[0], "wb") as file:
        pickle.dump({meta[1]: [f"class{i}" for i in range(10)]}, file)
    return written


def test_cifar10_reads_pickled_batches(tmp_path):
    written = write_cifar(tmp_path)
    train = datasets.CIFAR10(tmp_path, train=True)
    test = datasets.CIFAR10(tmp_path, train=False, transform=transforms.ToTensor())
    assert len(train) == 20 and len(test) == 4
    assert train.data.dtype == np.uint8 and train.data.shape == (20, 32, 32, 3)
    assert train.targets == [label for i in range(1, 6) for label in written[f"data_batch_{i}"][1]]
    image, label = train[5]
    expected = written["data_batch_2"][0][1].reshape(3, 32, 32).transpose(1, 2, 0)
    assert (
        image.mode == "RGB" and np.array_equal(np.asarray(image), expected) and label == written["data_batch_2"][1][1]
    )
    tensor, _ = test[0]
    np.testing.assert_allclose(tensor.numpy(), written["test_batch"][0][0].reshape(3, 32, 32) / 255.0, rtol=1e-6)
    assert train.classes[2] == "class2" and train.class_to_idx["class9"] == 9


def test_cifar100_uses_fine_labels(tmp_path):
    write_cifar(
        tmp_path,
        folder="cifar-100-python",
        batches=["train", "test"],
        meta=("meta", "fine_label_names"),
        label_key="fine_labels",
    )
    dataset = datasets.CIFAR100(tmp_path, train=False)
    assert len(dataset) == 4 and len(dataset.classes) == 10 and all(0 <= t < 10 for t in dataset.targets)


class Exploit:
    def __reduce__(self):
        return (os.system, ("touch pwned",))


def test_cifar_refuses_a_pickle_that_names_other_objects(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_cifar(tmp_path)
    with open(tmp_path / "cifar-10-batches-py" / "test_batch", "wb") as file:
        pickle.dump({"data": Exploit(), "labels": [0]}, file, protocol=2)
    with pytest.raises(RuntimeError, match=r"test_batch.*refusing to load (posix|nt)\.system"):
        datasets.CIFAR10(tmp_path, train=False)
    assert not (tmp_path / "pwned").exists()


def test_cifar_damaged_or_missing_batches_are_named(tmp_path):
    write_cifar(tmp_path)
    batch = tmp_path / "cifar-10-batches-py" / "test_batch"
    batch.write_bytes(batch.read_bytes()[:200])
    with pytest.raises(RuntimeError, match="test_batch.*truncated or damaged"):
        datasets.CIFAR10(tmp_path, train=False)
    with open(batch, "wb") as file:
        pickle.dump({"data": np.zeros((2, 10), dtype=np.uint8), "labels": [0, 1]}, file)
    with pytest.raises(RuntimeError, match=r"test_batch is not a CIFAR batch.*\(N, 3072\)"):
        datasets.CIFAR10(tmp_path, train=False)
    batch.unlink()
    with pytest.raises(RuntimeError, match="Dataset not found.*test_batch.*download=True"):
        datasets.CIFAR10(tmp_path, train=False)


def test_cifar_download_unpacks_the_archive(tmp_path, monkeypatch):
    source = tmp_path / "source"
    write_cifar(source)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(source / "cifar-10-batches-py", arcname="cifar-10-batches-py")
    payload = buffer.getvalue()
    serve(monkeypatch, {datasets.CIFAR10.url: payload})
    monkeypatch.setattr(datasets.CIFAR10, "tgz_md5", hashlib.md5(payload).hexdigest())
    root = tmp_path / "root"
    dataset = datasets.CIFAR10(root, train=False, download=True)
    assert len(dataset) == 4
    assert sorted(path.name for path in root.iterdir()) == ["cifar-10-batches-py", "cifar-10-python.tar.gz"]


# ---------------------------------------------------------------- folders
def make_image_folder(root, counts=None, size=(6, 5)):
    counts = counts or {"cat": 2, "dog": 3}
    rng = np.random.default_rng(0)
    for class_name, count in counts.items():
        (root / class_name).mkdir(parents=True, exist_ok=True)
        for index in range(count):
            pixels = rng.integers(0, 256, (size[1], size[0], 3), dtype=np.uint8)
            Image.fromarray(pixels).save(root / class_name / f"{index}.png")
    return root


def test_image_folder_lists_classes_and_samples_as_torchvision(tmp_path):
    root = make_image_folder(tmp_path / "train")
    (root / "dog" / "notes.txt").write_text("not an image")
    (root / "dog" / "nested").mkdir()
    Image.new("L", (4, 4)).save(root / "dog" / "nested" / "deep.JPG")
    dataset = datasets.ImageFolder(root)
    assert dataset.classes == ["cat", "dog"] and dataset.class_to_idx == {"cat": 0, "dog": 1}
    expected = (
        [(str(root / "cat" / f"{i}.png"), 0) for i in range(2)]
        + [(str(root / "dog" / f"{i}.png"), 1) for i in range(3)]
        + [(str(root / "dog" / "nested" / "deep.JPG"), 1)]
    )
    assert dataset.samples == expected and dataset.imgs == expected and dataset.targets == [0, 0, 1, 1, 1, 1]
    image, target = dataset[5]
    assert image.mode == "RGB" and image.size == (4, 4) and target == 1
    loader = DataLoader(
        datasets.ImageFolder(root, transform=transforms.Compose([transforms.Resize((4, 4)), transforms.ToTensor()])),
        batch_size=6,
    )
    images, targets = next(iter(loader))
    assert images.shape == (6, 3, 4, 4) and targets.tolist() == [0, 0, 1, 1, 1, 1]


def test_dataset_folder_with_a_custom_loader_and_filters(tmp_path):
    for class_name, value in (("a", 1), ("b", 2)):
        (tmp_path / class_name).mkdir()
        np.save(tmp_path / class_name / "x.npy", np.full(3, value))
        (tmp_path / class_name / "skip.txt").write_text("")
    dataset = datasets.DatasetFolder(tmp_path, loader=np.load, extensions=(".npy",))
    assert len(dataset) == 2 and dataset[1][0].tolist() == [2, 2, 2] and dataset.extensions == (".npy",)
    chosen = datasets.DatasetFolder(tmp_path, loader=np.load, is_valid_file=lambda path: path.endswith("x.npy"))
    assert [target for _, target in chosen.samples] == [0, 1]
    with pytest.raises(ValueError, match="Both extensions and is_valid_file"):
        datasets.DatasetFolder(tmp_path, loader=np.load)


def test_folder_errors_name_the_folder_or_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing"):
        datasets.ImageFolder(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="Couldn't find any class folder"):
        datasets.ImageFolder(tmp_path / "empty")
    root = make_image_folder(tmp_path / "data", {"cat": 1})
    (root / "dog").mkdir()
    with pytest.raises(FileNotFoundError, match="Found no valid file for the classes dog"):
        datasets.ImageFolder(root)
    assert len(datasets.ImageFolder(root, allow_empty=True)) == 1
    (root / "dog" / "broken.png").write_bytes(b"\x89PNG not really")
    dataset = datasets.ImageFolder(root)
    with pytest.raises(OSError, match="broken.png"):
        dataset[1]
    truncated = root / "cat" / "0.png"
    truncated.write_bytes(truncated.read_bytes()[:60])
    with pytest.raises(OSError, match="0.png"):
        dataset[0]


def test_fake_data_is_deterministic_per_index():
    dataset = datasets.FakeData(size=5, image_size=(3, 8, 6), num_classes=4, transform=transforms.ToTensor())
    first, label = dataset[2]
    again, label_again = dataset[2]
    assert first.shape == (3, 8, 6) and np.array_equal(first.numpy(), again.numpy()) and label == label_again
    assert 0 <= label < 4 and len(dataset) == 5
    assert isinstance(datasets.FakeData(size=1)[0][0], Image.Image)
    with pytest.raises(IndexError):
        dataset[5]


def test_svhn_reads_mat_files(tmp_path):
    scipy_io = pytest.importorskip("scipy.io")
    images = np.random.default_rng(0).integers(0, 256, (32, 32, 3, 3), dtype=np.uint8)
    scipy_io.savemat(tmp_path / "test_32x32.mat", {"X": images, "y": np.array([[10], [3], [1]], dtype=np.uint8)})
    dataset = datasets.SVHN(tmp_path, split="test")
    assert dataset.labels.tolist() == [0, 3, 1] and dataset.data.shape == (3, 3, 32, 32)
    image, label = dataset[0]
    assert image.mode == "RGB" and label == 0 and np.array_equal(np.asarray(image), images[..., 0])
    with pytest.raises(RuntimeError, match="train_32x32.mat"):
        datasets.SVHN(tmp_path, split="train")


def test_samples_without_pillow_say_what_to_install(tmp_path, monkeypatch):
    import sys

    write_mnist(tmp_path / "MNIST" / "raw")
    dataset = datasets.MNIST(tmp_path, train=False)
    monkeypatch.setitem(sys.modules, "PIL.Image", None)
    with pytest.raises(ImportError, match="pip install pillow"):
        dataset[0]


def test_emnist_missing_files_point_to_nists_archive(tmp_path):
    with pytest.raises(RuntimeError, match=r"emnist-digits-train-images-idx3-ubyte.gz not found[\s\S]*gzip.zip"):
        datasets.EMNIST(tmp_path, split="digits")


def test_extract_archive_refuses_tar_members_outside_the_folder(tmp_path):
    archive_path = tmp_path / "evil.tar.gz"
    with tarfile.open(archive_path, "w:gz") as archive:
        payload = b"x"
        info = tarfile.TarInfo("../escaped.txt")
        info.size = len(payload)
        archive.addfile(info, io.BytesIO(payload))
    with pytest.raises(RuntimeError, match="escaped.txt|outside"):
        dataset_utils.extract_archive(archive_path, tmp_path / "out")
    assert not (tmp_path / "escaped.txt").exists() and list((tmp_path / "out").iterdir()) == []
