"""`axis=` and `keepdims=`, NumPy's names for `dim` and `keepdim`, which PyTorch accepts everywhere."""

import numpy as np
import pytest

import ember

CALLS = {
    "x.sum(axis, keepdims)": lambda lib, x: x.sum(axis=1, keepdims=True),
    "sum(x, axis)": lambda lib, x: lib.sum(x, axis=0),
    "x.mean(axis)": lambda lib, x: x.mean(axis=0),
    "mean(x, axis tuple, keepdims)": lambda lib, x: lib.mean(x, axis=(0, 1), keepdims=True),
    "x.max(axis).values": lambda lib, x: x.max(axis=1).values,
    "x.argmax(axis)": lambda lib, x: x.argmax(axis=1),
    "x.std(axis)": lambda lib, x: x.std(axis=0),
    "x.any(axis)": lambda lib, x: (x > 2).any(axis=0),
    "x.cumsum(axis)": lambda lib, x: x.cumsum(axis=1),
    "x.softmax(axis)": lambda lib, x: x.softmax(axis=0),
    "x.unsqueeze(axis)": lambda lib, x: x.unsqueeze(axis=0),
    "x.squeeze(axis)": lambda lib, x: x.unsqueeze(0).squeeze(axis=0),
    "cat(axis)": lambda lib, x: lib.cat([x, x], axis=0),
    "stack(axis)": lambda lib, x: lib.stack([x, x], axis=1),
    "concatenate(axis)": lambda lib, x: lib.concatenate([x, x], axis=1),
    "logsumexp(axis, keepdims)": lambda lib, x: lib.logsumexp(x, axis=1, keepdims=True),
}


@pytest.mark.parametrize("call", CALLS)
def test_numpy_names_agree_with_torch(call, torch):
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    ours, expected = CALLS[call](ember, ember.tensor(data)), CALLS[call](torch, torch.tensor(data))
    assert ours.shape == tuple(expected.shape) and str(ours.dtype) == str(expected.dtype)
    np.testing.assert_allclose(ours.numpy(), expected.numpy(), rtol=1e-6)


def test_numpy_names_reach_the_graph():
    x = ember.ones(2, 3, requires_grad=True)
    x.sum(axis=1, keepdims=True).sum().backward()
    assert ember.equal(x.grad, ember.ones(2, 3))


def test_both_spellings_at_once_is_an_error():
    with pytest.raises(TypeError, match="got both 'dim' and its NumPy name 'axis'"):
        ember.ones(2).sum(dim=0, axis=0)
    with pytest.raises(TypeError, match="unexpected keyword argument 'axes'"):
        ember.sum(ember.ones(2), axes=0)
