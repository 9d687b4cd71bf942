"""Indexing and index ops against PyTorch: results, dtypes, grad_fn names, errors, in-place forms."""

import warnings

import numpy as np
import pytest

import ember

from ..conftest import assert_close
from .differential import assert_same, raises_like, grads_match


def _x(lib, requires_grad=True):
    return lib.arange(12.0).reshape(3, 4).requires_grad_(requires_grad)


def _x3(lib):
    return lib.arange(60.0).reshape(3, 4, 5).requires_grad_()


# ----------------------------------------------------------------------------- getitem
GETITEM = {
    "int": lambda lib: _x(lib)[1],
    "negative_int": lambda lib: _x(lib)[-3],
    "two_ints_0d": lambda lib: _x(lib)[1, 2],
    "slice": lambda lib: _x(lib)[1:],
    "full_slice_alone": lambda lib: _x(lib)[:],
    "full_slice_in_tuple": lambda lib: _x(lib)[0:3,],
    "int_then_full_slice": lambda lib: _x(lib)[1, :],
    "none": lambda lib: _x(lib)[None],
    "slice_then_none": lambda lib: _x(lib)[1:, None],
    "none_then_slice": lambda lib: _x(lib)[None, 1:],
    "ellipsis": lambda lib: _x(lib)[...],
    "ellipsis_int": lambda lib: _x3(lib)[..., 1],
    "stop_past_end": lambda lib: _x(lib)[2:100],
    "empty_slice": lambda lib: _x(lib)[2:1],
    "zero_d_long_tensor": lambda lib: _x(lib)[lib.tensor(1)],
    "zero_d_int32_tensor": lambda lib: _x(lib)[lib.tensor(1, dtype=lib.int32)],
    "two_zero_d_tensors": lambda lib: _x(lib)[lib.tensor(1), lib.tensor(2)],
    "long_tensor": lambda lib: _x(lib)[lib.tensor([2, 0, 2])],
    "int32_tensor": lambda lib: _x(lib)[lib.tensor([2, 0], dtype=lib.int32)],
    "list": lambda lib: _x(lib)[[0, 2]],
    "tuple_in_tuple": lambda lib: _x(lib)[(0, 1),],
    "nested_list_2d": lambda lib: _x(lib)[[[0, 1], [2, 2]]],
    "two_lists": lambda lib: _x(lib)[[0, 1], [1, 2]],
    "slice_and_list": lambda lib: _x(lib)[:, [3, 0]],
    "torch_order_int_slice_list": lambda lib: _x3(lib)[0, :, [0, 1]],
    "separated_lists": lambda lib: _x3(lib)[[0, 1], :, [1, 2]],
    "list_none_list": lambda lib: _x3(lib)[[0, 1], None, [1, 2]],
    "bool_mask_full": lambda lib: _x(lib)[_x(lib, False) > 4],
    "bool_mask_rows": lambda lib: _x(lib)[lib.tensor([True, False, True])],
    "bool_list": lambda lib: _x(lib)[[True, False, True]],
    "bool_mask_then_int": lambda lib: _x3(lib)[lib.tensor([True, False, True]), 1],
    "python_true": lambda lib: _x(lib)[True],
    "python_false": lambda lib: _x(lib)[False],
    "zero_d_bool_tensor": lambda lib: _x(lib)[lib.tensor(True)],
    "empty_list": lambda lib: _x(lib)[[]],
    "range": lambda lib: _x(lib)[range(0, 3, 2)],
    "range_in_tuple": lambda lib: _x(lib)[:, range(1, 3)],
    "0d_with_none": lambda lib: lib.tensor(3.0, requires_grad=True)[None],
    "0d_with_ellipsis": lambda lib: lib.tensor(3.0, requires_grad=True)[...],
    "two_ellipses": lambda lib: _x(lib)[..., ...],
    "ellipsis_int_ellipsis": lambda lib: _x3(lib)[..., 0, ...],
}


@pytest.mark.parametrize("name", sorted(GETITEM))
def test_getitem_matches_torch(name, torch):
    assert_same(GETITEM[name], torch)


@pytest.mark.parametrize(
    "name",
    [
        "slice_and_list",
        "two_lists",
        "bool_mask_full",
        "torch_order_int_slice_list",
        "long_tensor",
        "int_then_full_slice",
    ],
)
def test_getitem_gradients_match_torch(name, torch):
    index = {
        "slice_and_list": lambda lib: (slice(None), [3, 0, 3]),
        "two_lists": lambda lib: ([0, 1, 0], [1, 2, 1]),
        "bool_mask_full": lambda lib: lib.tensor(np.arange(12).reshape(3, 4) % 3 == 0),
        "torch_order_int_slice_list": lambda lib: (0, slice(None), [0, 1, 1]),
        "long_tensor": lambda lib: lib.tensor([2, 0, 2]),
        "int_then_full_slice": lambda lib: (1, slice(None)),
    }[name]
    if name == "torch_order_int_slice_list":
        grads_match(lambda lib, x: x.reshape(3, 2, 2)[index(lib)], torch)
    else:
        grads_match(lambda lib, x: x[index(lib)], torch)


GETITEM_ERRORS = {
    "negative_step": (lambda lib: _x(lib)[::-1], "step must be greater than zero"),
    "zero_step": (lambda lib: _x(lib)[::0], "slice step cannot be zero"),
    "int_out_of_range": (lambda lib: _x(lib)[5], "index 5 is out of bounds for dimension 0 with size 3"),
    "negative_out_of_range": (lambda lib: _x(lib)[-4], "index -4 is out of bounds for dimension 0 with size 3"),
    "second_dim_out_of_range": (lambda lib: _x(lib)[:, 7], "index 7 is out of bounds for dimension 1 with size 4"),
    "tensor_out_of_range": (lambda lib: _x(lib)[lib.tensor([5])], "index 5 is out of bounds for dimension 0"),
    "list_out_of_range": (lambda lib: _x(lib)[[0, 5]], "index 5 is out of bounds for dimension 0 with size 3"),
    "float_index": (lambda lib: _x(lib)[1.0], "only integers, slices"),
    "float_tensor_index": (
        lambda lib: _x(lib)[lib.tensor([1.0])],
        "tensors used as indices must be long, int, byte or bool",
    ),
    "int8_tensor_index": (lambda lib: _x(lib)[lib.tensor([1], dtype=lib.int8)], "tensors used as indices"),
    "mask_shape": (
        lambda lib: _x(lib)[lib.ones(2, dtype=lib.bool)],
        "The shape of the mask [2] at index 0 does not match",
    ),
    "mask_shape_dim1": (lambda lib: _x(lib)[lib.ones(3, 5, dtype=lib.bool)], "The shape of the mask [3, 5] at index 1"),
    "too_many": (lambda lib: _x(lib)[0, 0, 0], "too many indices for tensor of dimension 2"),
    "index_0d": (lambda lib: lib.tensor(1.0)[0], "invalid index of a 0-dim tensor"),
}


@pytest.mark.parametrize("name", sorted(GETITEM_ERRORS))
def test_getitem_errors_match_torch(name, torch):
    function, message = GETITEM_ERRORS[name]
    raises_like(function, torch, message)


def test_uint8_index_is_a_deprecated_mask(torch):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert_same(lambda lib: _x(lib)[lib.tensor([1, 0, 1], dtype=lib.uint8)], torch)
    assert any("uint8" in str(w.message) for w in caught)


def test_basic_index_is_a_view_and_advanced_is_a_copy():
    x = ember.zeros(3, 4)
    view, copy = x[1], x[[1]]
    view[0] = 5.0
    copy[0, 1] = 7.0
    assert x[1, 0].item() == 5.0 and x[1, 1].item() == 0.0
    assert view._base is x and copy._base is None
    scalar = x[2, 3]  # an all-int index is a 0-d view, not a NumPy scalar copy
    scalar.fill_(9.0)
    assert x[2, 3].item() == 9.0


def test_slice_bounds_may_be_tensors(torch):
    assert_same(lambda lib: _x(lib)[lib.tensor(1) : lib.tensor(3)], torch)


# ----------------------------------------------------------------------------- setitem
def _set(lib, index, value, requires_grad=False, dtype=None):
    x = lib.zeros(3, 4, dtype=dtype or lib.float32)
    if requires_grad:
        x = x.requires_grad_().clone()
    x[index(lib) if callable(index) else index] = value(lib) if callable(value) else value
    return x


SETITEM = {
    "int_number": lambda lib: _set(lib, 0, 2.5),
    "slice_tensor_broadcast": lambda lib: _set(lib, (slice(None), 1), lambda l: l.arange(3.0)),
    "row_broadcast": lambda lib: _set(lib, slice(1, None), lambda l: l.arange(4.0)),
    "leading_ones_dropped": lambda lib: _set(lib, 0, lambda l: l.ones(1, 4)),
    "int_tensor_value_cast": lambda lib: _set(lib, 1, lambda l: l.tensor([1, 2, 3, 4])),
    "float_into_long": lambda lib: _set(lib, 0, lambda l: l.tensor(1.5), dtype=lib.int64),
    "number_into_long": lambda lib: _set(lib, 0, 2.7, dtype=lib.int64),
    "mask_number": lambda lib: _set(lib, lambda l: l.arange(12).reshape(3, 4) % 2 == 0, -1.0),
    "mask_values": lambda lib: _set(lib, lambda l: l.arange(12).reshape(3, 4) < 6, lambda l: l.arange(6.0)),
    "index_tensor_rows": lambda lib: _set(lib, lambda l: l.tensor([2, 0]), lambda l: l.ones(2, 4)),
    "list_and_slice": lambda lib: _set(lib, (slice(1, None), [0, 3]), 4.0),
    "ellipsis": lambda lib: _set(lib, Ellipsis, 1.0),
    "none": lambda lib: _set(lib, (None, 1), 3.0),
    "non_leaf_basic": lambda lib: _set(lib, 0, 1.0, requires_grad=True),
    "non_leaf_advanced": lambda lib: _set(lib, lambda l: l.tensor([0]), 1.0, requires_grad=True),
    "non_leaf_mask": lambda lib: _set(lib, lambda l: l.ones(3, 4, dtype=l.bool), 1.0, requires_grad=True),
    "non_leaf_mixed": lambda lib: _set(lib, (slice(1, None), [0]), 1.0, requires_grad=True),
}


@pytest.mark.parametrize("name", sorted(SETITEM))
def test_setitem_matches_torch(name, torch):
    assert_same(SETITEM[name], torch)


SETITEM_ERRORS = {
    "negative_step": (lambda lib: _set(lib, slice(None, None, -1), 1.0), "step must be greater than zero"),
    "out_of_range": (lambda lib: _set(lib, 5, 1.0), "index 5 is out of bounds for dimension 0 with size 3"),
    "advanced_out_of_range": (lambda lib: _set(lib, [5], 1.0), "index 5 is out of bounds"),
    "advanced_dtype_mismatch": (
        lambda lib: _set(lib, [0, 1], lambda l: l.tensor([1, 2])),
        "source and destination dtypes match",
    ),
    "advanced_shape_mismatch": (
        lambda lib: _set(lib, [0, 1], lambda l: l.ones(3, 4)),
        "cannot be broadcast to indexing result of shape [2, 4]",
    ),
    "mask_shape_mismatch": (
        lambda lib: _set(lib, lambda l: l.ones(3, 4, dtype=l.bool), lambda l: l.ones(3)),
        "shape mismatch",
    ),
    "basic_shape_mismatch": (lambda lib: _set(lib, 0, lambda l: l.ones(2, 4)), None),
}


@pytest.mark.parametrize("name", sorted(SETITEM_ERRORS))
def test_setitem_errors_match_torch(name, torch):
    function, message = SETITEM_ERRORS[name]
    raises_like(function, torch, message)


@pytest.mark.parametrize("index", [0, [0], (slice(None), [1])])
def test_setitem_on_leaf_that_requires_grad_raises(index, torch):
    def assign(lib):
        x = lib.zeros(3, 4, requires_grad=True)
        x[index] = 1.0

    error = raises_like(assign, torch)
    assert "leaf" in str(error)


def test_setitem_on_leaf_is_allowed_under_no_grad(torch):
    def assign(lib):
        x = lib.zeros(3, 4, requires_grad=True)
        with lib.no_grad():
            x[0] = 1.0
            x[[2]] = 2.0
        return x

    assert_same(assign, torch)


def test_setitem_with_value_that_requires_grad(torch):
    def build(lib):
        w = lib.arange(4.0, requires_grad=True)
        x = lib.zeros(3, 4)
        x[1] = w * 2
        x[[2]] = w
        (x * x).sum().backward()
        return x, w.grad

    assert_same(build, torch, grad_fn=False)
    x = build(ember)[0]
    assert type(x.grad_fn).__name__ == "IndexPutBackward0"


def test_iadd_through_index_matches_torch(torch):
    def build(lib):
        x = lib.arange(12.0).reshape(3, 4).requires_grad_()
        y = x * 1.0
        y[1:, 2] += x[0, :2] ** 2
        y[[0, 0]] += 1.0  # repeated advanced index: last write wins, as in PyTorch
        y[y > 8] *= 2.0
        y.sum().backward()
        return y, x.grad

    assert_same(build, torch, grad_fn=False)


def test_setitem_bumps_version_and_keeps_identity():
    x = ember.zeros(3)
    before = x._version
    storage = x.data_ptr()
    x[0] = 1.0
    x[[1]] = 2.0
    assert x._version == before + 2
    assert x.data_ptr() == storage
    assert x.tolist() == [1.0, 2.0, 0.0]


def test_setitem_saved_tensor_check(torch):
    def build(lib):
        x = lib.ones(3, requires_grad=True)
        y = x.exp()
        y[0] = 0.0  # exp saved its output: backward must refuse
        y.sum().backward()

    raises_like(build, torch, "modified by an inplace operation")


# ----------------------------------------------------------------------------- index ops: values and names
def _idx(lib, values):
    return lib.tensor(values)


OPS = {
    "index_select": lambda lib: _x(lib).index_select(1, _idx(lib, [3, 0, 3])),
    "index_select_int32": lambda lib: lib.index_select(_x(lib), 0, _idx(lib, [2]).int()),
    "index_select_0d_index": lambda lib: _x(lib).index_select(0, _idx(lib, 1)),
    "masked_select": lambda lib: _x(lib).masked_select(_x(lib, False) > 5),
    "masked_select_broadcast_input": lambda lib: lib.arange(4.0, requires_grad=True).masked_select(
        lib.tensor([[True], [False]])
    ),
    "masked_fill": lambda lib: _x(lib).masked_fill(_x(lib, False) > 5, -1.0),
    "masked_fill_tensor": lambda lib: _x(lib).masked_fill(_x(lib, False) > 5, lib.tensor(2.0, requires_grad=True)),
    "masked_fill_int_value_into_float": lambda lib: _x(lib).masked_fill(_x(lib, False) > 5, 3),
    "masked_fill_long": lambda lib: lib.arange(4).masked_fill(lib.arange(4) > 1, 9),
    "gather": lambda lib: _x(lib).gather(1, _idx(lib, [[0], [1], [2]])),
    "gather_larger_index": lambda lib: _x(lib).gather(1, _idx(lib, [[0, 1, 2, 3, 0]])),
    "scatter_value": lambda lib: _x(lib).scatter(1, _idx(lib, [[0], [1], [2]]), 5.0),
    "scatter_src": lambda lib: _x(lib).scatter(1, _idx(lib, [[0], [1], [2]]), _x(lib) * 2),
    "scatter_add": lambda lib: _x(lib).scatter_add(0, _idx(lib, [[0, 0, 1, 1]]), _x(lib)[:1]),
    "scatter_reduce_amax": lambda lib: _x(lib).scatter_reduce(
        1, _idx(lib, [[0, 0], [1, 1], [2, 2]]), _x(lib)[:, :2] * 3, "amax"
    ),
    "scatter_reduce_mean_int": lambda lib: (
        lib.arange(6).reshape(2, 3).scatter_reduce(1, _idx(lib, [[0, 0], [1, 1]]), lib.tensor([[4, 5], [7, 7]]), "mean")
    ),
    "index_add": lambda lib: _x(lib).index_add(0, _idx(lib, [0, 0]), lib.ones(2, 4), alpha=3),
    "index_copy": lambda lib: _x(lib).index_copy(0, _idx(lib, [2, 0]), lib.ones(2, 4)),
    "index_fill": lambda lib: _x(lib).index_fill(1, _idx(lib, [0, 3]), 2.0),
    "index_fill_tensor": lambda lib: _x(lib).index_fill(1, _idx(lib, [0]), lib.tensor(2.0, requires_grad=True)),
    "take": lambda lib: _x(lib).take(_idx(lib, [[0, 11], [-1, 3]])),
    "take_along_dim": lambda lib: lib.take_along_dim(_x(lib), _idx(lib, [[0], [1], [2]]), 1),
    "take_along_dim_broadcast": lambda lib: lib.take_along_dim(_x(lib), _idx(lib, [[0, 2]]), 1),
    "take_along_dim_flat": lambda lib: lib.take_along_dim(_x(lib), _idx(lib, [0, 5])),
    "put": lambda lib: _x(lib).put(_idx(lib, [0, 5]), lib.tensor([9.0, 8.0])),
    "put_accumulate": lambda lib: _x(lib).put(_idx(lib, [1, 1]), lib.tensor([9.0, 8.0]), accumulate=True),
    "index_put": lambda lib: lib.index_put(_x(lib), (_idx(lib, [0, 2]), _idx(lib, [1, 1])), lib.tensor(5.0)),
    "nonzero": lambda lib: (_x(lib, False) % 3 == 0).nonzero(),
    "nonzero_tuple": lambda lib: lib.nonzero(_x(lib, False) % 3 == 0, as_tuple=True),
    "nonzero_0d": lambda lib: lib.tensor(2.0).nonzero(),
    "nonzero_0d_tuple": lambda lib: lib.tensor(2.0).nonzero(as_tuple=True),
    "argwhere": lambda lib: lib.argwhere(_x(lib, False) > 8),
    "where_one_arg": lambda lib: lib.where(_x(lib, False) > 8),
    "masked_scatter": lambda lib: _x(lib).masked_scatter(_x(lib, False) > 8, lib.arange(20.0)),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_index_ops_match_torch(name, torch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(OPS[name], torch)


OP_ERRORS = {
    "index_select_out_of_range": (lambda lib: _x(lib).index_select(0, _idx(lib, [5])), "index out of range in self"),
    "index_select_matrix_index": (
        lambda lib: _x(lib).index_select(0, _idx(lib, [[0]])),
        "Index is supposed to be a vector",
    ),
    "index_select_float_index": (
        lambda lib: _x(lib).index_select(0, _idx(lib, [0.0])),
        "Expected dtype int32 or int64",
    ),
    "index_select_bad_dim": (lambda lib: _x(lib).index_select(2, _idx(lib, [0])), "Dimension out of range"),
    "masked_fill_float_mask": (lambda lib: _x(lib).masked_fill(_x(lib, False), 1.0), "only supports boolean masks"),
    "masked_fill_1d_value": (
        lambda lib: _x(lib).masked_fill(_x(lib, False) > 1, lib.ones(2)),
        "only supports a 0-dimensional value tensor",
    ),
    "masked_select_bad_broadcast": (lambda lib: _x(lib).masked_select(lib.ones(3, dtype=lib.bool)), None),
    "gather_out_of_range": (
        lambda lib: _x(lib).gather(1, _idx(lib, [[5], [1], [2]])),
        "index 5 is out of bounds for dimension 1 with size 4",
    ),
    "gather_rank_mismatch": (lambda lib: _x(lib).gather(1, _idx(lib, [0, 1])), "same number of dimensions"),
    "gather_float_index": (lambda lib: _x(lib).gather(1, _idx(lib, [[0.0]])), "int64"),
    "scatter_int16_index": (lambda lib: _x(lib).scatter(1, _idx(lib, [[0]]).short(), 1.0), "int64"),
    "scatter_dtype_mismatch": (lambda lib: _x(lib).scatter(1, _idx(lib, [[0]]), _x(lib).double()), "dtype"),
    "scatter_reduce_bad_reduce": (
        lambda lib: _x(lib).scatter_reduce(1, _idx(lib, [[0]]), _x(lib), "foo"),
        "reduce argument must be either sum, prod, mean, amax or amin",
    ),
    "index_add_dtype_mismatch": (
        lambda lib: _x(lib).index_add(0, _idx(lib, [0]), lib.ones(1, 4).double()),
        "must have the same scalar type",
    ),
    "take_out_of_range": (lambda lib: _x(lib).take(_idx(lib, [12])), "out of range: tried to access index 12"),
    "put_count_mismatch": (lambda lib: _x(lib).put(_idx(lib, [0, 1]), lib.ones(3)), None),
}


@pytest.mark.parametrize("name", sorted(OP_ERRORS))
def test_index_op_errors_match_torch(name, torch):
    function, message = OP_ERRORS[name]
    raises_like(function, torch, message)


def test_scatter_with_reduce_warns_and_has_no_gradient(torch):
    def build(lib):
        return _x(lib).scatter(1, lib.tensor([[0], [1], [2]]), _x(lib), reduce="multiply")

    with pytest.warns(UserWarning, match="deprecated"):
        ours = build(ember)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = build(torch)
    assert_close(ours, theirs.detach().numpy())
    with pytest.raises(RuntimeError, match="not implemented"):
        ours.sum().backward()


# ----------------------------------------------------------------------------- in-place forms
INPLACE = {
    "masked_fill_": lambda lib, y: y.masked_fill_(y > 5, 0.0),
    "scatter_": lambda lib, y: y.scatter_(1, lib.tensor([[0], [1], [2]]), 5.0),
    "scatter_src_": lambda lib, y: y.scatter_(1, lib.tensor([[0], [1], [2]]), y[:, 1:2] * 2),
    "scatter_add_": lambda lib, y: y.scatter_add_(0, lib.tensor([[0, 0, 1, 1]]), y[2:] * 1),
    "scatter_reduce_": lambda lib, y: y.scatter_reduce_(0, lib.tensor([[0, 0, 1, 1]]), y[2:] * 1, "sum"),
    "index_add_": lambda lib, y: y.index_add_(0, lib.tensor([0, 0]), lib.ones(2, 4)),
    "index_copy_": lambda lib, y: y.index_copy_(0, lib.tensor([1]), lib.ones(1, 4)),
    "index_fill_": lambda lib, y: y.index_fill_(1, lib.tensor([1, 2]), -3.0),
    "put_": lambda lib, y: y.put_(lib.tensor([0, 5]), lib.tensor([1.0, 2.0])),
    "index_put_": lambda lib, y: y.index_put_((lib.tensor([0, 0]),), lib.ones(4), accumulate=True),
    "masked_scatter_": lambda lib, y: y.masked_scatter_(y > 8, lib.arange(12.0)),
}


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_index_ops_match_torch(name, torch):
    def build(lib):
        x = _x(lib)
        y = x * 1.0
        returned = INPLACE[name](lib, y)
        assert returned is y
        (y * y).sum().backward()
        return y, x.grad

    assert_same(build, torch, grad_fn=False)
    y = build(ember)[0]
    assert y._version == 1


def test_inplace_index_op_on_leaf_raises(torch):
    raises_like(lambda lib: _x(lib).masked_fill_(_x(lib, False) > 1, 0.0), torch, "leaf")


def test_inplace_masked_fill_on_view_updates_base(torch):
    def build(lib):
        x = _x(lib)
        y = x * 1.0
        y[1:].masked_fill_(y[1:] > 6, 0.0)
        (y * y).sum().backward()
        return y, x.grad

    assert_same(build, torch, grad_fn=False)


@pytest.mark.parametrize(
    "dtype", [np.float32, np.float64, np.float16, np.int64, np.int8, np.bool_, np.complex64, np.complex128]
)
def test_masked_fill_copies_bits_exactly(dtype):
    """masked_fill selects bit patterns (or, for 16-byte elements, copies through the mask): NaN
    and infinities under the mask are replaced, unmasked ones kept, signed zeros and NaN fills kept."""
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((3, 4, 5)) * 4).astype(dtype)
    if np.dtype(dtype).kind in "fc":
        x.flat[:4] = [np.nan, -np.inf, -0.0, np.inf]
    mask = rng.random((4, 5)) > 0.5
    mask[0, :2] = [True, False]
    fills = [1, 0] + ([-0.0, np.nan, -np.inf] if np.dtype(dtype).kind in "fc" else [])
    for view in (x, x[:, :, ::-1], np.asfortranarray(x)):
        for fill in fills:
            got = ember.tensor(view).masked_fill(ember.tensor(mask), fill).numpy()
            expected = np.where(mask, np.asarray(fill, dtype), view)
            assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes(), (dtype, fill)
            assert got.flags.c_contiguous


# ----------------------------------------------------------------------------- double backward
@pytest.mark.parametrize(
    "build",
    [
        lambda lib, x: x.gather(1, lib.tensor([[0, 0], [1, 3], [2, 2]])) ** 2,
        lambda lib, x: x.index_select(0, lib.tensor([2, 2, 0])) ** 2,
        lambda lib, x: x[[0, 0, 2], 1:] ** 2,
        lambda lib, x: x.masked_select(x > 0) ** 3,
        lambda lib, x: x.take(lib.tensor([0, 0, 7])) ** 2,
        lambda lib, x: (x * x).scatter_add(0, lib.tensor([[0, 1, 0, 1]]), x[:1] ** 2),
        lambda lib, x: lib.zeros(3, 4, dtype=x.dtype).index_add(1, lib.tensor([1, 1]), x[:, :2] ** 2),
    ],
)
def test_second_derivatives_match_torch(build, torch):
    data = np.random.default_rng(3).standard_normal((3, 4))
    results = []
    for lib in (ember, torch):
        x = lib.tensor(data, requires_grad=True)
        out = build(lib, x)
        (grad,) = lib.autograd.grad(out.sum(), x, create_graph=True)
        (grad * grad).sum().backward()
        results.append((grad.detach().numpy().copy(), x.grad.numpy().copy()))
    assert_close(results[0][0], results[1][0], what="first derivative")
    assert_close(results[0][1], results[1][1], what="second derivative")


def test_index_ops_keep_float64_and_float32():
    for dtype in (ember.float32, ember.float64):
        x = ember.ones(3, 4, dtype=dtype, requires_grad=True)
        out = (
            x.gather(1, ember.tensor([[0], [1], [2]])).sum()
            + x[[0, 1]].sum()
            + x.index_select(0, ember.tensor([1])).sum()
        )
        out.backward()
        assert out.dtype is dtype and x.grad.dtype is dtype
