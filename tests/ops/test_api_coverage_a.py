"""The torch functions and methods added for real programs (issue 11, part A), against PyTorch:
results, dtypes, grad_fn names and exception classes. Gradients of the differentiable ones are
checked by their op-table cases (tests/ops/table_api_coverage.py)."""

import numpy as np
import pytest

import ember

from .differential import assert_same, raises_like


def _x(lib, requires_grad=True):
    return (lib.arange(12.0).reshape(3, 4) * 0.5 - 2).requires_grad_(requires_grad)


def _flat(histogram):
    hist, edges = histogram
    return (hist, *edges)


def _ints(lib):
    return lib.tensor([[12, -18, 0], [7, 0, 45]]), lib.tensor([[8, 27, 0], [-21, 5, 6]])


RESULTS = {
    # shape and indexing
    "broadcast_tensors": lambda lib: lib.broadcast_tensors(_x(lib)[:, :1], lib.ones(4)),
    "broadcast_tensors_one": lambda lib: lib.broadcast_tensors(_x(lib)),
    "atleast_1d_scalar": lambda lib: lib.atleast_1d(lib.tensor(2.0, requires_grad=True)),
    "atleast_1d_list": lambda lib: lib.atleast_1d([lib.tensor(1.0), _x(lib)]),
    "atleast_2d_vector": lambda lib: lib.atleast_2d(lib.ones(3, requires_grad=True)),
    "atleast_3d_many": lambda lib: lib.atleast_3d(lib.tensor(1.0), lib.ones(3), _x(lib), lib.ones(1, 2, 3, 4)),
    "ravel": lambda lib: lib.ravel(_x(lib)),
    "ravel_method_transposed": lambda lib: _x(lib).t().ravel(),
    "rot90": lambda lib: lib.rot90(_x(lib)),
    "rot90_k0": lambda lib: _x(lib).rot90(0),
    "rot90_negative_k": lambda lib: _x(lib).rot90(-3, [1, 0]),
    "hsplit_sections": lambda lib: lib.hsplit(_x(lib), 2),
    "hsplit_indices": lambda lib: _x(lib).hsplit([1, 3]),
    "hsplit_1d": lambda lib: lib.hsplit(lib.arange(6.0), 3),
    "vsplit": lambda lib: lib.vsplit(_x(lib), [1]),
    "dsplit": lambda lib: lib.dsplit(lib.ones(2, 2, 4), 2),
    "row_stack": lambda lib: lib.row_stack((_x(lib)[0], _x(lib)[1])),
    "unsafe_split": lambda lib: lib.unsafe_split(_x(lib), 2, 1),
    "unsafe_chunk": lambda lib: lib.unsafe_chunk(_x(lib), 3, 0),
    "narrow_copy": lambda lib: lib.narrow_copy(_x(lib), 1, -3, 2),
    "narrow_copy_method": lambda lib: _x(lib).narrow_copy(0, 1, 2),
    "select_scatter": lambda lib: lib.select_scatter(_x(lib), lib.ones(4), 0, 1),
    "select_scatter_casts_src": lambda lib: lib.select_scatter(_x(lib, False), lib.ones(4, dtype=lib.float64), 0, 0),
    "slice_scatter": lambda lib: lib.slice_scatter(_x(lib), lib.ones(3, 2), 1, 1, None, 2),
    "slice_scatter_negative_start": lambda lib: lib.slice_scatter(_x(lib), lib.zeros(1, 4), 0, -1),
    "diagonal_scatter": lambda lib: lib.diagonal_scatter(_x(lib), lib.ones(3), 1),
    "diagonal_scatter_below": lambda lib: _x(lib).diagonal_scatter(lib.ones(2), -1),
    "as_strided": lambda lib: lib.as_strided(_x(lib), (2, 2), (1, 2), 1),
    "as_strided_method_default_offset": lambda lib: _x(lib)[1].as_strided((2,), (1,)),
    "as_strided_scatter_values": lambda lib: lib.as_strided_scatter(_x(lib, False), lib.ones(2, 2), (2, 2), (1, 2), 1),
    "tril_indices": lambda lib: lib.tril_indices(3, 4, 1),
    "triu_indices": lambda lib: lib.triu_indices(4, 3, -1),
    "tril_indices_int32": lambda lib: lib.tril_indices(3, 3, dtype=lib.int32),
    "vander_int": lambda lib: lib.vander(lib.tensor([1, 2, 3])),
    "vander_values": lambda lib: lib.vander(lib.tensor([0.5, 2.0, -1.0]), N=4, increasing=True),
    "vander_n0": lambda lib: lib.vander(lib.tensor([1.0, 2.0]), N=0),
    "combinations": lambda lib: lib.combinations(lib.tensor([1, 2, 3, 4]), 3),
    "combinations_replacement": lambda lib: lib.combinations(lib.tensor([1.0, 2.0]), with_replacement=True),
    "combinations_r0": lambda lib: lib.combinations(lib.tensor([1, 2])),
    "combinations_too_many": lambda lib: lib.combinations(lib.tensor([1, 2]), 3),
    "unravel_index": lambda lib: lib.unravel_index(lib.tensor([5, 7, 0]), (2, 4)),
    "unravel_index_scalar": lambda lib: lib.unravel_index(lib.tensor(9), (2, 4)),
    "unravel_index_int_shape": lambda lib: lib.unravel_index(lib.tensor([3]), 5),
    "index_put_method": lambda lib: _x(lib).index_put((lib.tensor([0, 2]),), lib.tensor(7.0)),
    "index_put_accumulate": lambda lib: _x(lib).index_put(
        (lib.tensor([0, 0]), lib.tensor([1, 1])), lib.tensor([1.0, 2.0]), accumulate=True
    ),
    # math
    "gcd": lambda lib: lib.gcd(*_ints(lib)),
    "gcd_method_broadcast": lambda lib: _ints(lib)[0].gcd(lib.tensor(6)),
    "gcd_mixed_ints": lambda lib: lib.gcd(lib.tensor([4], dtype=lib.uint8), lib.tensor([-6], dtype=lib.int8)),
    "lcm": lambda lib: lib.lcm(*_ints(lib)),
    "ldexp_ints": lambda lib: lib.ldexp(lib.tensor([1, 2]), lib.tensor([2, 3])),
    "ldexp_float_exponent": lambda lib: lib.ldexp(lib.tensor([1.0]), lib.tensor([2.5])),
    "ldexp_promotes": lambda lib: lib.ldexp(lib.ones(2), lib.ones(2, dtype=lib.float64)),
    "ldexp_half": lambda lib: lib.ldexp(lib.ones(2, dtype=lib.float16), lib.tensor([1, 2])),
    "frexp": lambda lib: lib.frexp(lib.tensor([8.0, 3.0, 0.0, -3.0, float("inf")])),
    "frexp_double_fields": lambda lib: tuple(lib.frexp(_x(lib).double())),
    "frexp_method": lambda lib: _x(lib).frexp().exponent,
    "nextafter": lambda lib: lib.nextafter(lib.tensor([1.0, 2.0]), lib.tensor([2.0, 0.0])) - lib.tensor([1.0, 2.0]),
    "nextafter_double": lambda lib: lib.nextafter(
        lib.tensor([0.0], dtype=lib.float64), lib.tensor([1.0], dtype=lib.float64)
    ),
    "inner": lambda lib: lib.inner(_x(lib), _x(lib)[:2]),
    "inner_scalar": lambda lib: lib.inner(_x(lib), lib.tensor(2.0)),
    "vdot": lambda lib: lib.vdot(_x(lib)[0], _x(lib)[1]),
    "vdot_ints": lambda lib: lib.vdot(lib.tensor([1, 2, 3]), lib.tensor([4, 5, 6])),
    "renorm": lambda lib: lib.renorm(_x(lib), 2, 0, 3.0),
    "renorm_inf": lambda lib: _x(lib).renorm(float("inf"), 1, 1.0),
    "cov": lambda lib: lib.cov(_x(lib)),
    "cov_1d_int": lambda lib: lib.cov(lib.tensor([1, 2, 4])),
    "cov_weights": lambda lib: lib.cov(
        lib.tensor([1.0, 2.0, 5.0]), correction=0, fweights=lib.tensor([1, 2, 1]), aweights=lib.tensor([0.5, 0.2, 0.3])
    ),
    "corrcoef": lambda lib: lib.corrcoef(_x(lib) ** 2),
    "corrcoef_1d": lambda lib: lib.corrcoef(lib.tensor([1.0, 2.0, 4.0])),
    "quantile_scalar": lambda lib: lib.quantile(_x(lib), 0.25),
    "quantile_tensor_q_dim": lambda lib: lib.quantile(_x(lib), lib.tensor([0.1, 0.5]), dim=0),
    "quantile_keepdim_all": lambda lib: lib.quantile(_x(lib), 0.5, keepdim=True),
    "quantile_nan": lambda lib: lib.quantile(lib.tensor([1.0, float("nan"), 3.0]), 0.5),
    "nanquantile": lambda lib: lib.nanquantile(lib.tensor([[1.0, float("nan"), 3.0], [float("nan")] * 3]), 0.5, 1),
    "nanquantile_nearest": lambda lib: lib.tensor([1.0, 2.0, 3.0, 4.0]).nanquantile(0.5, interpolation="nearest"),
    "quantile_0d": lambda lib: lib.quantile(lib.tensor(3.0), 0.5, dim=0),
    "bucketize": lambda lib: lib.bucketize(lib.tensor([1, 5, 9]), lib.tensor([1, 3, 5, 7])),
    "bucketize_right_int32": lambda lib: lib.bucketize(
        lib.tensor([[1.0, 5.0]]), lib.tensor([1.0, 3.0, 5.0]), right=True, out_int32=True
    ),
    "bucketize_number": lambda lib: lib.bucketize(3, lib.tensor([1, 3, 5, 7])),
    "diff": lambda lib: lib.diff(_x(lib)),
    "diff_bool": lambda lib: lib.diff(lib.tensor([True, False, False, True])),
    "diff_int_n2_dim0": lambda lib: lib.tensor([[1, 4], [2, 9], [7, 7]]).diff(2, 0),
    "diff_too_many": lambda lib: lib.diff(_x(lib), n=5),
    "diff_edges": lambda lib: lib.diff(_x(lib), prepend=lib.zeros(3, 1), append=lib.ones(3, 2)),
    "trapezoid": lambda lib: lib.trapezoid(_x(lib)),
    "trapezoid_int": lambda lib: lib.trapezoid(lib.tensor([1, 2, 3])),
    "trapezoid_x_int": lambda lib: lib.trapezoid(lib.ones(3), lib.tensor([1, 2, 4])),
    "trapezoid_empty": lambda lib: lib.trapezoid(lib.ones(3, 0)),
    "trapz_dx": lambda lib: lib.trapz(_x(lib), dx=2.0),
    "cumulative_trapezoid": lambda lib: lib.cumulative_trapezoid(_x(lib), lib.tensor([0.0, 1.0, 3.0, 6.0])),
    "cumulative_trapezoid_empty": lambda lib: lib.cumulative_trapezoid(lib.ones(3, 0)),
    "histogramdd": lambda lib: _flat(lib.histogramdd(lib.tensor([[0.1, 0.2], [0.5, 0.9], [0.9, 0.1]]), bins=[2, 3])),
    "histogramdd_edges_density": lambda lib: (
        lib.histogramdd(
            lib.tensor([[0.1, 0.2], [0.6, 0.9], [0.9, 0.1]]),
            bins=[lib.tensor([0.0, 0.5, 1.0]), lib.tensor([0.0, 1.0])],
            density=True,
        ).hist
    ),
    "histogramdd_range_weight": lambda lib: tuple(
        lib.histogramdd(
            lib.tensor([[0.1, 0.2], [0.6, 1.5]]), bins=2, range=[0.0, 1.0, 0.0, 2.0], weight=lib.tensor([2.0, 3.0])
        )
    )[0],
    # predicates
    "is_complex": lambda lib: (lib.is_complex(_x(lib)), lib.is_complex(lib.ones(1, dtype=lib.complex64))),
    "is_nonzero": lambda lib: (lib.is_nonzero(lib.tensor([0.0])), lib.is_nonzero(lib.tensor([[3]]))),
    "is_same_size": lambda lib: (lib.is_same_size(_x(lib), _x(lib)), lib.is_same_size(_x(lib), _x(lib).t())),
    "is_signed": lambda lib: (lib.is_signed(lib.ones(1, dtype=lib.uint8)), lib.is_signed(_x(lib))),
    "is_inference": lambda lib: lib.is_inference(_x(lib)),
    "is_conj_is_neg": lambda lib: (lib.is_conj(_x(lib)), lib.is_neg(_x(lib))),
}


# Composites whose last node is another of the ops they are made of than torch's (values and
# gradients still agree: the op-table cases compare gradients with torch).
NODE_DIFFERS = {
    "trapezoid": "MulBackward0 for MulBackward1 (ember has one node for a product with a number)",
    "trapz_dx": "MulBackward0 for MulBackward1",
    "cumulative_trapezoid": "CumsumBackward0 for DivBackward1",
}


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_matches_torch(name, torch):
    assert_same(RESULTS[name], torch, grad_fn=name not in NODE_DIFFERS)


ERRORS = {
    "hsplit_0d": lambda lib: lib.hsplit(lib.tensor(1.0), 1),
    "hsplit_not_divisible": lambda lib: lib.hsplit(_x(lib), 3),
    "vsplit_1d": lambda lib: lib.vsplit(lib.ones(4), 2),
    "dsplit_2d": lambda lib: lib.dsplit(_x(lib), 2),
    "rot90_same_dims": lambda lib: lib.rot90(_x(lib), 1, [0, 0]),
    "rot90_one_dim": lambda lib: lib.rot90(_x(lib), 1, [0]),
    "rot90_1d": lambda lib: lib.rot90(lib.ones(3)),
    "rot90_dim_range": lambda lib: lib.rot90(_x(lib), 1, [0, 2]),
    "narrow_copy_past_end": lambda lib: lib.narrow_copy(_x(lib), 0, 2, 3),
    "unsafe_chunk_zero": lambda lib: lib.unsafe_chunk(_x(lib), 0),
    "select_scatter_shape": lambda lib: lib.select_scatter(_x(lib), lib.ones(3), 0, 0),
    "select_scatter_index": lambda lib: lib.select_scatter(_x(lib), lib.ones(4), 0, 5),
    "slice_scatter_shape": lambda lib: lib.slice_scatter(_x(lib), lib.ones(3, 3), 1, 0, 4, 2),
    "diagonal_scatter_shape": lambda lib: lib.diagonal_scatter(_x(lib), lib.ones(2)),
    "as_strided_out_of_bounds": lambda lib: lib.as_strided(_x(lib), (2, 2), (1, 2), 11),
    "as_strided_negative_stride": lambda lib: lib.as_strided(_x(lib), (2, 2), (-1, 2), 1),
    "gcd_float": lambda lib: lib.gcd(lib.ones(2), lib.ones(2)),
    "gcd_bool": lambda lib: lib.gcd(lib.tensor([True]), lib.tensor([True])),
    "gcd_number": lambda lib: lib.gcd(lib.tensor([4]), 2),
    "ldexp_number": lambda lib: lib.ldexp(_x(lib), 2),
    "frexp_int": lambda lib: lib.frexp(lib.tensor([1, 2])),
    "nextafter_int": lambda lib: lib.nextafter(lib.tensor([1]), lib.tensor([2])),
    "nextafter_number": lambda lib: lib.nextafter(_x(lib), 2.0),
    "inner_mismatch": lambda lib: lib.inner(lib.ones(2, 3), lib.ones(4, 2)),
    "inner_number": lambda lib: lib.inner(lib.ones(2, 3), 2.0),
    "vdot_dtypes": lambda lib: lib.vdot(lib.tensor([1, 2]), lib.tensor([1.0, 2.0])),
    "vdot_2d": lambda lib: lib.vdot(lib.ones(2, 2), lib.ones(2, 2)),
    "renorm_1d": lambda lib: lib.renorm(lib.ones(3), 2, 0, 1.0),
    "renorm_negative_maxnorm": lambda lib: lib.renorm(_x(lib), 2, 0, -1.0),
    "quantile_int": lambda lib: lib.quantile(lib.tensor([1, 2, 3]), 0.5),
    "quantile_interpolation": lambda lib: lib.quantile(_x(lib), 0.5, interpolation="foo"),
    "quantile_q_range": lambda lib: lib.quantile(_x(lib), 1.5),
    "quantile_q_dtype": lambda lib: lib.quantile(_x(lib), lib.tensor([0.5], dtype=lib.float64)),
    "quantile_q_2d": lambda lib: lib.quantile(_x(lib), lib.ones(1, 1) * 0.5),
    "quantile_empty": lambda lib: lib.quantile(lib.ones(0), 0.5),
    "cov_3d": lambda lib: lib.cov(lib.ones(2, 2, 2)),
    "cov_float_fweights": lambda lib: lib.cov(_x(lib), fweights=lib.ones(4)),
    "cov_int_aweights": lambda lib: lib.cov(_x(lib), aweights=lib.tensor([1, 1, 1, 1])),
    "cov_weights_length": lambda lib: lib.cov(_x(lib), fweights=lib.tensor([1, 1])),
    "cov_negative_weights": lambda lib: lib.cov(_x(lib), fweights=lib.tensor([1, -1, 1, 1])),
    "bucketize_2d_boundaries": lambda lib: lib.bucketize(lib.ones(2), lib.ones(2, 2)),
    "diff_0d": lambda lib: lib.diff(lib.tensor(1.0)),
    "diff_negative_n": lambda lib: lib.diff(_x(lib), n=-1),
    "diff_prepend_ndim": lambda lib: lib.diff(_x(lib), prepend=lib.ones(4)),
    "diff_prepend_number": lambda lib: lib.diff(_x(lib), prepend=1.0),
    "trapezoid_x_length": lambda lib: lib.trapezoid(_x(lib), lib.ones(3)),
    "trapezoid_x_and_dx": lambda lib: lib.trapezoid(_x(lib), lib.ones(4), dx=2),
    "gradient_edge_order": lambda lib: lib.gradient(_x(lib), edge_order=3),
    "gradient_spacing_length": lambda lib: lib.gradient(_x(lib), dim=1, spacing=[1.0, 2.0]),
    "gradient_short_dim": lambda lib: lib.gradient(lib.ones(2), edge_order=2),
    "gradient_0d_coordinates": lambda lib: lib.gradient(lib.ones(2, 3), spacing=[lib.tensor(2.0)], dim=1),
    "gradient_repeated_dim": lambda lib: lib.gradient(_x(lib), dim=[0, 0]),
    "gradient_dim_range": lambda lib: lib.gradient(_x(lib), dim=2),
    "vander_2d": lambda lib: lib.vander(_x(lib)),
    "vander_negative_n": lambda lib: lib.vander(lib.ones(3), N=-1),
    "combinations_2d": lambda lib: lib.combinations(_x(lib)),
    "tril_indices_float": lambda lib: lib.tril_indices(3, 3, dtype=lib.float32),
    "triu_indices_int16": lambda lib: lib.triu_indices(3, 3, dtype=lib.int16),
    "unravel_index_float": lambda lib: lib.unravel_index(lib.tensor(3.0), (2, 4)),
    "is_nonzero_empty": lambda lib: lib.is_nonzero(lib.tensor([])),
    "is_nonzero_many": lambda lib: lib.is_nonzero(lib.tensor([1, 2])),
    "poisson_int": lambda lib: lib.poisson(lib.tensor([1, 2])),
    "poisson_negative": lambda lib: lib.poisson(lib.tensor([-1.0])),
    "binomial_int_count": lambda lib: lib.binomial(lib.tensor([10, 5]), lib.tensor([0.5, 0.2])),
    "histogramdd_weight_dtype": lambda lib: lib.histogramdd(lib.ones(3, 2).double(), bins=2, weight=lib.ones(3)),
    "fill_diagonal_unequal": lambda lib: lib.ones(2, 3, 4).fill_diagonal_(0),
    "float_power_float32": lambda lib: lib.ones(2).float_power_(2),
    "apply_requires_grad": lambda lib: (_x(lib) * 1).apply_(lambda v: v),
    "t_3d": lambda lib: lib.ones(2, 2, 2).t_(),
    "transpose_leaf": lambda lib: _x(lib).transpose_(0, 1),
    "unsqueeze_range": lambda lib: lib.ones(2).unsqueeze_(3),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_torchs(name, torch):
    raises_like(ERRORS[name], torch)


# ------------------------------------------------------------------ in-place methods
INPLACE = {
    "transpose_": lambda t: t.transpose_(0, 1),
    "swapaxes_": lambda t: t.swapaxes_(1, 0),
    "swapdims_": lambda t: t.swapdims_(0, 1),
    "t_": lambda t: t.t_(),
    "t_1d": lambda t: t[0].t_(),
    "squeeze_": lambda t: t.unsqueeze(1).squeeze_(),
    "squeeze_dim": lambda t: t.unsqueeze(1).squeeze_(1),
    "squeeze_dims": lambda t: t.unsqueeze(1).squeeze_((1,)),
    "unsqueeze_": lambda t: t.unsqueeze_(-1),
    "as_strided_": lambda t: t.as_strided_((2, 3), (1, 2), 1),
    "fill_diagonal_": lambda t: t.fill_diagonal_(5.0),
    "fill_diagonal_wrap": lambda t: t.t().contiguous().fill_diagonal_(-1.0, wrap=True),
    "index_put_": lambda t: t.index_put_((t.new_tensor([0, 2]).long(),), t.new_tensor(7.0)),
    "renorm_": lambda t: t.renorm_(2, 1, 1.0),
    "ldexp_": lambda t: t.ldexp_(t.new_tensor([1.0, 2.0, 3.0, 4.0])),
    "nextafter_": lambda t: t.nextafter_(t.new_tensor(100.0).expand(3, 4).contiguous()),
    "float_power_": lambda t: t.double().float_power_(2),
}


def _inplace_outcome(lib, name):
    leaf = _x(lib)
    tensor = leaf * 1
    version = tensor._version
    result = INPLACE[name](tensor)
    assert result is tensor or name in (
        "t_1d",
        "squeeze_",
        "squeeze_dim",
        "squeeze_dims",
        "fill_diagonal_wrap",
        "float_power_",
    )
    assert result._version > version or result is not tensor
    return result


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_methods_match_torch(name, torch):
    ours = _inplace_outcome(ember, name)
    theirs = _inplace_outcome(torch, name)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6)
    assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype) == str(theirs.dtype)
    if name.startswith(("transpose_", "swap", "t_", "squeeze_", "unsqueeze_", "as_strided_")):
        assert ours.grad_fn.name() == theirs.grad_fn.name()


INPLACE_COMPARISONS = ["greater_", "greater_equal_", "less_", "less_equal_", "not_equal_"]
INPLACE_LOGICAL = ["logical_and_", "logical_or_", "logical_xor_"]


@pytest.mark.parametrize("name", INPLACE_COMPARISONS + INPLACE_LOGICAL)
def test_inplace_comparisons_and_logical_ops(name, torch):
    def run(lib):
        tensor = lib.tensor([0.0, 1.0, 2.0, 3.0])
        return getattr(tensor, name)(lib.tensor([1.0, 1.0, 0.0, 5.0]))

    assert_same(run, torch)


@pytest.mark.parametrize("name", ["bitwise_left_shift_", "bitwise_right_shift_", "gcd_", "lcm_"])
def test_inplace_integer_ops(name, torch):
    def run(lib):
        tensor = lib.tensor([12, 7, 64, -8])
        result = getattr(tensor, name)(lib.tensor([2, 1, 3, 6]))
        assert result is tensor
        return tensor

    assert_same(run, torch)
    if hasattr(torch, name):  # torch.gcd_ and torch.lcm_ are functions too; the shifts only methods
        assert_same(lambda lib: getattr(lib, name)(lib.tensor([12, 7]), lib.tensor([2, 3])), torch)


def test_in_place_shape_change_keeps_the_gradient(torch):
    def run(lib):
        leaf = _x(lib)
        tensor = leaf * 2
        tensor.t_().unsqueeze_(0).squeeze_(0).transpose_(0, 1)
        (tensor * lib.arange(4.0).reshape(4, 1).t()).sum().backward()
        return leaf.grad

    assert_same(run, torch)


def test_in_place_shape_change_of_a_view_keeps_its_base_in_step():
    base = ember.zeros(3, 4)
    row = base[1]
    row.unsqueeze_(0)
    row.add_(1)
    assert row.shape == (1, 4) and base[1].tolist() == [1.0] * 4 and base.sum().item() == 4


def test_as_strided_is_a_view_whose_writes_reach_the_input(torch):
    def run(lib):
        tensor = lib.zeros(3, 4)
        view = tensor.as_strided((2, 2), (1, 2), 1)
        view.add_(1)
        return tensor, view._base is tensor

    assert_same(run, torch)


def test_frexp_returns_the_named_tuple():
    result = ember.frexp(ember.tensor([8.0]))
    assert result.mantissa.tolist() == [0.5] and result.exponent.tolist() == [4]
    assert repr(result).startswith("torch.return_types.frexp(\nmantissa=")


def test_nextafter_gradient_is_zero_where_input_equals_other(torch):
    # torch 2.13's formula, where(input != other, grad, 0): the op-table case draws unequal inputs.
    def run(lib):
        input = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        other = lib.tensor([1.0, 0.0, 5.0], requires_grad=True)
        lib.nextafter(input, other).backward(lib.tensor([10.0, 20.0, 30.0]))
        return input.grad, other.grad

    assert_same(run, torch)


def test_resolve_ops_return_the_tensor_itself(torch):
    for lib in (ember, torch):
        tensor = lib.ones(2)
        assert lib.resolve_conj(tensor) is tensor and tensor.resolve_neg() is tensor


def test_new_empty_strided(torch):
    for lib in (ember, torch):
        made = lib.ones(2, dtype=lib.float64).new_empty_strided((2, 3), (1, 2))
        assert tuple(made.shape) == (2, 3) and made.stride() == (1, 2) and made.dtype == lib.float64
    made = ember.ones(1).new_empty_strided((2,), (3,), dtype=ember.int32, requires_grad=False)
    assert made.dtype == ember.int32 and made.stride() == (3,)


def test_apply_and_map(torch):
    def run(lib):
        tensor = lib.arange(6.0).reshape(2, 3)
        tensor.apply_(lambda value: value * value + 1)
        tensor.map_(lib.tensor([1.0, 2.0, 3.0]), lambda a, b: a - b)
        return tensor

    assert_same(run, torch)


def test_multinomial_is_a_method():
    ember.manual_seed(3)
    draws = ember.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]).multinomial(2, replacement=True)
    assert draws.tolist() == [[1, 1], [0, 0]]


def test_poisson_and_binomial_draw_within_their_support():
    rates = ember.tensor([0.0, 1.0, 50.0], requires_grad=True)
    draws = ember.poisson(rates)
    assert draws.dtype == ember.float32 and draws[0].item() == 0 and (draws >= 0).all()
    assert draws.grad_fn.name() == "PoissonBackward0"
    draws.sum().backward()
    assert rates.grad.tolist() == [0.0, 0.0, 0.0]
    counts = ember.binomial(ember.tensor([10.0, 5.0, 0.0]), ember.tensor([0.5, 1.0, 0.3]))
    assert counts[1].item() == 5 and counts[2].item() == 0 and 0 <= counts[0].item() <= 10


def test_poisson_and_binomial_follow_the_seed():
    ember.manual_seed(7)
    first = ember.poisson(ember.full((20,), 3.0)), ember.binomial(ember.full((20,), 9.0), ember.full((20,), 0.4))
    ember.manual_seed(7)
    second = ember.poisson(ember.full((20,), 3.0)), ember.binomial(ember.full((20,), 9.0), ember.full((20,), 0.4))
    assert all(a.tolist() == b.tolist() for a, b in zip(first, second))
    sample = ember.poisson(ember.full((4000,), 3.0))
    assert abs(sample.mean().item() - 3.0) < 0.15
