"""DatasetFolder and ImageFolder: one sub-folder per class (root/dog/001.png, root/cat/xyz.jpg, ...).

Classes are the sub-folder names in sorted order; samples are (path, class_index) pairs found by
walking each class folder (following links) in sorted order, exactly as torchvision lists them, so
`class_to_idx`, `samples` and `targets` agree with torchvision on the same folder.
"""

import os

from .._pil import pil_image
from .vision import VisionDataset

__all__ = [
    "IMG_EXTENSIONS",
    "has_file_allowed_extension",
    "is_image_file",
    "find_classes",
    "make_dataset",
    "pil_loader",
    "default_loader",
    "DatasetFolder",
    "ImageFolder",
]

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def has_file_allowed_extension(filename, extensions):
    """True when the file name ends with one of `extensions` (case-insensitive)."""
    return filename.lower().endswith(extensions if isinstance(extensions, str) else tuple(extensions))


def is_image_file(filename):
    return has_file_allowed_extension(filename, IMG_EXTENSIONS)


def find_classes(directory):
    """(sorted class folder names, {name: index}); FileNotFoundError naming the folder when there are none."""
    directory = os.fspath(directory)
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"dataset folder {directory} does not exist (or is not a folder)")
    classes = sorted(entry.name for entry in os.scandir(directory) if entry.is_dir())
    if not classes:
        raise FileNotFoundError(f"Couldn't find any class folder in {directory}.")
    return classes, {name: index for index, name in enumerate(classes)}


def make_dataset(directory, class_to_idx=None, extensions=None, is_valid_file=None, allow_empty=False):
    """The (path, class_index) pairs under `directory`, accepted by `extensions` or by `is_valid_file`."""
    directory = os.path.expanduser(os.fspath(directory))
    if class_to_idx is None:
        _, class_to_idx = find_classes(directory)
    elif not class_to_idx:
        raise ValueError("'class_to_index' must have at least one entry to collect any samples.")
    if (extensions is None) == (is_valid_file is None):
        raise ValueError("Both extensions and is_valid_file cannot be None or not None at the same time")
    if extensions is not None:

        def is_valid_file(path):
            return has_file_allowed_extension(path, extensions)

    instances, found_classes = [], set()
    for target_class in sorted(class_to_idx):
        class_index = class_to_idx[target_class]
        target_dir = os.path.join(directory, target_class)
        if not os.path.isdir(target_dir):
            continue
        for folder, _, file_names in sorted(os.walk(target_dir, followlinks=True)):
            for file_name in sorted(file_names):
                path = os.path.join(folder, file_name)
                if is_valid_file(path):
                    instances.append((path, class_index))
                    found_classes.add(target_class)
    empty = set(class_to_idx) - found_classes
    if empty and not allow_empty:
        message = f"Found no valid file for the classes {', '.join(sorted(empty))}. "
        if extensions is not None:
            message += (
                f"Supported extensions are: {extensions if isinstance(extensions, str) else ', '.join(extensions)}"
            )
        raise FileNotFoundError(message)
    return instances


def pil_loader_raw(path):
    """Open and decode an image file; an error naming the file when it is missing, truncated or not an image."""
    Image = pil_image()
    try:
        with open(path, "rb") as file:
            image = Image.open(file)
            image.load()
            return image
    except Image.UnidentifiedImageError:
        raise Image.UnidentifiedImageError(
            f"cannot decode {path}: it is not an image file Pillow can read (damaged, or not an image despite its name)"
        ) from None
    except OSError as error:
        if isinstance(error, FileNotFoundError):
            raise
        raise OSError(f"cannot decode {path}: {error} (the file is damaged or truncated)") from None


def pil_loader(path):
    """The image at `path` as an RGB PIL image (torchvision's default loader)."""
    return pil_loader_raw(path).convert("RGB")


def default_loader(path):
    return pil_loader(path)


class DatasetFolder(VisionDataset):
    """A dataset of files arranged in one folder per class, read by `loader`.

    Args:
        root: the folder holding one sub-folder per class.
        loader: a function path -> sample.
        extensions: the file name endings to accept (exclusive with is_valid_file).
        transform, target_transform: applied to the sample and to the class index.
        is_valid_file: a function path -> bool choosing the files (exclusive with extensions).
        allow_empty: accept class folders without any valid file.

    Attributes: classes, class_to_idx, samples [(path, class_index)], targets [class_index].
    """

    def __init__(
        self,
        root,
        loader,
        extensions=None,
        transform=None,
        target_transform=None,
        is_valid_file=None,
        allow_empty=False,
    ):
        super().__init__(root, transform=transform, target_transform=target_transform)
        classes, class_to_idx = self.find_classes(self.root)
        samples = self.make_dataset(
            self.root,
            class_to_idx=class_to_idx,
            extensions=extensions,
            is_valid_file=is_valid_file,
            allow_empty=allow_empty,
        )
        self.loader = loader
        self.extensions = extensions
        self.classes = classes
        self.class_to_idx = class_to_idx
        self.samples = samples
        self.targets = [target for _, target in samples]

    @staticmethod
    def make_dataset(directory, class_to_idx, extensions=None, is_valid_file=None, allow_empty=False):
        """The `(path, class_index)` samples under `directory`: the files with an accepted extension (or passing
        `is_valid_file`) in each class folder.
        """
        if class_to_idx is None:
            raise ValueError("The class_to_idx parameter cannot be None.")
        return make_dataset(
            directory, class_to_idx, extensions=extensions, is_valid_file=is_valid_file, allow_empty=allow_empty
        )

    def find_classes(self, directory):
        """The class names (the sub-folders of `directory`, sorted) and the mapping from name to index; override it
        for another layout.
        """
        return find_classes(directory)

    def __getitem__(self, index):
        path, target = self.samples[index]
        sample = self.loader(path)
        if self.transform is not None:
            sample = self.transform(sample)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return sample, target

    def __len__(self):
        return len(self.samples)


class ImageFolder(DatasetFolder):
    """DatasetFolder for images (IMG_EXTENSIONS) loaded as RGB PIL images.

    Example:
        dataset = ImageFolder("photos/train", transform=transforms.Compose([
            transforms.RandomResizedCrop(224), transforms.ToTensor()]))
    """

    def __init__(
        self, root, transform=None, target_transform=None, loader=default_loader, is_valid_file=None, allow_empty=False
    ):
        super().__init__(
            root,
            loader,
            IMG_EXTENSIONS if is_valid_file is None else None,
            transform=transform,
            target_transform=target_transform,
            is_valid_file=is_valid_file,
            allow_empty=allow_empty,
        )
        self.imgs = self.samples
