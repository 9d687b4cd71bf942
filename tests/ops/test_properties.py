"""Property tests (hypothesis): broadcasting, reductions, shape round trips and slicing hold for
randomly drawn shapes (0-d and size-0 dims included), checked against NumPy.

- binary ops broadcast like NumPy: result shape and values, and each gradient has its input's
  shape, dtype and NumPy's value (the broadcast gradient summed back);
- reductions over random dims with and without keepdim agree with NumPy, their gradients have
  the input's shape, and small float64 cases pass gradcheck;
- permute/transpose/reshape round trips give back the tensor, as views of the same memory;
- random slices select what NumPy selects, write through to the base, and route gradients back.
"""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes

import ember
from ember.autograd import gradcheck

from ..conftest import assert_close

# Moderate example counts keep the file fast; EMBER_PROPERTY_EXAMPLES=500 searches harder.
EXAMPLES = int(os.environ.get("EMBER_PROPERTY_EXAMPLES", "30"))
PROPERTY = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SMALL = settings(max_examples=max(EXAMPLES * 2 // 5, 1), deadline=None, suppress_health_check=[HealthCheck.too_slow])

shapes = array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4)
nonempty_shapes = array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)


def _values(shape, seed, low=-2.0, high=2.0, dtype=np.float64):
    return np.random.default_rng(seed).uniform(low, high, size=shape).astype(dtype)


def _sum_to_shape(array, shape):
    """NumPy reference of un-broadcasting: sum the leading and the stretched dims away."""
    leading = array.ndim - len(shape)
    array = array.sum(axis=tuple(range(leading))) if leading else array
    stretched = tuple(axis for axis, size in enumerate(shape) if size == 1 and array.shape[axis] != 1)
    return array.sum(axis=stretched, keepdims=True) if stretched else array


# ---------------------------------------------------------------------------- broadcasting
# op, NumPy forward, NumPy gradients (a, b, grad of the output) -> (grad a, grad b), domain of b
BINARY_OPS = {
    "add": (lambda a, b: a + b, np.add, lambda a, b, g: (g, g), (-2, 2)),
    "sub": (lambda a, b: a - b, np.subtract, lambda a, b, g: (g, -g), (-2, 2)),
    "mul": (lambda a, b: a * b, np.multiply, lambda a, b, g: (g * b, g * a), (-2, 2)),
    "div": (lambda a, b: a / b, np.divide, lambda a, b, g: (g / b, -g * a / b**2), (0.5, 2)),
    "maximum": (ember.maximum, np.maximum, lambda a, b, g: (g * (a > b), g * (a < b)), (-2, 2)),
    "pow": (lambda a, b: a**b, np.power, lambda a, b, g: (g * b * a ** (b - 1), g * a**b * np.log(a)), (0.5, 2)),
}


@PROPERTY
@given(
    shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, min_side=0, max_side=3),
    op=st.sampled_from(sorted(BINARY_OPS)),
    seed=st.integers(0, 2**16),
)
def test_binary_ops_broadcast_like_numpy(shapes, op, seed):
    (shape_a, shape_b), result_shape = shapes
    ember_op, numpy_op, numpy_grads, (low, high) = BINARY_OPS[op]
    a_low = 0.5 if op == "pow" else -2
    a = _values(shape_a, seed, a_low, 2)
    b = _values(shape_b, seed + 1, low, high)
    x = ember.tensor(a, requires_grad=True)
    y = ember.tensor(b, requires_grad=True)
    out = ember_op(x, y)
    assert out.shape == result_shape == np.broadcast_shapes(shape_a, shape_b)
    assert_close(out, numpy_op(a, b), rtol=1e-12, atol=1e-12, what=f"{op} forward")
    grad_output = _values(result_shape, seed + 2)
    out.backward(ember.tensor(grad_output))
    expected_a, expected_b = numpy_grads(
        np.broadcast_to(a, result_shape), np.broadcast_to(b, result_shape), grad_output
    )
    assert x.grad.shape == x.shape and y.grad.shape == y.shape
    assert_close(x.grad, _sum_to_shape(expected_a, shape_a).reshape(shape_a), 1e-10, 1e-10, f"{op} grad a")
    assert_close(y.grad, _sum_to_shape(expected_b, shape_b).reshape(shape_b), 1e-10, 1e-10, f"{op} grad b")


@PROPERTY
@given(
    shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=0, max_side=3),
    scalar=st.floats(-3, 3, allow_nan=False),
    seed=st.integers(0, 2**16),
)
def test_float32_stays_float32_with_python_scalars(shapes, scalar, seed):
    (shape_a, shape_b), result_shape = shapes
    x = ember.tensor(_values(shape_a, seed, dtype=np.float32), requires_grad=True)
    y = ember.tensor(_values(shape_b, seed + 1, dtype=np.float32), requires_grad=True)
    out = (x * scalar + y) * y - scalar
    assert out.dtype == ember.float32 and out.shape == result_shape
    out.sum().backward()
    assert x.grad.dtype == y.grad.dtype == ember.float32
    assert x.grad.shape == shape_a and y.grad.shape == shape_b


@PROPERTY
@given(shape=shapes, extra=array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3), seed=st.integers(0, 99))
def test_expand_and_sum_to_size_are_adjoint(shape, extra, seed):
    """Expanding to a broadcast shape and summing back give NumPy's broadcast_to and its un-broadcast."""
    target = tuple(extra) + tuple(shape)
    array = _values(shape, seed)
    x = ember.tensor(array, requires_grad=True)
    expanded = x.expand(*target)
    assert_close(expanded, np.broadcast_to(array, target), what="expand")
    weights = _values(target, seed + 1)
    (expanded * ember.tensor(weights)).sum().backward()
    assert_close(x.grad, _sum_to_shape(weights, shape).reshape(shape), 1e-10, 1e-10, "expand grad")


# ---------------------------------------------------------------------------- reductions
@st.composite
def shape_and_dims(draw, shape_strategy=shapes):
    """A shape and a `dim` argument: None, one dim, or a tuple of distinct dims (some negative)."""
    shape = draw(shape_strategy)
    ndim = len(shape)
    if ndim == 0 or draw(st.booleans()) and draw(st.booleans()):
        return shape, None
    dims = draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True))
    dims = [dim - ndim if draw(st.booleans()) else dim for dim in dims]
    return shape, dims[0] if len(dims) == 1 and draw(st.booleans()) else tuple(dims)


def _axis(dims):
    return dims if dims is None or isinstance(dims, int) else tuple(dims)


def _reduced_sizes(shape, dims):
    if dims is None:
        return list(shape)
    dims = [dims] if isinstance(dims, int) else list(dims)
    return [shape[dim] for dim in dims]


REDUCTIONS = {
    "sum": (
        lambda x, d, k: x.sum(d, keepdim=k) if d is not None else x.sum(),
        lambda a, d, k: a.sum(axis=_axis(d), keepdims=k),
    ),
    "mean": (
        lambda x, d, k: x.mean(d, keepdim=k) if d is not None else x.mean(),
        lambda a, d, k: a.mean(axis=_axis(d), keepdims=k),
    ),
    "prod": (
        lambda x, d, k: x.prod(d, keepdim=k) if isinstance(d, int) else x.prod(),
        lambda a, d, k: a.prod(axis=d if isinstance(d, int) else None, keepdims=k and isinstance(d, int)),
    ),
    "amax": (
        lambda x, d, k: ember.amax(x, d if d is not None else (), keepdim=k),
        lambda a, d, k: a.max(axis=_axis(d), keepdims=k),
    ),
    "std": (
        lambda x, d, k: x.std(d, keepdim=k) if d is not None else x.std(),
        lambda a, d, k: a.std(axis=_axis(d), keepdims=k, ddof=1),
    ),
}


@PROPERTY
@given(
    case=shape_and_dims(), keepdim=st.booleans(), name=st.sampled_from(sorted(REDUCTIONS)), seed=st.integers(0, 2**16)
)
def test_reductions_match_numpy(case, keepdim, name, seed):
    shape, dims = case
    keepdim = keepdim and dims is not None  # `x.sum()` has no keepdim
    reduced = _reduced_sizes(shape, dims if name != "prod" or isinstance(dims, int) else None)
    if name == "amax":
        assume(all(size > 0 for size in reduced))  # an empty max has no identity (an error in both)
    if name in ("mean", "std"):
        assume(np.prod(reduced) > (1 if name == "std" else 0))  # NumPy warns for NaN results
    array = _values(shape, seed)
    x = ember.tensor(array, requires_grad=True)
    ember_reduce, numpy_reduce = REDUCTIONS[name]
    out = ember_reduce(x, dims, keepdim)
    expected = np.asarray(numpy_reduce(array, dims, keepdim))
    assert out.shape == expected.shape, f"{name}{shape} over {dims}: {tuple(out.shape)} vs {expected.shape}"
    assert out.dtype == ember.float64
    assert_close(out, expected, rtol=1e-10, atol=1e-12, what=f"{name} over {dims}")
    out.backward(ember.ones_like(out))
    assert x.grad.shape == x.shape and x.grad.dtype == x.dtype


@PROPERTY
@given(case=shape_and_dims(), keepdim=st.booleans(), seed=st.integers(0, 2**16))
def test_float32_reductions_stay_float32(case, keepdim, seed):
    shape, dims = case
    x = ember.tensor(_values(shape, seed, dtype=np.float32), requires_grad=True)
    out = x.sum(dims, keepdim=keepdim) if dims is not None else x.sum()
    assert out.dtype == ember.float32
    out.sum().backward()
    assert x.grad.dtype == ember.float32 and x.grad.shape == x.shape
    assert_close(x.grad, np.ones(shape, np.float32), what="sum grad")


@SMALL
@given(
    case=shape_and_dims(array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=3)),
    keepdim=st.booleans(),
    name=st.sampled_from(sorted(REDUCTIONS)),
    seed=st.integers(0, 2**16),
)
def test_reductions_pass_gradcheck(case, keepdim, name, seed):
    shape, dims = case
    rng = np.random.default_rng(seed)
    # Distinct values well apart (no ties for amax), away from zero (prod's gradient).
    array = (rng.permutation(int(np.prod(shape))).reshape(shape) + 1.0) * rng.choice([-1, 1], size=shape) / 4
    x = ember.tensor(array, requires_grad=True)
    ember_reduce = REDUCTIONS[name][0]
    assert gradcheck(lambda tensor: ember_reduce(tensor, dims, keepdim), (x,), eps=1e-6, atol=1e-5, rtol=1e-4)


# ---------------------------------------------------------------------------- shape round trips
@PROPERTY
@given(shape=shapes, data=st.data())
def test_permute_and_its_inverse_round_trip(shape, data):
    order = data.draw(st.permutations(range(len(shape))))
    array = _values(shape, len(shape))
    x = ember.tensor(array)
    permuted = x.permute(*order) if order else x.permute(())
    assert permuted.shape == tuple(shape[axis] for axis in order)
    assert_close(permuted, np.transpose(array, order), what="permute")
    back = permuted.permute(*np.argsort(order).tolist()) if order else permuted
    assert back.shape == x.shape and back.storage().data_ptr() == x.storage().data_ptr()
    assert_close(back, array, what="permute round trip")


@PROPERTY
@given(shape=array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=4), data=st.data())
def test_transpose_twice_is_identity_and_a_view(shape, data):
    ndim = len(shape)
    first = data.draw(st.integers(-ndim, ndim - 1))
    second = data.draw(st.integers(-ndim, ndim - 1))
    array = _values(shape, 3)
    x = ember.tensor(array)
    swapped = x.transpose(first, second)
    assert_close(swapped, np.swapaxes(array, first, second), what="transpose")
    again = swapped.transpose(first, second)
    assert again.shape == x.shape and again.is_contiguous()
    assert again.data_ptr() == x.data_ptr()
    assert_close(again, array, what="transpose twice")


@st.composite
def shape_and_reshape(draw):
    """A shape and another shape with the same number of elements (maybe with one -1)."""
    shape = draw(array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=4))
    factors = [factor for size in shape for factor in _prime_factors(size)]
    new_shape = [1] * draw(st.integers(0, 2))
    for factor in draw(st.permutations(factors)):
        if new_shape and draw(st.booleans()):
            new_shape[draw(st.integers(0, len(new_shape) - 1))] *= factor
        else:
            new_shape.append(factor)
    if new_shape and draw(st.booleans()):
        new_shape[draw(st.integers(0, len(new_shape) - 1))] = -1
    return shape, tuple(new_shape)


def _prime_factors(number):
    factors, divisor = [], 2
    while number > 1:
        while number % divisor == 0:
            factors.append(divisor)
            number //= divisor
        divisor += 1
    return factors


@PROPERTY
@given(case=shape_and_reshape(), transposed=st.booleans())
def test_reshape_round_trip(case, transposed):
    shape, new_shape = case
    array = _values(shape, 7)
    x = ember.tensor(array, requires_grad=True)
    source = x.t() if transposed and x.dim() == 2 else x
    reference = array.T if transposed and array.ndim == 2 else array
    reshaped = source.reshape(new_shape)
    assert_close(reshaped, reference.reshape(new_shape), what=f"reshape {shape} -> {new_shape}")
    if source.is_contiguous():
        assert reshaped.data_ptr() == source.data_ptr()  # a view when the memory allows it
        assert_close(source.view(new_shape), reshaped, what="view")
    back = reshaped.reshape(source.shape)
    assert_close(back, reference, what="reshape round trip")
    (back * ember.tensor(reference)).sum().backward()
    assert_close(x.grad, array, what="reshape round-trip gradient")


# ---------------------------------------------------------------------------- slicing
@st.composite
def shape_and_index(draw):
    """A shape and a tuple of slices (any start/stop, positive step) and integers, one per leading dim."""
    shape = draw(array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=5))
    index = []
    for size in shape[: draw(st.integers(1, len(shape)))]:
        if size > 0 and draw(st.integers(0, 3)) == 0:
            index.append(draw(st.integers(-size, size - 1)))
        else:
            bound = st.none() | st.integers(-size - 2, size + 2)
            index.append(slice(draw(bound), draw(bound), draw(st.none() | st.integers(1, 3))))
    if draw(st.booleans()):
        index.insert(draw(st.integers(0, len(index))), None)
    return shape, tuple(index)


@PROPERTY
@given(case=shape_and_index())
def test_slicing_matches_numpy_and_is_a_view(case):
    shape, index = case
    array = _values(shape, 11)
    x = ember.tensor(array.copy())
    selected = x[index]
    expected = array[index]
    assert selected.shape == expected.shape
    assert_close(selected, expected, what=f"x{list(index)}")
    if selected.numel():
        assert selected.storage().data_ptr() == x.storage().data_ptr()
        selected.fill_(7.0)  # writes through to the base
        changed = array.copy()
        changed[index] = 7.0
        assert_close(x, changed, what="write through the view")


@PROPERTY
@given(case=shape_and_index())
def test_slicing_routes_gradients_back(case):
    shape, index = case
    array = _values(shape, 13)
    x = ember.tensor(array, requires_grad=True)
    selected = x[index]
    weights = _values(selected.shape, 17)
    (selected * ember.tensor(weights)).sum().backward()
    expected = np.zeros(shape)
    expected[index] += weights  # basic indexing never repeats an element
    assert x.grad.shape == x.shape
    assert_close(x.grad, expected, what=f"gradient of x{list(index)}")


@PROPERTY
@given(case=shape_and_index())
def test_setitem_through_slices_matches_numpy(case):
    shape, index = case
    array = _values(shape, 19)
    x = ember.tensor(array.copy())
    expected = array.copy()
    value = _values(expected[index].shape, 23)
    x[index] = ember.tensor(value)
    expected[index] = value
    assert_close(x, expected, what=f"x{list(index)} = value")
    assert x._version == 1


@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3)])
def test_edge_shapes_reduce_to_numpy(shape):
    array = np.zeros(shape)
    x = ember.tensor(array, requires_grad=True)
    out = x.sum()
    assert out.shape == () and out.item() == 0
    out.backward()
    assert x.grad.shape == shape


def test_untyped_storage_is_the_bytes_under_a_tensor_and_its_views():
    x = ember.arange(6.0).view(2, 3)
    storage = x.untyped_storage()
    assert isinstance(storage, ember.UntypedStorage) and storage.nbytes() == len(storage) == 24
    assert x[1].untyped_storage().data_ptr() == storage.data_ptr() == x.data_ptr()
    assert storage[4:8].tolist() == list(np.float32(1.0).tobytes()) and storage.element_size() == 1
    storage[4:8][3] = 0  # a slice is the same memory: the top byte of 1.0 (little-endian)
    assert x[0, 1].item() != 1.0
    assert x.storage().untyped().nbytes() == 24 and "UntypedStorage(device=cpu) of size 24" in repr(storage)


def test_typed_storage_warns_once_as_pytorch_does(monkeypatch):
    from ember import _storage

    monkeypatch.setattr(_storage._TypedStorageWarning, "warned", False)
    with pytest.warns(UserWarning, match="TypedStorage is deprecated") as caught:
        ember.ones(2).storage()
        ember.ones(2).storage()
    assert len([w for w in caught if "TypedStorage" in str(w.message)]) == 1


def test_untyped_storage_matches_torch():
    torch = pytest.importorskip("torch")
    ours, theirs = ember.arange(4.0).untyped_storage(), torch.arange(4.0).untyped_storage()
    assert ours.tolist() == theirs.tolist() and repr(ours) == repr(theirs)
