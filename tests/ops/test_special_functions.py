"""torch.special's Bessel, Airy and orthogonal-polynomial functions (ember/ops/special_functions.py):
values against torch over many magnitudes in float64 and float32, against mpmath and SciPy where
torch itself is inexact, PyTorch's values at special points and special degrees, dtype promotion,
errors, `out=`, and the absence of a derivative."""

import numpy as np
import pytest

import ember
import ember.special as special

torch = pytest.importorskip("torch")

BESSEL = [
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "spherical_bessel_j0",
    "airy_ai",
]
POLYNOMIALS = [
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
]

# PyTorch 2.13's CPU kernels for J0, J1, Y0, Y1 and Ai leave out the leading 1 of Cephes's monic
# denominators. Measured against mpmath its largest errors (absolute where |f| < 1, else relative)
# are 8.6e-7 for Y1 near x = 5 and 3e-6 for Ai near x = -2.09; ember's are ~1e-15
# (test_accuracy_against_mpmath). Comparisons with torch allow for torch's error, not ember's.
TORCH_ERROR = {"bessel_j0": 2e-6, "bessel_j1": 2e-6, "bessel_y0": 2e-6, "bessel_y1": 2e-6, "airy_ai": 1e-5}

RNG = np.random.default_rng(2024)
_MAGNITUDES = 10 ** RNG.uniform(-7, 3, 3000)
WIDE = np.concatenate([_MAGNITUDES, -_MAGNITUDES, RNG.uniform(-12, 12, 2000), [5.0, -5.0, 8.0, 2.0, 2.09, -2.09]])
SPECIAL_POINTS = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-300, 1e300, -1e300, 710.0, 800.0, -800.0]


def assert_matches(ours, theirs, tolerance, where):
    """Same NaN and +-inf positions; elsewhere |ours - theirs| <= tolerance * max(|theirs|, 1)."""
    ours, theirs = np.asarray(ours, np.float64), np.asarray(theirs, np.float64)
    for test in (np.isnan, np.isposinf, np.isneginf):
        mismatch = np.flatnonzero(test(ours) != test(theirs))
        assert mismatch.size == 0, (
            f"{test.__name__} differs at {where[mismatch[:5]]}: ember {ours[mismatch[:5]]}, torch {theirs[mismatch[:5]]}"
        )
    finite = np.isfinite(theirs)
    error = np.abs(ours[finite] - theirs[finite]) / np.maximum(np.abs(theirs[finite]), 1.0)
    worst = int(np.argmax(error)) if error.size else 0
    assert error.max(initial=0) <= tolerance, (
        f"largest error {error.max():.3g} at {where[finite][worst]!r}: "
        f"ember {ours[finite][worst]!r}, torch {theirs[finite][worst]!r}"
    )


# ---------------------------------------------------------------- Bessel and Airy functions
@pytest.mark.parametrize("name", BESSEL)
def test_float64_values_match_torch_over_many_magnitudes(name):
    ours = getattr(special, name)(ember.tensor(WIDE)).numpy()
    theirs = getattr(torch.special, name)(torch.tensor(WIDE)).numpy()
    assert_matches(ours, theirs, TORCH_ERROR.get(name, 1e-13), WIDE)


@pytest.mark.parametrize("name", BESSEL)
def test_float32_stays_float32_and_is_float64_accurate(name):
    """ember evaluates in float64 and rounds, so the reference is torch's float64 value at the same
    float32 inputs (torch's float32 kernel loses the phase for large |x| and overflows exp(x) at
    x ~ 88.7, where I0 and I1 are still below float32's largest value)."""
    inputs = WIDE.astype(np.float32)
    result = getattr(special, name)(ember.tensor(inputs))
    assert result.dtype == ember.float32
    reference = getattr(torch.special, name)(torch.tensor(inputs.astype(np.float64))).numpy()
    representable = ~(np.abs(reference) > np.finfo(np.float32).max)
    tolerance = max(TORCH_ERROR.get(name, 0.0), 2e-7)
    assert_matches(result.numpy()[representable], reference[representable], tolerance, inputs[representable])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", BESSEL)
def test_special_points_match_torch(name, dtype):
    """0, -0, +-1, +-inf, NaN, the edges of the floating range and overflow: the same NaN/inf
    pattern and signs as PyTorch (e.g. NaN for bessel_j0(inf) and airy_ai(+-inf), -inf for
    bessel_y0(0), NaN for K and Y at negative x)."""
    with np.errstate(over="ignore"):
        points = np.array(SPECIAL_POINTS, dtype=dtype)
    ours = getattr(special, name)(ember.tensor(points)).numpy()
    theirs = getattr(torch.special, name)(torch.tensor(points)).numpy()
    assert_matches(np.isfinite(ours), np.isfinite(theirs), 0.0, points)
    # Values against torch's float64 kernel at the same inputs (its float32 one loses the phase of
    # airy_ai(-800) in its third digit).
    exact = getattr(torch.special, name)(torch.tensor(points.astype(np.float64))).numpy().astype(dtype)
    assert_matches(ours, np.where(np.isfinite(theirs), exact, theirs), TORCH_ERROR.get(name, 1e-6), points)
    assert np.array_equal(np.signbit(ours[ours == 0]), np.signbit(theirs[ours == 0])), (ours, theirs)


MPMATH_REFERENCES = {
    "bessel_j0": lambda mp, x: mp.besselj(0, x),
    "bessel_j1": lambda mp, x: mp.besselj(1, x),
    "bessel_y0": lambda mp, x: mp.bessely(0, x),
    "bessel_y1": lambda mp, x: mp.bessely(1, x),
    "modified_bessel_i0": lambda mp, x: mp.besseli(0, x),
    "modified_bessel_i1": lambda mp, x: mp.besseli(1, x),
    "modified_bessel_k0": lambda mp, x: mp.besselk(0, x),
    "modified_bessel_k1": lambda mp, x: mp.besselk(1, x),
    "scaled_modified_bessel_k0": lambda mp, x: mp.besselk(0, x) * mp.exp(x),
    "scaled_modified_bessel_k1": lambda mp, x: mp.besselk(1, x) * mp.exp(x),
    "spherical_bessel_j0": lambda mp, x: mp.sin(x) / x,
    "airy_ai": lambda mp, x: mp.airyai(x),
}
POSITIVE_ONLY = {"bessel_y0", "bessel_y1", "modified_bessel_k0", "modified_bessel_k1"}
POSITIVE_ONLY |= {"scaled_modified_bessel_k0", "scaled_modified_bessel_k1"}


@pytest.mark.parametrize("name", BESSEL)
def test_accuracy_against_mpmath(name):
    """ember's error is at float64's rounding level: relative for the monotone functions, absolute
    (times max(|f|, 1)) for the oscillating ones, whose zeros make relative error meaningless."""
    rng = np.random.default_rng(11)
    mpmath = pytest.importorskip("mpmath")
    points = np.concatenate(
        [rng.uniform(-12, 12, 50), np.sign(rng.uniform(-1, 1, 50)) * 10 ** rng.uniform(-6, 2.5, 50)]
    )
    if name in POSITIVE_ONLY:
        points = np.abs(points)
    with mpmath.workdps(30):
        reference = np.array([float(MPMATH_REFERENCES[name](mpmath, mpmath.mpf(float(x)))) for x in points])
    ours = getattr(special, name)(ember.tensor(points)).numpy()
    # The oscillating functions' phase x - pi/4 (Ai's (2/3)|x|^1.5) carries the rounding of x itself.
    phase_scale = np.abs(points) ** 1.5 if name == "airy_ai" else np.abs(points)
    oscillating = name in TORCH_ERROR or name == "spherical_bessel_j0"
    scale = np.maximum(np.abs(reference), 1.0 if oscillating else 0.0)
    error = np.abs(ours - reference) / scale
    allowed = 4e-15 * np.maximum(phase_scale, 1.0) if oscillating else 4e-15
    worst = int(np.argmax(error / allowed))
    assert np.all(error <= allowed), f"error {error[worst]:.3g} at x = {points[worst]!r}"


@pytest.mark.parametrize(
    "name,scipy_name",
    [
        ("bessel_j0", "j0"),
        ("bessel_j1", "j1"),
        ("bessel_y0", "y0"),
        ("bessel_y1", "y1"),
        ("modified_bessel_i0", "i0"),
        ("modified_bessel_i1", "i1"),
        ("modified_bessel_k0", "k0"),
        ("modified_bessel_k1", "k1"),
        ("scaled_modified_bessel_k0", "k0e"),
        ("scaled_modified_bessel_k1", "k1e"),
        ("spherical_bessel_j0", None),
        ("airy_ai", None),
    ],
)
def test_agrees_with_scipy_where_torch_does_not(name, scipy_name):
    """SciPy runs Cephes with the full denominators: ember agrees with it to rounding, including on
    [4, 6] and (-3, -2.09], where torch 2.13 is off by up to ~1e-6 (J, Y) and ~3e-6 (Ai)."""
    rng = np.random.default_rng(11)
    scipy_special = pytest.importorskip("scipy.special")
    points = np.concatenate([rng.uniform(0.05, 30, 400), rng.uniform(4, 6, 200), -rng.uniform(2.0, 3.0, 100)])
    if name in POSITIVE_ONLY:
        points = np.abs(points)
    if scipy_name is not None:
        reference = getattr(scipy_special, scipy_name)(points)
    elif name == "airy_ai":
        reference = scipy_special.airy(points)[0]
    else:
        reference = scipy_special.spherical_jn(0, points)
    ours = getattr(special, name)(ember.tensor(points)).numpy()
    assert_matches(ours, reference, 1e-13, points)


# ---------------------------------------------------------------- orthogonal polynomials
def _random_points_and_degrees(dtype, highest):
    rng = np.random.default_rng(11)
    x = np.concatenate([rng.uniform(-1.3, 1.3, 2500), rng.uniform(-0.3, 1.3, 1000), rng.normal(0, 4, 500)])
    n = rng.integers(-3, highest + 1, x.size).astype(np.float64)
    return x.astype(dtype), n.astype(dtype)


def _below_overflow(reference, dtype):
    """Where the value is at least a few steps of the recurrence from overflow: there PyTorch's fused
    multiply-add (2y q - p rounded once) can stay finite one step longer than NumPy's two roundings,
    so inf and NaN may come one degree apart."""
    with np.errstate(invalid="ignore"):
        return ~(np.abs(reference) > np.finfo(dtype).max / 1e6)


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials_match_torch_in_float64(name):
    """Random points in and around the orthogonality interval, degrees up to 700 (past the Hermite
    cut-off at 512, through the trigonometric forms and into overflow)."""
    x, n = _random_points_and_degrees(np.float64, 700)
    ours = getattr(special, name)(ember.tensor(x), ember.tensor(n)).numpy()
    theirs = getattr(torch.special, name)(torch.tensor(x), torch.tensor(n)).numpy()
    kept = _below_overflow(theirs, np.float64)
    assert_matches(ours[kept], theirs[kept], 1e-11, np.stack([x, n], axis=1)[kept])


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials_match_torch_in_float32(name):
    """float32 in, float32 out, evaluated in float32 as torch does. The reference is torch's float64
    value at the same inputs; the recurrence's rounding error is measured against the largest
    |p_k(x)|, k <= n, it passed through (a value near a root is a difference of larger ones)."""
    highest = 12
    x, n = _random_points_and_degrees(np.float32, highest)
    result = getattr(special, name)(ember.tensor(x), ember.tensor(n))
    assert result.dtype == ember.float32
    function = getattr(torch.special, name)
    x64 = torch.tensor(x.astype(np.float64))
    reference = function(x64, torch.tensor(n.astype(np.float64))).numpy()
    passed_through = np.max([np.abs(function(x64, float(k)).numpy()) * (k <= n) for k in range(highest + 1)], axis=0)
    kept = _below_overflow(reference, np.float32)
    error = np.abs(result.numpy() - reference)[kept] / np.maximum(passed_through[kept], 1.0)
    worst = int(np.argmax(error))
    assert error.max() < 1e-5, f"error {error[worst]:.3g} at x = {x[kept][worst]!r}, n = {n[kept][worst]!r}"


SPECIAL_DEGREES = [np.nan, np.inf, -np.inf, 1e30, -1e30, -0.5, -1.0, -1.5, 0.0, 1.0, 2.9, 3.0, 7.0, 10.0, 600.0]
SPECIAL_X = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -2.0, 1e-20, 1 - 1e-16, np.inf, -np.inf]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials_at_special_points_and_degrees_match_torch(name, dtype):
    """Degrees are truncated toward zero; negative, NaN, +-inf and huge degrees give 0; the ends of
    the interval, 0 for the shifted and Laguerre polynomials, and infinite x, as PyTorch."""
    x, n = np.meshgrid(np.array(SPECIAL_X, dtype=dtype), np.array(SPECIAL_DEGREES, dtype=dtype))
    ours = getattr(special, name)(ember.tensor(x), ember.tensor(n)).numpy().ravel()
    theirs = getattr(torch.special, name)(torch.tensor(x), torch.tensor(n)).numpy().ravel()
    kept = _below_overflow(theirs, dtype)
    tolerance = 1e-4 if dtype == np.float32 else 1e-11  # float32 up to degree 600
    assert_matches(ours[kept], theirs[kept], tolerance, np.stack([x.ravel(), n.ravel()], axis=1)[kept])


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_at_nan_is_nan_for_degree_two_and_up(name):
    """torch 2.13 returns an uninitialized value here for most families (its loop stops at once on
    NaN and returns a variable it never set); ember returns NaN, and 1 at degree 0, as torch."""
    n = ember.tensor([0.0, 1.0, 2.0, 5.0, 20.0], dtype=ember.float64)
    values = getattr(special, name)(ember.tensor(np.nan, dtype=ember.float64), n).numpy()
    assert values[0] == 1.0 and np.isnan(values[1:]).all(), values


def test_polynomials_of_high_degree_against_numpy():
    """The trigonometric forms and long recurrences against NumPy's own polynomial classes."""
    x = np.linspace(-0.99, 0.99, 41)
    for degree in (7, 9, 40, 200):
        unit = [0] * degree + [1]
        n = ember.tensor(float(degree), dtype=ember.float64)
        pairs = [
            ("chebyshev_polynomial_t", np.polynomial.chebyshev.chebval(x, unit)),
            ("shifted_chebyshev_polynomial_t", np.polynomial.chebyshev.chebval(x, unit)),
            ("legendre_polynomial_p", np.polynomial.legendre.legval(x, unit)),
            ("chebyshev_polynomial_u", np.sin((degree + 1) * np.arccos(x)) / np.sin(np.arccos(x))),
        ]
        for name, expected in pairs:
            argument = (x + 1) / 2 if name.startswith("shifted") else x
            got = getattr(special, name)(ember.tensor(argument), n).numpy()
            np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9 * degree, err_msg=f"{name} n={degree}")


@pytest.mark.parametrize("dtype,limit", [(np.float64, 512), (np.float32, 128)])
def test_hermite_cut_off_follows_dtype(dtype, limit):
    """Degrees above the cut-off are NaN even where the value would be finite (x = 0, odd degree)."""
    n = np.array([limit + 1, limit + 2, 21, 20], dtype=dtype)
    for name in ("hermite_polynomial_h", "hermite_polynomial_he"):
        values = getattr(special, name)(ember.tensor(np.zeros(4, dtype)), ember.tensor(n)).numpy()
        assert np.isnan(values[:2]).all() and values[2] == 0 and np.isfinite(values[3]), (name, values)


# ---------------------------------------------------------------- signatures, dtypes and errors
def _same(build):
    """`build(lib)` in ember and torch: the same dtype, shape and values, or the same exception."""

    def outcome(lib):
        try:
            return build(lib)
        except Exception as error:  # noqa: BLE001 - the exception is the outcome compared
            return error

    ours, theirs = outcome(ember), outcome(torch)
    if isinstance(theirs, Exception) or isinstance(ours, Exception):
        assert type(ours).__name__ == type(theirs).__name__, f"ember gave {ours!r}, torch gave {theirs!r}"
        return ours
    assert str(ours.dtype) == str(theirs.dtype), (ours.dtype, theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-7)
    return ours


@pytest.mark.parametrize(
    "build",
    [
        lambda lib: lib.special.bessel_j0(lib.tensor([1, 2, 3])),
        lambda lib: lib.special.modified_bessel_k1(lib.tensor([True, False])),
        lambda lib: lib.special.airy_ai(lib.tensor(1.5)),
        lambda lib: lib.special.spherical_bessel_j0(lib.tensor([[0.1, 2.0]], dtype=lib.float64)),
        lambda lib: lib.special.bessel_y1(lib.tensor([3], dtype=lib.uint8)),
        lambda lib: lib.special.chebyshev_polynomial_t(lib.tensor([0.3]), 2),
        lambda lib: lib.special.chebyshev_polynomial_t(lib.tensor([0.3]), 2.5),
        lambda lib: lib.special.chebyshev_polynomial_u(0.3, lib.tensor([2, 3])),
        lambda lib: lib.special.chebyshev_polynomial_v(lib.tensor([1, 2]), lib.tensor([2])),
        lambda lib: lib.special.legendre_polynomial_p(
            lib.tensor([0.3], dtype=lib.float64), lib.tensor([2.0], dtype=lib.float32)
        ),
        lambda lib: lib.special.hermite_polynomial_h(lib.tensor([0.3]), lib.tensor([4.0], dtype=lib.float64)),
        lambda lib: lib.special.laguerre_polynomial_l(lib.tensor([[0.3], [0.4]]), lib.tensor([1, 2, 3])),
        lambda lib: lib.special.hermite_polynomial_he(3, lib.tensor(2.5, dtype=lib.float64)),
        lambda lib: lib.special.shifted_chebyshev_polynomial_w(3.0, lib.tensor(2)),
        lambda lib: lib.special.chebyshev_polynomial_t(lib.tensor([0.3]), lib.tensor([True])),
        lambda lib: lib.special.chebyshev_polynomial_t(x=lib.tensor([0.3]), n=3),
    ],
)
def test_dtype_promotion_and_broadcasting_match_torch(build):
    _same(build)


@pytest.mark.parametrize(
    "build,match",
    [
        (lambda lib: lib.special.bessel_j0(lib.tensor([1.0], dtype=lib.float16)), "not implemented for 'Half'"),
        (lambda lib: lib.special.airy_ai(lib.tensor([1.0 + 1j])), "not implemented for 'ComplexFloat'"),
        (lambda lib: lib.special.chebyshev_polynomial_t(lib.tensor([0.3], dtype=lib.float16), 2), "'Half'"),
        (lambda lib: lib.special.bessel_j0(1.0), "must be Tensor"),
        (lambda lib: lib.special.chebyshev_polynomial_t(0.3, 2), "invalid combination of arguments"),
        (lambda lib: lib.special.legendre_polynomial_p(lib.ones(3), lib.ones(2)), "must match"),
    ],
)
def test_errors_match_torch(build, match):
    error = _same(build)
    assert isinstance(error, Exception) and match in str(error), error


def test_out_writes_into_the_given_tensor():
    out = ember.empty(2, dtype=ember.float64)
    result = special.bessel_j1(ember.tensor([1.0, 2.0]), out=out)
    assert result is out and out.dtype == ember.float64
    np.testing.assert_allclose(
        out.numpy(), torch.special.bessel_j1(torch.tensor([1.0, 2.0])).double().numpy(), rtol=1e-6
    )
    out = ember.empty(0)
    special.chebyshev_polynomial_t(ember.tensor([0.5, 0.25]), 3, out=out)
    assert out.tolist() == pytest.approx([-1.0, -0.6875])


@pytest.mark.parametrize("name", BESSEL + POLYNOMIALS)
def test_no_derivative_as_in_torch(name):
    """PyTorch declares these non-differentiable: the result does not require grad even when the
    input does, so backward fails as on any constant; forward AD carries no tangent."""
    arguments = (3,) if name in POLYNOMIALS else ()
    x = ember.tensor([0.5, 1.5], dtype=ember.float64, requires_grad=True)
    y = getattr(special, name)(x, *arguments)
    assert not y.requires_grad and y.grad_fn is None
    with pytest.raises(RuntimeError, match="does not require grad"):
        y.sum().backward()
    import ember.autograd.forward_ad as forward_ad

    with forward_ad.dual_level():
        dual = forward_ad.make_dual(x.detach(), ember.ones(2, dtype=ember.float64))
        assert forward_ad.unpack_dual(getattr(special, name)(dual, *arguments)).tangent is None


def test_every_torch_special_function_is_in_ember_special():
    """Module internals of torch.special (its imports and docstring helpers) aside."""
    internals = {"Tensor", "torch", "common_args", "multi_dim_common"}
    missing = {name for name in dir(torch.special) if not name.startswith("_")} - internals - set(dir(special))
    assert missing == set()
