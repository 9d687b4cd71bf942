"""examples/ddp_mnist.py runs unchanged under ember's launcher and under torchrun with real PyTorch."""

import os
import re
import shutil
import subprocess
import sys

import pytest

from . import launch

EXAMPLE = os.path.join(launch.ROOT, "examples", "ddp_mnist.py")


def accuracy(output):
    found = re.findall(r"train accuracy ([0-9.]+)", output)
    assert found, output
    return float(found[-1])


def run(command, tmp_path):
    result = subprocess.run(
        command + [EXAMPLE, "--epochs", "1", "--checkpoint", str(tmp_path / "model.pt")],
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        env=launch.environment(),
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "model.pt").exists()
    return result.stdout


def test_ddp_example_trains_under_ember(tmp_path):
    launch.requires_mpi()
    output = run([sys.executable, "-m", "ember.distributed.run", "--nproc-per-node", "2"], tmp_path)
    assert "2 processes" in output and accuracy(output) > 0.7  # one epoch: ~0.83 on MNIST, ~0.98 synthetic


def test_ddp_example_trains_under_torchrun(tmp_path):
    pytest.importorskip("torch")
    if shutil.which("torchrun") is None:
        pytest.skip("torchrun not on PATH")
    output = run(["torchrun", "--standalone", "--nproc-per-node", "2"], tmp_path)
    assert "2 processes" in output and accuracy(output) > 0.7  # one epoch: ~0.83 on MNIST, ~0.98 synthetic
