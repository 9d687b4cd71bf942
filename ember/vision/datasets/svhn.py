"""SVHN (Street View House Numbers), from its MATLAB files; reading them needs SciPy (an optional extra)."""

import importlib
import os

from ..._backend import np
from .._pil import pil_image
from .utils import check_integrity, download_url, verify_str_arg
from .vision import VisionDataset

__all__ = ["SVHN"]


class SVHN(VisionDataset):
    """SVHN digits (32 x 32 colour); label 10 of the files is digit 0, as torchvision maps it.

    Args:
        root: the folder holding `train_32x32.mat`, `test_32x32.mat` or `extra_32x32.mat`.
        split: 'train', 'test' or 'extra'.
        transform, target_transform, download: as the other datasets.

    `data` is uint8 (N, 3, 32, 32), `labels` int64 (N,). Needs `pip install scipy` to read the files.
    """

    split_list = {
        "train": [
            "http://ufldl.stanford.edu/housenumbers/train_32x32.mat",
            "train_32x32.mat",
            "e26dedcc434d2e4c54c9b2d4a06d8373",
        ],
        "test": [
            "http://ufldl.stanford.edu/housenumbers/test_32x32.mat",
            "test_32x32.mat",
            "eb5a983be6a315427106f1b164d9cef3",
        ],
        "extra": [
            "http://ufldl.stanford.edu/housenumbers/extra_32x32.mat",
            "extra_32x32.mat",
            "a93ce644f1a588dc4d68dda5feec44a7",
        ],
    }

    def __init__(self, root, split="train", transform=None, target_transform=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.split = verify_str_arg(split, "split", tuple(self.split_list))
        self.url, self.filename, self.file_md5 = self.split_list[split]
        if download:
            self.download()
        path = os.path.join(self.root, self.filename)
        if not os.path.isfile(path):
            raise RuntimeError(
                f"Dataset not found: {path}. You can use download=True to download it, or download "
                f"{self.url} yourself into {self.root}"
            )
        try:
            scipy_io = importlib.import_module("scipy.io")
        except ImportError:
            raise ImportError("SVHN's files are MATLAB files and reading them needs SciPy: pip install scipy") from None
        try:
            loaded = scipy_io.loadmat(path)
            images, labels = loaded["X"], loaded["y"]
        except (ValueError, KeyError, OSError, TypeError) as error:
            raise RuntimeError(f"could not read {path}: {error}; the file is damaged or not SVHN's") from None
        self.labels = labels.astype(np.int64).squeeze()
        np.place(self.labels, self.labels == 10, 0)
        self.data = np.transpose(images, (3, 2, 0, 1))

    def __getitem__(self, index):
        image = pil_image().fromarray(np.transpose(self.data[index], (1, 2, 0)))
        target = int(self.labels[index])
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return image, target

    def __len__(self):
        return len(self.data)

    def _check_integrity(self):
        return check_integrity(os.path.join(self.root, self.filename), self.file_md5)

    def download(self):
        """Fetch the split's .mat file into `root` (nothing is fetched if it is there with the right checksum)."""
        download_url(self.url, self.root, self.filename, self.file_md5)

    def extra_repr(self):
        return f"Split: {self.split}"
