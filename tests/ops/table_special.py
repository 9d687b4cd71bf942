"""Op table: the special functions of `ember/ops/special.py` (gamma family, Bessel, normal
distribution). Names start with `sp_` so `-k sp_` runs just these. NumPy references come from the
standard library where it has the function (math.lgamma, math.erfc, np.i0); the rest are checked
against torch.special."""

import math

import numpy as np

import ember
import ember.special as special

from .op_table import OpCase

UNARY = [((3, 4),), ((),), ((2, 3, 2),)]
BINARY = [((3, 4), (3, 4)), ((3, 4), (4,)), ((), (2, 3))]

_lgamma = np.vectorize(math.lgamma, otypes=[float])
_erfc = np.vectorize(math.erfc, otypes=[float])


def _away_from_poles(shapes, rng):
    """Values in (-3.5, 4) at least 0.15 from the poles 0, -1, -2, -3 of the gamma family."""
    return [rng.integers(-3, 4, size=s) + rng.uniform(0.15, 0.85, size=s) for s in shapes]


def _signed_away_from_zero(shapes, rng):
    return [rng.uniform(0.3, 3.0, size=s) * rng.choice([-1.0, 1.0], size=s) for s in shapes]


def _shape_and_point(shapes, rng):
    """The incomplete gamma functions: a shape in [0.5, 4] and a point in [0.2, 6]."""
    return [rng.uniform(0.5, 4.0, size=shapes[0]), rng.uniform(0.2, 6.0, size=shapes[1])]


def _exponent_and_offset(shapes, rng):
    """Hurwitz zeta: an exponent in [1.5, 5] and a positive offset."""
    return [rng.uniform(1.5, 5.0, size=shapes[0]), rng.uniform(0.3, 3.0, size=shapes[1])]


CASES = [
    OpCase(
        "sp_lgamma",
        ember.lgamma,
        _lgamma,
        UNARY,
        make_inputs=_away_from_poles,
        torch_fn=lambda torch, x: torch.lgamma(x),
    ),
    OpCase(
        "sp_digamma",
        ember.digamma,
        None,
        UNARY,
        make_inputs=_away_from_poles,
        torch_fn=lambda torch, x: torch.digamma(x),
    ),
    OpCase(
        "sp_polygamma1",
        lambda x: ember.polygamma(1, x),
        None,
        UNARY,
        make_inputs=_away_from_poles,
        torch_fn=lambda torch, x: torch.polygamma(1, x),
    ),
    OpCase(
        "sp_polygamma3",
        lambda x: ember.polygamma(3, x),
        None,
        UNARY,
        domain=(0.5, 3.0),
        torch_fn=lambda torch, x: torch.polygamma(3, x),
        rtol=1e-6,
    ),
    OpCase(
        "sp_mvlgamma",
        lambda x: ember.mvlgamma(x, 3),
        lambda x: 1.5 * math.log(math.pi) + _lgamma(x) + _lgamma(x - 0.5) + _lgamma(x - 1.0),
        UNARY,
        domain=(1.2, 4.0),
        torch_fn=lambda torch, x: torch.mvlgamma(x, 3),
    ),
    OpCase("sp_i0", ember.i0, np.i0, UNARY, domain=(-4.0, 4.0), torch_fn=lambda torch, x: torch.i0(x)),
    OpCase(
        "sp_i0e",
        special.i0e,
        lambda x: np.i0(x) * np.exp(-np.abs(x)),
        UNARY,
        make_inputs=_signed_away_from_zero,
        torch_fn=lambda torch, x: torch.special.i0e(x),
    ),
    OpCase("sp_i1", special.i1, None, UNARY, domain=(-4.0, 4.0), torch_fn=lambda torch, x: torch.special.i1(x)),
    OpCase(
        "sp_i1e",
        special.i1e,
        None,
        UNARY,
        make_inputs=_signed_away_from_zero,
        torch_fn=lambda torch, x: torch.special.i1e(x),
    ),
    OpCase(
        "sp_ndtr",
        special.ndtr,
        lambda x: 0.5 * _erfc(-x / math.sqrt(2)),
        UNARY,
        domain=(-3.0, 3.0),
        torch_fn=lambda torch, x: torch.special.ndtr(x),
    ),
    OpCase(
        "sp_ndtri",
        special.ndtri,
        None,
        UNARY,
        domain=(0.05, 0.95),
        torch_fn=lambda torch, x: torch.special.ndtri(x),
        rtol=1e-6,
    ),
    OpCase(
        "sp_log_ndtr",
        special.log_ndtr,
        lambda x: np.log(0.5 * _erfc(-x / math.sqrt(2))),
        UNARY,
        domain=(-4.0, 4.0),
        torch_fn=lambda torch, x: torch.special.log_ndtr(x),
    ),
    OpCase(
        "sp_erfcx",
        special.erfcx,
        lambda x: np.exp(x * x) * _erfc(x),
        UNARY,
        domain=(-1.5, 3.0),
        torch_fn=lambda torch, x: torch.special.erfcx(x),
    ),
    OpCase(
        "sp_entr",
        special.entr,
        lambda x: -x * np.log(x),
        UNARY,
        domain=(0.1, 3.0),
        torch_fn=lambda torch, x: torch.special.entr(x),
    ),
    OpCase(
        "sp_xlog1py",
        special.xlog1py,
        lambda x, y: x * np.log1p(y),
        BINARY,
        domain=(0.1, 2.0),
        torch_fn=lambda torch, x, y: torch.special.xlog1py(x, y),
    ),
    OpCase(
        "sp_zeta",
        special.zeta,
        None,
        BINARY,
        make_inputs=_exponent_and_offset,
        grad=False,
        gradgrad=False,
        differentiable_inputs=[],
        torch_fn=lambda torch, x, q: torch.special.zeta(x, q),
    ),
    OpCase(
        "sp_gammainc",
        special.gammainc,
        None,
        BINARY,
        make_inputs=_shape_and_point,
        differentiable_inputs=[1],
        torch_fn=lambda torch, a, x: torch.special.gammainc(a, x),
        rtol=1e-6,
    ),
    OpCase(
        "sp_gammaincc",
        special.gammaincc,
        None,
        BINARY,
        make_inputs=_shape_and_point,
        differentiable_inputs=[1],
        torch_fn=lambda torch, a, x: torch.special.gammaincc(a, x),
        rtol=1e-6,
    ),
]


# ---------------------------------------------------------------- Bessel, Airy and orthogonal polynomials
# PyTorch gives these no derivative (their results never require grad), so the cases check values
# only. Their domains stay where PyTorch 2.13's kernels are accurate to 1e-6 (its J, Y and Ai drift
# to ~1e-5 elsewhere; tests/ops/test_special_functions.py measures ember against mpmath there).
def _degrees_up_to(highest, domain=(-0.95, 0.95)):
    """A point in `domain` and an integer-valued float degree in [0, highest]."""

    def make(shapes, rng):
        return [rng.uniform(*domain, size=shapes[0]), rng.integers(0, highest + 1, size=shapes[1]).astype(float)]

    return make


def _angle(x):
    return np.arccos(x)


def _unary_value_case(name, numpy_fn=None, domain=(-2.0, 2.0), make_inputs=None):
    function = getattr(special, name)
    return OpCase(
        f"sp_{name}",
        function,
        numpy_fn,
        UNARY,
        domain=domain,
        make_inputs=make_inputs,
        grad=False,
        gradgrad=False,
        torch_fn=lambda torch, x: getattr(torch.special, name)(x),
    )


def _polynomial_cases(name, numpy_fn, domain=(-0.95, 0.95), highest=12):
    """One case with a fixed Python-int degree and one with a tensor of degrees that broadcasts."""
    function = getattr(special, name)
    return [
        OpCase(
            f"sp_{name}_n5",
            lambda x: function(x, 5),
            None if numpy_fn is None else (lambda x: numpy_fn(x, 5)),
            UNARY,
            domain=domain,
            grad=False,
            gradgrad=False,
            torch_fn=lambda torch, x: getattr(torch.special, name)(x, 5),
        ),
        OpCase(
            f"sp_{name}_tensor_n",
            function,
            None if numpy_fn is None else (lambda x, n: np.vectorize(numpy_fn)(x, n.astype(int))),
            BINARY,
            make_inputs=_degrees_up_to(highest, domain),
            grad=False,
            gradgrad=False,
            differentiable_inputs=[0],
            torch_fn=lambda torch, x, n: getattr(torch.special, name)(x, n),
        ),
    ]


def _unit(degree):
    return [0] * degree + [1]


CASES += [
    _unary_value_case("bessel_j0", domain=(-3.5, 3.5)),
    _unary_value_case("bessel_j1", domain=(-3.5, 3.5)),
    _unary_value_case("bessel_y0", domain=(0.2, 3.5)),
    _unary_value_case("bessel_y1", domain=(0.2, 3.5)),
    _unary_value_case("modified_bessel_i0", np.i0, domain=(-10.0, 10.0)),
    _unary_value_case("modified_bessel_i1", domain=(-10.0, 10.0)),
    _unary_value_case("modified_bessel_k0", domain=(0.1, 10.0)),
    _unary_value_case("modified_bessel_k1", domain=(0.1, 10.0)),
    _unary_value_case("scaled_modified_bessel_k0", domain=(0.1, 30.0)),
    _unary_value_case("scaled_modified_bessel_k1", domain=(0.1, 30.0)),
    _unary_value_case("spherical_bessel_j0", lambda x: np.sinc(x / np.pi), domain=(-10.0, 10.0)),
    _unary_value_case("airy_ai", domain=(-2.0, 6.0)),
    *_polynomial_cases(
        "chebyshev_polynomial_t", lambda x, n: np.polynomial.chebyshev.chebval(x, _unit(n)), domain=(-1.5, 1.5)
    ),
    *_polynomial_cases("chebyshev_polynomial_u", lambda x, n: np.sin((n + 1) * _angle(x)) / np.sin(_angle(x))),
    *_polynomial_cases("chebyshev_polynomial_v", lambda x, n: np.cos((n + 0.5) * _angle(x)) / np.cos(_angle(x) / 2)),
    *_polynomial_cases("chebyshev_polynomial_w", lambda x, n: np.sin((n + 0.5) * _angle(x)) / np.sin(_angle(x) / 2)),
    *_polynomial_cases(
        "shifted_chebyshev_polynomial_t",
        lambda x, n: np.polynomial.chebyshev.chebval(2 * x - 1, _unit(n)),
        domain=(0.05, 0.95),
    ),
    *_polynomial_cases(
        "shifted_chebyshev_polynomial_u",
        lambda x, n: np.sin((n + 1) * _angle(2 * x - 1)) / np.sin(_angle(2 * x - 1)),
        domain=(0.05, 0.95),
    ),
    *_polynomial_cases(
        "shifted_chebyshev_polynomial_v",
        lambda x, n: np.cos((n + 0.5) * _angle(2 * x - 1)) / np.cos(_angle(2 * x - 1) / 2),
        domain=(0.05, 0.95),
    ),
    *_polynomial_cases(
        "shifted_chebyshev_polynomial_w",
        lambda x, n: np.sin((n + 0.5) * _angle(2 * x - 1)) / np.sin(_angle(2 * x - 1) / 2),
        domain=(0.05, 0.95),
    ),
    *_polynomial_cases(
        "hermite_polynomial_h", lambda x, n: np.polynomial.hermite.hermval(x, _unit(n)), domain=(-3.0, 3.0)
    ),
    *_polynomial_cases(
        "hermite_polynomial_he", lambda x, n: np.polynomial.hermite_e.hermeval(x, _unit(n)), domain=(-3.0, 3.0)
    ),
    *_polynomial_cases(
        "laguerre_polynomial_l", lambda x, n: np.polynomial.laguerre.lagval(x, _unit(n)), domain=(-2.0, 8.0)
    ),
    *_polynomial_cases("legendre_polynomial_p", lambda x, n: np.polynomial.legendre.legval(x, _unit(n))),
]
