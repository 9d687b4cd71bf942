"""NumPy interop: from_numpy/.numpy() share memory, np.asarray works, and NumPy never silently drops
a gradient (it raises, or the ember op keeps the tensor in the graph)."""

import numpy as np
import pytest

import ember

from .conftest import assert_close


def test_from_numpy_shares_memory_both_ways():
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    tensor = ember.from_numpy(array)
    array[0, 0] = 100.0
    tensor[1, 2] = -1.0
    assert tensor[0, 0].item() == 100.0 and array[1, 2] == -1.0
    assert tensor.dtype is ember.float32


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32, np.uint8, np.bool_])
def test_from_numpy_keeps_dtype(dtype, torch):
    array = np.ones(3, dtype=dtype)
    assert str(ember.from_numpy(array).dtype) == str(torch.from_numpy(array).dtype)


def test_from_numpy_of_non_contiguous_array_keeps_strides(torch):
    array = np.arange(12.0).reshape(3, 4)[:, ::2]
    ours, theirs = ember.from_numpy(array), torch.from_numpy(array)
    assert ours.stride() == theirs.stride() and ours.is_contiguous() == theirs.is_contiguous()


def test_from_numpy_rejects_non_arrays(torch):
    with pytest.raises(TypeError):
        torch.from_numpy([1, 2])
    with pytest.raises(TypeError):
        ember.from_numpy([1, 2])


def test_numpy_shares_memory():
    tensor = ember.zeros(2, 3)
    array = tensor.numpy()
    array[1, 1] = 5.0
    assert tensor[1, 1].item() == 5.0
    tensor.add_(1.0)
    assert array[0, 0] == 1.0


def test_numpy_of_view_is_a_view():
    base = ember.zeros(3, 4)
    array = base.t()[1].numpy()
    array[:] = 2.0
    assert base[:, 1].tolist() == [2.0, 2.0, 2.0]


def test_numpy_on_tensor_that_requires_grad_raises(torch):
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="requires grad"):
            lib.ones(2, requires_grad=True).numpy()
    assert ember.ones(2, requires_grad=True).detach().numpy().tolist() == [1.0, 1.0]
    assert ember.ones(2, requires_grad=True).numpy(force=True).tolist() == [1.0, 1.0]


def test_asarray_shares_memory_and_dtype():
    tensor = ember.arange(4, dtype=ember.int32)
    array = np.asarray(tensor)
    assert array.dtype == np.int32 and np.shares_memory(array, tensor.numpy())
    assert np.asarray(tensor, dtype=np.float64).dtype == np.float64
    assert np.array(ember.tensor(2.5)).item() == 2.5


@pytest.mark.parametrize(
    "numpy_call",
    [
        lambda t: np.asarray(t),
        lambda t: np.array(t),
        lambda t: np.concatenate([t, t]),
        lambda t: np.dot(t, t),
        lambda t: np.linalg.norm(t),
        lambda t: np.where(t > 0, t, 0),
        lambda t: np.sort(t),
        lambda t: np.cumsum(t),
        lambda t: np.clip(t, 0, 1),
        lambda t: np.add.reduce(t),
        lambda t: np.exp(t, out=np.empty(3, dtype=np.float32)),
        lambda t: np.arctan2(t, t),
        lambda t: np.maximum(t, 0.0),
    ],
)
def test_numpy_functions_never_silently_drop_the_gradient(numpy_call):
    tensor = ember.tensor([0.5, -1.0, 2.0], requires_grad=True)
    try:
        result = numpy_call(tensor)
    except (RuntimeError, TypeError):
        return
    assert isinstance(result, ember.Tensor) and result.requires_grad, (
        f"NumPy returned {type(result).__name__} and lost the gradient"
    )


@pytest.mark.parametrize(
    "numpy_expression,torch_expression",
    [
        (lambda t: np.float32(2.0) * t, lambda t, torch: 2.0 * t),
        (lambda t: t * np.float64(3.0), lambda t, torch: t * 3.0),
        (lambda t: np.exp(t) + np.sin(t), lambda t, torch: t.exp() + t.sin()),
        (lambda t: np.ones(3, dtype=np.float32) - t, lambda t, torch: torch.ones(3) - t),
        (lambda t: np.square(t) / np.float32(2), lambda t, torch: t.square() / 2),
        (lambda t: np.sqrt(np.abs(t)) ** 2, lambda t, torch: t.abs().sqrt() ** 2),
    ],
)
def test_numpy_arithmetic_on_tensors_that_require_grad_stays_in_the_graph(numpy_expression, torch_expression, torch):
    data = np.array([0.5, -1.0, 2.0], dtype=np.float32)
    ours = ember.tensor(data, requires_grad=True)
    result = numpy_expression(ours)
    assert isinstance(result, ember.Tensor) and result.requires_grad
    assert result.dtype is ember.float32
    result.sum().backward()
    reference = torch.tensor(data, requires_grad=True)
    expected = torch_expression(reference, torch)  # the same maths written with torch ops, as the oracle
    expected.sum().backward()
    assert_close(result, expected.detach().numpy())
    assert_close(ours.grad, reference.grad.numpy())


@pytest.mark.parametrize(
    "numpy_call",
    [
        lambda lib, t: np.sqrt(t),
        lambda lib, t: np.float64(2) * t,
        lambda lib, t: np.float32(2) + t,
        lambda lib, t: t * np.float64(2),
        lambda lib, t: np.exp(t),
        lambda lib, t: np.add(t, t),
        lambda lib, t: np.hypot(t, t),
        lambda lib, t: np.modf(t)[0],
    ],
)
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch's __array_wrap__ predates NumPy 2's signature
def test_numpy_ufuncs_on_tensors_give_tensors_as_in_pytorch(numpy_call, torch):
    """As PyTorch's: a tensor of the dtype torch gives (a NumPy float64 scalar does not widen float32)."""
    ours = numpy_call(ember, ember.tensor([1.0, 4.0]))
    expected = numpy_call(torch, torch.tensor([1.0, 4.0]))
    assert isinstance(ours, ember.Tensor) and isinstance(expected, torch.Tensor)
    assert str(ours.dtype) == str(expected.dtype)
    assert_close(ours, expected.numpy())


def test_numpy_scalars_and_zero_d_arrays_as_tensor_arguments():
    x = ember.arange(6.0).reshape(2, 3)
    assert x[np.int64(1), np.int32(2)].item() == 5.0
    assert x[np.array([1, 0])].shape == (2, 3)
    assert x.index_select(1, ember.from_numpy(np.array([2, 0]))).tolist() == [[2.0, 0.0], [5.0, 3.0]]


def test_tensor_from_numpy_array_copies_but_as_tensor_shares():
    array = np.zeros(3)
    copied, shared = ember.tensor(array), ember.as_tensor(array)
    array[0] = 1.0
    assert copied[0].item() == 0.0 and shared[0].item() == 1.0
