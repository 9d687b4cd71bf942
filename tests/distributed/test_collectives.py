"""Every collective on 2 MPI processes, checked against NumPy (tests/distributed/workers/collectives.py)."""

import pytest

from . import launch

CHECKS = [
    "all_reduce_sum",
    "all_reduce_ops",
    "all_reduce_non_contiguous_and_async",
    "broadcast",
    "all_gather",
    "gather_scatter",
    "reduce",
    "reduce_scatter",
    "all_to_all",
    "send_recv",
    "objects",
    "new_group",
    "errors",
]


@pytest.fixture(scope="module")
def rank_reports():
    return launch.run("collectives.py", processes=2).reports


@pytest.mark.parametrize("check", CHECKS)
def test_collective_matches_numpy(rank_reports, check):
    assert len(rank_reports) == 2, rank_reports
    for report in rank_reports:
        outcome = report["results"].get(check, "not run")
        assert outcome == "ok", f"rank {report['rank']}, {check}:\n{outcome}"
