"""Op table: filling with one value (`fill`, `fill_`, `zero_`). The input's gradient is zero and a
0-d value tensor's is the sum of the output's; in-place fills run on an intermediate (`a * 1`), since a
leaf that requires grad cannot be filled in place."""

import numpy as np

import ember

from .op_table import OpCase


def case(name, function, numpy_fn, shapes):
    return OpCase(
        "fill_" + name, lambda *xs: function(ember, *xs), numpy_fn, shapes, torch_fn=lambda t, *xs: function(t, *xs)
    )


CASES = [
    case("number", lambda lib, a: lib.fill(a, -1.5), lambda a: np.full_like(a, -1.5), [((3, 4),), ((),)]),
    case("tensor_value", lambda lib, a, v: lib.fill(a, v), lambda a, v: np.full_like(a, v), [((3, 4), ()), ((), ())]),
    case("in_place_number", lambda lib, a: (a * 1).fill_(2.5), lambda a: np.full_like(a, 2.5), [((2, 3),)]),
    case("in_place_tensor_value", lambda lib, a, v: (a * 1).fill_(v), lambda a, v: np.full_like(a, v), [((2, 3), ())]),
    case(
        "in_place_on_a_view",
        lambda lib, a, v: (lambda b: (b[1:].fill_(v), b)[1])(a * 1),
        lambda a, v: np.concatenate([a[:1], np.full_like(a[1:], v)]),
        [((3, 2), ())],
    ),
    case("zero", lambda lib, a: (a * 1).zero_(), lambda a: np.zeros_like(a), [((2, 3),)]),
]
