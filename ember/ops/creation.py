"""Creating tensors: from data, filled, ranges, random (one seedable generator)."""

import math
import numbers
import os

from .._backend import np, to_device
from .._tensor import Tensor, new_tensor
from .. import _dtype, _float_errors, _naming
from .._validation import int_argument, size_argument, check_python_ints, check_fits, rectangular_shape, allocate
from ._common import as_tensor as _to_tensor
from ._declare import op
from . import _distribution_kernels as kernels
from .._warn import warn as _warn

__all__ = [
    "tensor",
    "as_tensor",
    "from_numpy",
    "zeros",
    "ones",
    "full",
    "empty",
    "eye",
    "arange",
    "frombuffer",
    "linspace",
    "logspace",
    "zeros_like",
    "ones_like",
    "full_like",
    "empty_like",
    "rand",
    "randn",
    "randint",
    "randperm",
    "rand_like",
    "randn_like",
    "randint_like",
    "normal",
    "bernoulli",
    "multinomial",
    "manual_seed",
    "seed",
    "initial_seed",
    "Generator",
    "default_generator",
    "get_rng_state",
    "set_rng_state",
    "scalar_tensor",
    "empty_strided",
    "empty_permuted",
    "asarray",
]


# ---------------------------------------------------------------- random numbers
class Generator:
    """A source of random numbers: PyTorch's CPU Mersenne Twister, so that `manual_seed(s)` gives the
    numbers PyTorch gives and a state from `get_state()` loads into either library."""

    def __init__(self, device="cpu"):
        self._seed = 67280421310721
        self._engine = None
        self._numpy = None
        self.device = to_device(device)

    @property
    def engine(self):
        """The Mersenne Twister, made on first use: importing numpy.random is a noticeable share of
        `import ember`."""
        if self._engine is None:
            from ._mersenne import MersenneTwister

            self._engine = MersenneTwister(self._seed)
        return self._engine

    @property
    def rng(self):
        """A NumPy `Generator` drawing from this generator's stream, for samplers PyTorch has no
        kernel-for-kernel match of (they advance the same state)."""
        if self._numpy is None:
            self._numpy = np.random.Generator(self.engine.bit_generator)
        return self._numpy

    def manual_seed(self, seed):
        """Reseed this generator (returns it, so `Generator().manual_seed(0)` chains)."""
        if not isinstance(seed, numbers.Integral):
            seed = int(seed)
        if not -(2**63) <= seed < 2**64:
            raise ValueError(f"manual_seed: the seed {seed} does not fit in 64 bits (signed or unsigned)")
        self._seed = int(seed) % 2**64
        if self._engine is not None:
            self._engine.reseed(self._seed)
        return self

    def seed(self):
        """Reseed from the operating system's randomness; returns the new seed."""
        import secrets

        return self.manual_seed(secrets.randbits(64))._seed

    def initial_seed(self):
        """The seed this generator was last seeded with."""
        return self._seed

    def get_state(self):
        """The state as a uint8 tensor in PyTorch's layout (5056 bytes: seed, the 624 Mersenne words and
        their position, the cached normal sample): plain numbers, so a state read from a file can never
        run code."""
        return new_tensor(self.engine.state_bytes())

    def set_state(self, new_state):
        """Restore a state `get_state` returned (a uint8 tensor of 5056 bytes, PyTorch's layout). Returns self."""
        if not isinstance(new_state, Tensor) or new_state.dtype != _dtype.uint8 or new_state.numel() != _STATE_BYTES:
            raise RuntimeError(
                f"Generator.set_state: expected a torch.uint8 tensor of {_STATE_BYTES} elements "
                "from get_state()/get_rng_state(), got "
                f"{new_state.dtype if isinstance(new_state, Tensor) else type(new_state).__name__}"
                f"{'' if not isinstance(new_state, Tensor) else f' of {new_state.numel()} elements'}"
            )
        self.engine.load_bytes(np.ascontiguousarray(new_state._data).reshape(-1))
        self._seed = self.engine.seed
        return self


_STATE_BYTES = 5056  # PyTorch's CPU generator state
# PyTorch seeds its default generator from the operating system at start-up, so that an unseeded
# script draws new numbers on every run (a `Generator()` made later starts from the fixed seed).
default_generator = Generator()
default_generator._seed = int.from_bytes(os.urandom(8), "little")


@op()
def manual_seed(seed):
    """Seed the default generator (returns it, as PyTorch does)."""
    return default_generator.manual_seed(seed)


@op()
def seed():
    """Seed the default generator from the operating system's randomness; returns the seed."""
    return default_generator.seed()


@op()
def initial_seed():
    """The seed the default generator was last seeded with."""
    return default_generator.initial_seed()


@op()
def get_rng_state():
    """The default generator's state as a uint8 tensor, for `set_rng_state`: PyTorch's layout, so a
    state saved by either library restores the same stream in the other."""
    return default_generator.get_state()


@op()
def set_rng_state(state):
    """Restore the default generator to a state `get_rng_state` returned."""
    default_generator.set_state(state)


def _rng(generator):
    return (generator or default_generator).rng


def _engine(generator):
    return (generator or default_generator).engine


# ---------------------------------------------------------------- helpers
def parse_size(size, op_name):
    shape = size_argument(size, op_name)
    for length in shape:
        if length < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {length}: {list(shape)}")
    return shape


def _filled(make, shape, numpy_dtype):
    """np.zeros / np.ones / np.empty of `shape`, with PyTorch's error when memory runs out."""
    return allocate(make, shape, numpy_dtype, numpy_dtype)


def _finish(array, requires_grad, device=None, out=None):
    to_device(device)
    result = new_tensor(array)
    if requires_grad:
        result.requires_grad_(True)
    if out is not None:
        from .inplace import copy_into_out

        return copy_into_out(out, result)
    return result


def _float_dtype(dtype):
    return (_dtype.to_dtype(dtype) if dtype is not None else _dtype.get_default_dtype()).numpy_dtype


# ---------------------------------------------------------------- from data
@op()
def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of `data` (numbers, nested lists, arrays or tensors).

    Python floats give the default dtype (float32), ints int64, bools bool; a NumPy array keeps its dtype.
    """
    if isinstance(data, Tensor):
        _warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
            f"sourceTensor.detach().clone().requires_grad_(True), rather than {_naming.package}.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
        array = data._data.copy()
        if dtype is not None:
            array = array.astype(_dtype.to_dtype(dtype).numpy_dtype)
    else:
        token = _float_errors.quiet()  # values beyond float16's range become inf quietly, as in PyTorch
        try:
            array = _array_from_data(data, dtype)
        finally:
            _float_errors.restore(token)
    return _finish(array, requires_grad, device)


def _array_from_data(data, dtype):
    if dtype is not None:
        target = _dtype.to_dtype(dtype).numpy_dtype
        if isinstance(data, np.ndarray):
            return np.array(data, dtype=target)
        if isinstance(data, (list, tuple)):
            data = _unwrap_nested(data)
        if target.kind in "fcV":
            return _python_array(data, target)
        array = _python_array(data)
        check_fits(array, target, "tensor")
        return array.astype(target)
    if isinstance(data, np.ndarray):
        _dtype.from_numpy_dtype(data.dtype)  # TypeError for unsupported dtypes
        return data.copy()
    if isinstance(data, (list, tuple)):
        data = _unwrap_nested(data)
    array = _python_array(data)
    if array.dtype.kind in "fV" and not isinstance(data, np.generic):
        return array.astype(_dtype.get_default_dtype().numpy_dtype)
    if array.dtype.kind == "c" and not isinstance(data, np.generic):
        return array.astype(_dtype.get_default_dtype().to_complex().numpy_dtype)
    if array.dtype.kind in "iu" and not isinstance(data, np.generic):
        return array.astype(np.int64)
    if array.dtype.kind in "OUS":
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    return array


def _python_array(data, numpy_dtype=None):
    """`np.array(data)` for Python numbers and nested lists, with PyTorch's errors where NumPy would
    guess: ragged lists, and ints outside int64 (NumPy makes them uint64, float64 or objects)."""
    try:
        array = np.array(data, dtype=numpy_dtype)
    except ValueError:
        rectangular_shape(data)
        raise
    except OverflowError:
        check_python_ints(data)
        raise
    # NumPy gives float64 for pure ints only when one is >= 2**63 (uint64's range) beside a negative one;
    # a float first element means a float tensor in PyTorch too, whatever the ints hold.
    if numpy_dtype is None and (
        array.dtype.kind in "uO"
        or array.dtype.kind in "fV"
        and array.size
        and not isinstance(_first_number(data), float)
        and np.maximum.reduce(array, axis=None) >= 2.0**63
    ):
        if check_python_ints(data) and array.dtype.kind == "O":
            array = np.array(data, dtype=np.complex128 if _holds_complex(data) else np.float64)
    return array


def _first_number(data):
    while isinstance(data, (list, tuple)) and data:
        data = data[0]
    return data


def _holds_complex(data):
    return any(
        _holds_complex(item) if isinstance(item, (list, tuple)) else isinstance(item, complex)
        for item in (data if isinstance(data, (list, tuple)) else [data])
    )


def _unwrap_nested(data):
    """Tensors inside lists (`tensor([t1, t2])`) become their values."""
    items = []
    for item in data:
        if isinstance(item, Tensor):
            if item._requires_grad:
                item = item.detach()
            items.append(item._data)
        elif isinstance(item, (list, tuple)):
            items.append(_unwrap_nested(item))
        else:
            items.append(item)
    return items


@op()
def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """A tensor from `obj`, sharing memory with a tensor or NumPy array when the dtype matches (as `as_tensor`).

    `copy` and `requires_grad` are accepted for PyTorch's signature; use `ember.tensor` for a copy.
    """
    return as_tensor(obj, dtype=dtype, device=device)


@op()
def as_tensor(data, dtype=None, device=None):
    """Like `tensor`, but shares memory with a tensor or NumPy array when the dtype already matches."""
    to_device(device)
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or _dtype.to_dtype(dtype).numpy_dtype == data.dtype):
        _dtype.from_numpy_dtype(data.dtype)
        return new_tensor(data)
    return tensor(data, dtype=dtype)


@op()
def from_numpy(array):
    """A tensor on the same memory as `array` (changes to one show in the other)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    _dtype.from_numpy_dtype(array.dtype)
    return new_tensor(array)


@op()
def scalar_tensor(value, *, dtype=None, device=None, requires_grad=False):
    """A 0-d tensor holding `value` (the default float dtype unless `dtype` is given)."""
    return full((), value, dtype=dtype or _dtype.get_default_dtype(), device=device, requires_grad=requires_grad)


# ---------------------------------------------------------------- filled
@op()
def zeros(*size, dtype=None, device=None, requires_grad=False, out=None, layout=None, pin_memory=False):
    """A tensor of the given size filled with 0 (the default float dtype unless `dtype` is given).

    The size may be given as separate numbers or one sequence: `zeros(2, 3)`, `zeros((2, 3))`.
    """
    return _finish(_filled(np.zeros, parse_size(size, "zeros"), _float_dtype(dtype)), requires_grad, device, out)


@op()
def ones(*size, dtype=None, device=None, requires_grad=False, out=None, layout=None, pin_memory=False):
    """A tensor of the given size filled with 1 (the default float dtype unless `dtype` is given)."""
    return _finish(_filled(np.ones, parse_size(size, "ones"), _float_dtype(dtype)), requires_grad, device, out)


@op()
def empty(
    *size, dtype=None, device=None, requires_grad=False, out=None, layout=None, pin_memory=False, memory_format=None
):
    """A tensor of the given size whose values are not set (whatever the memory held)."""
    return _finish(_filled(np.empty, parse_size(size, "empty"), _float_dtype(dtype)), requires_grad, device, out)


@op()
def empty_permuted(
    size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False
):
    """An uninitialized tensor of `size` whose dims lie in memory in the order `physical_layout`
    (outermost first): `empty_permuted((N, C, H, W), (0, 2, 3, 1))` is channels-last."""
    size = parse_size((size,), "empty_permuted")
    order = [int(dim) for dim in physical_layout]
    if len(order) != len(size):
        raise RuntimeError(
            "Number of dimensions in size does not match the length of the physical_layout; i.e. "
            f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(order)}"
        )
    for position, dim in enumerate(order):
        if not 0 <= dim < len(size):
            raise RuntimeError(
                f"Dimension out of range (expected to be between 0 and {len(size) - 1}, but got {dim} at index "
                f"{position}).  NB: negative dims not currently supported; file an issue if you want it."
            )
    if len(set(order)) != len(order):
        raise RuntimeError(f"Duplicate dim not allowed (physical_layout={tuple(order)})")
    memory = np.empty([size[dim] for dim in order], dtype=_float_dtype(dtype))
    return _finish(memory.transpose(np.argsort(order)), requires_grad, device)


@op()
def empty_strided(size, stride, *, dtype=None, device=None, requires_grad=False):
    """An uninitialized tensor of `size`; `stride` is accepted and ignored (ember's new tensors are contiguous)."""
    return empty(size, dtype=dtype, device=device, requires_grad=requires_grad)


@op()
def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, out=None, layout=None):
    """A tensor of `size` filled with `fill_value` (its type picks the dtype when `dtype` is None)."""
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if dtype is None:
        dtype = (
            _dtype.get_default_dtype()
            if isinstance(fill_value, float)
            else _dtype.int64
            if type(fill_value) is int
            else _to_tensor(fill_value).dtype
        )
    shape = parse_size((size,), "full")
    numpy_dtype = _dtype.to_dtype(dtype).numpy_dtype
    check_fits(fill_value, numpy_dtype, "full")
    if numpy_dtype.kind in "iu" and isinstance(fill_value, (int, float)):  # as PyTorch: -1 is 255 in uint8
        fill_value = np.asarray(fill_value).astype(numpy_dtype)
    return _finish(allocate(np.full, shape, numpy_dtype, fill_value, numpy_dtype), requires_grad, device, out)


@op()
def eye(n, m=None, *, dtype=None, device=None, requires_grad=False, out=None):
    """An `n` x `m` matrix (`m` defaults to `n`) with ones on the diagonal."""
    n = int_argument(n, "eye", "n", 1)
    m = n if m is None else int_argument(m, "eye", "m", 2)
    if n < 0 or m < 0:
        raise RuntimeError(f"eye(): n and m must be greater or equal to 0, got n={n}, m={m}")
    numpy_dtype = _float_dtype(dtype)
    return _finish(
        allocate(lambda shape: np.eye(*shape, dtype=numpy_dtype), (n, m), numpy_dtype), requires_grad, device, out
    )


def _like(input, dtype):
    return (_dtype.to_dtype(dtype) if dtype is not None else input.dtype).numpy_dtype


@op()
def zeros_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None):
    """Zeros with the shape (and, unless `dtype` is given, the dtype) of `input`."""
    return _finish(_filled(np.zeros, input._data.shape, _like(input, dtype)), requires_grad, device)


@op()
def ones_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None):
    """Ones with the shape (and, unless `dtype` is given, the dtype) of `input`."""
    return _finish(_filled(np.ones, input._data.shape, _like(input, dtype)), requires_grad, device)


@op()
def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    """`fill_value` everywhere, with the shape (and, unless `dtype` is given, the dtype) of `input`."""
    return full(input._data.shape, fill_value, dtype=_like(input, dtype), device=device, requires_grad=requires_grad)


@op()
def empty_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None, layout=None):
    """An uninitialized tensor with the shape (and, unless `dtype` is given, the dtype) of `input`."""
    return _finish(_filled(np.empty, input._data.shape, _like(input, dtype)), requires_grad, device)


# ---------------------------------------------------------------- ranges
@op()
def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False, out=None):
    """Values from `start` up to (not including) `end`; int64 for integer arguments, else float32."""
    if end is None:
        start, end = 0, start
    values = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if step == 0:
        raise RuntimeError("arange: step must be nonzero")
    if dtype is None:
        integral = all(isinstance(v, numbers.Integral) for v in values)
        dtype = _dtype.int64 if integral else _dtype.get_default_dtype()
    dtype = _dtype.to_dtype(dtype)
    if not (dtype.is_floating_point or dtype.is_complex) and int(values[2]) == 0:
        raise ValueError(f"arange: step must be nonzero (step {values[2]} is 0 as {dtype})")
    if (values[1] - values[0]) * values[2] < 0:
        raise RuntimeError(
            f"upper bound and lower bound inconsistent with step sign (arange({values[0]}, {values[1]}, {values[2]}))"
        )
    # Computed in float64 then cast, so float32 ranges have PyTorch's length and values.
    length = _range_length(*values)
    check_fits(values[:2] if length else values[:1], dtype.numpy_dtype, "arange")
    array = allocate(
        lambda shape: np.arange(*values, dtype=np.float64 if dtype.is_floating_point else None),
        (length,),
        dtype.numpy_dtype,
    )
    return _finish(array.astype(dtype.numpy_dtype, copy=False), requires_grad, device, out)


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor on the memory of a Python buffer (bytes, bytearray, memoryview, array.array): no
    copy, so writes to a writable buffer show in the tensor (a read-only one, such as bytes, is copied)."""
    dtype = _dtype.to_dtype(dtype)
    view = memoryview(buffer)
    if view.nbytes == 0 or offset >= view.nbytes:
        raise ValueError(
            f"both buffer length ({view.nbytes}) and offset ({offset}) must be greater than 0; the offset must be "
            "smaller than the buffer length"
        )
    array = np.frombuffer(buffer, dtype=dtype.numpy_dtype, count=count, offset=offset)
    if view.readonly:
        array = array.copy()  # NumPy will not write to read-only memory; PyTorch would (and warns)
    return new_tensor(array).requires_grad_(requires_grad)


def _range_length(start, end, step):
    """How many values arange gives (checked for its allocation before NumPy makes them)."""
    import math

    length = math.ceil((end - start) / step)
    return max(int(length), 0)


@op()
def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, out=None):
    """`steps` evenly spaced values from `start` to `end`, both included.

    Computed in float64 and then cast, so float32 values are the float64 ones rounded once.
    """
    steps = _steps(steps, "linspace")
    array = allocate(lambda shape: np.linspace(start, end, *shape), (steps,), np.float64)
    return _finish(array.astype(_float_dtype(dtype)), requires_grad, device, out)


@op()
def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False, out=None):
    """`steps` values from `base ** start` to `base ** end`, evenly spaced in the exponent."""
    steps = _steps(steps, "logspace")
    array = allocate(lambda shape: np.logspace(start, end, *shape, base=base), (steps,), np.float64)
    return _finish(array.astype(_float_dtype(dtype)), requires_grad, device, out)


def _steps(steps, op_name):
    steps = int_argument(steps, op_name, "steps", 3)
    if steps < 0:
        raise RuntimeError(f"{op_name}(): number of steps must be non-negative, got {steps}")
    return steps


# ---------------------------------------------------------------- random
def _sample(draw, shape, numpy_dtype, device=None):
    """`draw(count)` (a flat array of PyTorch's samples in order) shaped as `shape`. The device is
    checked first: a refused one draws nothing, so the generator's stream goes on as PyTorch's does."""
    to_device(device)
    return allocate(lambda shape: draw(math.prod(shape)).reshape(shape), shape, numpy_dtype)


@op()
def rand(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None, layout=None, pin_memory=False):
    """Uniform samples from [0, 1)."""
    shape = parse_size(size, "rand")
    numpy_dtype = _float_dtype(dtype)
    if numpy_dtype.kind == "c":  # real and imaginary parts each uniform, drawn interleaved, as PyTorch
        real_dtype = np.empty(0, numpy_dtype).real.dtype
        parts = _sample(
            lambda count: kernels.uniform(_engine(generator), count, real_dtype),
            tuple(shape) + (2,),
            real_dtype,
            device,
        )
        return _finish(parts.view(numpy_dtype)[..., 0], requires_grad, device, out)
    samples = _sample(lambda count: kernels.uniform(_engine(generator), count, numpy_dtype), shape, numpy_dtype, device)
    return _finish(samples, requires_grad, device, out)


@op()
def randn(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None, layout=None, pin_memory=False):
    """Samples from the standard normal distribution."""
    shape = parse_size(size, "randn")
    numpy_dtype = _float_dtype(dtype)
    if numpy_dtype.kind == "c":  # real and imaginary parts each of variance 1/2, as PyTorch
        real_dtype = np.empty(0, numpy_dtype).real.dtype
        parts = _sample(
            lambda count: kernels.normal(_engine(generator), count, real_dtype), tuple(shape) + (2,), real_dtype, device
        )
        return _finish((parts * real_dtype.type(np.sqrt(0.5))).view(numpy_dtype)[..., 0], requires_grad, device, out)
    samples = _sample(lambda count: kernels.normal(_engine(generator), count, numpy_dtype), shape, numpy_dtype, device)
    return _finish(samples, requires_grad, device, out)


@op()
def randint(low=0, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    """Integers from [low, high); `randint(high, size)` and `randint(low, high, size)` both work."""
    if size is None:
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    if high is None:
        raise TypeError("randint() missing the required argument 'high'")
    shape = parse_size((size,), "randint")
    low, high = int_argument(low, "randint", "low"), int_argument(high, "randint", "high")
    check_python_ints([low, high])
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    numpy_dtype = (_dtype.to_dtype(dtype) if dtype is not None else _dtype.int64).numpy_dtype
    samples = _sample(
        lambda count: kernels.random_from_to(_engine(generator), count, numpy_dtype, high - low, low),
        shape,
        numpy_dtype,
        device,
    )
    return _finish(samples, requires_grad, device)


@op()
def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    """A random permutation of `0 .. n-1` (int64 unless `dtype` is given)."""
    dtype = _dtype.to_dtype(dtype) if dtype is not None else _dtype.int64
    n = parse_size((int_argument(n, "randperm", "n", 1),), "randperm")[0]
    permutation = allocate(lambda shape: kernels.randperm(_engine(generator), n), (n,), np.int64)
    return _finish(permutation.astype(dtype.numpy_dtype), requires_grad, device)


@op()
def rand_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    """Uniform samples from [0, 1) with the shape and dtype of `input`."""
    return rand(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


@op()
def randn_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    """Standard normal samples with the shape and dtype of `input`."""
    return randn(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


@op()
def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False):
    """Integers from [low, high) with the shape and dtype of `input` (`randint_like(x, high)` works)."""
    if high is None:
        low, high = 0, low
    return randint(low, high, input.shape, dtype=dtype or input.dtype)


@op()
def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None, requires_grad=False, out=None):
    """Normal samples; `mean` and `std` may be tensors (broadcast) or numbers (then give `size`).
    As PyTorch: standard (or N(0, std) for a number std) samples, then scaled by a tensor std and
    shifted by the mean, one rounding per step."""
    mean_array = mean._data if isinstance(mean, Tensor) else mean
    std_array = std._data if isinstance(std, Tensor) else std
    if isinstance(std, Tensor) and bool(np.any(std_array < 0)):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if size is None:
        shape = np.broadcast_shapes(np.shape(mean_array), np.shape(std_array))
    else:
        shape = parse_size((size,), "normal")
    reference = mean if isinstance(mean, Tensor) else std if isinstance(std, Tensor) else None
    numpy_dtype = _float_dtype(dtype if dtype is not None else (reference.dtype if reference is not None else None))
    if reference is None:
        draw_mean, draw_std = mean, std
    else:
        draw_mean, draw_std = 0.0, (1.0 if isinstance(std, Tensor) else std)
    engine = _engine(generator)
    samples = _sample(lambda count: kernels.normal(engine, count, numpy_dtype, draw_mean, draw_std), shape, numpy_dtype)
    if isinstance(std, Tensor):
        samples = samples * std_array.astype(numpy_dtype, copy=False)
    if reference is not None:
        samples = samples + np.asarray(mean_array, dtype=numpy_dtype)
    return _finish(np.asarray(samples, dtype=numpy_dtype), requires_grad, device, out)


@op()
def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples with probabilities `input` (or the number `p`)."""
    engine = _engine(generator)
    if p is None:
        probabilities = np.ascontiguousarray(input._data).reshape(-1)
        samples = kernels.bernoulli_tensor(engine, probabilities).reshape(input._data.shape)
    else:
        samples = kernels.bernoulli_scalar(engine, input.numel(), p).reshape(input._data.shape)
    return _finish(samples.astype(input._data.dtype), False, None, out)


@op(method=True)
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Indices drawn from the rows of `input` (unnormalized non-negative weights), as PyTorch draws
    them: running sums and one double per sample with replacement, an exponential race without."""
    weights = input._data if input._data.dtype.kind in "fV" else input._data.astype(np.float32)
    if np.any(weights < 0) or not np.all(np.isfinite(weights)):
        raise RuntimeError("multinomial: probability tensor contains either `inf`, `nan` or element < 0")
    rows = weights.reshape(-1, weights.shape[-1])
    totals = rows.sum(axis=1)
    if np.any(totals <= 0):
        raise RuntimeError("multinomial: invalid multinomial distribution (sum of probabilities <= 0)")
    if not replacement and num_samples > int(np.count_nonzero(rows, axis=1).min()):
        raise RuntimeError("multinomial: cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    engine = _engine(generator)
    if replacement and num_samples > 1:
        result = kernels.multinomial_with_replacement(engine, rows, num_samples)
    else:
        result = kernels.multinomial_without_replacement(engine, rows, num_samples)
    shape = weights.shape[:-1] + (num_samples,)
    return _finish(result.reshape(shape).astype(np.int64), False, None, out)


# ---------------------------------------------------------------- Tensor.new_* (dtype from the tensor)
# Methods, re-exported by ops.shape's __all__: `x.new_zeros(2, 3)` is a float64 tensor for a float64 x.
@op(method=True)
def new_zeros(input, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """Zeros of `size` with `input`'s dtype (unless `dtype` is given)."""
    return zeros(parse_size(size, "new_zeros"), dtype=dtype or input.dtype, device=device, requires_grad=requires_grad)


@op(method=True)
def new_ones(input, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """Ones of `size` with `input`'s dtype (unless `dtype` is given)."""
    return ones(parse_size(size, "new_ones"), dtype=dtype or input.dtype, device=device, requires_grad=requires_grad)


@op(method=True)
def new_empty(input, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """An uninitialized tensor of `size` with `input`'s dtype (unless `dtype` is given)."""
    return empty(parse_size(size, "new_empty"), dtype=dtype or input.dtype, device=device, requires_grad=requires_grad)


@op(method=True)
def new_full(input, size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """`fill_value` in a tensor of `size` with `input`'s dtype (unless `dtype` is given)."""
    return full(size, fill_value, dtype=dtype or input.dtype, device=device, requires_grad=requires_grad)


@op(method=True, name="new_tensor")
def tensor_new_tensor(input, data, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """`Tensor.new_tensor(data)`: a copy of `data` with `input`'s dtype (unless `dtype` is given)."""
    return tensor(data, dtype=dtype or input.dtype, device=device, requires_grad=requires_grad)
