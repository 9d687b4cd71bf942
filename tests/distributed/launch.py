"""Run a worker script on N MPI processes and collect what each rank reports."""
import json
import os
import subprocess
import sys

import pytest

from ember.distributed._mpi import find_mpiexec

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORKERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "workers")


def requires_mpi():
    pytest.importorskip("mpi4py")
    if find_mpiexec() is None:
        pytest.skip("no mpiexec beside Python or on PATH (pip install mpich)")


def environment():
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return env


def run(worker, processes=2, args=(), timeout=120, launcher=None, check=True):
    """Start `workers/<worker>` on `processes` ranks; returns the CompletedProcess."""
    requires_mpi()
    script = os.path.join(WORKERS, worker)
    if launcher == "ember":
        command = [sys.executable, "-m", "ember.distributed.run", "--nproc-per-node", str(processes), script]
    else:
        command = [find_mpiexec(), "-n", str(processes), sys.executable, script]
    result = subprocess.run(command + list(args), capture_output=True, text=True, timeout=timeout,
                            stdin=subprocess.DEVNULL,
                            env=environment(), cwd=ROOT)
    if check and result.returncode != 0:
        raise AssertionError(f"{worker} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result


def reports(result):
    """The JSON lines the ranks printed (one object per line starting with 'REPORT ')."""
    found = [json.loads(line[len("REPORT "):]) for line in result.stdout.splitlines() if line.startswith("REPORT ")]
    return sorted(found, key=lambda report: report["rank"])
