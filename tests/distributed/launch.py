"""Run a worker script on N MPI processes and collect what each rank reports."""

import json
import os
import pathlib
import subprocess
import sys
import tempfile

import pytest

from ember.distributed._mpi import find_mpiexec

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORKERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "workers")


def requires_mpi():
    pytest.importorskip("mpi4py")
    if find_mpiexec() is None:
        pytest.skip("no mpiexec beside Python or on PATH (pip install mpich)")


def environment(reports_folder=None):
    env = dict(os.environ)
    if reports_folder is not None:
        env["EMBER_TEST_REPORTS"] = str(reports_folder)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return env


def run(worker, processes=2, args=(), timeout=120, launcher=None, check=True, launcher_options=()):
    """Start `workers/<worker>` on `processes` ranks; returns the CompletedProcess, with `.reports`:
    what each rank reported (workers/_report.py), in rank order."""
    requires_mpi()
    script = os.path.join(WORKERS, worker)
    if launcher == "ember":
        command = [
            sys.executable,
            "-m",
            "ember.distributed.run",
            *launcher_options,
            "--nproc-per-node",
            str(processes),
            script,
        ]
    elif launcher == "python":
        command = [sys.executable, script]
    else:
        command = [find_mpiexec(), "-n", str(processes), sys.executable, script]
    with tempfile.TemporaryDirectory() as folder:
        result = subprocess.run(
            command + list(args),
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            env=environment(folder),
            cwd=ROOT,
        )
        result.reports = [json.loads(pathlib.Path(folder, name).read_text()) for name in sorted(os.listdir(folder))]
    if check and result.returncode != 0:
        raise AssertionError(f"{worker} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result
