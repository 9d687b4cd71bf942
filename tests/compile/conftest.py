"""The compile tests verify their replays against eager (EMBER_COMPILE_VERIFY, unless set already)."""

import os

import pytest


@pytest.fixture(autouse=True)
def _verify_replays(monkeypatch):
    if "EMBER_COMPILE_VERIFY" not in os.environ:
        monkeypatch.setenv("EMBER_COMPILE_VERIFY", "2")
