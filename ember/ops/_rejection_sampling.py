"""PyTorch's CPU samplers whose number of draws per element depends on the draws: gamma
(Marsaglia-Tsang), Poisson (Hoermann's transformed rejection, or multiplying uniforms) and binomial
(BTRS, or inverting the geometric waiting times).

PyTorch runs these one element after another, in the flat order of the output, each pulling double
uniforms (and double normals, with the generator's cached second Box-Muller sample) from the shared
Mersenne Twister until it accepts. Reproducing its stream means doing the same: a Python loop per
element, with the `math` module's functions, which are the C library's that PyTorch's compiled loop
calls (so the arithmetic is the same double arithmetic, operation for operation; where PyTorch
computes in float32 for float tensors, so does this module). `math.lgamma` is CPython's own, not the
C library's: Poisson's final acceptance test could flip on a last-bit difference, which has not been
seen in testing.

The uniforms are read ahead from the engine in blocks (one vectorized call) and the engine is left
exactly after the draws used, by replaying it from the saved state.
"""

import functools
import math
import struct

from .._backend import np
from . import _libm
from ._distribution_kernels import unit_double

__all__ = ["standard_gamma", "poisson", "binomial"]

_ONE_THIRD_FLOAT = float(np.float32(1.0) / np.float32(3.0))  # PyTorch writes 1.0f / 3.0f
_SQUEEZE_FLOAT = float(np.float32(0.0331))  # and 0.0331f
_TAIL_OF_LOG_FACTORIAL = (  # log k! - Stirling's approximation, for k = 0..9
    0.0810614667953272,
    0.0413406959554092,
    0.0276779256849983,
    0.02079067210376509,
    0.0166446911898211,
    0.0138761288230707,
    0.0118967099458917,
    0.0104112652619720,
    0.00925546218271273,
    0.00833056343336287,
)


class _Draws:
    """Double uniforms and normals one at a time, as PyTorch's `uniform_real_distribution<double>`
    and `normal_distribution<double>` give them. Use as a context manager: on exit the engine stands
    just after the uniforms taken, however many were read ahead."""

    def __init__(self, engine, expected):
        self.engine = engine
        self.block_size = max(64, expected)
        self.buffer = []
        self.position = 0
        self.taken_before_buffer = 0

    def __enter__(self):
        self.saved_state = self.engine.bit_generator.state
        self.saved_fresh = self.engine._fresh
        return self

    def __exit__(self, *exc_info):
        taken = self.taken_before_buffer + self.position
        read = self.taken_before_buffer + len(self.buffer)
        if taken != read:
            self.engine.bit_generator.state = self.saved_state
            self.engine._fresh = self.saved_fresh
            self.engine.random64(taken)  # replay: the draws used, no more
        return False

    def uniform(self):
        if self.position == len(self.buffer):
            self.taken_before_buffer += len(self.buffer)
            self.buffer = unit_double(self.engine, self.block_size).tolist()
            self.block_size *= 2
            self.position = 0
        value = self.buffer[self.position]
        self.position += 1
        return value

    def normal(self):
        """Box-Muller on two uniforms (the first sets the angle); the sine sample waits in the engine
        for the next normal draw, as in PyTorch (and in `scalar_normal`)."""
        engine = self.engine
        cached = engine.next_double_normal
        if cached is not None:
            engine.next_double_normal = None
            return cached
        angle_uniform = self.uniform()
        radius = math.sqrt(-2.0 * math.log1p(-self.uniform()))
        theta = 2.0 * math.pi * angle_uniform
        engine.next_double_normal = radius * math.sin(theta)
        return radius * math.cos(theta)


def _log(x):
    """The C library's log, with log(0) = -inf (Python's raises) for the rare zero uniform."""
    return math.log(x) if x > 0 else -math.inf


_SINGLE = struct.Struct("f")


def _float32(value):
    """Round a double to float32 (for +, -, *, / and sqrt of float32 operands this equals the float32
    operation: double has more than twice float's precision, so rounding twice is harmless). Through
    `struct`, three times faster than NumPy scalars; NumPy where struct refuses (overflow to inf)."""
    try:
        return _SINGLE.unpack(_SINGLE.pack(value))[0]
    except OverflowError:
        return float(np.float32(value))


# ---------------------------------------------------------------- gamma
def _gamma_one(alpha, draws, in_float32):
    """One Gamma(alpha, 1) sample: Marsaglia and Tsang's squeeze and log test on d * (1 + c x)^3, with
    alpha < 1 boosted to alpha + 1 and scaled by U^(1 / alpha). `alpha` is of the tensor's type, so
    its own arithmetic is float32 for float tensors; the rest is double, as in PyTorch."""
    if math.isnan(alpha):
        return math.nan
    round_alpha = _float32 if in_float32 else float
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        scale *= math.pow(1.0 - draws.uniform(), round_alpha(1.0 / alpha))
        alpha = round_alpha(alpha + 1.0)
    d = round_alpha(alpha - _ONE_THIRD_FLOAT)
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        y = 0.0
        while y <= 0:
            x = draws.normal()
            y = 1.0 + c * x
        v = y * y * y
        u = 1.0 - draws.uniform()
        xx = x * x
        if u < 1.0 - _SQUEEZE_FLOAT * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + _log(v)):
            return scale * d * v


def standard_gamma(engine, alpha, in_double=False):
    """`torch._standard_gamma` on a flat array of concentrations: one sample each, in alpha's dtype,
    at least its smallest normal number. `in_double=True` is Dirichlet's variant: the samples of float32
    concentrations are drawn and kept in double."""
    in_float32 = alpha.dtype == np.float32 and not in_double
    values = alpha.tolist()
    with _Draws(engine, 2 * len(values)) as draws:
        samples = [_gamma_one(value, draws, in_float32) for value in values]
    dtype = np.float64 if in_double else alpha.dtype
    return np.maximum(np.array(samples, dtype=np.float64).astype(dtype), np.finfo(dtype).tiny)


# ---------------------------------------------------------------- Poisson
def _poisson_one(rate, draws):
    if rate >= 10:
        # Hoermann's transformed rejection (PTRS): a hat function over k = floor((2a/us + b) U + rate + 0.43)
        root = math.sqrt(rate)
        log_rate = math.log(rate)
        b = 0.931 + 2.53 * root
        a = -0.059 + 0.02483 * b
        inverse_alpha = 1.1239 + 1.1328 / (b - 3.4)
        v_r = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = draws.uniform() - 0.5
            v = draws.uniform()
            us = 0.5 - abs(u)
            k = math.floor((2 * a / us + b) * u + rate + 0.43)
            if us >= 0.07 and v <= v_r:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if _log(v) + math.log(inverse_alpha) - math.log(a / (us * us) + b) <= (
                -rate + k * log_rate - math.lgamma(k + 1.0)
            ):
                return k
    if rate == 0:
        return 0
    # Multiply uniforms until the product falls to exp(-rate): the count of factors before that.
    threshold = math.exp(-rate)
    count, product = 0, 1.0
    while True:
        product *= draws.uniform()
        if product <= threshold:
            return count
        count += 1


def poisson(engine, rates):
    """`torch.poisson` on a flat array of rates (each taken as a double): counts in the rates' dtype."""
    values = rates.astype(np.float64).tolist()
    with _Draws(engine, 2 * len(values)) as draws:
        counts = [_poisson_one(rate, draws) for rate in values]
    return np.array(counts, dtype=np.float64).astype(rates.dtype)


# ---------------------------------------------------------------- binomial
def _stirling_tail(k):
    if k <= 9:
        return _TAIL_OF_LOG_FACTORIAL[int(k)]
    square = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / square) / square) / (k + 1)


def _binomial_inversion(count, prob, draws, rounded):
    """Successes before the trials run out, the gaps between successes drawn as geometric variables."""
    log_failure = math.log1p(-prob) if rounded is float else _libm.log1pf(-prob)  # (log1p of the tensor's type)
    total_gaps, successes = 0.0, 0
    while True:
        gap = _log(draws.uniform()) / log_failure
        if gap == math.inf:
            return successes
        total_gaps += math.ceil(gap)
        if total_gaps > count:
            return successes
        successes += 1


@functools.lru_cache(maxsize=1024)  # parameters repeat (an expanded count or probability)
def _btrs_constants(count, prob, rounded):
    """BTRS's hat function for one (count, prob); `rounded` gives the tensor type's arithmetic where
    PyTorch computes on count and prob directly."""
    spread = rounded(math.sqrt(rounded(rounded(count * prob) * rounded(1 - prob))))
    b = 1.15 + 2.53 * spread
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = rounded(count * prob) + 0.5
    v_r = 0.92 - 4.2 / b
    r = rounded(prob / rounded(1 - prob))
    alpha = (2.83 + 5.1 / b) * spread
    m = math.floor(rounded(rounded(count + 1) * prob))
    return a, b, c, v_r, r, alpha, m


def _btrs(count, prob, draws, rounded):
    """Hoermann's BTRS transformed rejection with PyTorch's constants."""
    a, b, c, v_r, r, alpha, m = _btrs_constants(count, prob, rounded)
    while True:
        u = draws.uniform() - 0.5
        v = draws.uniform()
        us = 0.5 - abs(u)
        k = rounded(math.floor((2 * a / us + b) * u + c))
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = _log(v * alpha / (a / (us * us) + b))
        bound = (
            (m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
            + rounded(count + 1) * math.log((count - m + 1) / rounded(count - k + 1))
            + (k + 0.5) * math.log(r * rounded(count - k + 1) / rounded(k + 1))
            + _stirling_tail(m)
            + _stirling_tail(count - m)
            - _stirling_tail(k)
            - _stirling_tail(rounded(count - k))
        )
        if v <= bound:
            return k


def _binomial_one(count, prob, draws, rounded):
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return count
    if prob <= 0.5:
        sampler = _btrs if rounded(count * prob) >= 10.0 else _binomial_inversion
        return sampler(count, prob, draws, rounded)
    if prob > 0.5:
        failure = rounded(1.0 - prob)
        sampler = _btrs if rounded(count * failure) >= 10.0 else _binomial_inversion
        return count - sampler(count, failure, draws, rounded)
    return math.nan


def binomial(engine, counts, probs):
    """`torch.binomial` on flat arrays of counts and probabilities (one dtype): successes, that dtype."""
    rounded = _float32 if counts.dtype == np.float32 else float
    pairs = zip(counts.tolist(), probs.tolist())
    with _Draws(engine, 2 * counts.size) as draws:
        samples = [_binomial_one(count, prob, draws, rounded) for count, prob in pairs]
    return np.array(samples, dtype=np.float64).astype(counts.dtype)
