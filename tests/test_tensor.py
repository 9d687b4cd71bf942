"""Tensor basics the autograd chapter uses: creation, legacy constructor, dtypes, metadata, repr."""

import warnings

import numpy as np
import pytest

import ember as t

from .conftest import assert_close


def test_legacy_constructor_forms():
    assert t.Tensor(2, 3).shape == (2, 3) and t.Tensor(2, 3).dtype is t.float32
    assert_close(t.Tensor([1, 1, 1]), [1.0, 1.0, 1.0])
    assert t.Tensor([1, 2]).dtype is t.float32
    assert t.Tensor().shape == (0,)
    assert t.Tensor((2, 2)).shape == (2,)  # a tuple of data, as PyTorch reads it
    assert t.Tensor(t.Size([2, 4])).shape == (2, 4)


def test_tensor_dtype_inference():
    assert t.tensor(3).dtype is t.int64
    assert t.tensor([1.5]).dtype is t.float32
    assert t.tensor(True).dtype is t.bool
    assert t.tensor([1, 2.0]).dtype is t.float32
    assert t.tensor(np.ones(2)).dtype is t.float64
    assert t.tensor(np.ones(2, np.int32)).dtype is t.int32
    assert t.tensor([[1, 2], [3, 4]], dtype=t.float64).dtype is t.float64


def test_creation_functions():
    assert t.zeros(2, 3).sum().item() == 0 and t.zeros((2, 3)).shape == (2, 3)
    assert t.ones(4).dtype is t.float32 and t.full((2,), 7).dtype is t.int64
    assert t.full((2,), 7.0).dtype is t.float32
    assert_close(t.arange(5), [0, 1, 2, 3, 4])
    assert t.arange(5).dtype is t.int64 and t.arange(0, 1, 0.25).dtype is t.float32
    assert_close(t.linspace(0, 1, 5), [0, 0.25, 0.5, 0.75, 1])
    assert_close(t.eye(2), np.eye(2))
    x = t.randn(3, 4)
    assert t.zeros_like(x).shape == (3, 4) and t.ones_like(x).dtype is t.float32
    assert 0 <= t.rand(100).min().item() and t.rand(100).max().item() < 1
    t.manual_seed(3)
    first = t.randn(5)
    t.manual_seed(3)
    assert_close(first, t.randn(5))


def test_from_numpy_and_numpy_share_memory():
    array = np.zeros(3, np.float32)
    tensor = t.from_numpy(array)
    tensor.add_(1)
    assert array.tolist() == [1.0, 1.0, 1.0]
    tensor.numpy()[0] = 5
    assert tensor[0].item() == 5


def test_item_tolist_and_conversions():
    assert t.tensor(2.5).item() == 2.5 and isinstance(t.tensor(2).item(), int)
    assert t.tensor([[1, 2]]).tolist() == [[1, 2]]
    x = t.ones(2)
    assert x.double().dtype is t.float64 and x.long().dtype is t.int64 and x.float() is x
    assert x.type() == "torch.FloatTensor" and x.long().type() == "torch.LongTensor"
    with pytest.raises(RuntimeError, match="cannot be converted to Scalar"):
        t.ones(2).item()


def test_metadata():
    x = t.ones(2, 3, 4)
    assert x.shape == (2, 3, 4) and x.size() == (2, 3, 4) and x.size(1) == 3 and x.size(-1) == 4
    assert x.dim() == 3 and x.ndim == 3 and x.numel() == 24
    assert repr(x.shape) == "torch.Size([2, 3, 4])"
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.size(3)


def test_repr_like_pytorch():
    assert repr(t.tensor([2.0])) == "tensor([2.])"
    assert repr(t.tensor([1.5, 2.0])) == "tensor([1.5000, 2.0000])"
    x = t.tensor([2.0], requires_grad=True)
    assert repr(x) == "tensor([2.], requires_grad=True)"
    assert repr(x * 2) == "tensor([4.], grad_fn=<MulBackward0>)"
    assert repr(t.tensor([1, 2], dtype=t.int32)) == "tensor([1, 2], dtype=torch.int32)"
    assert repr(t.float32) == "torch.float32"


def test_bool_len_and_iteration():
    assert bool(t.tensor(1)) and not bool(t.tensor(0.0))
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(t.ones(2))
    assert len(t.ones(3, 2)) == 3
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(t.tensor(1.0))
    assert [row.shape for row in t.ones(2, 3)] == [(3,), (3,)]


def test_numpy_on_tensor_that_requires_grad_raises():
    x = t.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
        x.numpy()
    assert x.detach().numpy().tolist() == [1.0, 1.0]


def test_basic_ops_match_torch(torch):
    values = np.array([[1.0, -2.0, 3.5], [0.25, 4.0, -1.5]], np.float32)
    ours, theirs = t.tensor(values), torch.tensor(values)
    for expression in (
        "x + 1",
        "2 - x",
        "x * x",
        "x / 3",
        "x ** 2",
        "-x",
        "x @ x.t()",
        "x.sum(0)",
        "x.mean(1, keepdim=True)",
        "x.view(3, 2)",
        "x.t().reshape(-1)",
        "x[1, 1:]",
        "x.unsqueeze(0).expand(2, 2, 3)",
        "x.transpose(0, 1)",
    ):
        got = eval(expression, {"x": ours})
        expected = eval(expression, {"x": theirs})
        assert_close(got, expected.numpy(), what=expression)
        assert got.dtype.name == str(expected.dtype).replace("torch.", ""), expression


# PyTorch warns once per process, so which of these warn is stated here, not compared live.
_TRANSPOSE_WARNS = {("T", 0), ("T", 1), ("T", 3), ("mT", 0), ("H", 0), ("mH", 0)}


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4)])
@pytest.mark.parametrize("name", ["T", "mT", "H", "mH"])
def test_transpose_properties_match_torch(name, shape):
    torch = pytest.importorskip("torch")
    values = np.asarray(np.arange(int(np.prod(shape)), dtype=np.complex64).reshape(shape) * (1 + 2j))

    def outcome(library):
        try:
            result = getattr(library.from_numpy(values.copy()), name)
        except RuntimeError as error:
            return str(error)
        return np.asarray(result.resolve_conj().numpy() if library is torch else result.numpy())

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours = outcome(t)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = outcome(torch)
    if isinstance(theirs, str):
        assert ours == theirs
    else:
        np.testing.assert_array_equal(ours, theirs)
    assert [type(w.message) for w in caught] == ([UserWarning] if (name, len(shape)) in _TRANSPOSE_WARNS else [])


def test_dim_order_matches_torch():
    torch = pytest.importorskip("torch")
    for make in (
        lambda lib: lib.ones(2, 3, 4).transpose(0, 2),
        lambda lib: lib.ones(3, 1, 4)[:, :, ::2],
        lambda lib: lib.ones(2, 3, 4, 5).permute(0, 2, 3, 1),
    ):
        assert make(t).dim_order() == make(torch).dim_order()


def test_set_shares_the_source_memory_and_gives_a_leaf_a_new_gradient_node():
    torch = pytest.importorskip("torch")
    for lib in (t, torch):
        source, target = lib.rand(3), lib.zeros(1)
        assert target.set_(source) is target and target.shape == (3,)
        target.add_(1)
        assert lib.equal(source, target) and target._version == 2
        assert tuple(lib.zeros(2).set_().shape) == (0,)
        leaf = lib.rand(2, requires_grad=True)
        out = leaf.clone()
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
            leaf.set_(lib.rand(2))
        with lib.no_grad():
            leaf.set_(lib.rand(2))
        with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
            lib.autograd.grad(out.sum(), leaf)
        with pytest.raises(RuntimeError, match="Could not set tensor of type"):
            lib.zeros(2, dtype=lib.float64).set_(lib.rand(2))
