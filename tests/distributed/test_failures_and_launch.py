"""A failing rank ends the job with its rank named; the launcher sets torchrun's variables;
init_process_group explains what is missing without a launcher."""

import subprocess
import sys
import time

import pytest

from . import launch


@pytest.mark.parametrize("how", ["raises", "dies", "hangs"])
def test_a_failing_rank_ends_the_job_within_the_timeout(how):
    started = time.monotonic()
    result = launch.run("failing_rank.py", args=[how], timeout=60, check=False)
    elapsed = time.monotonic() - started
    assert result.returncode != 0, result.stdout + result.stderr
    assert elapsed < 30, f"the job took {elapsed:.1f} s to end"
    if how == "raises":
        assert "rank 1 raised ValueError" in result.stderr and "bad batch on purpose" in result.stderr
    if how == "hangs":
        assert "all_reduce on rank 0 timed out after 3 s" in result.stderr, result.stderr


def test_launcher_sets_torchrun_variables_and_runs_torch_scripts_on_ember():
    reports = launch.run("environment.py", processes=2, launcher="ember").reports
    assert [report["rank"] for report in reports] == [0, 1]
    for report in reports:
        assert report["size"] == 2 and report["torch"] == "torch" and report["is_ember"]
        env = report["env"]
        assert env["RANK"] == str(report["rank"]) and env["LOCAL_RANK"] == str(report["rank"])
        assert env["WORLD_SIZE"] == "2" and env["LOCAL_WORLD_SIZE"] == "2"
        assert env["MASTER_ADDR"] == "127.0.0.1" and env["MASTER_PORT"] == "29500"


def single(case):
    return launch.run("single_process.py", launcher="python", args=[case]).reports[0]


def test_a_world_of_one_needs_no_launcher():
    report = single("world_of_one")
    assert report.get("value") == [1.0, 1.0] and report["initialized"], report
    assert report["twice"] == "trying to initialize the default process group twice!"
    assert report["after_destroy"] is False


def test_several_processes_without_a_launcher_name_the_launch_command():
    report = single("two_without_launcher")
    assert report["error"] == "RuntimeError"
    assert "python -m ember.distributed.run --nproc-per-node 2" in report["message"]
    assert "mpiexec -n 2" in report["message"]


def test_env_rendezvous_without_rank_is_a_value_error():
    report = single("no_rank")
    assert report["error"] == "ValueError" and "RANK expected" in report["message"]


def test_nccl_is_refused_with_the_cpu_backends_named():
    report = single("nccl")
    assert report["error"] == "RuntimeError" and "gloo" in report["message"]


def test_launcher_with_a_host_file(tmp_path):
    hosts = tmp_path / "hosts"
    hosts.write_text("localhost\n")
    result = launch.run("environment.py", launcher="ember", launcher_options=["--hostfile", str(hosts)])
    assert [report["env"]["RANK"] for report in result.reports] == ["0", "1"]


def test_without_mpi4py_init_says_what_to_install():
    code = (
        "import sys; sys.modules['mpi4py'] = None\n"
        "import ember.distributed as dist\n"
        "assert not dist.is_available()\n"
        "try:\n    dist.init_process_group('gloo', rank=0, world_size=1)\n"
        "except RuntimeError as error:\n    print(error)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        env=launch.environment(),
        cwd=launch.ROOT,
    )
    assert result.returncode == 0, result.stderr
    assert "mpi4py" in result.stdout and 'pip install "ember-autograd[distributed]"' in result.stdout
