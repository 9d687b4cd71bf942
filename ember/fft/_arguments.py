"""The arguments every transform shares, checked as PyTorch checks them: the input's dtype, `norm`,
the signal lengths (`n`, `s`) and the dims; and the zero-padding or trimming of the input to them."""

from .._backend import np
from .._tensor import Tensor
from .._validation import int_argument
from .. import _dtype
from ..ops import cat, narrow, normalize_dim, zeros

__all__ = ["NORMS", "check_norm", "transform_input", "one_dim", "dims_and_sizes", "check_points", "resized"]

NORMS = ("backward", "ortho", "forward")


def check_norm(norm, op_name):
    """None means "backward", as in PyTorch."""
    if norm is None:
        return "backward"
    if norm not in NORMS:
        raise RuntimeError(
            f'Invalid normalization mode: "{norm}" in fft.{op_name} (expected "backward", "ortho", "forward" or None)'
        )
    return norm


def transform_input(input, op_name, real=False, complex_=False):
    """The input in a dtype the transforms compute in: integers and bools become the default float
    dtype; `real` refuses complex input (rfft, ihfft), `complex_` promotes real input to complex
    (irfft, hfft read a spectrum). float16 is refused, as PyTorch refuses it on the CPU."""
    if not isinstance(input, Tensor):
        raise TypeError(f"fft_{op_name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    kind = input._data.dtype.kind
    if kind in "biu":
        input = input.to(_dtype.get_default_dtype())
    elif input._data.dtype == np.float16:
        raise RuntimeError(f"fft.{op_name}: Unsupported dtype Half (float16); convert the input with .float() first")
    elif real and kind == "c":
        raise RuntimeError(f"{op_name} expects a real input tensor, but got {input.dtype}")
    if complex_ and input._data.dtype.kind != "c":
        input = input.to(input.dtype.to_complex())
    return input


def check_points(n, op_name):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified in fft.{op_name}")
    return n


def one_dim(input, dim, op_name):
    """The dim of a one-dimensional transform, non-negative."""
    dim = int_argument(dim, f"fft_{op_name}", "dim")
    if input._data.ndim == 0:
        raise IndexError(
            f"Dimension specified as {dim} but tensor has no dimensions (fft.{op_name} needs a "
            "tensor of at least one dim)"
        )
    return normalize_dim(dim, input._data.ndim, f"fft.{op_name}")


def dims_and_sizes(input, s, dim, op_name):
    """The transformed dims (in the given order) and the signal length for each (None: not given),
    from PyTorch's `s` and `dim`: dim None means the last len(s) dims, or all dims when s is None
    too; a length of -1 keeps the input's size."""
    ndim = input._data.ndim
    if isinstance(s, int) or (s is not None and not isinstance(s, (list, tuple)) and hasattr(s, "__index__")):
        s = (s,)
    if dim is not None and not isinstance(dim, (list, tuple)):
        dim = (dim,)
    if dim is None:
        if s is None:
            dims = tuple(range(ndim))
        else:
            if len(s) > ndim:
                raise RuntimeError(
                    f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions (fft.{op_name})"
                )
            dims = tuple(range(ndim - len(s), ndim))
    else:
        dims = tuple(int_argument(d, f"fft_{op_name}", "dim") for d in dim)
        if ndim == 0 and dims:
            raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions (fft.{op_name})")
        dims = tuple(normalize_dim(d, ndim, f"fft.{op_name}") for d in dims)
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"FFT dims must be unique (fft.{op_name} got dim={list(dim)})")
        if s is not None and len(s) != len(dims):
            raise RuntimeError(
                f"When given, dim and shape arguments must have the same length (fft.{op_name} "
                f"got s={list(s)} and dim={list(dim)})"
            )
    if s is None:
        return dims, (None,) * len(dims)
    sizes = []
    for length in s:
        length = int_argument(length, f"fft_{op_name}", "s")
        sizes.append(None if length == -1 else check_points(length, op_name))
    return dims, tuple(sizes)


def resized(input, dims, sizes):
    """`input` trimmed or zero-padded to `sizes` along `dims` (None: as it is), as the transforms read
    it. Padding appends zeros with `cat`, which has a tangent rule (forward AD works through it)."""
    for dim, size in zip(dims, sizes):
        current = input._data.shape[dim]
        if size is None or size == current:
            continue
        if size < current:
            input = narrow(input, dim, 0, size)
        else:
            shape = list(input._data.shape)
            shape[dim] = size - current
            input = cat([input, zeros(shape, dtype=input.dtype)], dim)
    return input
