"""Op table: the torch functions and methods added for real programs (issue 11): rot90, the
scatters and as_strided, narrow_copy, unsafe_split, the in-place shape methods, ldexp / frexp /
nextafter, statistics (cov, corrcoef, quantile), discrete calculus, inner / vdot, renorm and the
shape helpers built from other ops.

Cases are written once as `f(lib, *tensors)` and run with lib = ember and lib = torch.
"""

import numpy as np
from numpy.lib.stride_tricks import as_strided as np_as_strided

import ember

from .op_table import OpCase


def case(name, function, numpy_fn, shapes, torch=True, **options):
    """`torch=False` where torch 2.13's own backward is wrong (its gradcheck fails): values are
    compared with torch in tests/test_api_coverage_a.py instead."""
    return OpCase(
        "api_" + name,
        lambda *xs: function(ember, *xs),
        numpy_fn,
        shapes,
        torch_fn=(lambda t, *xs: function(t, *xs)) if torch else None,
        **options,
    )


def _scattered(a, region, b):
    out = a.copy()
    region(out)[...] = b
    return out


def _strided(a, size, stride, offset):
    flat = np.ascontiguousarray(a).reshape(-1)
    return np_as_strided(flat[offset:], size, [s * flat.itemsize for s in stride])


def _np_quantile(a, q, axis=None, keepdims=False, method="linear"):
    return np.quantile(a, q, axis=axis, keepdims=keepdims, method=method)


def _np_trapezoid(y, x=None, dx=1.0, axis=-1):
    return np.trapezoid(y, x, dx=dx, axis=axis) if hasattr(np, "trapezoid") else np.trapz(y, x, dx=dx, axis=axis)


def _np_gradient(*args, **kwargs):
    """np.gradient always as a tuple (it returns a bare array for one axis)."""
    result = np.gradient(*args, **kwargs)
    return tuple(result) if isinstance(result, (list, tuple)) else (result,)


def _np_cumulative_trapezoid(y, dx=1.0, axis=-1):
    pairs = (np.take(y, range(1, y.shape[axis]), axis) + np.take(y, range(y.shape[axis] - 1), axis)) / 2
    return np.cumsum(pairs * dx, axis=axis)


def _np_renorm(a, p, dim, maxnorm):
    others = tuple(d for d in range(a.ndim) if d != dim)
    norms = np.sum(np.abs(a) ** p, axis=others, keepdims=True) ** (1 / p)
    return a * np.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)


def _np_renorm_inf(a, dim, maxnorm):
    others = tuple(d for d in range(a.ndim) if d != dim)
    norms = np.max(np.abs(a), axis=others, keepdims=True)
    return a * np.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0)


def _weights(shapes, rng):
    (variables, observations), _ = shapes
    return [
        rng.uniform(-2, 2, (variables, observations)),
        rng.integers(1, 4, observations),
        rng.uniform(0.1, 1, observations),
    ]


def _np_weighted_cov(x, fweights, aweights):
    return np.cov(x, fweights=fweights, aweights=aweights)


CASES = [
    # ------------------------------------------------------------------ shape helpers
    case("rot90", lambda lib, a: lib.rot90(a, 1, [0, 1]), lambda a: np.rot90(a, 1, (0, 1)), [((3, 4),)]),
    case("rot90_k3_dims", lambda lib, a: lib.rot90(a, -1, [2, 0]), lambda a: np.rot90(a, -1, (2, 0)), [((2, 3, 4),)]),
    case("rot90_k2", lambda lib, a: a.rot90(2), lambda a: np.rot90(a, 2), [((3, 4),)]),
    case(
        "narrow_copy", lambda lib, a: lib.narrow_copy(a, 1, 1, 2), lambda a: a[:, 1:3].copy(), [((3, 4),), ((2, 5, 2),)]
    ),
    case(
        "unsafe_split", lambda lib, a: lib.unsafe_split(a, 2, 1), lambda a: (a[:, :2], a[:, 2:4], a[:, 4:]), [((3, 5),)]
    ),
    case("unsafe_chunk", lambda lib, a: a.unsafe_chunk(2, 0), lambda a: (a[:2], a[2:]), [((4, 3),)]),
    case(
        "unsafe_split_with_sizes",
        lambda lib, a: a.unsafe_split_with_sizes((1, 3), 1),
        lambda a: (a[:, :1], a[:, 1:]),
        [((2, 4),)],
    ),
    case("transpose_", lambda lib, a: (a * 1).transpose_(0, 2), lambda a: a.swapaxes(0, 2), [((2, 3, 4),)]),
    case("swapaxes_", lambda lib, a: (a * 1).swapaxes_(0, 1), lambda a: a.swapaxes(0, 1), [((2, 3),)]),
    case("swapdims_", lambda lib, a: (a * 1).swapdims_(1, 0), lambda a: a.swapaxes(0, 1), [((2, 3),)]),
    case("t_", lambda lib, a: (a * 1).t_(), lambda a: a.T, [((2, 3),), ((3,),)]),
    case("squeeze_", lambda lib, a: (a * 1).squeeze_(), lambda a: a.squeeze(), [((2, 1, 3),)]),
    case("squeeze_dim", lambda lib, a: (a * 1).squeeze_(1), lambda a: a.squeeze(1), [((2, 1, 3),)]),
    case("squeeze_dims", lambda lib, a: (a * 1).squeeze_((0, 1)), lambda a: a.squeeze(1), [((2, 1, 3),)]),
    case("unsqueeze_", lambda lib, a: (a * 1).unsqueeze_(-1), lambda a: a[..., None], [((2, 3),)]),
    case(
        "broadcast_tensors",
        lambda lib, a, b: lib.broadcast_tensors(a, b),
        lambda a, b: np.broadcast_arrays(a, b),
        [((3, 1), (4,))],
    ),
    case("atleast_1d", lambda lib, a: lib.atleast_1d(a), np.atleast_1d, [((),), ((2, 3),)]),
    case("atleast_2d", lambda lib, a: lib.atleast_2d(a), np.atleast_2d, [((),), ((3,),)]),
    case("atleast_3d", lambda lib, a, b: lib.atleast_3d(a, b), lambda a, b: np.atleast_3d(a, b), [((3,), (2, 3))]),
    case("ravel", lambda lib, a: a.transpose(0, 1).ravel(), lambda a: a.T.ravel(), [((3, 4),)]),
    case("row_stack", lambda lib, a, b: lib.row_stack([a, b]), lambda a, b: np.vstack([a, b]), [((3,), (3,))]),
    case(
        "hsplit",
        lambda lib, a: lib.hsplit(a, [1, 3]),
        lambda a: np.hsplit(a, [1, 3]),
        [((2, 4),), ((5,),), ((2, 4, 2),)],
    ),
    case("vsplit", lambda lib, a: a.vsplit(2), lambda a: np.vsplit(a, 2), [((4, 3),)]),
    case("dsplit", lambda lib, a: lib.dsplit(a, 2), lambda a: np.dsplit(a, 2), [((2, 3, 4),)]),
    # ------------------------------------------------------------------ scatters and as_strided
    case(
        "select_scatter",
        lambda lib, a, b: lib.select_scatter(a, b, 1, -1),
        lambda a, b: _scattered(a, lambda o: o[:, -1], b),
        [((3, 4), (3,))],
    ),
    case(
        "slice_scatter",
        lambda lib, a, b: lib.slice_scatter(a, b, 1, 0, 4, 2),
        lambda a, b: _scattered(a, lambda o: o[:, 0:4:2], b),
        [((3, 5), (3, 2))],
    ),
    case(
        "slice_scatter_defaults",
        lambda lib, a, b: a.slice_scatter(b, start=1),
        lambda a, b: _scattered(a, lambda o: o[1:], b),
        [((3, 2), (2, 2))],
    ),
    case(
        "diagonal_scatter",
        lambda lib, a, b: lib.diagonal_scatter(a, b, 1),
        lambda a, b: _scattered(a, lambda o: np.einsum("ii->i", o[:, 1:]), b),
        [((3, 4), (3,))],
    ),
    case(
        "diagonal_scatter_dims",
        lambda lib, a, b: lib.diagonal_scatter(a, b, -1, 2, 0),
        lambda a, b: _scattered(a, lambda o: np.einsum("iji->ji", o[:2, :, 1:]), b),
        [((3, 2, 3), (2, 2))],
    ),
    case(
        "as_strided",
        lambda lib, a: lib.as_strided(a, (2, 2), (1, 2), 1),
        lambda a: _strided(a, (2, 2), (1, 2), 1),
        [((3, 4),)],
    ),
    case(
        "as_strided_overlapping",
        lambda lib, a: a.as_strided((3, 3), (1, 1)),
        lambda a: _strided(a, (3, 3), (1, 1), 0),
        [((6,),)],
    ),
    case(
        "as_strided_of_a_view",
        lambda lib, a: lib.as_strided(a[1], (2,), (2,)),
        lambda a: _strided(a, (2,), (2,), 4),
        [((3, 4),)],
    ),
    case(
        "as_strided_",
        lambda lib, a: lib.as_strided_(a * 1, (2, 2), (1, 2), 1),
        lambda a: _strided(a, (2, 2), (1, 2), 1),
        [((3, 4),)],
    ),
    case(
        "as_strided_scatter",
        lambda lib, a, b: lib.as_strided_scatter(a, b, (2, 2), (1, 2), 1),
        lambda a, b: _scattered(a, lambda o: _strided(o, (2, 2), (1, 2), 1), b),
        [((3, 4), (2, 2))],
        torch=False,  # torch's AsStridedScatterBackward0 routes the gradient to the overwritten elements
    ),
    # ------------------------------------------------------------------ number parts
    case("ldexp", lambda lib, a, b: lib.ldexp(a, b), lambda a, b: a * 2.0**b, [((3, 4), (3, 4)), ((3, 1), (4,))]),
    case(  # exponents >= 0: torch's gradient takes 2 ** other in integers, 0 for negative ones
        "ldexp_integer_exponent",
        lambda lib, a, b: a.ldexp((b * 3).round().abs().long()),
        lambda a, b: a * 2.0 ** np.abs(np.round(b * 3)),
        [((5,), (5,))],
        differentiable_inputs=[0],
    ),
    case("ldexp_", lambda lib, a, b: (a * 1).ldexp_(b), lambda a, b: a * 2.0**b, [((4,), (4,))]),
    case("frexp", lambda lib, a: lib.frexp(a * 10), lambda a: np.frexp(a * 10), [((3, 4),)], gradgrad=True),
    case("nextafter", lambda lib, a, b: lib.nextafter(a, b), np.nextafter, [((3, 4), (3, 4))]),
    # ------------------------------------------------------------------ statistics
    case("cov", lambda lib, a: lib.cov(a), np.cov, [((3, 5),), ((6,),)]),
    case("cov_biased", lambda lib, a: a.cov(correction=0), lambda a: np.cov(a, bias=True), [((2, 4),)]),
    case(
        "cov_weights",
        lambda lib, a, f, w: lib.cov(a, fweights=f, aweights=w),
        _np_weighted_cov,
        [((3, 5), (5,))],
        make_inputs=_weights,
        differentiable_inputs=[0],
    ),
    case("corrcoef", lambda lib, a: lib.corrcoef(a), np.corrcoef, [((3, 5),)]),
    case("quantile", lambda lib, a: lib.quantile(a, 0.3), lambda a: _np_quantile(a, 0.3), [((3, 5),)]),
    case(
        "quantile_dim_levels",
        lambda lib, a: a.quantile(lib.tensor([0.0, 0.25, 0.9, 1.0], dtype=a.dtype), dim=1, keepdim=True),
        lambda a: _np_quantile(a, [0.0, 0.25, 0.9, 1.0], axis=1, keepdims=True),
        [((3, 5),)],
    ),
]
CASES += [
    case(
        f"quantile_{method}",
        lambda lib, a, method=method: lib.quantile(a, 0.4, dim=0, interpolation=method),
        lambda a, method=method: _np_quantile(a, 0.4, axis=0, method=method),
        [((6, 3),)],
    )
    for method in ("lower", "higher", "midpoint", "nearest")
]
CASES += [
    case(
        "nanquantile",
        lambda lib, a: lib.nanquantile(lib.where(a > 1.5, float("nan"), a), 0.6, dim=1),
        lambda a: np.nanquantile(np.where(a > 1.5, np.nan, a), 0.6, axis=1),
        [((4, 6),)],
    ),
    # ------------------------------------------------------------------ calculus
    case("diff", lambda lib, a: lib.diff(a), lambda a: np.diff(a), [((3, 5),)]),
    case(
        "diff_n_dim_edges",
        lambda lib, a, b, c: lib.diff(a, n=2, dim=0, prepend=b, append=c),
        lambda a, b, c: np.diff(a, n=2, axis=0, prepend=b, append=c),
        [((3, 4), (2, 4), (1, 4))],
    ),
    case("gradient", lambda lib, a: lib.gradient(a), lambda a: _np_gradient(a), [((3, 5),), ((4,),)]),
    case(
        "gradient_spacing_dims_edge2",
        lambda lib, a: lib.gradient(a, spacing=[2.0, 0.5], dim=[1, 0], edge_order=2),
        lambda a: _np_gradient(a, 2.0, 0.5, axis=(1, 0), edge_order=2),
        [((3, 4),)],
    ),
    case(
        "gradient_coordinates",
        lambda lib, a, x: lib.gradient(a, spacing=(x.cumsum(0),), dim=1, edge_order=1),
        lambda a, x: (np.gradient(a, np.cumsum(x), axis=1),),
        [((2, 5), (5,))],
    ),
    case(
        "gradient_coordinates_edge2",
        lambda lib, a, x: lib.gradient(a, spacing=(x.cumsum(0),), edge_order=2),
        lambda a, x: (np.gradient(a, np.cumsum(x), edge_order=2),),
        [((6,), (6,))],
    ),
    case("trapezoid", lambda lib, a: lib.trapezoid(a), lambda a: _np_trapezoid(a), [((3, 5),)]),
    case(
        "trapezoid_x",
        lambda lib, a, x: lib.trapezoid(a, x, dim=0),
        lambda a, x: _np_trapezoid(a, x, axis=0),
        [((4, 3), (4,))],
    ),
    case("trapezoid_dx", lambda lib, a: lib.trapezoid(a, dx=0.5), lambda a: _np_trapezoid(a, dx=0.5), [((3, 5),)]),
    case("trapz", lambda lib, a, x: lib.trapz(a, x), lambda a, x: _np_trapezoid(a, x), [((2, 4), (2, 4))]),
    case(
        "cumulative_trapezoid",
        lambda lib, a: lib.cumulative_trapezoid(a, dx=2.0, dim=0),
        lambda a: _np_cumulative_trapezoid(a, 2.0, 0),
        [((4, 3),)],
    ),
    # ------------------------------------------------------------------ products and norms
    case("inner", lambda lib, a, b: lib.inner(a, b), np.inner, [((2, 3), (4, 3)), ((3,), (3,)), ((), (2, 3))]),
    case("vdot", lambda lib, a, b: lib.vdot(a, b), np.vdot, [((4,), (4,))]),
    case("renorm", lambda lib, a: lib.renorm(a, 2, 0, 2.0), lambda a: _np_renorm(a, 2, 0, 2.0), [((3, 4),)]),
    case("renorm_p1_dim1", lambda lib, a: a.renorm(1, 1, 2.5), lambda a: _np_renorm(a, 1, 1, 2.5), [((3, 4, 2),)]),
    case("renorm_", lambda lib, a: (a * 1).renorm_(3, 0, 1.5), lambda a: _np_renorm(a, 3, 0, 1.5), [((4, 3),)]),
    case(
        "renorm_inf",
        lambda lib, a: lib.renorm(a, float("inf"), 1, 1.2),
        lambda a: _np_renorm_inf(a, 1, 1.2),
        [((3, 4),)],
    ),
    case(
        "vander",
        lambda lib, a: lib.vander(a, N=4),
        lambda a: np.vander(a, 4),
        [((3,),)],
        torch=False,  # torch's vander backward fails ("modified by an inplace operation")
    ),
    case(
        "vander_increasing",
        lambda lib, a: lib.vander(a, increasing=True),
        lambda a: np.vander(a, increasing=True),
        [((4,),)],
        torch=False,
    ),
    case(
        "combinations",
        lambda lib, a: lib.combinations(a, 2),
        lambda a: np.array([[a[i], a[j]] for i in range(len(a)) for j in range(i + 1, len(a))]),
        [((4,),)],
    ),
    case(
        "combinations_with_replacement",
        lambda lib, a: lib.combinations(a, 3, with_replacement=True),
        lambda a: np.array(
            [[a[i], a[j], a[k]] for i in range(len(a)) for j in range(i, len(a)) for k in range(j, len(a))]
        ),
        [((3,),)],
    ),
]
