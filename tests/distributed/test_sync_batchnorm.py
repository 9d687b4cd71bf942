"""SyncBatchNorm on 2 MPI processes equals BatchNorm on the whole batch (workers/sync_batchnorm.py)."""

import numpy as np
import pytest

import ember
from ember import nn

from . import launch


def test_sync_batchnorm_on_two_processes_is_batchnorm_on_the_whole_batch():
    reports = launch.run("sync_batchnorm.py", processes=2).reports
    assert len(reports) == 2, reports
    for report in reports:
        assert report["results"].get("matches_whole_batch") == "ok", report["results"]


def test_without_a_process_group_it_is_batchnorm():
    x = ember.randn(4, 3, 5)
    ember.manual_seed(0)
    plain = nn.BatchNorm1d(3)
    synced = nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm1d(3))
    np.testing.assert_allclose(synced(x).detach().numpy(), plain(x).detach().numpy(), rtol=1e-6, atol=1e-6)
    assert synced.running_mean.tolist() == plain.running_mean.tolist()


def test_convert_shares_parameters_and_matches_torch_repr():
    torch = pytest.importorskip("torch")
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2, momentum=None))
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    theirs = torch.nn.SyncBatchNorm.convert_sync_batchnorm(
        torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.BatchNorm2d(2, momentum=None))
    )
    assert repr(converted) == repr(theirs)
    assert converted[1].weight is model[1].weight and converted[1].running_mean is model[1].running_mean
    with pytest.raises(ValueError, match="expected at least 2D input"):
        nn.SyncBatchNorm(2)(ember.ones(2))
