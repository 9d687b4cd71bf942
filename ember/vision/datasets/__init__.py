"""torchvision.datasets: MNIST-family, CIFAR, SVHN, image folders and FakeData, with torchvision's layout."""

from .cifar import CIFAR10, CIFAR100
from .fakedata import FakeData
from .folder import DatasetFolder, ImageFolder
from .mnist import EMNIST, KMNIST, MNIST, FashionMNIST
from .svhn import SVHN
from .vision import VisionDataset

__all__ = [
    "MNIST",
    "FashionMNIST",
    "KMNIST",
    "EMNIST",
    "CIFAR10",
    "CIFAR100",
    "SVHN",
    "ImageFolder",
    "DatasetFolder",
    "FakeData",
    "VisionDataset",
]
