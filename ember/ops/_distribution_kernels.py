"""PyTorch's CPU sampling kernels, element for element, on the raw stream of `_mersenne`.

Each function returns a flat array of `count` samples in the order PyTorch writes them, so that after
`manual_seed(s)` ember and PyTorch print the same numbers. The transforms are PyTorch's (a float32
uniform keeps 24 bits of one 32-bit draw, a float64 one 53 bits of a 64-bit draw; Box-Muller in blocks
of 16 for contiguous tensors, with a cached second sample for small ones; `random() % range` for
integers), and so is the rounding: where PyTorch's compiled code fuses a multiply and an add into one
FMA, the fused result is reproduced here (`fma_float32`, `fma_float64`).
"""

import math

from .._backend import np

_TWO_POW_53 = 2.0**-53
_MASK_53 = np.uint64(2**53 - 1)


# ---------------------------------------------------------------- exact fused multiply-add
def _two_sum(a, b):
    """`a + b` rounded, and the rounding error (exactly)."""
    total = a + b
    b_part = total - a
    return total, (a - (total - b_part)) + (b - b_part)


def _split(x):
    scaled = 134217729.0 * x  # 2**27 + 1: Veltkamp's split into two 26-bit halves
    high = scaled - (scaled - x)
    return high, x - high


def fma_float64(a, b, c):
    """`a * b + c` with one rounding, as the FMA instruction (product split exactly in two halves)."""
    product = a * b
    a_high, a_low = _split(a)
    b_high, b_low = _split(np.float64(b))
    product_error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    total, sum_error = _two_sum(product, np.float64(c))
    return total + (sum_error + product_error)


def fma_float32(a, b, c):
    """`a * b + c` on float32 values (arrays or numbers) with one rounding. The product is exact in
    float64; rounding the sum there and then to float32 is correct unless the float64 sum landed
    exactly halfway between two float32 values (rare): those few are moved one float64 unit toward the
    exact sum before the final rounding."""
    total = np.multiply(a, b, dtype=np.float64)
    total += c
    bits = total.view(np.int64)
    halfway = (bits & _BELOW_FLOAT32) == _FLOAT32_HALF_UNIT
    if halfway.any():
        where = np.flatnonzero(halfway)
        a, b, c = (np.broadcast_to(np.asarray(x, dtype=np.float64), total.shape).ravel()[where] for x in (a, b, c))
        _, error = _two_sum(a * b, c)
        bits.ravel()[where] += np.sign(error * total.ravel()[where]).astype(np.int64)
    return total.astype(np.float32)


_BELOW_FLOAT32 = np.int64(2**29 - 1)  # the float64 mantissa bits a float32 drops
_FLOAT32_HALF_UNIT = np.int64(2**28)


# ---------------------------------------------------------------- uniform
def unit_double(engine, count):
    """[0, 1) doubles from the low 53 bits of `random64()`."""
    return (engine.random64(count) & _MASK_53).astype(np.float64) * _TWO_POW_53


def _unit_narrow(engine, count, digits):
    """[0, 1) from the low `digits` bits of `random()`, in float32 (PyTorch's accumulate type)."""
    bits = engine.random32(count) & np.uint64((1 << digits) - 1)
    return bits.astype(np.float32) * np.float32(2.0**-digits)


def uniform(engine, count, dtype, low=0.0, high=1.0):
    """`uniform_(low, high)`: `x * (high - low) + low` in the tensor's type (float32 for half types)."""
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        unit = unit_double(engine, count)
        return unit if (low, high) == (0.0, 1.0) else fma_float64(unit, float(high) - float(low), float(low))
    unit = _unit_narrow(engine, count, np.finfo(dtype).nmant + 1)
    low, high = dtype.type(low), dtype.type(high)
    if (low, high) == (0, 1):
        return unit.astype(dtype)
    span = np.float32(dtype.type(np.float32(high) - np.float32(low)))
    return fma_float32(unit, span, np.float32(low)).astype(dtype)


# ---------------------------------------------------------------- normal
def normal(engine, count, dtype, mean=0.0, std=1.0, contiguous=True):
    """`normal_(mean, std)`: Box-Muller in blocks of 16 for contiguous tensors of 16 or more elements,
    else one double pair at a time (the second sample cached in the generator)."""
    dtype = np.dtype(dtype)
    if count < 16 or not contiguous or dtype not in (np.float32, np.float64):
        return scalar_normal(engine, count, mean, std).astype(dtype)
    if dtype == np.float32:
        draw, transform = (lambda n: _unit_narrow(engine, n, 24)), _box_muller_float32
        mean, std = np.float32(mean), np.float32(std)
    else:
        draw, transform = (lambda n: unit_double(engine, n)), _box_muller_float64
    whole = count - count % 16
    values = np.empty(count, dtype=dtype)
    unit = draw(count)
    for start in range(0, whole, _CHUNK):  # chunks keep the many temporaries in cache
        stop = min(start + _CHUNK, whole)
        values[start:stop] = transform(unit[start:stop].reshape(-1, 16), mean, std).ravel()
    if whole != count:  # PyTorch redraws the last 16 and transforms them again
        values[count - 16 :] = transform(draw(16).reshape(1, 16), mean, std).ravel()
    return values


_CHUNK = 16 * 4096


def _box_muller_float64(unit, mean, std):
    radius = np.sqrt(-2.0 * np.log(1.0 - unit[:, :8]))
    theta = 2.0 * math.pi * unit[:, 8:]
    pair = np.concatenate([radius * np.cos(theta), radius * np.sin(theta)], axis=1)
    return pair if (mean, std) == (0.0, 1.0) else fma_float64(pair, std, mean)


def _box_muller_float32(unit, mean, std):
    """PyTorch's AVX2 kernel (also what AVX-512 machines run): Cephes-style float32 log and sincos."""
    radius = np.sqrt(np.float32(-2.0) * _log_float32(np.float32(1.0) - unit[:, :8]))
    sine, cosine = _sincos_float32(np.float32(2.0 * math.pi) * unit[:, 8:])
    pair = np.concatenate([radius * cosine, radius * sine], axis=1)
    return pair if (mean, std) == (0, 1) else fma_float32(pair, std, mean)


_LOG_POLYNOMIAL = np.array(
    [7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1, -1.6668057665e-1]
    + [2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1],
    dtype=np.float32,
)
_LOG2_LOW, _LOG2_HIGH = np.float32(-2.12194440e-4), np.float32(0.693359375)


def _log_float32(x):
    """Natural log of positive normal float32 values with the operations (and FMAs) of PyTorch's
    vectorized `log256_ps`: exponent and mantissa in [sqrt(1/2), sqrt(2)), then a degree-9 polynomial."""
    bits = x.view(np.int32)
    exponent = ((bits >> 23) - 126).astype(np.float32)
    mantissa = ((bits & ~0x7F800000) | 0x3F000000).view(np.float32)
    small = mantissa < np.float32(0.707106781186547524)
    exponent = exponent - small.astype(np.float32)
    mantissa = (mantissa - np.float32(1.0)) + np.where(small, mantissa, np.float32(0.0))
    square = mantissa * mantissa
    poly = np.full_like(mantissa, _LOG_POLYNOMIAL[0])
    for coefficient in _LOG_POLYNOMIAL[1:]:
        poly = fma_float32(poly, mantissa, coefficient)
    poly = fma_float32(poly * mantissa, square, exponent * _LOG2_LOW)
    poly = poly - square * np.float32(0.5)
    return fma_float32(exponent, _LOG2_HIGH, mantissa + poly)


_PI_PARTS = np.array([-0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8], dtype=np.float32)
_COS_POLYNOMIAL = np.array([2.443315711809948e-005, -1.388731625493765e-003, 4.166664568298827e-002], np.float32)
_SIN_POLYNOMIAL = np.array([-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1], dtype=np.float32)


def _sincos_float32(x):
    """Sine and cosine of non-negative float32 angles as PyTorch's `sincos256_ps` computes them: reduce
    by multiples of pi/4 in three parts, then one polynomial per octant."""
    octant = (x * np.float32(1.27323954473516)).astype(np.int32)
    octant = (octant + 1) & ~1
    y = octant.astype(np.float32)
    for part in _PI_PARTS:
        x = fma_float32(y, part, x)
    square = x * x
    cosine = np.full_like(x, _COS_POLYNOMIAL[0])
    for coefficient in _COS_POLYNOMIAL[1:]:
        cosine = fma_float32(cosine, square, coefficient)
    cosine = fma_float32(cosine * square, square, -(square * np.float32(0.5))) + np.float32(1.0)
    sine = np.full_like(x, _SIN_POLYNOMIAL[0])
    for coefficient in _SIN_POLYNOMIAL[1:]:
        sine = fma_float32(sine, square, coefficient)
    sine = fma_float32(sine * square, x, x)
    use_sine_polynomial = (octant & 2) == 0
    sine, cosine = np.where(use_sine_polynomial, sine, cosine), np.where(use_sine_polynomial, cosine, sine)
    sine = np.where((octant & 4) != 0, -sine, sine)
    cosine = np.where((~(octant - 2) & 4) != 0, -cosine, cosine)
    return sine, cosine


def scalar_normal(engine, count, mean=0.0, std=1.0):
    """PyTorch's one-at-a-time normal in double: each pair of draws gives `r cos` now and `r sin` for
    the next call (kept in the engine, so it survives across tensors, as in PyTorch)."""
    values = np.empty(count, dtype=np.float64)
    start = 0
    if count and engine.next_double_normal is not None:
        values[0] = engine.next_double_normal
        engine.next_double_normal = None
        start = 1
    pairs = (count - start + 1) // 2
    unit = unit_double(engine, 2 * pairs).reshape(pairs, 2)
    radius = np.sqrt(-2.0 * np.log1p(-unit[:, 1]))
    theta = 2.0 * math.pi * unit[:, 0]
    drawn = np.stack([radius * np.cos(theta), radius * np.sin(theta)], axis=1).ravel()
    values[start:] = drawn[: count - start]
    if drawn.size > count - start:
        engine.next_double_normal = float(drawn[-1])
    return values if (mean, std) == (0.0, 1.0) else fma_float64(values, float(std), float(mean))


# ---------------------------------------------------------------- other real distributions (double, then cast)
def exponential(engine, count, rate):
    return (-1.0 / rate) * np.log1p(-unit_double(engine, count))


def geometric(engine, count, p):
    return np.ceil(np.log(unit_double(engine, count)) / np.log1p(-p))


def cauchy(engine, count, median, sigma):
    return fma_float64(np.tan(math.pi * (unit_double(engine, count) - 0.5)), float(sigma), float(median))


def log_normal(engine, count, mean, std):
    return np.exp(scalar_normal(engine, count, mean, std))


# ---------------------------------------------------------------- Bernoulli
def bernoulli_scalar(engine, count, p):
    """`bernoulli_(p)` with a number p: a double uniform below p. PyTorch 2.13 draws so on Intel CPUs
    too (checked on a Xeon with MKL enabled): its MKL MCG31 branch is not taken for these fills."""
    return unit_double(engine, count) < p


def bernoulli_tensor(engine, probabilities):
    """`bernoulli_(p)` with a tensor p (already broadcast, flat): double draws for float64 p, float32
    ones (24 bits) otherwise."""
    if probabilities.dtype == np.float64:
        return unit_double(engine, probabilities.size) < probabilities
    return _unit_narrow(engine, probabilities.size, 24) < probabilities.astype(np.float32)


# ---------------------------------------------------------------- integers
def random_from_to(engine, count, dtype, span, low):
    """`random_(low, low + span)`: `draw % span + low`, the draw 64 bits wide from spans of 2**28 on
    (PyTorch 2.13's threshold, found by experiment: it keeps the modulo bias small)."""
    raw = engine.random64(count) if span >= 2**28 else engine.random32(count)
    shifted = (raw % np.uint64(span)) + np.uint64(low % 2**64)  # wraps as PyTorch's unsigned sum
    return shifted.view(np.int64).astype(dtype)


def random_full_range(engine, count, dtype):
    """`random_(-2**63)`: every int64 equally likely."""
    return engine.random64(count).view(np.int64).astype(dtype)


def random_default(engine, count, dtype):
    """`random_()`: [0, 2**mantissa] for floating types, [0, max] for integers, 0/1 for bool."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return (engine.random32(count) & np.uint64(1)).astype(bool)
    if dtype.kind in "fV":
        span = (1 << (np.finfo(dtype).nmant + 1)) + 1
        raw = engine.random64(count) if dtype == np.float64 else engine.random32(count)
        return (raw % np.uint64(span)).astype(dtype)
    span = int(np.iinfo(dtype).max) + 1
    raw = engine.random64(count) if dtype == np.int64 else engine.random32(count)
    return (raw % np.uint64(span)).astype(dtype)


def randperm(engine, n):
    """PyTorch's Fisher-Yates shuffle: position i swaps with i + random() % (n - i). The draws are
    vectorized; the swaps depend on each other, so they run as a plain loop over Python ints."""
    if n < 2:
        return np.arange(n, dtype=np.int64)
    offsets = (engine.random32(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).tolist()
    order = list(range(n))
    for position, offset in enumerate(offsets):
        other = position + offset
        order[position], order[other] = order[other], order[position]
    return np.array(order, dtype=np.int64)


# ---------------------------------------------------------------- multinomial
def multinomial_cumulative(rows):
    """Each row's running sum (in the weights' type, left to right) divided by its total, the last
    entry set to exactly 1: what PyTorch searches for each sample with replacement."""
    cumulative = np.cumsum(rows, axis=-1)
    cumulative /= cumulative[..., -1:]
    cumulative[..., -1] = 1
    return cumulative


def multinomial_pick(cumulative_row, unit):
    """The first category whose cumulative weight reaches each uniform double."""
    return np.searchsorted(cumulative_row.astype(np.float64), unit, side="left")


def multinomial_with_replacement(engine, rows, num_samples):
    """Per row, in row order: for each sample one double uniform, searched in the running sums."""
    cumulative = multinomial_cumulative(rows)
    unit = unit_double(engine, rows.shape[0] * num_samples).reshape(rows.shape[0], num_samples)
    return np.stack([multinomial_pick(row, draws) for row, draws in zip(cumulative, unit)]).astype(np.int64)


def multinomial_without_replacement(engine, rows, num_samples):
    """PyTorch's exponential race: the categories with the largest `weight / Exp(1)` win."""
    race = rows / exponential(engine, rows.size, 1.0).astype(rows.dtype).reshape(rows.shape)
    if num_samples == 1:
        return np.argmax(race, axis=1)[:, None]
    return np.argsort(-race, axis=1, kind="stable")[:, :num_samples]
