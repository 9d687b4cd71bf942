"""Data-parallel training of an MNIST classifier on several processes, written for PyTorch.

The same file runs on real PyTorch and on ember:

    torchrun --nproc-per-node 2 examples/ddp_mnist.py                      # PyTorch (gloo)
    python -m ember.distributed.run --nproc-per-node 2 examples/ddp_mnist.py  # ember (on MPI)

Each process trains one replica on its share of the data (DistributedSampler); DistributedDataParallel
averages the gradients during backward, so the replicas stay equal. Only rank 0 prints and writes the
checkpoint, while the others wait at a barrier. The data is MNIST's test set read from idx files
(--data DIR holding t10k-images-idx3-ubyte[.gz] and t10k-labels-idx1-ubyte[.gz]); without them, a
synthetic stand-in of the same shape is used so the example still runs on a fresh machine.
"""

import argparse
import gzip
import os
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

HERE = os.path.dirname(os.path.abspath(__file__))
SEARCHED = [os.path.join(HERE, "data", "mnist"), os.path.join(HERE, "..", "..", "shared", "data", "mnist")]


def read_idx(path):
    """An IDX file (MNIST's format): a 4-byte magic whose last byte is the rank, big-endian sizes, data."""
    with gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb") as file:
        raw = file.read()
    shape = tuple(int(size) for size in np.frombuffer(raw, dtype=">i4", count=raw[3], offset=4))
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * raw[3]).reshape(shape)


def find(directory, name):
    for candidate in (name, name + ".gz"):
        path = os.path.join(directory, candidate)
        if os.path.exists(path):
            return path
    return None


def load_data(directory, rank):
    for folder in [directory] if directory else SEARCHED:
        images, labels = find(folder, "t10k-images-idx3-ubyte"), find(folder, "t10k-labels-idx1-ubyte")
        if images and labels:
            x = read_idx(images).reshape(-1, 784).astype(np.float32) / 255.0
            return (x - 0.1307) / 0.3081, read_idx(labels).astype(np.int64), "MNIST"
    if rank == 0:
        print("MNIST idx files not found (pass --data DIR); training on a synthetic stand-in instead")
    rng = np.random.default_rng(0)
    centres = rng.standard_normal((10, 784)).astype(np.float32)
    labels = rng.integers(0, 10, 10000)
    return centres[labels] + rng.standard_normal((10000, 784)).astype(np.float32), labels, "synthetic"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=None, help="folder with MNIST's t10k idx files")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=64, help="per process")
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--checkpoint", default="ddp_mnist.pt")
    arguments = parser.parse_args()

    dist.init_process_group("gloo")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    images, labels, source = load_data(arguments.data, rank)
    dataset = TensorDataset(torch.from_numpy(images), torch.from_numpy(labels))
    sampler = DistributedSampler(dataset, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=arguments.batch_size, sampler=sampler)

    model = DistributedDataParallel(nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10)))
    optimizer = torch.optim.SGD(model.parameters(), lr=arguments.lr, momentum=0.9)
    for epoch in range(arguments.epochs):
        sampler.set_epoch(epoch)
        started, total, correct, seen = time.perf_counter(), 0.0, 0, 0
        for x, y in loader:
            optimizer.zero_grad()
            output = model(x)
            loss = F.cross_entropy(output, y)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(y)
            correct += (output.argmax(1) == y).sum().item()
            seen += len(y)
        summary = torch.tensor([total, correct, seen], dtype=torch.float64)
        dist.all_reduce(summary)
        if rank == 0:
            print(
                f"epoch {epoch + 1}: loss {summary[0].item() / summary[2].item():.4f}, train accuracy "
                f"{summary[1].item() / summary[2].item():.3f} on {source} ({world_size} processes, "
                f"{time.perf_counter() - started:.1f} s)"
            )
    if rank == 0:  # one writer; the others wait until the file is complete
        torch.save(model.module.state_dict(), arguments.checkpoint)
        print(f"saved {arguments.checkpoint}")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
