"""ember.signal.windows against torch.signal.windows: values, dtypes, sym/periodic and the errors."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")

OPTIONS = {
    "bartlett": {},
    "blackman": {},
    "cosine": {},
    "exponential": {"tau": 0.7},
    "gaussian": {"std": 1.3},
    "general_cosine": {"a": [0.46, 0.23, 0.31]},
    "general_hamming": {"alpha": 0.6},
    "hamming": {},
    "hann": {},
    "kaiser": {"beta": 3.0},
    "nuttall": {},
}


def test_every_torch_window_is_here():
    assert sorted(ember.signal.windows.__all__) == sorted(torch.signal.windows.__all__)


@pytest.mark.parametrize("name", sorted(OPTIONS))
@pytest.mark.parametrize("M", [0, 1, 2, 5, 8])
@pytest.mark.parametrize("sym", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_window_matches_torch(name, M, sym, dtype):
    ours = getattr(ember.signal.windows, name)(M, sym=sym, dtype=getattr(ember, dtype), **OPTIONS[name])
    theirs = getattr(torch.signal.windows, name)(M, sym=sym, dtype=getattr(torch, dtype), **OPTIONS[name])
    assert str(ours.dtype).replace("ember", "torch") == str(theirs.dtype) and tuple(ours.shape) == tuple(theirs.shape)
    tolerance = 2e-6 if dtype == "float32" else 1e-12  # torch evaluates in the dtype; ember in float64, rounded
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=tolerance, atol=tolerance)


def test_default_dtype_and_an_off_centre_periodic_exponential():
    ours = ember.signal.windows.exponential(6, center=1.5, tau=0.5, sym=False)
    theirs = torch.signal.windows.exponential(6, center=1.5, tau=0.5, sym=False)
    assert ours.dtype is ember.float32
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=2e-6)
    one = ember.signal.windows.exponential(1, center=2.0, sym=False).numpy()
    np.testing.assert_allclose(one, torch.signal.windows.exponential(1, center=2.0, sym=False).numpy(), rtol=2e-6)


def test_requires_grad_gives_a_leaf():
    window = ember.signal.windows.hann(4, requires_grad=True)
    assert window.requires_grad and window.is_leaf


@pytest.mark.parametrize(
    "call",
    [
        "hann(-1)",
        "blackman(-2)",
        "hann(3, dtype=lib.int64)",
        "gaussian(3, std=0)",
        "kaiser(3, beta=-1)",
        "exponential(3, center=1.0)",
        "exponential(3, tau=0)",
        "general_cosine(3, a=5)",
        "general_cosine(3, a=[])",
        "hann(3, layout=lib.sparse_coo)",
    ],
)
def test_bad_arguments_raise_torchs_class(call):
    raised = {}
    for lib in (ember, torch):
        with pytest.raises(Exception) as info:
            eval(f"lib.signal.windows.{call}", {"lib": lib})
        raised[lib.__name__] = info.value
    assert type(raised["ember"]) is type(raised["torch"]), raised
    if "general_cosine(3, a=" not in call:  # elsewhere ember's message is PyTorch's own
        assert str(raised["ember"]).replace("ember.", "torch.") == str(raised["torch"])
