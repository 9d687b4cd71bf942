"""Every `>>>` example in ember's docstrings runs and prints what it says (the site shows them)."""

import doctest
import importlib
import pkgutil
import warnings

import numpy as np
import pytest

import ember

# The names an example may use without importing them, as the site's examples read.
GLOBALS = {"ember": ember, "nn": ember.nn, "F": ember.nn.functional, "np": np}
SKIPPED_PACKAGES = ("ember.distributed.run", "ember.__main__")  # they act on import or at the command line


def _examples():
    finder = doctest.DocTestFinder(exclude_empty=True)
    for info in pkgutil.walk_packages(ember.__path__, "ember."):
        if info.name.startswith(SKIPPED_PACKAGES):
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional extra that is not installed (mpi4py, Pillow ...)
            continue
        for test in finder.find(module, info.name, extraglobs=GLOBALS):
            if test.examples:
                yield test


EXAMPLES = sorted(_examples(), key=lambda test: test.name)


@pytest.mark.parametrize("test", EXAMPLES, ids=[test.name for test in EXAMPLES])
def test_docstring_example(test):
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = []
    ember.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an example may show a deprecated spelling beside its successor
        result = runner.run(test, out=report.append)
    assert result.failed == 0, "".join(report)


def test_there_are_examples_to_run():
    assert len(EXAMPLES) > 30
