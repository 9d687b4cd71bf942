"""DistributedDataParallel on 2 MPI processes (tests/distributed/workers/ddp.py)."""

import pytest

from . import launch

CHECKS = [
    "matches_single_process",
    "no_sync_accumulates",
    "find_unused_parameters",
    "unused_without_detection_raises",
    "broadcast_buffers",
    "large_gradients_reduced_in_place",
    "gradient_as_bucket_view_zeroed_in_place",
    "gradients_arriving_out_of_bucket_order",
    "each_rank_leaves_other_parameters_unused",
]


@pytest.fixture(scope="module")
def rank_reports():
    return launch.run("ddp.py", processes=2).reports


@pytest.mark.parametrize("check", CHECKS)
def test_ddp(rank_reports, check):
    assert len(rank_reports) == 2, rank_reports
    for report in rank_reports:
        outcome = report["results"].get(check, "not run")
        assert outcome == "ok", f"rank {report['rank']}, {check}:\n{outcome}"
