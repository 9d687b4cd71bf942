"""VisionDataset: torchvision's base class (root, transform / target_transform / transforms, repr)."""

import os

from ...utils.data import Dataset


class StandardTransform:
    """Applies `transform` to the input and `target_transform` to the target."""

    def __init__(self, transform=None, target_transform=None):
        self.transform = transform
        self.target_transform = target_transform

    def __call__(self, input, target):
        if self.transform is not None:
            input = self.transform(input)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return input, target

    @staticmethod
    def _format(transform, head):
        lines = repr(transform).splitlines()
        return [f"{head}{lines[0]}"] + [f"{' ' * len(head)}{line}" for line in lines[1:]]

    def __repr__(self):
        body = [self.__class__.__name__]
        if self.transform is not None:
            body += self._format(self.transform, "Transform: ")
        if self.target_transform is not None:
            body += self._format(self.target_transform, "Target transform: ")
        return "\n".join(body)


class VisionDataset(Dataset):
    """Base class of the image datasets: keeps `root` and the transforms, and prints like torchvision.

    Args:
        root: the dataset's directory (`~` is expanded).
        transforms: a callable taking and returning (input, target); or, exclusive with it,
        transform / target_transform: callables for the input and for the target.
    """

    _repr_indent = 4

    def __init__(self, root=None, transforms=None, transform=None, target_transform=None):
        if isinstance(root, str):
            root = os.path.expanduser(root)
        self.root = root
        has_separate = transform is not None or target_transform is not None
        if transforms is not None and has_separate:
            raise ValueError("Only transforms or transform/target_transform can be passed as argument")
        self.transform = transform
        self.target_transform = target_transform
        if has_separate:
            transforms = StandardTransform(transform, target_transform)
        self.transforms = transforms

    def __getitem__(self, index):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError

    def extra_repr(self):
        """Lines a dataset adds to its repr below the number of datapoints and the root (the split, for example)."""
        return ""

    def __repr__(self):
        body = [f"Number of datapoints: {self.__len__()}"]
        if self.root is not None:
            body.append(f"Root location: {self.root}")
        body += self.extra_repr().splitlines()
        if getattr(self, "transforms", None) is not None:
            body.append(repr(self.transforms))  # one entry: only its first line is indented, as torchvision prints
        return "\n".join([f"Dataset {self.__class__.__name__}"] + [" " * self._repr_indent + line for line in body])
