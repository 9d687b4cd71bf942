"""Op table: cummax, cummin and logcumsumexp (`ember/ops/scans.py`). Names start with `scan_`."""

import numpy as np

import ember

from .op_table import OpCase

SHAPES = [((3, 4),), ((5,),), ((2, 3, 4),)]


def _distinct(shapes, rng):
    """A permutation of spread-out values: no ties, so the running extreme's source is unambiguous."""
    return [
        rng.permutation(np.prod(s, dtype=int)).reshape(s) * 0.37 - 2.0 + rng.uniform(0, 0.1, size=s) for s in shapes
    ]


def _running(function):
    return lambda x: function.accumulate(x, axis=-1)


CASES = [
    OpCase(
        "scan_cummax",
        lambda x: ember.cummax(x, -1).values,
        _running(np.maximum),
        SHAPES,
        make_inputs=_distinct,
        torch_fn=lambda torch, x: torch.cummax(x, -1).values,
    ),
    OpCase(
        "scan_cummin_dim0",
        lambda x: ember.cummin(x, 0).values,
        lambda x: np.minimum.accumulate(x, axis=0),
        SHAPES,
        make_inputs=_distinct,
        torch_fn=lambda torch, x: torch.cummin(x, 0).values,
    ),
    OpCase(
        "scan_logcumsumexp",
        lambda x: ember.logcumsumexp(x, -1),
        _running(np.logaddexp),
        SHAPES,
        domain=(-3.0, 3.0),
        torch_fn=lambda torch, x: torch.logcumsumexp(x, -1),
    ),
    OpCase(
        "scan_logcumsumexp_wide",
        lambda x: ember.logcumsumexp(x, 0),
        lambda x: np.logaddexp.accumulate(x, axis=0),
        [((6, 2),)],
        domain=(-300.0, 300.0),
        torch_fn=lambda torch, x: torch.logcumsumexp(x, 0),
    ),
]
