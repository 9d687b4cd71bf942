"""MNIST, Fashion-MNIST, Kuzushiji-MNIST and EMNIST, as torchvision gives them: samples are PIL images.

The IDX files are read by `ember.datasets.read_idx` and found where torchvision puts them
(`root/<ClassName>/raw/`, gzip-compressed or not), so files a user downloaded with torchvision are used
as they are. `data` is a uint8 tensor (N, 28, 28), `targets` an int64 tensor (N,).
"""

import os
import shutil
import string

from ... import datasets as _idx_datasets
from .._pil import pil_image
from .utils import download_and_extract_archive, extract_archive, verify_str_arg
from .vision import VisionDataset
from ..._warn import warn as _warn

__all__ = ["MNIST", "FashionMNIST", "KMNIST", "EMNIST"]


class MNIST(VisionDataset, _idx_datasets.MNIST):
    """The MNIST handwritten digits: 60,000 training and 10,000 test images (28 x 28, grey levels).

    Args:
        root: the folder holding `MNIST/raw/train-images-idx3-ubyte[.gz]` etc. (torchvision's layout;
            the files may also lie directly in root).
        train: the training split (True) or the test split.
        transform: applied to each PIL image (mode 'L'), e.g. `transforms.ToTensor()`.
        target_transform: applied to each int label.
        download: fetch the missing files of this split from torchvision's mirrors into
            `root/MNIST/raw/`, checking their MD5 (without a network: an error naming the URLs and folder).

    Example:
        train_set = MNIST("data", train=True, download=True, transform=transforms.ToTensor())

    Needs Pillow for its samples (`pip install pillow`); `data` and `targets` work without it.
    """

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        VisionDataset.__init__(self, root, transform=transform, target_transform=target_transform)
        _idx_datasets.MNIST.__init__(self, root, train, transform, target_transform, download)

    @property
    def processed_folder(self):
        """The folder of the processed files, `root/<ClassName>/processed` (torchvision's layout)."""
        return os.path.join(self.root, type(self).__name__, "processed")

    @property
    def train_labels(self):
        """Old name of `targets`; warns."""
        _warn("train_labels has been renamed targets")
        return self.targets

    @property
    def test_labels(self):
        """Old name of `targets`; warns."""
        _warn("test_labels has been renamed targets")
        return self.targets

    @property
    def train_data(self):
        """Old name of `data`; warns."""
        _warn("train_data has been renamed data")
        return self.data

    @property
    def test_data(self):
        """Old name of `data`; warns."""
        _warn("test_data has been renamed data")
        return self.data

    def __getitem__(self, index):
        image = pil_image().fromarray(self.data._data[index])  # a 2-D uint8 array gives mode 'L'
        target = int(self.targets._data[index])
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return image, target

    def __len__(self):
        return len(self.data)

    def extra_repr(self):
        return f"Split: {'Train' if self.train is True else 'Test'}"

    __repr__ = VisionDataset.__repr__


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST: MNIST's format with ten kinds of clothing (root/FashionMNIST/raw/)."""

    mirrors = _idx_datasets.FashionMNIST.mirrors
    resources = _idx_datasets.FashionMNIST.resources
    classes = _idx_datasets.FashionMNIST.classes


class KMNIST(MNIST):
    """Kuzushiji-MNIST: ten cursive Japanese (hiragana) characters in MNIST's format (root/KMNIST/raw/)."""

    mirrors = ["http://codh.rois.ac.jp/kmnist/dataset/kmnist/"]
    resources = [
        ("train-images-idx3-ubyte.gz", "bdb82020997e1d708af4cf47b453dcf7"),
        ("train-labels-idx1-ubyte.gz", "e144d726b3acfaa3e44228e80efcd344"),
        ("t10k-images-idx3-ubyte.gz", "5c965bf0a639b31b8f53240b1b52f4d7"),
        ("t10k-labels-idx1-ubyte.gz", "7320c461ea6c1c855c0b718fb2a4b134"),
    ]
    classes = ["o", "ki", "su", "tsu", "na", "ha", "ma", "ya", "re", "wo"]


class EMNIST(MNIST):
    """EMNIST: handwritten digits and letters in six splits (root/EMNIST/raw/emnist-<split>-<train|test>-...).

    Args:
        split: one of 'byclass', 'bymerge', 'balanced', 'letters', 'digits', 'mnist'.
        The other arguments as MNIST. download fetches NIST's whole archive (about 560 MB) once.

    As in torchvision, the images are as stored in the files (transposed relative to MNIST's).
    """

    url = "https://biometrics.nist.gov/cs_links/EMNIST/gzip.zip"
    md5 = "58c8d27c78d21e728a6bc7b3cc06412e"
    splits = ("byclass", "bymerge", "balanced", "letters", "digits", "mnist")
    _merged_classes = {"c", "i", "j", "k", "l", "m", "o", "p", "s", "u", "v", "w", "x", "y", "z"}
    _all_classes = set(string.digits + string.ascii_letters)
    classes_split_dict = {
        "byclass": sorted(_all_classes),
        "bymerge": sorted(_all_classes - _merged_classes),
        "balanced": sorted(_all_classes - _merged_classes),
        "letters": ["N/A"] + list(string.ascii_lowercase),
        "digits": list(string.digits),
        "mnist": list(string.digits),
    }

    def __init__(self, root, split, **kwargs):
        self.split = verify_str_arg(split, "split", self.splits)
        self.classes = self.classes_split_dict[self.split]
        super().__init__(root, **kwargs)

    def _split_files(self):
        prefix = f"emnist-{self.split}-{'train' if self.train else 'test'}"
        return f"{prefix}-images-idx3-ubyte.gz", f"{prefix}-labels-idx1-ubyte.gz"

    def _find(self, filename):
        candidates = self._candidates(filename)
        for path in candidates:
            if os.path.isfile(path):
                return path
        raise RuntimeError(
            f"EMNIST file {filename} not found. Looked for:\n  "
            + "\n  ".join(candidates)
            + f"\nPass download=True to fetch NIST's archive {self.url} (MD5-checked) and unpack it, or unpack "
            f"its gzip/{filename} yourself into {self.raw_folder}."
        )

    def download(self):
        """Fetch NIST's archive (MD5-checked) and unpack this dataset's IDX files into raw/."""
        if self._check_exists():
            return
        os.makedirs(self.raw_folder, exist_ok=True)
        download_and_extract_archive(self.url, download_root=self.raw_folder, md5=self.md5)
        gzip_folder = os.path.join(self.raw_folder, "gzip")
        for name in sorted(os.listdir(gzip_folder)):
            if name.endswith(".gz"):
                extract_archive(os.path.join(gzip_folder, name), self.raw_folder)
        shutil.rmtree(gzip_folder)
