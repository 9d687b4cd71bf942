"""The MNIST LeNet-5 example, run on ember through the torch compatibility layer, on a small budget."""

import runpy
import time
from pathlib import Path

import pytest

import ember.compat as compat

REPO = Path(__file__).resolve().parents[1]
# The full test set where this machine has it, else the 1,000-image sample shipped with the example.
MNIST_DIR = next(
    (
        path
        for path in (REPO.parent / "shared" / "data" / "mnist", Path("/work/shared/data/mnist"))
        if (path / "t10k-images-idx3-ubyte.gz").exists()
    ),
    REPO / "examples" / "data" / "mnist-sample",
)

TRAIN_IMAGES = 320
EPOCHS = 4
# Chance is ln(10) = 2.30. With this recipe PyTorch reaches a held-out loss of 0.48-0.60 (accuracy
# 0.80-0.85) over seeds 0-3; 1.0 leaves room for seeds and platforms while catching a model that does
# not learn.
LOSS_BOUND = 1.0
ACCURACY_BOUND = 0.70


@pytest.fixture
def example():
    torch = compat.install()
    try:
        yield torch, runpy.run_path(str(REPO / "examples" / "mnist_lenet.py"), run_name="mnist_lenet")
    finally:
        compat.uninstall()


def test_lenet_learns_from_a_few_hundred_images(example):
    torch, module = example
    torch.manual_seed(0)
    train_set, held_out_set = module["load_mnist"](str(MNIST_DIR), TRAIN_IMAGES, 0)
    held_out_set = torch.utils.data.Subset(held_out_set, range(500))
    train_loader = torch.utils.data.DataLoader(
        train_set, batch_size=32, shuffle=True, generator=torch.Generator().manual_seed(0)
    )
    held_out_loader = torch.utils.data.DataLoader(held_out_set, batch_size=500)
    model = module["LeNet5"]()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    initial_loss, _ = module["evaluate"](model, held_out_loader)
    start = time.process_time()
    for epoch in range(EPOCHS):
        module["train_one_epoch"](model, train_loader, optimizer, f"epoch {epoch}")
    seconds = time.process_time() - start
    loss, accuracy = module["evaluate"](model, held_out_loader)
    assert initial_loss > 2.0, initial_loss
    assert loss < LOSS_BOUND and accuracy > ACCURACY_BOUND, (
        f"after {EPOCHS} epochs on {TRAIN_IMAGES} images: held-out loss {loss:.3f} (bound {LOSS_BOUND}), "
        f"accuracy {accuracy:.3f} (bound {ACCURACY_BOUND}); {seconds:.1f} s of CPU"
    )


def test_example_falls_back_to_the_shipped_sample_when_offline(example, tmp_path, monkeypatch, capsys):
    def offline(*args, **kwargs):
        raise OSError("no network (test)")

    monkeypatch.setattr("urllib.request.urlretrieve", offline)
    monkeypatch.setattr("urllib.request.urlopen", offline)
    _, module = example
    monkeypatch.setitem(module["find_mnist"].__globals__, "DATA_ROOT", str(tmp_path))
    directory = module["find_mnist"]()
    assert directory == module["SAMPLE"]
    message = capsys.readouterr().out
    assert "t10k-images-idx3-ubyte.gz" in message and str(tmp_path / "MNIST" / "raw") in message
    train_set, held_out_set = module["load_mnist"](directory, 8000, 0)
    assert (len(train_set), len(held_out_set)) == (800, 200)
    assert [path for path in tmp_path.rglob("*") if path.is_file()] == []
