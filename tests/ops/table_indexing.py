"""Op table: indexing (getitem/setitem) and the index ops (gather, scatter, index_*, masks, take, put).

Each case is written once as `f(lib, *tensors)` and run with lib = ember and lib = torch, since the two
APIs are the same; the NumPy reference is written independently.
"""

import warnings

import numpy as np

import ember

from .op_table import OpCase


def case(name, function, numpy_fn, shapes, **options):
    return OpCase(
        "idx_" + name,
        lambda *xs: function(ember, *xs),
        numpy_fn,
        shapes,
        torch_fn=lambda t, *xs: function(t, *xs),
        **options,
    )


def _np_setitem(a, index, value):
    out = a.copy()
    out[index] = value
    return out


def _np_gather(a, dim, index):
    return np.take_along_axis(a, index, axis=dim)


def _np_scatter_add(a, dim, index, src):
    out = a.copy()
    grids = list(np.ogrid[tuple(slice(0, s) for s in index.shape)])
    grids[dim] = index
    np.add.at(out, tuple(grids), src[tuple(slice(0, s) for s in index.shape)])
    return out


def _np_scatter(a, dim, index, src):
    out = a.copy()
    grids = list(np.ogrid[tuple(slice(0, s) for s in index.shape)])
    grids[dim] = index
    out[tuple(grids)] = src if np.ndim(src) == 0 else src[tuple(slice(0, s) for s in index.shape)]
    return out


def _np_index_add(a, dim, index, source, alpha=1.0):
    out = a.copy()
    np.add.at(out, (slice(None),) * dim + (index,), alpha * source)
    return out


GATHER_INDEX = np.array([[0, 2, 1], [3, 3, 0], [1, 0, 2]])
SCATTER_INDEX = np.array([[0, 1, 2], [2, 0, 1]])  # no repeats within a row: scatter is well defined
MASK = np.array([[True, False, True, False], [False, False, True, True], [True, True, False, False]])


def _mask(lib):
    return lib.tensor(MASK)


def _long(lib, values):
    return lib.tensor(values, dtype=lib.int64)


CASES = [
    # ---------------------------------------------------------------- getitem
    case("getitem_neg_int", lambda lib, a: a[-1], lambda a: a[-1], [((3, 4),), ((2, 3, 4),)]),
    case("getitem_slices_step", lambda lib, a: a[1:, ::2], lambda a: a[1:, ::2], [((3, 4),)]),
    case(
        "getitem_none_ellipsis",
        lambda lib, a: a[None, ..., 1:, None],
        lambda a: a[None, ..., 1:, None],
        [((3, 4),), ((2, 3, 4),)],
    ),
    case(
        "getitem_int_tensor",
        lambda lib, a: a[_long(lib, [[0, 2], [2, 2]])],
        lambda a: a[np.array([[0, 2], [2, 2]])],
        [((3, 4),)],
    ),
    case(
        "getitem_two_index_tensors",
        lambda lib, a: a[_long(lib, [0, 2, 0]), _long(lib, [1, 1, 3])],
        lambda a: a[[0, 2, 0], [1, 1, 3]],
        [((3, 4),)],
    ),
    case(
        "getitem_mixed_torch_order", lambda lib, a: a[0, :, [0, 1, 1]], lambda a: a[0][:, [0, 1, 1]], [((3, 4, 5),)]
    ),  # NumPy alone would give (3, 4)
    case(
        "getitem_separated_advanced",
        lambda lib, a: a[[0, 1], :, [1, 2]],
        lambda a: a[[0, 1], :, [1, 2]],
        [((3, 4, 5),)],
    ),
    case("getitem_bool_mask", lambda lib, a: a[_mask(lib)], lambda a: a[MASK], [((3, 4),)]),
    case(
        "getitem_row_mask",
        lambda lib, a: a[lib.tensor([True, False, True])],
        lambda a: a[[True, False, True]],
        [((3, 4),)],
    ),
    case("getitem_slice_then_list", lambda lib, a: a[1:, [3, 0, 3]], lambda a: a[1:, [3, 0, 3]], [((3, 4),)]),
    case("getitem_zero_dim_tensor_index", lambda lib, a: a[lib.tensor(1), 2], lambda a: a[1, 2], [((3, 4),)]),
    case("getitem_python_bool", lambda lib, a: a[True], lambda a: a[None], [((3, 4),)]),
    case("getitem_empty_list", lambda lib, a: a[[]], lambda a: a[np.zeros(0, dtype=np.int64)], [((3, 4),)]),
    # ---------------------------------------------------------------- setitem (on a clone)
    case(
        "setitem_broadcast_row",
        lambda lib, a, b: _set(a, (slice(None), 1), b) * a,
        lambda a, b: _np_setitem(a, (slice(None), 1), b) * a,
        [((3, 4), (3,)), ((3, 4), ())],
    ),
    case("setitem_number", lambda lib, a: _set(a, 0, 2.5) * a, lambda a: _np_setitem(a, 0, 2.5) * a, [((3, 4),)]),
    case(
        "setitem_mask",
        lambda lib, a, b: _set(a, _mask(lib), b) * a,
        lambda a, b: _np_setitem(a, MASK, b) * a,
        [((3, 4), (6,)), ((3, 4), ())],
    ),
    case(
        "setitem_index_tensor",
        lambda lib, a, b: _set(a, _long(lib, [2, 0]), b),
        lambda a, b: _np_setitem(a, [2, 0], b),
        [((3, 4), (2, 4)), ((3, 4), (4,))],
    ),
    case(
        "setitem_leading_ones",
        lambda lib, a, b: _set(a, 1, b),
        lambda a, b: _np_setitem(a, 1, b[0]),
        [((3, 4), (1, 4))],
    ),
    case(
        "setitem_iadd_basic",
        lambda lib, a, b: _iadd(a, (slice(1, None), 2), b),
        lambda a, b: _np_iadd(a, (slice(1, None), 2), b),
        [((3, 4), (2,))],
    ),
    case(
        "setitem_iadd_repeated",
        lambda lib, a, b: _iadd(a, [0, 0, 2], b),
        lambda a, b: _np_iadd_last(a, [0, 0, 2], b),
        [((3, 4), (3, 4))],
        grad=False,
        gradgrad=False,
    ),  # repeated writes: PyTorch's gradient is not the derivative either
    # ---------------------------------------------------------------- index ops
    case(
        "index_select",
        lambda lib, a: a.index_select(1, _long(lib, [3, 0, 3])),
        lambda a: a[:, [3, 0, 3]],
        [((3, 4),), ((2, 4, 2),)],
    ),
    case("index_select_0d", lambda lib, a: lib.index_select(a, 0, _long(lib, [0])), lambda a: a, [((),)]),
    case(
        "masked_select_broadcast",
        lambda lib, a: a.masked_select(lib.tensor([True, False, True, True])),
        lambda a: a[:, [0, 2, 3]].reshape(-1),
        [((3, 4),)],
    ),
    case(
        "masked_fill_number",
        lambda lib, a: a.masked_fill(_mask(lib), -1.5),
        lambda a: np.where(MASK, -1.5, a),
        [((3, 4),)],
    ),
    case(
        "masked_fill_tensor_value",
        lambda lib, a, v: a.masked_fill(_mask(lib), v),
        lambda a, v: np.where(MASK, v, a),
        [((3, 4), ())],
    ),
    case(
        "masked_fill_broadcast_mask",
        lambda lib, a: a.masked_fill(lib.tensor([True, False, False, True]), 0.0),
        lambda a: np.where([True, False, False, True], 0.0, a),
        [((3, 4),)],
    ),
    case(
        "gather",
        lambda lib, a: a.gather(1, _long(lib, GATHER_INDEX)),
        lambda a: _np_gather(a, 1, GATHER_INDEX),
        [((3, 4),)],
    ),
    case(
        "gather_dim0_smaller_index",
        lambda lib, a: lib.gather(a, 0, _long(lib, [[2, 0], [1, 1]])),
        lambda a: _np_gather(a[:, :2], 0, np.array([[2, 0], [1, 1]])),
        [((3, 4),)],
    ),
    case(
        "take_along_dim",
        lambda lib, a: lib.take_along_dim(a, _long(lib, [[1], [0], [3]]), 1),
        lambda a: np.take_along_axis(a, np.array([[1], [0], [3]]), 1),
        [((3, 4),)],
    ),
    case(
        "take_along_dim_flat",
        lambda lib, a: lib.take_along_dim(a, _long(lib, [5, 0, 5])),
        lambda a: a.reshape(-1)[[5, 0, 5]],
        [((3, 4),)],
    ),
    case(
        "scatter_src",
        lambda lib, a, s: a.scatter(1, _long(lib, SCATTER_INDEX), s),
        lambda a, s: _np_scatter(a, 1, SCATTER_INDEX, s),
        [((2, 4), (2, 3))],
    ),
    # A source larger than the index: PyTorch's own backward rejects it, so no torch comparison.
    OpCase(
        "idx_scatter_src_larger",
        lambda a, s: a.scatter(1, ember.tensor(SCATTER_INDEX), s),
        lambda a, s: _np_scatter(a, 1, SCATTER_INDEX, s),
        [((2, 4), (3, 4))],
    ),
    OpCase(
        "idx_scatter_add_src_larger",
        lambda a, s: a.scatter_add(1, ember.tensor(SCATTER_INDEX), s),
        lambda a, s: _np_scatter_add(a, 1, SCATTER_INDEX, s),
        [((2, 4), (3, 4))],
    ),
    case(
        "scatter_value",
        lambda lib, a: a.scatter(1, _long(lib, SCATTER_INDEX), 7.0),
        lambda a: _np_scatter(a, 1, SCATTER_INDEX, 7.0),
        [((2, 4),)],
    ),
    case(
        "scatter_add_repeats",
        lambda lib, a, s: a.scatter_add(0, _long(lib, [[0, 1, 0], [0, 0, 2]]), s),
        lambda a, s: _np_scatter_add(a, 0, np.array([[0, 1, 0], [0, 0, 2]]), s),
        [((3, 3), (2, 3))],
    ),
    case(
        "scatter_reduce_sum",
        lambda lib, a, s: a.scatter_reduce(0, _long(lib, [[0, 1, 0], [0, 0, 2]]), s, "sum"),
        lambda a, s: _np_scatter_add(a, 0, np.array([[0, 1, 0], [0, 0, 2]]), s),
        [((3, 3), (2, 3))],
    ),
    case(
        "scatter_reduce_mean_exclude_self",
        lambda lib, a, s: a.scatter_reduce(0, _long(lib, [[0, 1, 0], [0, 0, 2]]), s, "mean", include_self=False),
        None,
        [((3, 3), (2, 3))],
    ),
    case(
        "scatter_reduce_amax",
        lambda lib, a, s: a.scatter_reduce(1, _long(lib, [[0, 0, 1], [2, 2, 2]]), s, "amax"),
        None,
        [((2, 3), (2, 3))],
    ),
    case(
        "scatter_reduce_amin_exclude_self",
        lambda lib, a, s: a.scatter_reduce(1, _long(lib, [[0, 0, 1], [2, 2, 2]]), s, "amin", include_self=False),
        None,
        [((2, 3), (2, 3))],
    ),
    case(
        "scatter_reduce_prod",
        lambda lib, a, s: a.scatter_reduce(1, _long(lib, [[0, 0, 1], [2, 2, 2]]), s, "prod"),
        None,
        [((2, 3), (2, 3))],
        domain=(0.5, 2.0),
    ),
    case(
        "index_add",
        lambda lib, a, s: a.index_add(0, _long(lib, [2, 0, 2]), s, alpha=2.0),
        lambda a, s: _np_index_add(a, 0, [2, 0, 2], s, 2.0),
        [((3, 4), (3, 4))],
    ),
    case(
        "index_add_dim1",
        lambda lib, a, s: lib.index_add(a, 1, _long(lib, [1, 1]), s),
        lambda a, s: _np_index_add(a, 1, [1, 1], s),
        [((3, 4), (3, 2))],
    ),
    case(
        "index_copy",
        lambda lib, a, s: a.index_copy(1, _long(lib, [3, 0]), s),
        lambda a, s: _np_setitem(a, (slice(None), [3, 0]), s),
        [((3, 4), (3, 2))],
    ),
    case(
        "index_fill_number",
        lambda lib, a: a.index_fill(1, _long(lib, [1, 3]), -2.0),
        lambda a: _np_setitem(a, (slice(None), [1, 3]), -2.0),
        [((3, 4),)],
    ),
    case(
        "index_fill_tensor",
        lambda lib, a, v: a.index_fill(0, _long(lib, [1]), v),
        lambda a, v: _np_setitem(a, 1, v),
        [((3, 4), ())],
    ),
    # index_reduce: zeros (prod) and two-way ties (amax/amin) planted by `_index_reduce_inputs`. Ties
    # pass gradcheck (a central difference at a two-way tie is the even split) but not gradgradcheck
    # (the split jumps when a tied value moves).
    case(
        "index_reduce_prod_zeros",
        lambda lib, a, s: _index_reduce(lib, a, 0, [0, 2, 0, 0], s, "prod"),
        lambda a, s: _np_index_reduce(a, 0, [0, 2, 0, 0], s, "prod"),
        [((3, 4), (4, 4))],
        make_inputs=lambda shapes, rng: _index_reduce_inputs(shapes, rng, 0, [0, 2, 0, 0], "zeros"),
    ),
    case(
        "index_reduce_prod_exclude_self",
        lambda lib, a, s: _index_reduce(lib, a, 1, [3, 1, 3], s, "prod", include_self=False),
        lambda a, s: _np_index_reduce(a, 1, [3, 1, 3], s, "prod", include_self=False),
        [((3, 4), (3, 3))],
        make_inputs=lambda shapes, rng: _index_reduce_inputs(shapes, rng, 1, [3, 1, 3], "zeros"),
    ),
    case(
        "index_reduce_prod_0d",
        lambda lib, a, s: _index_reduce(lib, a, -1, [0], s, "prod"),
        lambda a, s: a * s,
        [((), ())],
    ),
    case(
        "index_reduce_mean",
        lambda lib, a, s: _index_reduce(lib, a, -1, [1, 1, 0], s, "mean"),
        lambda a, s: _np_index_reduce(a, -1, [1, 1, 0], s, "mean"),
        [((2, 3), (2, 3)), ((2, 2, 3), (2, 2, 3))],
    ),
    case(
        "index_reduce_mean_exclude_self",
        lambda lib, a, s: _index_reduce(lib, a, 0, [2, 2, 0], s, "mean", include_self=False),
        lambda a, s: _np_index_reduce(a, 0, [2, 2, 0], s, "mean", include_self=False),
        [((4, 2), (3, 2))],
    ),
    case(
        "index_reduce_amax",
        lambda lib, a, s: _index_reduce(lib, a, 0, [1, 0, 1], s, "amax"),
        lambda a, s: _np_index_reduce(a, 0, [1, 0, 1], s, "amax"),
        [((3, 4), (3, 4))],
    ),
    case(
        "index_reduce_amax_ties_with_self",
        lambda lib, a, s: _index_reduce(lib, a, 0, [1, 0, 1], s, "amax"),
        lambda a, s: _np_index_reduce(a, 0, [1, 0, 1], s, "amax"),
        [((3, 4), (3, 4))],
        make_inputs=lambda shapes, rng: _index_reduce_inputs(shapes, rng, 0, [1, 0, 1], "ties_with_self", 1),
        gradgrad=False,
    ),
    case(
        "index_reduce_amax_exclude_self_ties",
        lambda lib, a, s: _index_reduce(lib, a, 1, [2, 0, 2], s, "amax", include_self=False),
        lambda a, s: _np_index_reduce(a, 1, [2, 0, 2], s, "amax", include_self=False),
        [((2, 3), (2, 3))],
        make_inputs=lambda shapes, rng: _index_reduce_inputs(shapes, rng, 1, [2, 0, 2], "ties_among_source", 1),
        gradgrad=False,
    ),
    case(
        "index_reduce_amin",
        lambda lib, a, s: _index_reduce(lib, a, 1, [0, 0, 2, 1], s, "amin"),
        lambda a, s: _np_index_reduce(a, 1, [0, 0, 2, 1], s, "amin"),
        [((2, 3), (2, 4))],
    ),
    case(
        "index_reduce_amin_exclude_self_ties",
        lambda lib, a, s: _index_reduce(lib, a, 0, [0, 0], s, "amin", include_self=False),
        lambda a, s: _np_index_reduce(a, 0, [0, 0], s, "amin", include_self=False),
        [((2, 3), (2, 3))],
        make_inputs=lambda shapes, rng: _index_reduce_inputs(shapes, rng, 0, [0, 0], "ties_among_source", -1),
        gradgrad=False,
    ),
    case(
        "take",
        lambda lib, a: a.take(_long(lib, [[0, 11], [-1, 5]])),
        lambda a: a.reshape(-1)[np.array([[0, 11], [-1, 5]])],
        [((3, 4),)],
    ),
    case(
        "put",
        lambda lib, a, s: a.put(_long(lib, [0, 7, 3]), s),
        lambda a, s: _np_put(a, [0, 7, 3], s),
        [((3, 4), (3,))],
    ),
    case(
        "put_accumulate",
        lambda lib, a, s: a.put(_long(lib, [1, 1, 3]), s, accumulate=True),
        lambda a, s: _np_put_add(a, [1, 1, 3], s),
        [((3, 4), (3,))],
    ),
    case(
        "index_put_accumulate",
        lambda lib, a, v: lib.index_put(a, (_long(lib, [0, 0]),), v, accumulate=True),
        lambda a, v: _np_iadd_at(a, [0, 0], v),
        [((3, 4), (4,))],
    ),
    case(
        "masked_scatter",
        lambda lib, a, s: a.masked_scatter(_mask(lib), s),
        lambda a, s: _np_setitem(a, MASK, s.reshape(-1)[:6]),
        [((3, 4), (2, 4))],
    ),
    case("where_scalar_other", lambda lib, a: lib.where(a > 0, a, 0.5), lambda a: np.where(a > 0, a, 0.5), [((3, 4),)]),
]


def _set(a, index, value):
    out = a.clone()
    out[index] = value
    return out


def _iadd(a, index, value):
    out = a * 1.0
    out[index] += value
    return out


def _np_iadd(a, index, value):
    out = a.copy()
    out[index] += value
    return out


def _np_iadd_last(a, index, value):
    """`x[idx] += v` with repeated indices: the last write wins (Python's get, add, set)."""
    out = a.copy()
    selected = out[index] + value
    out[index] = selected
    return out


def _np_iadd_at(a, index, value):
    out = a.copy()
    np.add.at(out, index, value)
    return out


def _np_put(a, index, source):
    out = a.copy()
    out.reshape(-1)[index] = source
    return out


def _np_put_add(a, index, source):
    out = a.copy()
    np.add.at(out.reshape(-1), index, source)
    return out


def _index_reduce(lib, a, dim, index, s, reduce, **options):
    """`a.index_reduce(...)`, without torch's once-per-process "index_reduce() is in beta" warning."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", r"index_reduce\(\) is in beta", UserWarning)
        return a.index_reduce(dim, _long(lib, index), s, reduce, **options)


def _np_index_reduce(a, dim, index, source, reduce, include_self=True):
    """index_reduce as its documentation states it: each position combines its own slice (unless
    include_self=False) with every source slice sent to it; positions sent nothing keep their slice."""
    out = np.moveaxis(a.copy(), dim, 0)
    source = np.moveaxis(source, dim, 0)
    reducer = {"prod": np.prod, "mean": np.mean, "amax": np.max, "amin": np.min}[reduce]
    for position in sorted(set(index)):
        slices = [source[i] for i, target in enumerate(index) if target == position]
        out[position] = reducer(np.stack(([out[position]] if include_self else []) + slices), axis=0)
    return np.moveaxis(out, 0, dim)


def _index_reduce_inputs(shapes, rng, dim, index, plant, sign=1):
    """Random inputs with what the backward must get right planted at the first source slice's position:
    "zeros": a zero of the input there and a lone zero among the source values; "ties_with_self": that
    source slice equal to the input's, both beyond the other values (the result, a two-way tie);
    "ties_among_source": two source slices sent there equal, beyond the other values."""
    a, s = (rng.uniform(-2.0, 2.0, size=shape) for shape in shapes)
    a_slices, s_slices = np.moveaxis(a, dim, 0), np.moveaxis(s, dim, 0)
    position = index[0]
    if plant == "zeros":
        a_slices[position].flat[0] = 0.0
        s_slices[0].flat[1] = 0.0
    elif plant == "ties_with_self":
        a_slices[position] = sign * rng.uniform(3.0, 4.0, size=a_slices[position].shape)
        s_slices[0] = a_slices[position]
    else:
        partner = index.index(position, 1)
        s_slices[0] = sign * rng.uniform(3.0, 4.0, size=s_slices[0].shape)
        s_slices[partner] = s_slices[0]
    return [a, s]
