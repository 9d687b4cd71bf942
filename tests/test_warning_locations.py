"""Warnings raised inside ember name the line of the user's call, as PyTorch's do, however deep in
ember they are raised (a public op runs one frame below its dispatching wrapper)."""

import inspect
import warnings

import ember
import ember.nn.functional as F


def _assert_all_at(caught, line):
    assert caught and all(w.filename == __file__ and w.lineno == line for w in caught), [
        (w.filename, w.lineno, str(w.message)) for w in caught
    ]


def test_a_warning_from_a_public_function_names_the_callers_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        F.affine_grid(ember.eye(2, 3).unsqueeze(0), (1, 1, 4, 4))
    _assert_all_at(caught, line)


def test_a_warning_from_a_constructor_and_a_method_names_the_callers_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        ember.tensor(ember.ones(2))
    _assert_all_at(caught, line)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        ember.ones(3).T
    _assert_all_at(caught, line)
