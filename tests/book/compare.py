"""Run a book cell with ember and with torch and compare everything it shows.

A cell is written once as `def cell(t): ...` (the book's `import torch as t`): `same_as_torch` runs
it with `t = ember` and with `t = torch`, then compares what it returns and prints, recursively:
tensors (dtype, shape, values, requires_grad, grad_fn name and repr), `Size`, dtypes, devices,
storages, NumPy arrays, named tuples (`torch.return_types.max`), numbers and strings. If torch
raises, ember must raise the same exception class.
"""

import contextlib
import io
import warnings

import numpy as np
import pytest

import ember


def run(cell, lib):
    """`(result, printed text)` of `cell(lib)`, or `(exception, printed text)`."""
    printed = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.redirect_stdout(printed):
            try:
                result = cell(lib)
            except Exception as error:  # noqa: BLE001 - the exception is the outcome compared
                result = error
    return result, printed.getvalue()


def same_as_torch(cell, torch, check_repr=True, rtol=1e-6, atol=1e-6):
    """Run `cell` with both libraries, assert they agree, and return ember's result."""
    ours, ours_printed = run(cell, ember)
    theirs, theirs_printed = run(cell, torch)
    if isinstance(theirs, Exception):
        assert type(ours).__name__ == type(theirs).__name__, f"ember gave {ours!r}; torch raised {theirs!r}"
        return ours
    if isinstance(ours, Exception):
        raise AssertionError(f"ember raised {ours!r}; torch returned {theirs!r}") from ours
    assert_same(ours, theirs, torch, "result", check_repr, rtol, atol)
    assert ours_printed == theirs_printed, f"printed:\n{ours_printed}\ntorch printed:\n{theirs_printed}"
    return ours


def raises_like_torch(cell, torch):
    """torch raises; ember raises the same class. Returns ember's exception."""
    theirs, _ = run(cell, torch)
    assert isinstance(theirs, Exception), f"torch did not raise (got {theirs!r}): the test is wrong"
    with pytest.raises(type(theirs)) as info:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cell(ember)
    return info.value


def assert_same(mine, theirs, torch, path="result", check_repr=True, rtol=1e-6, atol=1e-6):
    """`mine` (from ember) matches `theirs` (from torch); `path` names the part in messages."""
    if isinstance(theirs, torch.Tensor):
        _assert_same_tensor(mine, theirs, path, check_repr, rtol, atol)
    elif isinstance(theirs, torch.Size):
        assert isinstance(mine, ember.Size), f"{path}: {type(mine).__name__} instead of Size"
        assert repr(mine) == repr(theirs), f"{path}: {mine!r} vs torch's {theirs!r}"
    elif isinstance(theirs, (torch.dtype, torch.device)):
        assert str(mine) == str(theirs), f"{path}: {mine} vs torch's {theirs}"
    elif type(theirs).__name__ == "TypedStorage":
        assert type(mine).__name__ == "TypedStorage", f"{path}: {type(mine).__name__} instead of TypedStorage"
        assert mine.tolist() == theirs.tolist(), f"{path}: {mine.tolist()} vs torch's {theirs.tolist()}"
        assert str(mine.dtype) == str(theirs.dtype) and repr(mine) == repr(theirs), f"{path}: repr differs"
    elif isinstance(theirs, (tuple, list)):
        assert type(mine).__name__ == type(theirs).__name__, (
            f"{path}: {type(mine).__name__} instead of {type(theirs).__name__}"
        )
        assert len(mine) == len(theirs), f"{path}: {len(mine)} items vs torch's {len(theirs)}"
        for index, (item, reference) in enumerate(zip(mine, theirs)):
            assert_same(item, reference, torch, f"{path}[{index}]", check_repr, rtol, atol)
    elif isinstance(theirs, np.ndarray):
        assert isinstance(mine, np.ndarray), f"{path}: {type(mine).__name__} instead of ndarray"
        assert mine.dtype == theirs.dtype, f"{path}: dtype {mine.dtype} vs {theirs.dtype}"
        np.testing.assert_allclose(mine, theirs, rtol=rtol, atol=atol, err_msg=path)
    elif isinstance(theirs, float):
        assert type(mine) is float, f"{path}: {type(mine).__name__} instead of float"
        assert mine == pytest.approx(theirs, rel=rtol, abs=atol), f"{path}: {mine} vs torch's {theirs}"
    else:
        assert type(mine) is type(theirs), f"{path}: {type(mine).__name__} instead of {type(theirs).__name__}"
        assert mine == theirs, f"{path}: {mine!r} vs torch's {theirs!r}"


def _assert_same_tensor(mine, theirs, path, check_repr, rtol, atol):
    assert isinstance(mine, ember.Tensor), f"{path}: {type(mine).__name__} instead of a Tensor"
    assert str(mine.dtype) == str(theirs.dtype), f"{path}: dtype {mine.dtype} vs torch's {theirs.dtype}"
    assert tuple(mine.shape) == tuple(theirs.shape), f"{path}: shape {tuple(mine.shape)} vs {tuple(theirs.shape)}"
    np.testing.assert_allclose(
        mine.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=atol, equal_nan=True, err_msg=path
    )
    assert mine.requires_grad == theirs.requires_grad, f"{path}: requires_grad {mine.requires_grad}"
    ours_node = type(mine.grad_fn).__name__ if mine.grad_fn is not None else None
    their_node = type(theirs.grad_fn).__name__ if theirs.grad_fn is not None else None
    assert ours_node == their_node, f"{path}: grad_fn {ours_node} vs torch's {their_node}"
    if check_repr:
        assert repr(mine) == repr(theirs), f"{path}: repr\n{mine!r}\nvs torch's\n{theirs!r}"
