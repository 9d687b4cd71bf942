"""Special functions beyond the op table: the pure-NumPy kernels (used without SciPy) against
torch.special over wide ranges, PyTorch's values at poles and infinities, errors, and ember.special."""

import math

import numpy as np
import pytest

import ember
import ember.special as special
from ember.ops import _bessel, _gamma, _special

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(0)
WIDE = np.concatenate(
    [RNG.uniform(-30, 30, 3000), RNG.uniform(0, 3, 500), RNG.uniform(1e-6, 1e-3, 50), [1e5, 1e10, 171.5]]
)
NON_INTEGER = WIDE[np.abs(WIDE - np.round(WIDE)) > 1e-3]


def close(ours, theirs, rtol):
    """Equal specials (nan, +-inf) and, elsewhere, relative error below rtol (absolute where |x| < 1)."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    for test in (np.isnan, np.isposinf, np.isneginf):
        mismatch = np.flatnonzero(test(ours) != test(theirs))
        assert mismatch.size == 0, (
            f"{test.__name__} differs at {mismatch[:5]}: {ours[mismatch[:5]]} vs {theirs[mismatch[:5]]}"
        )
    finite = np.isfinite(theirs)
    error = np.abs(ours[finite] - theirs[finite]) / np.maximum(np.abs(theirs[finite]), 1.0)
    assert error.max(initial=0) < rtol, f"largest error {error.max()} at {np.argmax(error)}"


def t(array):
    return torch.tensor(np.asarray(array, np.float64))


@pytest.mark.parametrize(
    "name,ours,theirs,points,rtol",
    [
        ("lgamma", _gamma.numpy_lgamma, torch.lgamma, WIDE, 1e-13),
        ("digamma", _gamma.numpy_digamma, torch.digamma, WIDE, 1e-10),
        ("polygamma2", lambda x: -2 * _gamma.numpy_zeta(3.0, x), lambda x: torch.polygamma(2, x), NON_INTEGER, 1e-12),
        ("polygamma5", lambda x: 120 * _gamma.numpy_zeta(6.0, x), lambda x: torch.polygamma(5, x), NON_INTEGER, 1e-12),
        ("i0e", lambda x: _bessel._scaled_bessel(x, 0), torch.special.i0e, WIDE, 1e-13),
        ("i1e", lambda x: _bessel._scaled_bessel(x, 1), torch.special.i1e, WIDE, 1e-13),
        ("erfcx", _special.numpy_erfcx, torch.special.erfcx, WIDE, 1e-12),
        ("log_ndtr", _special.numpy_log_ndtr, torch.special.log_ndtr, WIDE, 1e-10),
    ],
)
def test_numpy_kernels_match_torch(name, ours, theirs, points, rtol):
    close(ours(points), theirs(t(points)).numpy(), rtol)


def test_numpy_zeta_and_incomplete_gamma_match_torch():
    s, q = RNG.uniform(1.01, 30, 800), RNG.uniform(-10, 10, 800)
    close(_gamma.numpy_zeta(s, q), torch.special.zeta(t(s), t(q)).numpy(), 1e-12)
    a, x = RNG.uniform(0.01, 50, 1000), RNG.uniform(0, 80, 1000)
    close(_gamma.numpy_gammainc(a, x), torch.special.gammainc(t(a), t(x)).numpy(), 1e-8)
    close(_gamma.numpy_gammaincc(a, x), torch.special.gammaincc(t(a), t(x)).numpy(), 1e-8)


def test_without_scipy_the_ops_use_the_numpy_kernels(monkeypatch):
    monkeypatch.setattr(_special, "_scipy_special", lambda: None)
    x = np.array([0.3, 2.5, -1.5, 7.0])
    close(ember.lgamma(ember.tensor(x)).numpy(), torch.lgamma(t(x)).numpy(), 1e-13)
    close(ember.polygamma(1, ember.tensor(x)).numpy(), torch.polygamma(1, t(x)).numpy(), 1e-9)
    close(special.i1(ember.tensor(x)).numpy(), torch.special.i1(t(x)).numpy(), 1e-13)


POLES = np.array([0.0, -0.0, -1.0, -2.0, np.inf, -np.inf, np.nan])


@pytest.mark.parametrize(
    "ours,theirs",
    [
        (ember.lgamma, torch.lgamma),
        (ember.digamma, torch.digamma),
        (special.i0e, torch.special.i0e),
        (special.erfcx, torch.special.erfcx),
        (special.entr, torch.special.entr),
        (special.ndtri, torch.special.ndtri),
    ],
)
def test_values_at_poles_and_infinities_are_pytorch_s(ours, theirs):
    close(ours(ember.tensor(POLES, dtype=ember.float64)).numpy(), theirs(t(POLES)).numpy(), 1e-12)


def test_polygamma_at_its_poles_is_pytorch_s():
    # (At +-inf and negative integers PyTorch's values vary with n, artifacts of its kernels: not matched.)
    poles = np.array([0.0, -0.0, np.nan])
    for n in (1, 2, 3):
        close(
            ember.polygamma(n, ember.tensor(poles, dtype=ember.float64)).numpy(),
            torch.polygamma(n, t(poles)).numpy(),
            1e-12,
        )


def test_dtypes_follow_pytorch():
    assert ember.lgamma(ember.tensor([1, 2])).dtype == ember.float32
    assert special.i0e(ember.tensor([1.0], dtype=ember.float64)).dtype == ember.float64
    assert special.zeta(ember.tensor([2.0]), 1).dtype == ember.float32
    assert ember.tensor([2.5]).lgamma().dtype == ember.float32


def test_in_place_variants_and_methods():
    x = ember.tensor([0.5, 3.0])
    expected = torch.tensor([0.5, 3.0]).digamma_()
    x.digamma_()
    np.testing.assert_allclose(x.numpy(), expected.numpy(), rtol=1e-6)
    y = ember.tensor([1.5, 2.5])
    np.testing.assert_allclose(y.polygamma(1).numpy(), torch.tensor([1.5, 2.5]).polygamma(1).numpy(), rtol=1e-6)
    np.testing.assert_allclose(y.mvlgamma(2).numpy(), torch.tensor([1.5, 2.5]).mvlgamma(2).numpy(), rtol=1e-6)


def test_errors_name_the_argument():
    with pytest.raises(RuntimeError, match="does not support negative n"):
        ember.polygamma(-1, ember.ones(2))
    with pytest.raises(TypeError, match="argument 'n'"):
        ember.polygamma(1.5, ember.ones(2))
    with pytest.raises(RuntimeError, match=r"greater than \(p-1\)/2"):
        ember.mvlgamma(ember.tensor([0.2]), 2)
    x = ember.tensor([2.0], requires_grad=True)
    with pytest.raises(NotImplementedError, match="derivative for 'zeta' is not implemented"):
        special.zeta(x, 1.0).backward()
    with pytest.raises(NotImplementedError, match="igamma: input"):
        special.gammainc(x, 1.0).backward()


def test_special_module_names_and_aliases():
    assert special.psi is special.digamma and special.gammaln is ember.lgamma and special.expit is ember.sigmoid
    missing = [
        name
        for name in (
            "gammaln",
            "psi",
            "multigammaln",
            "i0",
            "i0e",
            "i1",
            "i1e",
            "ndtr",
            "ndtri",
            "log_ndtr",
            "erfcx",
            "entr",
            "xlog1py",
            "xlogy",
            "zeta",
            "gammainc",
            "gammaincc",
            "expit",
            "logit",
            "erf",
            "erfc",
            "erfinv",
            "sinc",
            "logsumexp",
            "softmax",
            "log_softmax",
            "round",
            "exp2",
            "expm1",
            "log1p",
            "polygamma",
            "digamma",
        )
        if not hasattr(special, name)
    ]
    assert missing == []
    np.testing.assert_allclose(
        special.multigammaln(ember.tensor([3.0]), 2).numpy(),
        [math.log(math.pi) / 2 + math.lgamma(3.0) + math.lgamma(2.5)],
        rtol=1e-6,
    )


def _ulps_from_rounded(ours, exact):
    """How many float32 steps `ours` is from `exact` (float64) rounded to float32."""
    expected = exact.astype(np.float32)
    return np.abs(ours.view(np.int32).astype(np.int64) - expected.view(np.int32))


_ERF_SWEEP = np.concatenate(
    [np.linspace(-5, 5, 200_001), np.geomspace(1e-38, 1e-2, 2000), -np.geomspace(1e-38, 1e-2, 2000)]
).astype(np.float32)


def test_float32_erf_is_within_4_ulp_of_the_rounded_erf():
    """ember's own float32 erf (tanh of a polynomial, see ops/_special.py) against math.erf."""
    x = _ERF_SWEEP
    ours = ember.erf(ember.tensor(x)).numpy()
    assert ours.dtype == np.float32
    ulps = _ulps_from_rounded(ours, np.vectorize(math.erf, otypes=[np.float64])(x.astype(np.float64)))
    assert ulps.max() <= 4, f"{ulps.max()} ulp at x={x[np.argmax(ulps)]}"
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e30, -1e30], np.float32)
    np.testing.assert_array_equal(ember.erf(ember.tensor(specials)).numpy(), [0.0, -0.0, 1, -1, np.nan, 1, -1])
    assert np.signbit(ember.erf(ember.tensor(specials)).numpy()[1])


def _exact_normal(x):
    """Phi(x), phi(x) and the GELU x Phi(x) in float64, from math.erfc (accurate in both tails)."""
    wide = x.astype(np.float64)
    cdf = 0.5 * np.vectorize(math.erfc, otypes=[np.float64])(-wide / math.sqrt(2.0))
    return cdf, np.exp(-wide * wide / 2) / math.sqrt(2 * math.pi), wide * cdf


_NORMAL_SWEEP = np.concatenate(
    [np.linspace(-14, 14, 280_001), np.geomspace(1e-38, 1e-2, 2000), -np.geomspace(1e-38, 1e-2, 2000)]
).astype(np.float32)


def test_float32_normal_cdf_and_density_against_math_erfc():
    """The GELU's Phi and phi sharing one exp (ops/_special.py): absolute error near the centre,
    ulps where Phi is not tiny, the density's relative error."""
    from ember.ops import _special

    x = _NORMAL_SWEEP
    cdf, density = _special.float32_normal_cdf_and_density(x)
    exact_cdf, exact_density, _ = _exact_normal(x)
    assert cdf.dtype == density.dtype == np.float32
    error = np.abs(cdf - exact_cdf)
    assert error.max() <= 2.5e-7, f"{error.max():.3g} at x={x[np.argmax(error)]}"
    not_tiny = exact_cdf >= 1e-3
    ulps = _ulps_from_rounded(cdf, exact_cdf)[not_tiny]
    assert ulps.max() <= 16, f"{ulps.max()} ulp at x={x[not_tiny][np.argmax(ulps)]}"
    central = np.abs(x) <= 8
    relative = np.abs(density - exact_density)[central] / exact_density[central]
    assert relative.max() <= 3e-6, f"{relative.max():.3g}"
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e30, -1e30], np.float32)
    with np.errstate(over="ignore"):
        cdf, density = _special.float32_normal_cdf_and_density(specials)
    np.testing.assert_array_equal(cdf, [0.5, 0.5, 1, 0, np.nan, 1, 0])
    np.testing.assert_array_equal(density, np.float32([1 / math.sqrt(2 * math.pi)] * 2 + [0, 0, np.nan, 0, 0]))


def test_float32_gelu_and_its_derivative_against_the_exact_ones():
    """nn.functional.gelu in float32 (the path a Transformer takes) against float64 from math.erfc:
    within 5e-7 everywhere, within 8 ulp where x >= 0, the derivative within 3e-7."""
    x = _NORMAL_SWEEP
    exact_cdf, exact_density, exact_gelu = _exact_normal(x)
    inputs = ember.tensor(x, requires_grad=True)
    output = ember.nn.functional.gelu(inputs)
    output.sum().backward()
    ours = output.detach().numpy()
    error = np.abs(ours - exact_gelu)
    assert error.max() <= 5e-7, f"{error.max():.3g} at x={x[np.argmax(error)]}"
    ulps = _ulps_from_rounded(ours, exact_gelu)[x >= 0]
    assert ulps.max() <= 8, f"{ulps.max()} ulp at x={x[x >= 0][np.argmax(ulps)]}"
    slope_error = np.abs(inputs.grad.numpy() - (exact_cdf + x * exact_density))
    assert slope_error.max() <= 3e-7, f"{slope_error.max():.3g} at x={x[np.argmax(slope_error)]}"
