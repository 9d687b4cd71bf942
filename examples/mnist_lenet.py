"""LeNet-5 on MNIST, written for PyTorch: the same file runs on PyTorch and on ember.

    python examples/mnist_lenet.py                  # real PyTorch
    python -m ember run examples/mnist_lenet.py     # ember, through `import torch`

The data is MNIST's 10,000-image test set (t10k-images-idx3-ubyte[.gz], t10k-labels-idx1-ubyte[.gz]),
read with gzip + NumPy, split at random (seeded) into 8,000 images to train on and 2,000 held out.
It is found by itself: `--data DIR` (or $MNIST_DIR) if given; else examples/data/MNIST/raw, fetched
there with torchvision's `datasets.MNIST(download=True)` (ember.vision under `ember run`) when missing;
else, offline or without torchvision, the 1,000-image sample shipped in examples/data/mnist-sample
(the first 1,000 test images; 800 to train on). Prints the loss, held-out accuracy and seconds per epoch (wall clock, and the CPU time
of all threads, which stays meaningful on a busy machine); shows a tqdm progress bar
when tqdm is installed, and with `--plot curves.png` draws the curves (needs matplotlib).
"""

import argparse
import gzip
import os
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

try:
    from tqdm import tqdm
except ImportError:  # the progress bar is optional
    tqdm = None

HERE = os.path.dirname(os.path.abspath(__file__))
DATA_ROOT = os.path.join(HERE, "data")  # torchvision's root: DATA_ROOT/MNIST/raw/...
SAMPLE = os.path.join(DATA_ROOT, "mnist-sample")  # 1,000 test images, shipped with the repository


def read_idx(path):
    """An IDX file (MNIST's format) as a NumPy array: a 4-byte magic, big-endian sizes, then the data."""
    with gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb") as file:
        raw = file.read()
    ndim = raw[3]
    shape = tuple(int(size) for size in np.frombuffer(raw, dtype=">i4", count=ndim, offset=4))
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(shape)


def _idx_file(directory, name):
    """`name` in `directory`, gzip-compressed or not (torchvision keeps both after downloading)."""
    for candidate in (name + ".gz", name):
        if os.path.isfile(os.path.join(directory, candidate)):
            return os.path.join(directory, candidate)
    return None


def find_mnist(requested=None):
    """A directory holding MNIST's test-set files: the one asked for, a local download, a fresh download,
    or the small sample in the repository (with a message saying why)."""
    if requested:
        if _idx_file(requested, "t10k-images-idx3-ubyte") is None:
            raise SystemExit(f"no t10k-images-idx3-ubyte[.gz] in {requested}")
        return requested
    raw = os.path.join(DATA_ROOT, "MNIST", "raw")
    if _idx_file(raw, "t10k-images-idx3-ubyte") is not None:
        return raw
    try:
        import torchvision

        torchvision.datasets.MNIST(DATA_ROOT, train=False, download=True)
        return raw
    except ImportError:
        reason = "torchvision is not installed"
    except RuntimeError as error:  # offline: the message names the URLs and the folder
        reason = str(error)
    print(f"Could not fetch MNIST into {raw}: {reason}\nUsing the 1,000-image sample in {SAMPLE} instead.")
    return SAMPLE


def load_mnist(directory, train_size, seed):
    images = read_idx(_idx_file(directory, "t10k-images-idx3-ubyte"))
    labels = read_idx(_idx_file(directory, "t10k-labels-idx1-ubyte"))
    images = ((images.astype(np.float32) / 255.0 - 0.1307) / 0.3081)[:, None]  # N x 1 x 28 x 28, normalized
    train_size = min(train_size, int(0.8 * len(images)))  # the shipped sample has 1,000 images
    order = np.random.default_rng(seed).permutation(len(images))
    train, held_out = order[:train_size], order[train_size:]

    def as_dataset(index):
        return TensorDataset(torch.from_numpy(images[index]), torch.from_numpy(labels[index].astype(np.int64)))

    return as_dataset(train), as_dataset(held_out)


class LeNet5(nn.Module):
    """LeCun et al. (1998), with ReLU and max pooling: two convolutions, three fully connected layers."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, kernel_size=5, padding=2)  # 28x28 -> 28x28, pooled to 14x14
        self.conv2 = nn.Conv2d(6, 16, kernel_size=5)  # 14x14 -> 10x10, pooled to 5x5
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


def train_one_epoch(model, loader, optimizer, description):
    model.train()
    total_loss, count = 0.0, 0
    batches = tqdm(loader, desc=description, leave=False) if tqdm is not None else loader
    for images, labels in batches:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        total_loss += loss.item() * len(labels)
        count += len(labels)
        if tqdm is not None:
            batches.set_postfix(loss=f"{loss.item():.3f}")
    return total_loss / count


def evaluate(model, loader):
    model.eval()
    correct, total_loss, count = 0, 0.0, 0
    with torch.no_grad():
        for images, labels in loader:
            logits = model(images)
            total_loss += F.cross_entropy(logits, labels, reduction="sum").item()
            correct += (logits.argmax(dim=1) == labels).sum().item()
            count += len(labels)
    return total_loss / count, correct / count


def plot(history, path):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"matplotlib is not installed: no plot written to {path} (pip install matplotlib)")
        return
    epochs = range(1, len(history["train_loss"]) + 1)
    figure, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
    left.plot(epochs, history["train_loss"], label="train")
    left.plot(epochs, history["held_out_loss"], label="held out")
    left.set(xlabel="epoch", ylabel="cross-entropy loss")
    left.legend()
    right.plot(epochs, [100 * accuracy for accuracy in history["held_out_accuracy"]])
    right.set(xlabel="epoch", ylabel="held-out accuracy (%)")
    figure.tight_layout()
    figure.savefig(path)
    print(f"plot written to {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--train-size", type=int, default=8000)
    parser.add_argument(
        "--data",
        default=os.environ.get("MNIST_DIR"),
        help="directory with t10k-images-idx3-ubyte[.gz] and t10k-labels-idx1-ubyte[.gz] "
        "(default: found or fetched by itself, see above)",
    )
    parser.add_argument("--plot", metavar="PATH", help="save loss/accuracy curves (needs matplotlib)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)

    train_set, held_out_set = load_mnist(find_mnist(args.data), args.train_size, args.seed)
    train_loader = DataLoader(
        train_set, batch_size=args.batch_size, shuffle=True, generator=torch.Generator().manual_seed(args.seed)
    )
    held_out_loader = DataLoader(held_out_set, batch_size=500)
    model = LeNet5()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)  # settle at the end
    backend = "ember" if type(torch.tensor(0)).__module__.startswith("ember") else f"PyTorch {torch.__version__}"
    print(f"LeNet-5 on {len(train_set)} MNIST images, {len(held_out_set)} held out ({backend})")

    history = {"train_loss": [], "held_out_loss": [], "held_out_accuracy": []}
    for epoch in range(1, args.epochs + 1):
        start, start_cpu = time.perf_counter(), time.process_time()
        train_loss = train_one_epoch(model, train_loader, optimizer, f"epoch {epoch}")
        seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - start_cpu
        scheduler.step()
        held_out_loss, accuracy = evaluate(model, held_out_loader)
        for key, value in zip(history, (train_loss, held_out_loss, accuracy)):
            history[key].append(value)
        print(
            f"epoch {epoch}: train loss {train_loss:.4f}  held-out loss {held_out_loss:.4f}  "
            f"accuracy {100 * accuracy:.2f}%  {seconds:.1f} s/epoch (CPU time {cpu_seconds:.1f} s)"
        )
    if args.plot:
        plot(history, args.plot)


if __name__ == "__main__":
    main()
