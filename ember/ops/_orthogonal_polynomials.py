"""The classical orthogonal polynomials of `torch.special` on arrays: Chebyshev T, U, V, W (and their
shifted forms on [0, 1]), Hermite H (physicists') and He (probabilists'), Laguerre L and Legendre P.

Each is evaluated by its three-term recurrence in the array's own dtype, so float32 overflows as
PyTorch's float32 kernel does (to inf, then NaN once inf - inf appears; PyTorch's compiled loop fuses
the multiply-add, so at the edge of overflow the two may turn inf or NaN one degree apart). The degree follows PyTorch:
it is truncated toward zero to an integer; negative degrees give 0, and so do NaN, +-inf and degrees
beyond int64 (the C++ cast PyTorch applies sends them to a negative integer). Inside (-1, 1) a
Chebyshev polynomial of high degree is evaluated from its trigonometric form (T_n(cos t) = cos(n t),
...), as PyTorch does above the same degree thresholds; Hermite polynomials of degree above 512
(float64) or 128 (float32) are NaN, PyTorch's cut-off.
"""

from .._backend import np

__all__ = ["evaluate", "FAMILIES"]

_INT64_LIMIT = 2.0**63


def _integer_degrees(n):
    """Truncate toward zero; non-finite or out-of-range degrees become -1 (evaluated as 0)."""
    with np.errstate(invalid="ignore"):
        representable = np.isfinite(n) & (np.abs(n) < _INT64_LIMIT)
    return np.where(representable, np.trunc(np.where(representable, n, 0)), -1).astype(np.int64)


_NAN_CHECK_INTERVAL = 64  # steps between looks for elements that turned NaN (only saves work)


def _recurrence(x, n, first, step):
    """The values of degree n >= 2 (flat arrays) from p_0 = 1, p_1 = first and
    p_(m+1) = step(m, x, p_m, p_(m-1)) for m = 1 .. n-1. Elements leave when they reach their degree,
    or (looked for every few dozen steps) once they turn NaN, which they stay; so a huge degree at a
    point where the recurrence overflows costs little, as in PyTorch, whose loop stops on NaN."""
    result = np.empty_like(first)
    positions = np.arange(x.size)
    previous, current = np.ones_like(first), first
    m, next_finish = 1, n.min()
    while positions.size:
        current, previous = step(m, x, current, previous), current
        m += 1
        if m < next_finish and m % _NAN_CHECK_INTERVAL:
            continue
        done = (n <= m) | np.isnan(current)
        if done.all():
            result[positions] = current
            break
        if done.any():
            result[positions[done]] = current[done]
            keep = ~done
            positions, x, n, current, previous = positions[keep], x[keep], n[keep], current[keep], previous[keep]
        next_finish = n.min()
    return result


class _Family:
    """One polynomial family: the first-degree polynomial, the recurrence step, and the values PyTorch
    fixes before evaluating (special points, the trigonometric form, the Hermite cut-off), in
    PyTorch's order of precedence. The recurrence runs only on the elements none of these settled."""

    def __init__(self, first, step, special=None, trigonometric=None, hermite=False):
        self.first, self.step, self.special = first, step, special
        self.trigonometric, self.hermite = trigonometric, hermite

    def __call__(self, x, n):
        degree = _integer_degrees(n)
        x, degree = np.broadcast_arrays(x, degree)
        shape = x.shape
        x, degree = x.ravel(), degree.ravel()
        result = np.empty_like(x)
        pending = np.ones(x.shape, dtype=bool)

        def settle(mask, values):
            """Fix the still pending elements of `mask`: to a number, or to values(mask), an array
            of one value per selected element."""
            mask = mask & pending
            if mask.any():
                result[mask] = values(mask) if callable(values) else values
                pending[mask] = False

        with np.errstate(all="ignore"):
            settle(degree < 0, 0)
            if self.special is not None:
                self.special(x, degree, settle)
            if self.trigonometric is not None:
                self.trigonometric(x, degree, settle)
            settle(degree == 0, 1)
            settle(degree == 1, lambda at: self.first(x[at]))
            if self.hermite:
                settle(degree > (128 if x.dtype == np.float32 else 512), np.nan)
            rest = np.flatnonzero(pending)
            if rest.size:
                result[rest] = _recurrence(x[rest], degree[rest], self.first(x[rest]), self.step)
        return result.reshape(shape)


# ---------------------------------------------------------------- Chebyshev T, U, V, W
def _chebyshev_step(argument):
    """p_(m+1) = 2 y p_m - p_(m-1), y = argument(x): x, or 2x - 1 for the shifted polynomials."""
    return lambda m, x, q, p: (argument(x) + argument(x)) * q - p


def _identity(x):
    return x


def _shifted(x):
    return x + x - 1


def _signed(value, degree, x_positive):
    """value where x > 0 or the degree is even, -value otherwise (the parity at x = -1)."""
    return np.where(x_positive | (degree % 2 == 0), value, -value)


# The values at the ends of the interval, as functions of (degree as float, integer degree, x > 0 at
# the end): at y = 1 and y = -1 PyTorch returns these before anything else.
def _t_ends(d, degree, plus):
    return _signed(np.ones_like(d), degree, plus)


def _u_ends(d, degree, plus):
    return _signed(d + 1, degree, plus)


def _v_ends(d, degree, plus):
    return np.where(plus, 1, _signed(d + d + 1, degree, plus))


def _w_ends(d, degree, plus):
    return np.where(plus, d + d + 1, _signed(np.ones_like(d), degree, plus))


# The trigonometric forms in t = acos(y), with PyTorch's fallbacks where the divisor is exactly zero.
def _t_trigonometric(d, degree, y, t):
    return np.cos(d * t)


def _u_trigonometric(d, degree, y, t):
    return np.where(np.sin(t) != 0, np.sin((d + 1) * t) / np.sin(t), (d + 1) * np.cos((d + 1) * t) / y)


def _v_trigonometric(d, degree, y, t):
    return np.where(np.sin(t / 2) != 1, np.cos((d + 0.5) * t) / np.cos(t / 2), _signed(d + d + 1, degree, False))


def _w_trigonometric(shifted):
    def form(d, degree, y, t):
        fallback = _signed(np.ones_like(d), degree, False) if shifted else _w_ends(d, degree, y > 0)
        return np.where(np.cos(t / 2) != 1, np.sin((d + 0.5) * t) / np.sin(t / 2), fallback)

    return form


def _chebyshev(first, ends, trigonometric, above, shifted):
    """A Chebyshev family in y = x (or 2x - 1 when shifted): its value at the ends y = +-1, then its
    trigonometric form for degrees above `above` inside (-1, 1), then the recurrence."""
    argument = _shifted if shifted else _identity

    def special(x, degree, settle):
        plus = x == 1
        minus = x == 0 if shifted else x == -1
        settle(plus | minus, lambda at: ends(degree[at].astype(x.dtype), degree[at], plus[at]))

    def trig(x, degree, settle):
        y = argument(x)

        def values(at):
            return trigonometric(degree[at].astype(x.dtype), degree[at], y[at], np.arccos(y[at]))

        settle((degree > above) & (np.abs(y) < 1), values)

    return _Family(lambda x: first(argument(x)), _chebyshev_step(argument), special, trig)


def _laguerre_special(x, degree, settle):
    settle(x == 0, 1)


def _legendre_special(x, degree, settle):
    settle(np.abs(x) == 1, lambda at: _signed(np.ones_like(x[at]), degree[at], x[at] == 1))


FAMILIES = {
    "chebyshev_polynomial_t": _chebyshev(_identity, _t_ends, _t_trigonometric, 6, shifted=False),
    "chebyshev_polynomial_u": _chebyshev(lambda y: y + y, _u_ends, _u_trigonometric, 8, shifted=False),
    "chebyshev_polynomial_v": _chebyshev(lambda y: y + y - 1, _v_ends, _v_trigonometric, 8, shifted=False),
    "chebyshev_polynomial_w": _chebyshev(lambda y: y + y + 1, _w_ends, _w_trigonometric(False), 8, shifted=False),
    "shifted_chebyshev_polynomial_t": _chebyshev(_identity, _t_ends, _t_trigonometric, 6, shifted=True),
    "shifted_chebyshev_polynomial_u": _chebyshev(lambda y: y + y, _u_ends, _u_trigonometric, 6, shifted=True),
    "shifted_chebyshev_polynomial_v": _chebyshev(lambda y: y + y - 1, _v_ends, _v_trigonometric, 6, shifted=True),
    "shifted_chebyshev_polynomial_w": _chebyshev(lambda y: y + y + 1, _w_ends, _w_trigonometric(True), 4, shifted=True),
    # H_(m+1) = 2x H_m - 2m H_(m-1);  He_(m+1) = x He_m - m He_(m-1)
    "hermite_polynomial_h": _Family(lambda x: x + x, lambda m, x, q, p: (x + x) * q - (2 * m) * p, hermite=True),
    "hermite_polynomial_he": _Family(_identity, lambda m, x, q, p: x * q - m * p, hermite=True),
    # (m+1) L_(m+1) = (2m + 1 - x) L_m - m L_(m-1)
    "laguerre_polynomial_l": _Family(
        lambda x: 1 - x, lambda m, x, q, p: (((m + m) + (1 - x)) * q - m * p) / (m + 1), _laguerre_special
    ),
    # (m+1) P_(m+1) = (2m + 1) x P_m - m P_(m-1)
    "legendre_polynomial_p": _Family(
        _identity, lambda m, x, q, p: ((m + m + 1) * x * q - m * p) / (m + 1), _legendre_special
    ),
}


def evaluate(name, x, n):
    """The polynomial family `name` of degree n at x (arrays of one floating dtype, broadcast)."""
    return FAMILIES[name](x, n)
