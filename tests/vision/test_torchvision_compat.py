"""`import torchvision` under ember.compat / `python -m ember run`: the module mapping and an end-to-end script."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import ember.compat as compat
import ember.vision

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def installed():
    torch = compat.install()
    try:
        yield torch
    finally:
        compat.uninstall()


def test_torchvision_names_resolve_to_ember_vision(installed):
    import torchvision
    import torchvision.transforms.functional as TF
    from torchvision import datasets, models, transforms, utils

    assert torchvision.__version__ == ember.vision.__version__
    assert transforms.ToTensor is ember.vision.transforms.ToTensor
    assert TF.resize is ember.vision.transforms.functional.resize
    assert datasets.MNIST is ember.vision.datasets.MNIST and models.resnet18 is ember.vision.models.resnet18
    assert utils.make_grid is ember.vision.utils.make_grid
    from torchvision.datasets import ImageFolder
    from torchvision.models import ResNet18_Weights
    from torchvision.transforms import InterpolationMode

    assert ImageFolder is ember.vision.datasets.ImageFolder and InterpolationMode.BILINEAR.value == "bilinear"
    assert ResNet18_Weights.DEFAULT.url.endswith("resnet18-f37072fd.pth")


def test_model_names_listed_through_the_module_dict(installed):
    import torchvision.models as models

    names = sorted(
        name
        for name in models.__dict__
        if name.islower() and not name.startswith("__") and callable(models.__dict__[name])
    )
    assert {"resnet18", "resnet50", "vgg16", "alexnet"} <= set(names)
    assert models.__dict__["resnet18"] is ember.vision.models.resnet18


def test_missing_torchvision_names_say_so(installed):
    import torchvision

    with pytest.raises(compat.NotImplementedInEmber, match="torchvision.transforms.AugMix is not implemented"):
        _ = torchvision.transforms.AugMix
    with pytest.raises(compat.NotImplementedInEmber, match="torchvision.ops.roi_align is not implemented"):
        import torchvision.ops

        _ = torchvision.ops.roi_align
    with pytest.raises(ImportError, match="torchvision.models.detection.fasterrcnn_resnet50_fpn"):
        from torchvision.models.detection import fasterrcnn_resnet50_fpn  # noqa: F401
    assert not hasattr(torchvision.datasets, "ImageNet")


def test_uninstall_removes_torchvision():
    compat.install()
    import torchvision  # noqa: F401

    compat.uninstall()
    assert "torchvision" not in sys.modules


TRAINING_SCRIPT = '''
import sys
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from torchvision import datasets, transforms
from torch.utils.data import DataLoader
from PIL import Image

root = sys.argv[1]
rng = np.random.default_rng(0)
for name, colour in (("blue", (0, 0, 220)), ("red", (220, 0, 0))):
    import os
    os.makedirs(os.path.join(root, name), exist_ok=True)
    for index in range(12):
        pixels = np.clip(rng.normal(colour, 40, (14, 14, 3)), 0, 255).astype(np.uint8)
        Image.fromarray(pixels).save(os.path.join(root, name, f"{index}.png"))

torch.manual_seed(0)
pipeline = transforms.Compose([
    transforms.Resize(12), transforms.RandomCrop(10), transforms.RandomHorizontalFlip(),
    transforms.ColorJitter(brightness=0.1), transforms.ToTensor(),
    transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))])
dataset = datasets.ImageFolder(root, transform=pipeline)
loader = DataLoader(dataset, batch_size=8, shuffle=True)
model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 2))
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
losses = []
for epoch in range(6):
    for images, labels in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
grid = torchvision.utils.make_grid(next(iter(loader))[0], nrow=4)
print("classes", dataset.classes, "grid", tuple(grid.shape))
print(f"first {sum(losses[:3]) / 3:.3f} last {sum(losses[-3:]) / 3:.3f}")
'''


def test_a_torchvision_training_script_runs_under_ember_run(tmp_path):
    pytest.importorskip("PIL")
    script = tmp_path / "train_folder.py"
    script.write_text(textwrap.dedent(TRAINING_SCRIPT))
    result = subprocess.run(
        [sys.executable, "-m", "ember", "run", str(script), str(tmp_path / "images")],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=600,
        check=False,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("classes ['blue', 'red'] grid (3, ")
    first, last = float(lines[1].split()[1]), float(lines[1].split()[3])
    assert last < 0.5 * first, result.stdout  # red vs blue is easy: the loss must fall


def test_the_same_script_runs_under_pytorch_and_torchvision(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("torchvision")
    script = tmp_path / "train_folder.py"
    script.write_text(textwrap.dedent(TRAINING_SCRIPT))
    result = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "images")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    first, last = float(result.stdout.splitlines()[1].split()[1]), float(result.stdout.splitlines()[1].split()[3])
    assert last < 0.5 * first, result.stdout
