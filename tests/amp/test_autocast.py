"""Autocast regions: which ops change dtype, the values and gradients they give against PyTorch's
CPU autocast in float16 and bfloat16 (its default; needs ml_dtypes), the state functions, and the
warnings for what ember cannot do."""

import warnings

import numpy as np
import pytest

import ember
import ember.nn.functional as F

from ..conftest import assert_close

# The region dtypes; bfloat16 tests skip without ml_dtypes (tests/test_bfloat16.py checks the error then).
REGION_DTYPES = [
    "float16",
    pytest.param(
        "bfloat16",
        marks=pytest.mark.skipif(
            __import__("importlib").util.find_spec("ml_dtypes") is None, reason="bfloat16 needs ml_dtypes"
        ),
    ),
]


def _leaf(array, requires_grad=False):
    return ember.tensor(array).requires_grad_(requires_grad)


# (name, call on a namespace `m` with its functional module `f`, float32 inputs made by shape)
LOWERED = [
    ("linear", lambda m, f, x, w, b: f.linear(x, w, b), [(3, 4), (5, 4), (5,)]),
    ("matmul", lambda m, f, x, w: m.matmul(x, w.mT), [(2, 3, 4), (5, 4)]),
    ("mm", lambda m, f, x, w: m.mm(x, w), [(3, 4), (4, 5)]),
    ("bmm", lambda m, f, x, w: m.bmm(x, w), [(2, 3, 4), (2, 4, 5)]),
    ("addmm", lambda m, f, b, x, w: m.addmm(b, x, w), [(3, 5), (3, 4), (4, 5)]),
    ("baddbmm", lambda m, f, b, x, w: m.baddbmm(b, x, w), [(2, 3, 5), (2, 3, 4), (2, 4, 5)]),
    ("addbmm", lambda m, f, b, x, w: m.addbmm(b, x, w), [(3, 5), (2, 3, 4), (2, 4, 5)]),
    ("einsum", lambda m, f, x, w: m.einsum("ij,kj->ik", x, w), [(3, 4), (5, 4)]),
    ("conv2d", lambda m, f, x, w, b: f.conv2d(x, w, b, padding=1), [(1, 2, 5, 5), (3, 2, 3, 3), (3,)]),
    ("conv1d", lambda m, f, x, w: f.conv1d(x, w), [(1, 2, 6), (3, 2, 3)]),
    ("conv_transpose2d", lambda m, f, x, w: f.conv_transpose2d(x, w, stride=2), [(1, 2, 3, 3), (2, 3, 2, 2)]),
    ("prelu", lambda m, f, x, w: f.prelu(x, w), [(2, 3, 4), (3,)]),
    ("attention", lambda m, f, q, k, v: f.scaled_dot_product_attention(q, k, v), [(1, 3, 4), (1, 5, 4), (1, 5, 2)]),
]


@pytest.mark.parametrize("region", REGION_DTYPES)
@pytest.mark.parametrize("name,call,shapes", LOWERED, ids=[case[0] for case in LOWERED])
def test_autocast_matches_torch_in_dtype_value_and_gradient(torch, name, call, shapes, region):
    rng = np.random.default_rng(0)
    arrays = [rng.uniform(-1, 1, size=shape).astype(np.float32) for shape in shapes]
    ours_in = [_leaf(a, True) for a in arrays]
    theirs_in = [torch.tensor(a, requires_grad=True) for a in arrays]
    with ember.autocast("cpu", dtype=getattr(ember, region)):
        ours = call(ember, F, *ours_in)
    with torch.autocast("cpu", dtype=getattr(torch, region)):
        theirs = call(torch, torch.nn.functional, *theirs_in)
    assert str(ours.dtype) == str(theirs.dtype) == f"torch.{region}"
    # bfloat16 keeps 8 bits of mantissa: one rounding of an O(1) value is up to 2**-8 relative
    tolerance = 2e-2 if region == "float16" else 4e-2
    assert_close(ours.float(), theirs.float(), rtol=tolerance, atol=tolerance, what=f"{name} forward")
    ours.float().square().sum().backward()
    theirs.float().square().sum().backward()
    for mine, reference in zip(ours_in, theirs_in):
        assert mine.grad.dtype is ember.float32
        assert_close(mine.grad, reference.grad, rtol=5e-2, atol=5e-2, what=f"{name} gradient")


LOSSES = [
    ("mse_loss", lambda f, y, t: f.mse_loss(y, t)),
    ("l1_loss", lambda f, y, t: f.l1_loss(y, t)),
    ("smooth_l1_loss", lambda f, y, t: f.smooth_l1_loss(y, t)),
    ("huber_loss", lambda f, y, t: f.huber_loss(y, t)),
    ("bce_with_logits", lambda f, y, t: f.binary_cross_entropy_with_logits(y, t.sigmoid())),
    ("binary_cross_entropy", lambda f, y, t: f.binary_cross_entropy(y.sigmoid(), t.sigmoid())),
    ("cross_entropy", lambda f, y, t: f.cross_entropy(y, t.argmax(1))),
    ("nll_loss", lambda f, y, t: f.nll_loss(y.log_softmax(1), t.argmax(1))),
    ("kl_div", lambda f, y, t: f.kl_div(y.log_softmax(1), t.softmax(1), reduction="batchmean")),
]


@pytest.mark.parametrize("region", REGION_DTYPES)
@pytest.mark.parametrize("name,loss", LOSSES, ids=[case[0] for case in LOSSES])
def test_losses_run_in_float32_under_autocast(torch, name, loss, region):
    rng = np.random.default_rng(1)
    x, w, t = (rng.uniform(-1, 1, size=s).astype(np.float32) for s in [(3, 4), (5, 4), (3, 5)])
    with ember.autocast("cpu", dtype=getattr(ember, region)):
        ours = loss(F, F.linear(_leaf(x), _leaf(w)), _leaf(t))
    with torch.autocast("cpu", dtype=getattr(torch, region)):
        theirs = loss(
            torch.nn.functional, torch.nn.functional.linear(torch.tensor(x), torch.tensor(w)), torch.tensor(t)
        )
    assert str(ours.dtype) == str(theirs.dtype) == "torch.float32"
    assert_close(ours, theirs, rtol=1e-2 if region == "float16" else 3e-2, atol=1e-3, what=name)


def test_ops_outside_the_lists_keep_their_dtype(torch):
    with ember.autocast("cpu", dtype=ember.float16):
        y = F.linear(ember.ones(2, 3), ember.ones(4, 3))
        kept = [F.relu(y), y.softmax(1), y.sum(), y.exp()]
        assert [t.dtype for t in kept] == [ember.float16] * 4
        double = ember.ones(2, 2, dtype=ember.float64)
        assert (double @ double).dtype is ember.float64
        assert (ember.ones(2, 2, dtype=ember.int64) @ ember.ones(2, 2, dtype=ember.int64)).dtype is ember.int64
        with ember.autocast("cpu", enabled=False):
            assert F.linear(ember.ones(2, 3), ember.ones(4, 3)).dtype is ember.float32
            assert not ember.is_autocast_enabled("cpu")
        assert ember.is_autocast_enabled("cpu")
    assert not ember.is_autocast_enabled("cpu")


def test_default_cpu_autocast_is_bfloat16_as_torch(torch):
    pytest.importorskip("ml_dtypes")
    half = ember.ones(2, 2, dtype=ember.float16)
    with ember.autocast("cpu"), torch.autocast("cpu"):
        assert ember.get_autocast_dtype("cpu") is ember.bfloat16 and torch.get_autocast_dtype("cpu") is torch.bfloat16
        assert F.linear(ember.ones(2, 3), ember.ones(4, 3)).dtype is ember.bfloat16
        assert ember.is_autocast_enabled("cpu") and not ember.is_autocast_enabled()
        # float16 inputs are eligible too (cast to bfloat16), the losses come back to float32, as PyTorch's
        theirs_half = torch.ones(2, 2, dtype=torch.float16)
        assert str((half @ half).dtype) == str((theirs_half @ theirs_half).dtype) == "torch.bfloat16"
        y = ember.ones(2, 2, dtype=ember.bfloat16)
        assert F.mse_loss(y, y).dtype is ember.float32
        assert y.exp().dtype is ember.bfloat16


def test_decorator_and_state_functions():
    @ember.autocast("cpu", dtype=ember.float16)
    def product(a, b):
        assert ember.is_autocast_enabled("cpu")
        return ember.mm(a, b)

    assert product(ember.ones(2, 2), ember.ones(2, 2)).dtype is ember.float16
    assert product(ember.ones(2, 2), ember.ones(2, 2)).dtype is ember.float16
    assert not ember.is_autocast_enabled("cpu")
    ember.set_autocast_enabled("cpu", True)
    try:
        assert ember.is_autocast_enabled("cpu") and ember.get_autocast_dtype("cpu") is ember.bfloat16
    finally:
        ember.set_autocast_enabled("cpu", False)
    assert ember.is_autocast_cache_enabled() and ember.amp.is_autocast_available("cpu")
    with pytest.warns(DeprecationWarning, match="is_autocast_enabled\\('cpu'\\)"):
        assert ember.is_autocast_cpu_enabled() is False


@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.autocast("cuda"),
        lambda m: m.autocast("cpu", dtype=m.float64),
        lambda m: m.cuda.amp.autocast(),
        lambda m: m.cpu.amp.autocast(dtype=m.float16),
        lambda m: m.autocast(m.device("cpu")),
        lambda m: m.autocast("xyz"),
    ],
)
def test_construction_warnings_and_errors_match_torch(torch, make):
    def outcome(module):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                with make(module):
                    inside = (module.is_autocast_enabled("cpu"), module.is_autocast_enabled())
                result = ("value", inside)
            except Exception as error:  # noqa: BLE001 - the class is compared
                result = ("error", type(error).__name__)
        return result, sorted(type(w.message).__name__ for w in caught if "bfloat16" not in str(w.message))

    assert outcome(ember) == outcome(torch)


def test_custom_fwd_casts_inputs_and_custom_bwd_runs():
    class Square(ember.autograd.Function):
        @staticmethod
        @ember.amp.custom_fwd(device_type="cpu", cast_inputs=ember.float64)
        def forward(ctx, x):
            ctx.save_for_backward(x)
            assert not ember.is_autocast_enabled("cpu")
            return x * x

        @staticmethod
        @ember.amp.custom_bwd(device_type="cpu")
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    x = ember.ones(3, requires_grad=True)
    with ember.autocast("cpu", dtype=ember.float16):
        y = Square.apply(x)
    assert y.dtype is ember.float64
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_autocast_is_per_thread():
    import threading

    seen = []

    def other_thread():
        seen.append((ember.is_autocast_enabled("cpu"), F.linear(ember.ones(2, 3), ember.ones(4, 3)).dtype))

    with ember.autocast("cpu", dtype=ember.float16):
        worker = threading.Thread(target=other_thread)
        worker.start()
        worker.join()
    assert seen == [(False, ember.float32)]
