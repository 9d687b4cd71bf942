"""Op table: reductions, scans and sorting (ember/ops/reduction.py). Names start with `reduction_`.

Random inputs have no ties, so selections (max, median, sort, ...) are differentiable there; ties,
NaN and zeros are covered by the explicit tests in test_reduction.py.
"""

import numpy as np

import ember

from .op_table import OpCase

MATRIX = [((3, 4),)]
SHAPES = [((3, 4),), ((2, 3, 4),)]
WITH_SCALAR = [((3, 4),), ((),)]


def _with_zeros(count):
    """Inputs with `count` zeros in the first row (prod and cumprod take another path with zeros)."""

    def make(shapes, rng):
        arrays = [rng.uniform(0.5, 2.0, size=shape) * rng.choice([-1, 1], size=shape) for shape in shapes]
        arrays[0][0, :count] = 0.0
        return arrays

    return make


def _values_indices(values_fn, indices_fn):
    return lambda a: (values_fn(a), indices_fn(a))


def _lower_median(a, axis):
    ordered = np.sort(a, axis=axis)
    return np.take(ordered, (a.shape[axis] - 1) // 2, axis=axis)


def _vector_norm(a, p, axis=None, keepdims=False):
    return np.sum(np.abs(a) ** p, axis=axis, keepdims=keepdims) ** (1.0 / p)


def _case(name, ember_fn, numpy_fn, shapes, torch_fn, **options):
    return OpCase("reduction_" + name, ember_fn, numpy_fn, shapes, torch_fn=torch_fn, **options)


CASES = [
    _case("sum_negative_dim", lambda a: a.sum(-1), lambda a: a.sum(-1), SHAPES, lambda t, a: a.sum(-1)),
    _case("sum_empty_dims_is_all", lambda a: a.sum(()), np.sum, MATRIX, lambda t, a: a.sum(())),
    _case("nansum", lambda a: ember.nansum(a, 1), lambda a: np.nansum(a, 1), SHAPES, lambda t, a: t.nansum(a, 1)),
    _case(
        "nanmean",
        lambda a: ember.nanmean(a, (0, 1), keepdim=True),
        lambda a: np.nanmean(a, (0, 1), keepdims=True),
        SHAPES,
        lambda t, a: t.nanmean(a, (0, 1), keepdim=True),
    ),
    _case("prod_all", lambda a: a.prod(), np.prod, WITH_SCALAR, lambda t, a: a.prod(), domain=(0.5, 1.5)),
    _case("prod_dim", lambda a: a.prod(1), lambda a: a.prod(1), SHAPES, lambda t, a: a.prod(1)),
    _case(
        "prod_dim_keepdim",
        lambda a: a.prod(0, keepdim=True),
        lambda a: a.prod(0, keepdims=True),
        SHAPES,
        lambda t, a: a.prod(0, keepdim=True),
    ),
    _case(
        "prod_one_zero",
        lambda a: a.prod(1),
        lambda a: a.prod(1),
        MATRIX,
        lambda t, a: a.prod(1),
        make_inputs=_with_zeros(1),
    ),
    _case(
        "prod_two_zeros",
        lambda a: a.prod(1),
        lambda a: a.prod(1),
        MATRIX,
        lambda t, a: a.prod(1),
        make_inputs=_with_zeros(2),
    ),
    _case("prod_all_one_zero", lambda a: a.prod(), np.prod, MATRIX, lambda t, a: a.prod(), make_inputs=_with_zeros(1)),
    _case("prod_all_two_zeros", lambda a: a.prod(), np.prod, MATRIX, lambda t, a: a.prod(), make_inputs=_with_zeros(2)),
    _case("var", lambda a: a.var(), lambda a: a.var(ddof=1), SHAPES, lambda t, a: a.var()),
    _case(
        "var_dim_biased",
        lambda a: a.var(1, unbiased=False, keepdim=True),
        lambda a: a.var(1, ddof=0, keepdims=True),
        SHAPES,
        lambda t, a: a.var(1, unbiased=False, keepdim=True),
    ),
    _case(
        "std_dims_correction",
        lambda a: a.std((0, -1), correction=2),
        lambda a: a.std((0, -1), ddof=2),
        SHAPES,
        lambda t, a: a.std((0, -1), correction=2),
    ),
    _case(
        "std_mean",
        lambda a: ember.std_mean(a, 1),
        lambda a: (a.std(1, ddof=1), a.mean(1)),
        SHAPES,
        lambda t, a: t.std_mean(a, 1),
    ),
    _case(
        "var_mean",
        lambda a: ember.var_mean(a, correction=0),
        lambda a: (a.var(), a.mean()),
        SHAPES,
        lambda t, a: t.var_mean(a, correction=0),
    ),
    _case("max_all", lambda a: a.max(), np.max, WITH_SCALAR, lambda t, a: a.max()),
    _case("min_all", lambda a: a.min(), np.min, WITH_SCALAR, lambda t, a: a.min()),
    _case(
        "max_dim",
        lambda a: a.max(1),
        _values_indices(lambda a: a.max(1), lambda a: a.argmax(1)),
        SHAPES,
        lambda t, a: a.max(1),
    ),
    _case(
        "min_dim_keepdim",
        lambda a: ember.min(a, -1, keepdim=True),
        _values_indices(lambda a: a.min(-1, keepdims=True), lambda a: a.argmin(-1, keepdims=True)),
        SHAPES,
        lambda t, a: t.min(a, -1, keepdim=True),
    ),
    _case(
        "max_dim_scalar",
        lambda a: a.max(0),
        _values_indices(lambda a: a, lambda a: np.array(0)),
        [((),)],
        lambda t, a: a.max(0),
    ),
    _case("amax", lambda a: a.amax((0, 2)), lambda a: a.max((0, 2)), [((2, 3, 4),)], lambda t, a: a.amax((0, 2))),
    _case(
        "amin_keepdim",
        lambda a: a.amin(1, keepdim=True),
        lambda a: a.min(1, keepdims=True),
        SHAPES,
        lambda t, a: a.amin(1, keepdim=True),
    ),
    _case(
        "aminmax",
        lambda a: ember.aminmax(a, dim=0),
        lambda a: (a.min(0), a.max(0)),
        SHAPES,
        lambda t, a: t.aminmax(a, dim=0),
    ),
    _case(
        "median_all", lambda a: a.median(), lambda a: _lower_median(a.reshape(-1), 0), SHAPES, lambda t, a: a.median()
    ),
    _case(
        "median_dim",
        lambda a: a.median(1).values,
        lambda a: _lower_median(a, 1),
        SHAPES,
        lambda t, a: a.median(1).values,
    ),
    _case("nanmedian_dim", lambda a: a.nanmedian(0), None, SHAPES, lambda t, a: a.nanmedian(0)),
    _case("mode", lambda a: a.mode(1).values, lambda a: a.min(1), SHAPES, lambda t, a: a.mode(1).values),
    _case("kthvalue", lambda a: a.kthvalue(2, 1), None, SHAPES, lambda t, a: a.kthvalue(2, 1)),
    _case(
        "topk",
        lambda a: a.topk(2),
        lambda a: (-np.sort(-a, -1)[..., :2], np.argsort(-a, -1)[..., :2]),
        SHAPES,
        lambda t, a: a.topk(2),
    ),
    _case(
        "topk_smallest_dim0",
        lambda a: a.topk(2, 0, largest=False),
        None,
        SHAPES,
        lambda t, a: a.topk(2, 0, largest=False),
    ),
    _case("sort", lambda a: a.sort(), lambda a: (np.sort(a, -1), np.argsort(a, -1)), SHAPES, lambda t, a: a.sort()),
    _case("sort_scalar", lambda a: a.sort(), lambda a: (a, np.array(0)), [((),)], lambda t, a: a.sort()),
    _case(
        "sort_descending_dim0",
        lambda a: a.sort(dim=0, descending=True, stable=True),
        None,
        SHAPES,
        lambda t, a: a.sort(dim=0, descending=True, stable=True),
    ),
    _case("msort", lambda a: a.msort(), lambda a: np.sort(a, 0), SHAPES, lambda t, a: a.msort()),
    _case("norm_2", lambda a: a.norm(), lambda a: np.sqrt(np.sum(a * a)), WITH_SCALAR, lambda t, a: a.norm()),
    _case("norm_1_dim", lambda a: a.norm(1, 1), lambda a: np.abs(a).sum(1), SHAPES, lambda t, a: a.norm(1, 1)),
    _case(
        "norm_inf",
        lambda a: a.norm(float("inf"), dim=-1, keepdim=True),
        lambda a: np.abs(a).max(-1, keepdims=True),
        SHAPES,
        lambda t, a: a.norm(float("inf"), dim=-1, keepdim=True),
    ),
    _case(
        "norm_minus_inf",
        lambda a: a.norm(float("-inf")),
        lambda a: np.abs(a).min(),
        SHAPES,
        lambda t, a: a.norm(float("-inf")),
    ),
    _case(
        "norm_3",
        lambda a: ember.norm(a, 3, (0, 1)),
        lambda a: _vector_norm(a, 3, (0, 1)),
        SHAPES,
        lambda t, a: t.norm(a, 3, (0, 1)),
    ),
    _case(
        "norm_half", lambda a: a.norm(0.5, 1), lambda a: _vector_norm(a, 0.5, 1), SHAPES, lambda t, a: a.norm(0.5, 1)
    ),
    _case("norm_1_5", lambda a: a.norm(1.5), lambda a: _vector_norm(a, 1.5), SHAPES, lambda t, a: a.norm(1.5)),
    _case(
        "norm_fro_dim",
        lambda a: a.norm("fro", dim=1),
        lambda a: np.sqrt((a * a).sum(1)),
        SHAPES,
        lambda t, a: a.norm("fro", dim=1),
    ),
    _case(
        "logsumexp", lambda a: a.logsumexp(1), lambda a: np.log(np.exp(a).sum(1)), SHAPES, lambda t, a: a.logsumexp(1)
    ),
    _case(
        "logsumexp_dims_keepdim",
        lambda a: ember.logsumexp(a, (0, -1), keepdim=True),
        lambda a: np.log(np.exp(a).sum((0, -1), keepdims=True)),
        SHAPES,
        lambda t, a: t.logsumexp(a, (0, -1), keepdim=True),
    ),
    _case("cumsum", lambda a: a.cumsum(1), lambda a: a.cumsum(1), WITH_SCALAR[:1] + SHAPES, lambda t, a: a.cumsum(1)),
    _case("cumsum_scalar", lambda a: a.cumsum(0), lambda a: a, [((),)], lambda t, a: a.cumsum(0)),
    _case("cumprod", lambda a: a.cumprod(-1), lambda a: a.cumprod(-1), SHAPES, lambda t, a: a.cumprod(-1)),
    _case(
        "cumprod_zeros",
        lambda a: a.cumprod(1),
        lambda a: a.cumprod(1),
        MATRIX,
        lambda t, a: a.cumprod(1),
        make_inputs=_with_zeros(2),
    ),
    _case(
        "cumprod_one_zero_dim0",
        lambda a: a.t().cumprod(1),
        lambda a: a.T.cumprod(1),
        MATRIX,
        lambda t, a: a.t().cumprod(1),
        make_inputs=_with_zeros(1),
    ),
]
