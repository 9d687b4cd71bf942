"""Op table: the element-wise ops of `ember/ops/pointwise.py` (rounding, clamp, unary and binary maths,
lerp/addcmul/addcdiv). Names start with `pw_` so `-k pw_` runs just these."""

import math

import numpy as np

import ember

from .op_table import OpCase

UNARY = [((3, 4),), ((),), ((2, 3, 2),)]
BINARY = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 3), (4, 1)), ((), (2, 3))]
TERNARY = [((3, 4), (3, 4), (3, 4)), ((3, 4), (4,), (3, 1)), ((), (2, 3), ())]
# torch's clamp backward fails when a bound is larger than the input: keep the input full-sized.
CLAMP_SHAPES = [((3, 4), (3, 4), (3, 4)), ((3, 4), (4,), (3, 1)), ((2, 3), (), (2, 1))]

_erf = np.vectorize(math.erf, otypes=[float])
_erfc = np.vectorize(math.erfc, otypes=[float])


def _erfinv_reference(y):
    """Newton on math.erf from 0: independent of ember's and SciPy's erfinv."""
    x = np.zeros_like(y)
    for _ in range(60):
        x = x - (_erf(x) - y) / (2 / math.sqrt(math.pi) * np.exp(-x * x))
    return x


def _signed_away_from_zero(shapes, rng):
    """Values with |x| in [0.3, 2] and random signs: keeps gradcheck off the kinks at 0."""
    return [rng.uniform(0.3, 2.0, size=s) * rng.choice([-1.0, 1.0], size=s) for s in shapes]


def _distinct_pair(shapes, rng):
    """Two operands at least 0.2 apart everywhere (no ties for maximum/minimum/fmax/fmin): the first
    has fractional part in [0, 0.3), the second in [0.5, 0.8), and their integer parts are random."""
    a = rng.integers(-2, 2, size=shapes[0]) + rng.uniform(0.0, 0.3, size=shapes[0])
    b = rng.integers(-2, 2, size=shapes[1]) + rng.uniform(0.5, 0.8, size=shapes[1])
    return [a, b]


def _division_operands(shapes, rng):
    """Dividend and divisor whose quotient stays at least 0.3 from an integer (fmod and remainder jump
    there): |divisor| in [1, 1.05], |dividend| in k + [0.5, 0.6] for k in 0..2, random signs."""
    signs = [rng.choice([-1.0, 1.0], size=shape) for shape in shapes]
    dividend = signs[0] * (rng.integers(0, 3, size=shapes[0]) + rng.uniform(0.5, 0.6, size=shapes[0]))
    divisor = signs[1] * rng.uniform(1.0, 1.05, size=shapes[1])
    return [dividend, divisor]


def _clamp_operands(shapes, rng):
    """Input, low and high bounds with every input at least 0.1 from both bounds: low in [-1, -0.6],
    high in [0.6, 1], inputs below -1.1, inside [-0.5, 0.5] or above 1.1."""
    bands = rng.integers(0, 3, size=shapes[0])
    x = np.choose(
        bands,
        [
            rng.uniform(-2, -1.1, size=shapes[0]),
            rng.uniform(-0.5, 0.5, size=shapes[0]),
            rng.uniform(1.1, 2, size=shapes[0]),
        ],
    )
    return [x, rng.uniform(-1.0, -0.6, size=shapes[1]), rng.uniform(0.6, 1.0, size=shapes[2])]


def _unary(name, reference, domain=(-2.0, 2.0), torch_name=None, **options):
    """A case for `ember.<name>(x)` against NumPy and `torch.<torch_name>(x)`."""
    torch_name = torch_name or name
    return OpCase(
        f"pw_{name}",
        getattr(ember, name),
        reference,
        UNARY,
        domain=domain,
        torch_fn=lambda t, a: getattr(t, torch_name)(a),
        **options,
    )


def _binary(name, reference, shapes=BINARY, **options):
    return OpCase(
        f"pw_{name}",
        getattr(ember, name),
        reference,
        shapes,
        torch_fn=lambda t, a, b: getattr(t, name)(a, b),
        **options,
    )


CASES = [
    # Piecewise constant: PyTorch records them with a zero gradient.
    _unary("ceil", np.ceil),
    _unary("floor", np.floor),
    _unary("round", np.round),
    OpCase(
        "pw_round_decimals",
        lambda a: ember.round(a, decimals=2),
        lambda a: np.round(a, 2),
        UNARY,
        torch_fn=lambda t, a: t.round(a, decimals=2),
    ),
    _unary("trunc", np.trunc),
    _unary("fix", np.trunc),
    _unary("sign", np.sign, make_inputs=_signed_away_from_zero),
    # torch's sgn gradient is a ZeroTensor that cannot be read as NumPy: adding 0 * a materializes it.
    OpCase(
        "pw_sgn", ember.sgn, np.sign, UNARY, make_inputs=_signed_away_from_zero, torch_fn=lambda t, a: t.sgn(a) + 0 * a
    ),
    _unary("frac", lambda a: a - np.trunc(a), make_inputs=_signed_away_from_zero),
    # Exponentials and logarithms.
    _unary("exp2", np.exp2),
    _unary("expm1", np.expm1),
    _unary("log2", np.log2, domain=(0.2, 3.0)),
    _unary("log10", np.log10, domain=(0.2, 3.0)),
    _unary("log1p", np.log1p, domain=(-0.5, 2.0)),
    _unary("rsqrt", lambda a: 1 / np.sqrt(a), domain=(0.2, 3.0)),
    _unary("reciprocal", lambda a: 1 / a, make_inputs=_signed_away_from_zero),
    # Trigonometric and hyperbolic.
    _unary("tan", np.tan, domain=(-1.2, 1.2)),
    _unary("asin", np.arcsin, domain=(-0.9, 0.9)),
    _unary("arcsin", np.arcsin, domain=(-0.9, 0.9)),
    _unary("acos", np.arccos, domain=(-0.9, 0.9)),
    _unary("arccos", np.arccos, domain=(-0.9, 0.9)),
    _unary("atan", np.arctan),
    _unary("arctan", np.arctan),
    _unary("sinh", np.sinh),
    _unary("cosh", np.cosh),
    _unary("asinh", np.arcsinh),
    _unary("acosh", np.arccosh, domain=(1.2, 3.0)),
    _unary("atanh", np.arctanh, domain=(-0.9, 0.9)),
    _unary("arctanh", np.arctanh, domain=(-0.9, 0.9)),
    _unary("deg2rad", np.deg2rad),
    _unary("rad2deg", np.rad2deg),
    _unary("sinc", np.sinc, make_inputs=_signed_away_from_zero),
    # Special functions.
    _unary("erf", _erf),
    _unary("erfc", _erfc),
    _unary("erfinv", _erfinv_reference, domain=(-0.9, 0.9)),
    _unary("logit", lambda a: np.log(a / (1 - a)), domain=(0.1, 0.9)),
    OpCase(
        "pw_logit_eps",
        lambda a: ember.logit(a, eps=0.2),
        lambda a: np.log(np.clip(a, 0.2, 0.8) / (1 - np.clip(a, 0.2, 0.8))),
        UNARY,
        domain=(0.0, 1.0),
        torch_fn=lambda t, a: t.logit(a, eps=0.2),
    ),
    _unary("nan_to_num", lambda a: a),
    _unary("positive", lambda a: a),
    # Clamp with number and tensor bounds.
    OpCase(
        "pw_clamp_numbers",
        lambda a: ember.clamp(a, -0.5, 0.7),
        lambda a: np.clip(a, -0.5, 0.7),
        UNARY,
        torch_fn=lambda t, a: t.clamp(a, -0.5, 0.7),
    ),
    OpCase(
        "pw_clamp_min_only",
        lambda a: a.clamp(min=-0.5),
        lambda a: np.maximum(a, -0.5),
        UNARY,
        torch_fn=lambda t, a: a.clamp(min=-0.5),
    ),
    OpCase(
        "pw_clip_max_only",
        lambda a: ember.clip(a, max=0.5),
        lambda a: np.minimum(a, 0.5),
        UNARY,
        torch_fn=lambda t, a: t.clip(a, max=0.5),
    ),
    OpCase(
        "pw_clamp_tensors",
        lambda a, low, high: ember.clamp(a, low, high),
        lambda a, low, high: np.minimum(np.maximum(a, low), high),
        CLAMP_SHAPES,
        make_inputs=_clamp_operands,
        torch_fn=lambda t, a, low, high: t.clamp(a, low, high),
    ),
    OpCase(
        "pw_clamp_tensor_min",
        lambda a, low, high: ember.clamp(a, min=low),
        lambda a, low, high: np.maximum(a, low),
        CLAMP_SHAPES,
        make_inputs=_clamp_operands,
        differentiable_inputs=(0, 1),
        torch_fn=lambda t, a, low, high: t.clamp(a, min=low),
    ),
    OpCase(
        "pw_clamp_min_fn",
        lambda a: ember.clamp_min(a, 0.1),
        lambda a: np.maximum(a, 0.1),
        UNARY,
        torch_fn=lambda t, a: t.clamp_min(a, 0.1),
    ),
    OpCase(
        "pw_clamp_max_fn",
        lambda a: ember.clamp_max(a, 0.1),
        lambda a: np.minimum(a, 0.1),
        UNARY,
        torch_fn=lambda t, a: t.clamp_max(a, 0.1),
    ),
    OpCase(
        "pw_clamp_min_tensor",
        lambda a, low, high: ember.clamp_min(a, high),
        lambda a, low, high: np.maximum(a, high),
        CLAMP_SHAPES,
        make_inputs=_clamp_operands,
        differentiable_inputs=(0, 2),
        torch_fn=lambda t, a, low, high: t.clamp_min(a, high),
    ),
    OpCase(
        "pw_clamp_max_tensor",
        lambda a, low, high: ember.clamp_max(a, low),
        lambda a, low, high: np.minimum(a, low),
        CLAMP_SHAPES,
        make_inputs=_clamp_operands,
        differentiable_inputs=(0, 1),
        torch_fn=lambda t, a, low, high: t.clamp_max(a, low),
    ),
    # Two operands.
    _binary("atan2", np.arctan2, make_inputs=_signed_away_from_zero),
    _binary("arctan2", np.arctan2, make_inputs=_signed_away_from_zero),
    _binary("hypot", np.hypot, make_inputs=_signed_away_from_zero),
    _binary("logaddexp", np.logaddexp),
    _binary("logaddexp2", np.logaddexp2),
    _binary("xlogy", lambda a, b: a * np.log(b), domain=(0.3, 2.0)),
    OpCase(
        "pw_xlogy_number_other",
        lambda a: ember.xlogy(a, 3.0),
        lambda a: a * np.log(3.0),
        UNARY,
        torch_fn=lambda t, a: t.xlogy(a, 3.0),
    ),
    OpCase(
        "pw_xlogy_number_self",
        lambda b: ember.xlogy(2.0, b),
        lambda b: 2.0 * np.log(b),
        UNARY,
        domain=(0.3, 2.0),
        torch_fn=lambda t, b: t.xlogy(2.0, b),
    ),
    _binary("copysign", np.copysign, make_inputs=_signed_away_from_zero),
    OpCase(
        "pw_copysign_number",
        lambda a: ember.copysign(a, -1.0),
        lambda a: np.copysign(a, -1.0),
        UNARY,
        make_inputs=_signed_away_from_zero,
        torch_fn=lambda t, a: t.copysign(a, -1.0),
    ),
    _binary("maximum", np.maximum, make_inputs=_distinct_pair),
    _binary("minimum", np.minimum, make_inputs=_distinct_pair),
    _binary("fmax", np.fmax, make_inputs=_distinct_pair),
    _binary("fmin", np.fmin, make_inputs=_distinct_pair),
    _binary("fmod", np.fmod, shapes=BINARY[:2], make_inputs=_division_operands),
    _binary("remainder", np.remainder, shapes=BINARY[:2], make_inputs=_division_operands),
    OpCase(
        "pw_fmod_number",
        lambda a: ember.fmod(a, -0.7),
        lambda a: np.fmod(a, -0.7),
        UNARY,
        torch_fn=lambda t, a: t.fmod(a, -0.7),
    ),
    OpCase(
        "pw_remainder_number",
        lambda a: a % -0.7,
        lambda a: np.remainder(a, -0.7),
        UNARY,
        torch_fn=lambda t, a: a % -0.7,
    ),
    # torch has no derivative for number % tensor; ember does (its forward is checked against torch in
    # test_pointwise.py).
    OpCase(
        "pw_rremainder_number",
        lambda b: 5.0 % b,
        lambda b: np.remainder(5.0, b),
        UNARY[:2],
        make_inputs=lambda shapes, rng: [np.full(shapes[0], 1.3)],
    ),
    _binary("float_power", np.power, shapes=BINARY[:3], domain=(0.5, 2.0)),
    OpCase(
        "pw_float_power_number",
        lambda a: ember.float_power(a, 2.5),
        lambda a: a**2.5,
        UNARY,
        domain=(0.5, 2.0),
        torch_fn=lambda t, a: t.float_power(a, 2.5),
    ),
    # Fused three-operand ops.
    OpCase(
        "pw_lerp_number",
        lambda a, b: ember.lerp(a, b, 0.3),
        lambda a, b: a + 0.3 * (b - a),
        BINARY[:3],
        torch_fn=lambda t, a, b: t.lerp(a, b, 0.3),
    ),
    OpCase(
        "pw_lerp_number_far",
        lambda a, b: a.lerp(b, 0.8),
        lambda a, b: a + 0.8 * (b - a),
        BINARY[:3],
        torch_fn=lambda t, a, b: a.lerp(b, 0.8),
    ),
    OpCase(
        "pw_lerp_tensor",
        ember.lerp,
        lambda a, b, w: a + w * (b - a),
        TERNARY,
        torch_fn=lambda t, a, b, w: t.lerp(a, b, w),
    ),
    OpCase(
        "pw_addcmul",
        lambda a, b, c: ember.addcmul(a, b, c, value=-1.5),
        lambda a, b, c: a - 1.5 * b * c,
        TERNARY,
        torch_fn=lambda t, a, b, c: t.addcmul(a, b, c, value=-1.5),
    ),
    OpCase(
        "pw_addcdiv",
        lambda a, b, c: a.addcdiv(b, c, value=0.5),
        lambda a, b, c: a + 0.5 * b / c,
        TERNARY,
        domain=(0.5, 2.0),
        torch_fn=lambda t, a, b, c: a.addcdiv(b, c, value=0.5),
    ),
]
