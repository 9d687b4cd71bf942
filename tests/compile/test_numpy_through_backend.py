"""Ops reach NumPy only through ember._backend: what a recording sees of them is then complete."""

import pathlib
import re

import ember

IMPORT = re.compile(r"^\s*(import numpy|from numpy)", re.MULTILINE)


def test_ops_import_numpy_only_through_the_backend():
    ops = pathlib.Path(ember.__file__).parent / "ops"
    offenders = [path.name for path in sorted(ops.glob("*.py")) if IMPORT.search(path.read_text())]
    assert offenders == [], f"ember/ops modules importing numpy directly (use `from .._backend import np`): {offenders}"
