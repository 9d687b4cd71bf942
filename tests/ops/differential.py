"""Run one snippet with ember and with torch and compare what comes out: values, dtypes, shapes,
grad_fn names, or the class of the exception raised (and a fragment of its message)."""

import numpy as np
import pytest

import ember

from ..conftest import assert_close


def outcome(function, lib):
    """`function(lib)`'s result, or the exception it raised."""
    try:
        return function(lib)
    except Exception as error:  # noqa: BLE001 - the exception is the outcome being compared
        return error


def _as_list(result):
    return list(result) if isinstance(result, (tuple, list)) else [result]


def assert_same(function, torch, grad_fn=True, rtol=1e-6, atol=1e-7):
    """`function(ember)` and `function(torch)` agree (or both raise the same exception class)."""
    ours, theirs = outcome(function, ember), outcome(function, torch)
    if isinstance(theirs, Exception) or isinstance(ours, Exception):
        assert type(ours).__name__ == type(theirs).__name__, f"ember gave {ours!r}, torch gave {theirs!r}"
        return ours
    ours_list, theirs_list = _as_list(ours), _as_list(theirs)
    assert len(ours_list) == len(theirs_list), f"{len(ours_list)} results vs torch's {len(theirs_list)}"
    for mine, reference in zip(ours_list, theirs_list):
        if isinstance(reference, torch.Tensor):
            assert isinstance(mine, ember.Tensor), f"expected a Tensor, got {type(mine).__name__}"
            assert str(mine.dtype) == str(reference.dtype), f"dtype {mine.dtype} vs torch's {reference.dtype}"
            assert tuple(mine.shape) == tuple(reference.shape), f"shape {tuple(mine.shape)} vs {tuple(reference.shape)}"
            assert_close(mine.detach().numpy(), reference.detach().numpy(), rtol, atol)
            if grad_fn:
                expected = type(reference.grad_fn).__name__ if reference.grad_fn is not None else None
                actual = type(mine.grad_fn).__name__ if mine.grad_fn is not None else None
                assert actual == expected, f"grad_fn {actual} vs torch's {expected}"
            assert mine.requires_grad == reference.requires_grad
        else:
            assert mine == reference, f"{mine!r} vs torch's {reference!r}"
    return ours


def raises_like(function, torch, match=None):
    """Both raise the same exception class; ember's message contains `match` if given."""
    theirs = outcome(function, torch)
    assert isinstance(theirs, Exception), f"torch did not raise (got {theirs!r}); the test is wrong"
    with pytest.raises(type(theirs)) as info:
        function(ember)
    if match is not None:
        assert match in str(info.value), f"message {str(info.value)!r} lacks {match!r}"
    return info.value


def grads_match(build, torch, rtol=1e-6, atol=1e-7):
    """`build(lib, x)` with x a float64 leaf: the gradients of a weighted sum agree with torch's."""
    data = np.random.default_rng(5).standard_normal((3, 4))
    x_ours = ember.tensor(data, requires_grad=True)
    x_theirs = torch.tensor(data, requires_grad=True)
    out_ours, out_theirs = build(ember, x_ours), build(torch, x_theirs)
    weights = np.random.default_rng(6).standard_normal(tuple(out_theirs.shape))
    (out_ours * ember.tensor(weights)).sum().backward()
    (out_theirs * torch.tensor(weights)).sum().backward()
    assert_close(out_ours, out_theirs.detach().numpy(), rtol, atol, "values")
    assert_close(x_ours.grad, x_theirs.grad.numpy(), rtol, atol, "gradients")
