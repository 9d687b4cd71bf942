"""ember keeps freed array memory for reuse (glibc's malloc tuned at import), unless told not to."""

import subprocess
import sys

import pytest

from ember import _allocator

PROBE = "import ember._allocator as a; print(a.keep_freed_memory())"


def _run(env):
    result = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    return result.stdout.strip()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc is tuned on Linux only")
def test_glibc_malloc_is_tuned():
    assert _allocator.keep_freed_memory() is True


def test_environment_variable_turns_it_off(monkeypatch):
    monkeypatch.setenv("EMBER_KEEP_FREED_MEMORY", "0")
    assert _allocator.keep_freed_memory() is False


def test_import_works_with_tuning_off():
    import os

    env = dict(os.environ, EMBER_KEEP_FREED_MEMORY="0")
    assert _run(env) == "False"
