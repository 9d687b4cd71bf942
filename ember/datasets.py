"""Datasets on disk: MNIST and Fashion-MNIST from their IDX files (gzip or not), as torchvision has them.

No PIL and no torchvision: a sample is `(image, target)` where `image` is what torchvision's
`ToTensor()` would give (a float32 tensor of shape (1, 28, 28) scaled to [0, 1]) and `target` an int.
`transform` and `target_transform` receive those. `data` (uint8, N x 28 x 28) and `targets`
(int64, N) hold the whole split, as in torchvision.

Downloading happens only with `download=True`; each file's MD5 is checked before it is used.
"""

import gzip
import hashlib
import os
import tempfile
import urllib.request

from ._backend import np
from ._tensor import new_tensor
from .utils.data import Dataset

__all__ = ["MNIST", "FashionMNIST", "read_idx"]

# IDX type codes -> big-endian NumPy dtypes (http://yann.lecun.com/exdb/mnist/, "file formats").
_IDX_TYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}


def read_idx(path):
    """Read an IDX file (gzip-compressed when the name ends in .gz) into a NumPy array.

    Raises RuntimeError naming the file when it is not IDX, or is truncated.
    """
    opener = gzip.open if os.fspath(path).endswith(".gz") else open
    try:
        with opener(path, "rb") as file:
            raw = file.read()
    except (OSError, EOFError) as error:  # gzip raises these for damaged archives
        raise RuntimeError(f"could not read {path}: {error}; delete it and download it again") from None
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in _IDX_TYPES:
        raise RuntimeError(f"{path} is not an IDX file (bad magic number {raw[:4].hex()})")
    dtype, ndim = np.dtype(_IDX_TYPES[raw[2]]), raw[3]
    header = 4 + 4 * ndim
    shape = tuple(int(size) for size in np.frombuffer(raw, dtype=">i4", count=ndim, offset=4))
    expected = header + dtype.itemsize * int(np.prod(shape, dtype=np.int64))
    if len(raw) != expected:
        raise RuntimeError(
            f"{path} has {len(raw)} bytes but its header (shape {list(shape)}) needs {expected}: "
            "the file is truncated or damaged; delete it and download it again"
        )
    return np.frombuffer(raw, dtype=dtype, offset=header).reshape(shape).astype(dtype.newbyteorder("="))


def _md5(path):
    digest = hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as file:
        for chunk in iter(lambda: file.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


class MNIST(Dataset):
    """The MNIST handwritten digits (60,000 training and 10,000 test images of 28 x 28 pixels).

    Args:
        root: directory holding the IDX files, either directly or in `root/MNIST/raw/` (torchvision's
            layout), gzip-compressed (`t10k-images-idx3-ubyte.gz`) or not.
        train: the training split (`train-*` files) or, if False, the test split (`t10k-*`).
        transform, target_transform: applied to the image tensor and to the int label.
        download: fetch missing files from the mirrors into `root/MNIST/raw/`, checking their MD5.

    Example: `test_set = ember.datasets.MNIST("data", train=False)`; `image, label = test_set[0]`.
    """

    mirrors = [
        "https://ossci-datasets.s3.amazonaws.com/mnist/",
        "https://storage.googleapis.com/cvdf-datasets/mnist/",
        "http://yann.lecun.com/exdb/mnist/",
    ]
    resources = [
        ("train-images-idx3-ubyte.gz", "f68b3c2dcbeaaa9fbdd348bbdeb94873"),
        ("train-labels-idx1-ubyte.gz", "d53e105ee54ea40749a09fcbcd1e9432"),
        ("t10k-images-idx3-ubyte.gz", "9fb629c4189551a2d022fa330f9573f3"),
        ("t10k-labels-idx1-ubyte.gz", "ec29112dd5afa0611ce80d1b7f02629c"),
    ]
    classes = [
        "0 - zero",
        "1 - one",
        "2 - two",
        "3 - three",
        "4 - four",
        "5 - five",
        "6 - six",
        "7 - seven",
        "8 - eight",
        "9 - nine",
    ]

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        self.root = os.path.expanduser(os.fspath(root))
        self.train = train
        self.transform = transform
        self.target_transform = target_transform
        if download:
            self.download()
        images, labels = (self._find(name) for name in self._split_files())
        self.data = new_tensor(read_idx(images).astype(np.uint8, copy=False))
        self.targets = new_tensor(read_idx(labels).astype(np.int64))
        if len(self.data) != len(self.targets):
            raise RuntimeError(
                f"{images} holds {len(self.data)} images but {labels} holds {len(self.targets)} "
                "labels; one of the files is from another split or damaged"
            )

    @property
    def raw_folder(self):
        return os.path.join(self.root, type(self).__name__, "raw")

    @property
    def class_to_idx(self):
        return {name: index for index, name in enumerate(self.classes)}

    def _split_files(self):
        prefix = "train" if self.train else "t10k"
        return f"{prefix}-images-idx3-ubyte.gz", f"{prefix}-labels-idx1-ubyte.gz"

    def _candidates(self, filename):
        """Where a file may lie: torchvision's raw folder or root itself, compressed or not."""
        plain = filename[: -len(".gz")]
        return [os.path.join(folder, name) for folder in (self.raw_folder, self.root) for name in (filename, plain)]

    def _find(self, filename):
        candidates = self._candidates(filename)
        for path in candidates:
            if os.path.isfile(path):
                return path
        split = "training" if self.train else "test"
        raise RuntimeError(
            f"{type(self).__name__} {split} file {filename} not found. Looked for:\n  "
            + "\n  ".join(candidates)
            + f"\nPass download=True to fetch it (from {self.mirrors[0]}, MD5-checked), or download it yourself "
            f"from {self.mirrors[0]}{filename} into {self.raw_folder} (or straight into {self.root})."
        )

    def _check_exists(self):
        return all(any(os.path.isfile(path) for path in self._candidates(name)) for name in self._split_files())

    def download(self):
        """Fetch the files of this split that are missing, verifying each against its MD5."""
        if self._check_exists():
            return
        created = [
            folder
            for folder in (self.root, os.path.dirname(self.raw_folder), self.raw_folder)
            if not os.path.isdir(folder)
        ]
        os.makedirs(self.raw_folder, exist_ok=True)
        checksums = dict(self.resources)
        try:
            for filename in self._split_files():
                if not any(os.path.isfile(path) for path in self._candidates(filename)):
                    self._download_file(filename, checksums[filename])
        except RuntimeError:
            for folder in reversed(created):  # leave no empty folders behind a failed download
                if not os.listdir(folder):
                    os.rmdir(folder)
            raise

    def _download_file(self, filename, md5):
        target = os.path.join(self.raw_folder, filename)
        failures = []
        for mirror in self.mirrors:
            handle, temporary = tempfile.mkstemp(dir=self.raw_folder, suffix=".part")
            os.close(handle)
            try:
                urllib.request.urlretrieve(mirror + filename, temporary)
                found = _md5(temporary)
                if found != md5:
                    failures.append(f"{mirror}{filename}: MD5 {found} does not match the expected {md5}")
                    continue
                os.replace(temporary, target)
                return
            except OSError as error:  # URLError, HTTPError and socket errors are OSErrors
                failures.append(f"{mirror}{filename}: {error}")
            finally:
                if os.path.exists(temporary):
                    os.remove(temporary)
        raise RuntimeError(
            f"could not download {filename}:\n  "
            + "\n  ".join(failures)
            + f"\nCopy the file into {self.raw_folder} by hand if this machine has no network."
        )

    def __getitem__(self, index):
        image = new_tensor((self.data._data[index] / np.float32(255))[None])
        target = int(self.targets._data[index])
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return image, target

    def __len__(self):
        return len(self.data)

    def __repr__(self):
        split = "Train" if self.train else "Test"
        return (
            f"Dataset {type(self).__name__}\n    Number of datapoints: {len(self)}\n"
            f"    Root location: {self.root}\n    Split: {split}"
        )


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST: the MNIST layout with ten kinds of clothing instead of digits."""

    mirrors = ["http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"]
    resources = [
        ("train-images-idx3-ubyte.gz", "8d4fb7e6c68d591d4c3dfef9ec88bf0d"),
        ("train-labels-idx1-ubyte.gz", "25c81989df183df01b3e8a0aad5dffbe"),
        ("t10k-images-idx3-ubyte.gz", "bef4ecab320f06d8554ea6380940ec79"),
        ("t10k-labels-idx1-ubyte.gz", "bb300cfdad3c16e7a12a480ee83cd310"),
    ]
    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]
