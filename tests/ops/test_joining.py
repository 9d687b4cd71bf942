"""Joining/splitting and shape ops against PyTorch: results, grad_fn names, errors, views."""

import warnings

import pytest

import ember

from .differential import assert_same, raises_like


def _x(lib, requires_grad=True):
    return lib.arange(12.0).reshape(3, 4).requires_grad_(requires_grad)


RESULTS = {
    "cat": lambda lib: lib.cat([_x(lib), _x(lib)]),
    "cat_promotes": lambda lib: lib.cat([_x(lib), _x(lib).double(), lib.ones(1, 4, dtype=lib.int64)]),
    "cat_int_bool": lambda lib: lib.cat([lib.tensor([1, 2]), lib.tensor([True])]),
    "cat_legacy_empty": lambda lib: lib.cat([_x(lib), lib.ones(0)], 1),
    "stack": lambda lib: lib.stack((_x(lib), _x(lib)), -1),
    "hstack": lambda lib: lib.hstack([_x(lib), _x(lib)]),
    "vstack_1d": lambda lib: lib.vstack([_x(lib)[0], _x(lib)[1]]),
    "dstack": lambda lib: lib.dstack([_x(lib), _x(lib)]),
    "column_stack": lambda lib: lib.column_stack([_x(lib)[0], _x(lib)[1]]),
    "split_int": lambda lib: _x(lib).split(2),
    "split_sizes": lambda lib: lib.split(_x(lib), [1, 3], 1),
    "split_zero_size_dim": lambda lib: lib.zeros(0, 3).split(2),
    "chunk": lambda lib: _x(lib).chunk(2, 1),
    "chunk_more_than_size": lambda lib: _x(lib).chunk(5),
    "unbind": lambda lib: _x(lib).unbind(1),
    "tensor_split_int": lambda lib: _x(lib).tensor_split(2, dim=1),
    "tensor_split_indices_past_end": lambda lib: _x(lib).tensor_split([1, 6]),
    "narrow": lambda lib: _x(lib).narrow(1, 1, 2),
    "flip": lambda lib: _x(lib).flip(0),
    "flip_int_dim": lambda lib: _x(lib).flip(-1),
    "fliplr": lambda lib: _x(lib).fliplr(),
    "roll": lambda lib: _x(lib).roll(1),
    "roll_dim": lambda lib: _x(lib).roll(-1, 0),
    "repeat": lambda lib: _x(lib).repeat(2, 1),
    "repeat_new_dims": lambda lib: _x(lib).repeat(2, 1, 2),
    "tile": lambda lib: _x(lib).tile(2),
    "repeat_interleave_int": lambda lib: _x(lib).repeat_interleave(2),
    "repeat_interleave_tensor": lambda lib: _x(lib).repeat_interleave(lib.tensor([1, 2, 0]), dim=0),
    "repeat_interleave_counts_only": lambda lib: lib.repeat_interleave(lib.tensor([2, 0, 3])),
    "tril": lambda lib: _x(lib).tril(),
    "triu": lambda lib: _x(lib).triu(1),
    "diag_of_matrix": lambda lib: lib.diag(_x(lib)),
    "diag_of_vector": lambda lib: lib.diag(_x(lib)[0]),
    "diagonal": lambda lib: _x(lib).diagonal(1),
    "diagonal_empty": lambda lib: _x(lib).diagonal(5),
    "diag_embed": lambda lib: lib.diag_embed(_x(lib)),
    "diagflat": lambda lib: lib.diagflat(_x(lib)),
    "meshgrid": lambda lib: lib.meshgrid(_x(lib)[0], _x(lib)[1], indexing="ij"),
    "cartesian_prod": lambda lib: lib.cartesian_prod(_x(lib)[0], _x(lib)[1, :2]),
    "unfold": lambda lib: _x(lib).unfold(1, 2, 1),
    "reshape_view": lambda lib: _x(lib).reshape(-1),
    "reshape_copy": lambda lib: _x(lib).t().reshape(-1),
    "flatten": lambda lib: _x(lib).flatten(),
    "flatten_copy": lambda lib: _x(lib).t().flatten(),
    "unflatten": lambda lib: _x(lib).unflatten(1, (2, 2)),
    "squeeze_all": lambda lib: _x(lib).reshape(1, 3, 1, 4).squeeze(),
    "squeeze_dim": lambda lib: _x(lib).reshape(1, 3, 4).squeeze(0),
    "squeeze_dims": lambda lib: _x(lib).reshape(1, 3, 1, 4).squeeze((0, 2)),
    "squeeze_non_one": lambda lib: _x(lib).squeeze(1),
    "unsqueeze": lambda lib: _x(lib).unsqueeze(0),
    "expand_same": lambda lib: _x(lib).expand(-1, 4),
    "expand_new_dim": lambda lib: _x(lib).expand(2, -1, 4),
    "broadcast_to": lambda lib: lib.broadcast_to(_x(lib)[:1], (2, 3, 4)),
    "movedim": lambda lib: _x(lib).movedim(0, 1),
    "contiguous_noop": lambda lib: _x(lib).contiguous(),
    "contiguous_copy": lambda lib: _x(lib).t().contiguous(),
    "view_dtype": lambda lib: _x(lib, False).view(lib.int32),
    "new_zeros": lambda lib: _x(lib).double().new_zeros(2, 3),
    "new_ones_dtype": lambda lib: _x(lib).new_ones((2,), dtype=lib.int64),
    "new_full": lambda lib: _x(lib).new_full((2,), 3),
    "new_tensor": lambda lib: _x(lib).new_tensor([1, 2]),
    "new_empty_shape": lambda lib: _x(lib).new_empty(2, 0).shape,
}


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_results_match_torch(name, torch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(RESULTS[name], torch)


ERRORS = {
    "cat_empty_list": (lambda lib: lib.cat([]), "expected a non-empty list of Tensors"),
    "cat_not_a_list": (lambda lib: lib.cat(_x(lib)), None),
    "cat_sizes": (
        lambda lib: lib.cat([_x(lib), lib.ones(2, 5)]),
        "Sizes of tensors must match except in dimension 0. Expected size 4 but got size 5 for tensor number 1",
    ),
    "cat_rank": (
        lambda lib: lib.cat([_x(lib), lib.ones(3)]),
        "Tensors must have same number of dimensions: got 2 and 1",
    ),
    "cat_dim": (lambda lib: lib.cat([_x(lib), _x(lib)], 2), "Dimension out of range"),
    "cat_scalars": (
        lambda lib: lib.cat([lib.tensor(1.0), lib.tensor(2.0)]),
        "zero-dimensional tensor (at position 0) cannot be concatenated",
    ),
    "cat_scalar_after_empty": (
        lambda lib: lib.cat([lib.ones(0), lib.tensor(2.0)], 3),
        "zero-dimensional tensor (at position 1) cannot be concatenated",
    ),
    "stack_sizes": (
        lambda lib: lib.stack([_x(lib), lib.ones(2, 4)]),
        "stack expects each tensor to be equal size, but got [3, 4] at entry 0 and [2, 4] at entry 1",
    ),
    "split_sizes_sum": (lambda lib: _x(lib).split([1, 1]), "split_with_sizes expects split_sizes to sum exactly to 3"),
    "chunk_zero": (lambda lib: _x(lib).chunk(0), "chunk expects `chunks` to be greater than 0"),
    "narrow_past_end": (lambda lib: _x(lib).narrow(1, 3, 2), "start (3) + length (2) exceeds dimension size (4)."),
    "unbind_0d": (lambda lib: lib.tensor(1.0).unbind(), None),
    "repeat_too_few": (lambda lib: _x(lib).repeat(2), "Number of dimensions of repeat dims can not be smaller"),
    "tril_1d": (lambda lib: _x(lib)[0].tril(), None),
    "diag_3d": (lambda lib: lib.diag(_x(lib).reshape(1, 3, 4)), None),
    "fliplr_1d": (lambda lib: _x(lib)[0].fliplr(), "Input must be >= 2-d."),
    "roll_misaligned": (lambda lib: _x(lib).roll((1, 2), 0), "shifts and dimensions must align"),
    "unfold_too_big": (
        lambda lib: _x(lib).unfold(1, 5, 1),
        "maximum size for tensor at dimension 1 is 4 but size is 5",
    ),
    "view_non_contiguous": (
        lambda lib: _x(lib).t().view(12),
        "view size is not compatible with input tensor's size and stride",
    ),
    "view_bad_size": (lambda lib: _x(lib).view(5), "shape '[5]' is invalid for input of size 12"),
    "view_two_inferred": (lambda lib: _x(lib).view(-1, -1), "only one dimension can be inferred"),
    "view_negative": (lambda lib: _x(lib).view(-2, 6), "invalid shape dimension -2"),
    "reshape_ambiguous_zero": (lambda lib: lib.zeros(0, 3).reshape(-1, 0), "ambiguous"),
    "unflatten_bad_sizes": (lambda lib: _x(lib).unflatten(1, (3, 2)), "don't multiply up to the size of dim 1 (4)"),
    "expand_non_singleton": (
        lambda lib: _x(lib).expand(3, 5),
        "must match the existing size (4) at non-singleton dimension 1",
    ),
    "expand_leading_minus_one": (
        lambda lib: _x(lib).expand(-1, 3, 4),
        "isn't allowed in a leading, non-existing dimension 0",
    ),
    "expand_too_few": (lambda lib: _x(lib).expand(4), None),
    "permute_wrong_length": (lambda lib: _x(lib).permute(0), None),
    "transpose_bad_dim": (lambda lib: _x(lib).transpose(0, 2), "Dimension out of range"),
    "t_3d": (lambda lib: _x(lib).reshape(1, 3, 4).t(), None),
    "inplace_on_expanded": (
        lambda lib: _x(lib, False)[:1].expand(3, 4).add_(1),
        "more than one element of the written-to tensor",
    ),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name, torch):
    function, message = ERRORS[name]
    raises_like(function, torch, message)


@pytest.mark.parametrize("op", ["split", "chunk", "unbind"])
def test_outputs_of_multi_view_ops_refuse_in_place_with_grad(op, torch):
    def modify(lib):
        y = _x(lib) * 1.0
        parts = {"split": lambda: y.split(2), "chunk": lambda: y.chunk(2), "unbind": lambda: y.unbind()}[op]()
        parts[0].mul_(2)

    raises_like(modify, torch, "is a view and is being modified inplace")


@pytest.mark.parametrize("op", ["split", "unbind", "narrow", "diagonal", "unfold", "tensor_split"])
def test_splitting_ops_return_views_that_share_memory(op):
    x = ember.zeros(4, 4)
    part = {
        "split": lambda: x.split(2)[1],
        "unbind": lambda: x.unbind(1)[2],
        "narrow": lambda: x.narrow(0, 1, 2),
        "diagonal": lambda: x.diagonal(),
        "unfold": lambda: x.unfold(0, 2, 2),
        "tensor_split": lambda: x.tensor_split(2)[1],
    }[op]()
    with ember.no_grad():
        part.fill_(1.0)  # no_grad allows in-place changes of multi-output views, as PyTorch does
    assert x.sum().item() == part.numel() and part._base is x
    assert part._version == x._version == 1


def test_inplace_through_diagonal_and_narrow_views_with_grad(torch):
    def build(lib):
        x = _x(lib)
        y = x * 1.0
        y.diagonal().mul_(3)
        y.narrow(1, 2, 2).add_(x[:, :2] ** 2)
        (y * y).sum().backward()
        return y, x.grad

    assert_same(build, torch, grad_fn=False)


def test_tril_triu_in_place(torch):
    def build(lib):
        x = _x(lib)
        y = x * 2.0
        y.tril_(-1)
        z = x * 1.0
        z.triu_()
        (y * z + y).sum().backward()
        return y, z, x.grad

    assert_same(build, torch, grad_fn=False)


def test_meshgrid_warns_without_indexing(torch):
    with pytest.warns(UserWarning, match="indexing argument"):
        grids = ember.meshgrid(ember.arange(3), ember.arange(2))
    assert [tuple(grid.shape) for grid in grids] == [(3, 2), (3, 2)]


def test_split_gradient_with_unused_outputs(torch):
    def build(lib):
        x = _x(lib)
        first, _, third = x.split([1, 1, 2], 1)
        (first * 2 + third.sum(1, keepdim=True)).sum().backward()
        return x.grad

    assert_same(build, torch, grad_fn=False)
