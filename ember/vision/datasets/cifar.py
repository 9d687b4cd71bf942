"""CIFAR-10 and CIFAR-100 from their Python batches (pickles), read without running any code they name.

torchvision's layout: `root/cifar-10-batches-py/data_batch_1` ... `test_batch`, `batches.meta`
(`root/cifar-100-python/train`, `test`, `meta`). `data` is a uint8 NumPy array (N, 32, 32, 3) and
`targets` a list of ints, as in torchvision; samples are RGB PIL images.
"""

import os

from ..._backend import np
from .._pil import pil_image
from . import _restricted_pickle
from .utils import check_integrity, download_and_extract_archive
from .vision import VisionDataset

__all__ = ["CIFAR10", "CIFAR100"]


class CIFAR10(VisionDataset):
    """CIFAR-10: 50,000 training and 10,000 test colour images (32 x 32) in ten classes.

    Args:
        root: the folder holding `cifar-10-batches-py/` (as torchvision extracts it).
        train: the five training batches (True) or the test batch.
        transform, target_transform: applied to each RGB PIL image and to each int label.
        download: fetch and unpack the archive (MD5-checked) into root when the batches are missing.

    Example:
        test_set = CIFAR10("data", train=False, download=True, transform=transforms.ToTensor())

    Difference from torchvision: the batches' MD5s are checked when downloading, not on every
    construction; a damaged batch is reported when it is read.
    """

    base_folder = "cifar-10-batches-py"
    url = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
    filename = "cifar-10-python.tar.gz"
    tgz_md5 = "c58f30108f718f92721af3b95e74349a"
    train_list = [
        ["data_batch_1", "c99cafc152244af753f735de768cd75f"],
        ["data_batch_2", "d4bba439e000b95fd0a9bffe97cbabec"],
        ["data_batch_3", "54ebc095f3ab1f0389bbae665268c751"],
        ["data_batch_4", "634d18415352ddfa80567beed471001a"],
        ["data_batch_5", "482c414d41f54cd18b22e5b47cb7c3cb"],
    ]
    test_list = [["test_batch", "40351d587109b95175f43aff81a1287e"]]
    meta = {"filename": "batches.meta", "key": "label_names", "md5": "5ff9c542aee3614f3951f8cda6e48888"}

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        if download:
            self.download()
        if not self._check_exists():
            missing = [path for path in self._paths() if not os.path.isfile(path)]
            raise RuntimeError(
                f"Dataset not found: {type(self).__name__} needs "
                + ", ".join(missing)
                + f". You can use download=True to download it, or download {self.url} yourself and unpack it in "
                f"{self.root}"
            )
        images, labels = [], []
        for name, _ in self.train_list if self.train else self.test_list:
            batch_images, batch_labels = self._read_batch(os.path.join(self.root, self.base_folder, name))
            images.append(batch_images)
            labels.extend(batch_labels)
        self.data = np.vstack(images).reshape(-1, 3, 32, 32).transpose((0, 2, 3, 1))  # to H x W x C
        self.targets = labels
        self._load_meta()

    def _paths(self):
        names = [name for name, _ in self.train_list + self.test_list] + [self.meta["filename"]]
        return [os.path.join(self.root, self.base_folder, name) for name in names]

    def _check_exists(self):
        return all(os.path.isfile(path) for path in self._paths())

    @staticmethod
    def _read_batch(path):
        entry = _restricted_pickle.load(path)
        labels = entry.get("labels", entry.get("fine_labels")) if isinstance(entry, dict) else None
        data = entry.get("data") if isinstance(entry, dict) else None
        if not isinstance(data, np.ndarray) or data.dtype != np.uint8 or data.ndim != 2 or data.shape[1] != 3072:
            found = f"{data.dtype} {data.shape}" if isinstance(data, np.ndarray) else type(data).__name__
            raise RuntimeError(
                f"{path} is not a CIFAR batch: 'data' should be a uint8 array of shape (N, 3072), found {found}"
            )
        if labels is None or len(labels) != len(data):
            raise RuntimeError(
                f"{path} is not a CIFAR batch: it has {len(data)} images but "
                f"{'no' if labels is None else len(labels)} labels"
            )
        return data, [int(label) for label in labels]

    def _load_meta(self):
        path = os.path.join(self.root, self.base_folder, self.meta["filename"])
        entry = _restricted_pickle.load(path)
        if not isinstance(entry, dict) or self.meta["key"] not in entry:
            raise RuntimeError(f"{path} is not CIFAR's metadata: it has no {self.meta['key']!r}")
        self.classes = list(entry[self.meta["key"]])
        self.class_to_idx = {name: index for index, name in enumerate(self.classes)}

    def __getitem__(self, index):
        image, target = pil_image().fromarray(self.data[index]), self.targets[index]
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return image, target

    def __len__(self):
        return len(self.data)

    def _check_integrity(self):
        checks = self.train_list + self.test_list + [[self.meta["filename"], self.meta["md5"]]]
        return all(check_integrity(os.path.join(self.root, self.base_folder, name), md5) for name, md5 in checks)

    def download(self):
        """Download and unpack the archive unless the batches are already there with their MD5s."""
        if self._check_integrity():
            print("Files already downloaded and verified")
            return
        download_and_extract_archive(self.url, self.root, filename=self.filename, md5=self.tgz_md5)

    def extra_repr(self):
        return f"Split: {'Train' if self.train is True else 'Test'}"


class CIFAR100(CIFAR10):
    """CIFAR-100: CIFAR-10's format with 100 fine classes (`targets` are the fine labels)."""

    base_folder = "cifar-100-python"
    url = "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"
    filename = "cifar-100-python.tar.gz"
    tgz_md5 = "eb9058c3a382ffc7106e4002c42a8d85"
    train_list = [["train", "16019d7e3df5f24257cddd939b257f8d"]]
    test_list = [["test", "f0ef6b0ae62326f3e7ffdfab6717acfc"]]
    meta = {"filename": "meta", "key": "fine_label_names", "md5": "7973b15100ade9c7d40fb424638fde48"}
