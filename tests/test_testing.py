"""ember.testing against torch.testing: the same verdicts and the same messages, and make_tensor."""

import numpy as np
import pytest

import ember
from ember.testing import assert_close, make_tensor

# Each case builds its inputs with `lib` (ember or torch) and calls lib.testing.assert_close.
CASES = {
    "one mismatch": lambda lib: lib.testing.assert_close(lib.tensor([1.0, 2.0, 3.0]), lib.tensor([1.0, 2.5, 3.0])),
    "two mismatches": lambda lib: lib.testing.assert_close(lib.tensor([1.0, 2.0, 3.0]), lib.tensor([1.0, 2.5, 3.5])),
    "2-d index": lambda lib: lib.testing.assert_close(
        lib.arange(12.0).reshape(3, 4), lib.arange(12.0).reshape(3, 4) + lib.eye(3, 4) * 1e-3
    ),
    "msg string": lambda lib: lib.testing.assert_close(lib.tensor([1.0]), lib.tensor([2.0]), msg="custom"),
    "msg callable": lambda lib: lib.testing.assert_close(lib.tensor([1.0]), lib.tensor([2.0]), msg=lambda m: m.upper()),
    "integers exact": lambda lib: lib.testing.assert_close(lib.tensor([1, 2, 3]), lib.tensor([1, 2, 6])),
    "uint8": lambda lib: lib.testing.assert_close(
        lib.tensor([1, 2], dtype=lib.uint8), lib.tensor([1, 3], dtype=lib.uint8)
    ),
    "bool": lambda lib: lib.testing.assert_close(lib.tensor([True]), lib.tensor([False])),
    "dtype differs": lambda lib: lib.testing.assert_close(lib.tensor([1, 2]), lib.tensor([1.0, 2.0])),
    "shape differs": lambda lib: lib.testing.assert_close(lib.tensor([1, 2, 3]), lib.tensor([1, 2])),
    "check_dtype=False": lambda lib: lib.testing.assert_close(
        lib.tensor([1.0], dtype=lib.float64), lib.tensor([1.000001]), check_dtype=False
    ),
    "0-d tensors": lambda lib: lib.testing.assert_close(lib.tensor(1.0), lib.tensor(2.0)),
    "0-d against zero": lambda lib: lib.testing.assert_close(lib.tensor(1.0), lib.tensor(0.0)),
    "floats": lambda lib: lib.testing.assert_close(1.0, 1.1),
    "ints": lambda lib: lib.testing.assert_close(1, 2),
    "int and float": lambda lib: lib.testing.assert_close(1, 1.0),
    "sequence item": lambda lib: lib.testing.assert_close([lib.tensor(1.0)], [lib.tensor(2.0)]),
    "nested item": lambda lib: lib.testing.assert_close({"a": [lib.tensor(1.0)]}, {"a": [lib.tensor(2.0)]}),
    "mapping keys": lambda lib: lib.testing.assert_close({"a": lib.tensor(1.0)}, {"b": lib.tensor(1.0)}),
    "sequence length": lambda lib: lib.testing.assert_close([1, 2], [1]),
    "nan": lambda lib: lib.testing.assert_close(lib.tensor([float("nan")]), lib.tensor([float("nan")])),
    "equal_nan": lambda lib: lib.testing.assert_close(
        lib.tensor([float("nan"), 1.0]), lib.tensor([float("nan"), 1.0]), equal_nan=True
    ),
    "inf": lambda lib: lib.testing.assert_close(lib.tensor([1.0, float("inf")]), lib.tensor([1.0, 2.0])),
    "relative to zero": lambda lib: lib.testing.assert_close(lib.tensor([0.0, 1.0]), lib.tensor([0.0, 0.0])),
    "zero tolerance": lambda lib: lib.testing.assert_close(
        lib.tensor([1e-8, 1.0]), lib.tensor([0.0, 1.0]), atol=0, rtol=0
    ),
    "float16 within": lambda lib: lib.testing.assert_close(lib.tensor([1.0]).half(), lib.tensor([1.001]).half()),
    "float16 beyond": lambda lib: lib.testing.assert_close(lib.tensor([1.0]).half(), lib.tensor([1.01]).half()),
    "complex": lambda lib: lib.testing.assert_close(lib.tensor([1.0 + 1j]), lib.tensor([1.0 + 2j])),
    "only rtol": lambda lib: lib.testing.assert_close(lib.tensor([1.0]), lib.tensor([1.0]), rtol=1e-3),
    "None": lambda lib: lib.testing.assert_close(lib.tensor([1.0]), None),
    "numpy arrays": lambda lib: lib.testing.assert_close(np.array([1.0]), np.array([1.1])),
    "subclass allowed": lambda lib: lib.testing.assert_close(lib.nn.Parameter(lib.tensor([1.0])), lib.tensor([1.0])),
    "strings": lambda lib: lib.testing.assert_close("a", "a"),
    "tensor and list": lambda lib: lib.testing.assert_close(lib.tensor([1.0]), [1.0]),
    "subclass refused": lambda lib: lib.testing.assert_close(
        lib.nn.Parameter(lib.tensor([1.0])), lib.tensor([1.0]), allow_subclasses=False
    ),
}


def _outcome(call, lib):
    try:
        call(lib)
    except Exception as error:  # noqa: BLE001 - the class is part of what is compared
        return type(error).__name__, str(error).replace("ember._tensor.Tensor", "torch.Tensor").replace(
            "ember.nn.parameter", "torch.nn.parameter"
        )
    return "passed", ""


@pytest.mark.parametrize("name", list(CASES))
def test_same_verdict_and_message_as_torch(name):
    torch = pytest.importorskip("torch")
    expected = _outcome(CASES[name], torch)
    actual = _outcome(CASES[name], ember)
    assert actual == expected, f"{name}:\n ember: {actual}\n torch: {expected}"


def test_default_tolerances_per_dtype():
    # float16 (1e-3, 1e-5) is covered by the cases against torch: its spacing near 100 exceeds rtol / 2.
    for dtype, rtol, atol in ((ember.float32, 1.3e-6, 1e-5), (ember.float64, 1e-7, 1e-7)):
        base = ember.tensor([100.0], dtype=dtype)
        assert_close(base, base * (1 + rtol / 2))
        with pytest.raises(AssertionError, match=f"up to {rtol} allowed"):
            assert_close(base, base * (1 + 4 * rtol) + 4 * atol)
    with pytest.raises(AssertionError, match="Tensor-likes are not equal"):
        assert_close(ember.tensor([10]), ember.tensor([11]))


def test_make_tensor_ranges_dtypes_and_flags():
    ember.manual_seed(0)
    x = make_tensor(50, 4, dtype=ember.float32, device="cpu")
    assert x.shape == (50, 4) and x.dtype == ember.float32
    assert -9 <= float(x.min()) and float(x.max()) < 9
    ints = make_tensor((200,), dtype=ember.int64, device="cpu", low=-2, high=3)
    assert set(np.unique(ints.numpy())) <= {-2, -1, 0, 1, 2} and len(np.unique(ints.numpy())) == 5
    assert set(np.unique(make_tensor(100, dtype=ember.bool, device="cpu").numpy())) == {False, True}
    assert float(make_tensor(1000, dtype=ember.uint8, device="cpu").numpy().min()) >= 0
    nonzero = make_tensor(1000, dtype=ember.int32, device="cpu", low=-1, high=2, exclude_zero=True)
    assert (nonzero.numpy() != 0).all()
    leaf = make_tensor(3, dtype=ember.float64, device="cpu", requires_grad=True)
    assert leaf.requires_grad and leaf.is_leaf
    strided = make_tensor(3, 4, dtype=ember.float32, device="cpu", noncontiguous=True)
    assert strided.shape == (3, 4) and not strided.is_contiguous()
    with pytest.raises(ValueError, match="`low` must be less than or equal to `high`"):
        make_tensor(3, dtype=ember.float32, device="cpu", low=5, high=3)


def test_assert_allclose_is_deprecated():
    with pytest.warns(FutureWarning, match="assert_allclose"):
        ember.testing.assert_allclose(ember.tensor([1.0]), [1.0])


def test_reachable_under_torch_names():
    import ember.compat

    was_installed = ember.compat.is_installed()
    torch = ember.compat.install()
    try:
        import torch.utils.checkpoint
        from torch.autograd.graph import saved_tensors_hooks as compat_hooks
        from torch.func import vmap as compat_vmap
        from torch.testing import assert_close as through_compat

        assert through_compat is assert_close and compat_vmap is ember.func.vmap
        assert torch.utils.checkpoint.checkpoint is ember.utils.checkpoint.checkpoint
        assert compat_hooks is ember.autograd.graph.saved_tensors_hooks
    finally:
        if not was_installed:
            ember.compat.uninstall()
