"""PyTorch's CPU random engine: a Mersenne Twister (mt19937) seeded from the low 32 bits of the seed.

`manual_seed(s)` then yields PyTorch's raw stream, and the engine's state is stored in PyTorch's
5056-byte layout, so `get_rng_state()` of either library loads into the other. NumPy's MT19937 bit
generator runs the same recurrence in C; only the seeding and the bookkeeping differ (PyTorch counts
`left` and `next`, NumPy one position), so every draw stays vectorized.
"""

from .._backend import np

_WORDS = 624
STATE_BYTES = 5056
# PyTorch's state layout: seed u64 | left i32 | seeded i32 | next u64 | 624 x u64 words |
# normal_x f64 | normal_y f64 (the cached double normal) | normal_rho f64 | normal_is_valid i32 |
# cached float normal f32 | its validity u8 | padding.
_WORDS_AT = 24
_DOUBLE_NORMAL_AT = 5024
_DOUBLE_VALID_AT = 5040
_FLOAT_NORMAL_AT = 5044
_FLOAT_VALID_AT = 5048


class MersenneTwister:
    """The raw stream plus the Box-Muller sample PyTorch caches between scalar normal draws."""

    __slots__ = ("seed", "bit_generator", "next_double_normal", "next_float_normal", "_fresh")

    def __init__(self, seed):
        self.bit_generator = np.random.MT19937()
        self.reseed(seed)

    def reseed(self, seed):
        """Seed as PyTorch's `mt19937(seed)`: Knuth's initialization of the 32-bit seed (NumPy's legacy
        integer seeding is the same recurrence); the words are twisted on the first draw."""
        self.seed = seed
        key = np.random.RandomState(seed & 0xFFFFFFFF).get_state(legacy=False)["state"]["key"]
        self.bit_generator.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": _WORDS}}
        self.next_double_normal = None
        self.next_float_normal = None
        self._fresh = True  # PyTorch reports next=0 (not 624) until the first twist

    def random32(self, count):
        """`count` draws of PyTorch's `random()`: 32-bit words (as uint64)."""
        if count:
            self._fresh = False
        return self.bit_generator.random_raw(count)

    def random64(self, count):
        """`count` draws of PyTorch's `random64()`: two words each, the first in the high half."""
        pairs = self.random32(2 * count).reshape(count, 2)
        return (pairs[:, 0] << np.uint64(32)) | pairs[:, 1]

    def state_bytes(self):
        state = self.bit_generator.state["state"]
        position = int(state["pos"])
        raw = np.zeros(STATE_BYTES, dtype=np.uint8)
        header = raw[:_WORDS_AT]
        header[:8].view(np.uint64)[0] = self.seed
        header[8:16].view(np.int32)[:] = (_WORDS + 1 - position, 1)
        header[16:24].view(np.uint64)[0] = 0 if self._fresh else position
        raw[_WORDS_AT : _WORDS_AT + 8 * _WORDS].view(np.uint64)[:] = state["key"]
        if self.next_double_normal is not None:
            raw[_DOUBLE_NORMAL_AT : _DOUBLE_NORMAL_AT + 8].view(np.float64)[0] = self.next_double_normal
            raw[_DOUBLE_VALID_AT : _DOUBLE_VALID_AT + 4].view(np.int32)[0] = 1
        if self.next_float_normal is not None:
            raw[_FLOAT_NORMAL_AT : _FLOAT_NORMAL_AT + 4].view(np.float32)[0] = self.next_float_normal
            raw[_FLOAT_VALID_AT] = 1
        return raw

    def load_bytes(self, raw):
        """Restore from `state_bytes()` (or PyTorch's `get_rng_state()`), a uint8 array of STATE_BYTES."""
        left, _ = (int(value) for value in raw[8:16].view(np.int32))
        next_word = int(raw[16:24].view(np.uint64)[0])
        if not 1 <= left <= _WORDS or next_word > _WORDS:
            raise RuntimeError(f"set_rng_state: the state is corrupt (left={left}, next={next_word})")
        key = raw[_WORDS_AT : _WORDS_AT + 8 * _WORDS].view(np.uint64).astype(np.uint32)
        position = _WORDS if left == 1 else next_word
        self.bit_generator.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": position}}
        self.seed = int(raw[:8].view(np.uint64)[0])
        self._fresh = left == 1 and next_word == 0
        double_valid = raw[_DOUBLE_VALID_AT : _DOUBLE_VALID_AT + 4].view(np.int32)[0]
        double_normal = raw[_DOUBLE_NORMAL_AT : _DOUBLE_NORMAL_AT + 8].view(np.float64)[0]
        self.next_double_normal = float(double_normal) if double_valid else None
        float_normal = raw[_FLOAT_NORMAL_AT : _FLOAT_NORMAL_AT + 4].view(np.float32)[0]
        self.next_float_normal = float(float_normal) if raw[_FLOAT_VALID_AT] else None
