"""DataLoader with worker processes: one epoch of an ImageFolder-like pipeline, 0 workers against 2.

A temporary folder holds class sub-folders of small RGB images (PNG through ember.vision's ImageFolder
when Pillow is installed, .npy files through DatasetFolder otherwise). Each sample is decoded and
augmented in NumPy (random resized crop by index sampling, horizontal flip, brightness and contrast
jitter, normalization, HWC -> CHW), then batches of 32 are collated. The main loop only touches
each batch, so the figure is the loading pipeline's throughput. Times are the best of a few epochs,
the loaders taking turns; the worker figures include starting the workers, except "persistent",
which keeps them across epochs.

    python benchmarks/dataloader_workers.py [images] [workers]
"""

import gc
import os
import resource
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import ember  # noqa: E402
from ember.utils.data import DataLoader  # noqa: E402

SIDE, CROP, CLASSES, BATCH, EPOCHS = 96, 64, 4, 32, 4
MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32).reshape(3, 1, 1)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32).reshape(3, 1, 1)


class Augment:
    """Random resized crop, flip, brightness/contrast jitter and normalization, all in NumPy."""

    def __call__(self, image):
        pixels = np.asarray(image, dtype=np.float32) / 255.0  # H, W, C
        scale = np.random.uniform(0.5, 1.0)
        size = max(8, int(SIDE * np.sqrt(scale)))
        top, left = np.random.randint(0, SIDE - size + 1, size=2)
        rows = top + (np.arange(CROP) * size // CROP)
        columns = left + (np.arange(CROP) * size // CROP)
        pixels = pixels[rows][:, columns]
        if np.random.rand() < 0.5:
            pixels = pixels[:, ::-1]
        pixels = pixels * np.random.uniform(0.8, 1.2)
        mean = pixels.mean()
        pixels = np.clip((pixels - mean) * np.random.uniform(0.8, 1.2) + mean, 0.0, 1.0)
        return (pixels.transpose(2, 0, 1) - MEAN) / STD


def make_images(root, count):
    """`count` random images in CLASSES class folders; returns the dataset that reads them."""
    rng = np.random.default_rng(0)
    try:
        from PIL import Image
    except ImportError:
        Image = None
    for index in range(count):
        folder = os.path.join(root, f"class{index % CLASSES}")
        os.makedirs(folder, exist_ok=True)
        pixels = rng.integers(0, 256, (SIDE, SIDE, 3), dtype=np.uint8)
        if Image is not None:
            Image.fromarray(pixels).save(os.path.join(folder, f"{index}.png"))
        else:
            np.save(os.path.join(folder, f"{index}.npy"), pixels)
    if Image is not None:
        from ember.vision.datasets import ImageFolder

        return ImageFolder(root, transform=Augment()), "PNG via ember.vision ImageFolder"
    from ember.vision.datasets import DatasetFolder

    return DatasetFolder(root, loader=np.load, extensions=(".npy",), transform=Augment()), ".npy via DatasetFolder"


def epoch_seconds(loader):
    """Wall seconds of one pass over `loader`, and the images it gave."""
    start = time.perf_counter()
    count = 0
    for images, labels in loader:
        count += int(labels.shape[0])
        float(images[0, 0, 0, 0])  # touch the batch
    return time.perf_counter() - start, count


def _workers_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # processes reaped so far
    return usage.ru_utime + usage.ru_stime


def measure_side_by_side(loaders):
    """Per loader: the best wall time of an epoch, and CPU seconds per epoch in this process and in its
    workers. Rounds alternate between the loaders, so that the load of a shared machine hits them alike.
    Workers' CPU time counts once they are reaped: after each epoch, or when a persistent loader is dropped."""
    walls = {name: [] for name in loaders}
    main_cpu = dict.fromkeys(loaders, 0.0)
    workers_cpu = dict.fromkeys(loaders, 0.0)
    for _ in range(EPOCHS):
        for name, loader in loaders.items():
            main_start, workers_start = time.process_time(), _workers_cpu()
            seconds, images = epoch_seconds(loader)
            walls[name].append(seconds)
            main_cpu[name] += time.process_time() - main_start
            workers_cpu[name] += _workers_cpu() - workers_start
            assert images == len(loader.dataset)
    del loader
    for name in list(loaders):
        workers_start = _workers_cpu()
        del loaders[name]
        gc.collect()
        workers_cpu[name] += _workers_cpu() - workers_start
    return {name: (min(walls[name]), main_cpu[name] / EPOCHS, workers_cpu[name] / EPOCHS) for name in walls}


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    workers = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    with tempfile.TemporaryDirectory() as root:
        dataset, kind = make_images(root, count)
        print(
            f"{count} images {SIDE}x{SIDE} ({kind}), crop {CROP}, batch {BATCH}, {os.cpu_count()} CPUs, "
            f"load average {os.getloadavg()[0]:.1f}"
        )
        ember.manual_seed(0)
        results = measure_side_by_side(
            {
                "num_workers=0": DataLoader(dataset, batch_size=BATCH, shuffle=True),
                f"num_workers={workers}": DataLoader(dataset, batch_size=BATCH, shuffle=True, num_workers=workers),
                f"num_workers={workers}, persistent": DataLoader(
                    dataset, batch_size=BATCH, shuffle=True, num_workers=workers, persistent_workers=True
                ),
            }
        )
    single = results["num_workers=0"][0]
    print(f"{'loader':<32}{'epoch s':>9}{'images/s':>10}{'speed-up':>10}{'main cpu s':>12}{'worker cpu s':>14}")
    for name, (seconds, main_cpu, workers_cpu) in results.items():
        print(
            f"{name:<32}{seconds:>9.3f}{count / seconds:>10.0f}{single / seconds:>9.2f}x{main_cpu:>12.3f}"
            f"{workers_cpu:>14.3f}"
        )
    print(
        "(the speed-up needs idle cores: on a busy Linux machine with autogroup scheduling a session's\n"
        " processes share one slice of the CPU together; the CPU columns show where the work went)"
    )


if __name__ == "__main__":
    main()
