"""Where each frequency sits in a spectrum: `fftfreq`/`rfftfreq` give the frequency of each bin,
`fftshift`/`ifftshift` move frequency zero to the centre and back (rolls, so they are differentiable)."""

from .._backend import np
from .._tensor import Tensor
from .._validation import int_argument
from .. import _dtype
from ..ops import normalize_dim, roll, tensor
from ..ops.inplace import copy_into_out

__all__ = ["fftfreq", "rfftfreq", "fftshift", "ifftshift"]


def _frequencies(bins, n, d, dtype, requires_grad, device, out, op_name):
    dtype = _dtype.get_default_dtype() if dtype is None else _dtype.to_dtype(dtype)
    if dtype.is_complex:
        raise NotImplementedError(
            f"{op_name}: complex dtypes are not supported ({dtype}), as in PyTorch; use a floating dtype"
        )
    if not dtype.is_floating_point:
        raise RuntimeError(f"{op_name} requires a floating point or complex dtype, got {dtype}")
    result = tensor(
        bins / (n * d) if n else bins.astype(np.float64), dtype=dtype, device=device, requires_grad=requires_grad
    )
    return result if out is None else copy_into_out(out, result)


def _signal_length(n, op_name):
    n = int_argument(n, op_name, "n", 1)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}] ({op_name} needs n >= 0)")
    return n


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The frequencies of the bins of `fft` of a signal of length n sampled every `d`:
    [0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d * n), in the default dtype.

        >>> ember.fft.fftfreq(5, d=0.1)
        tensor([ 0.,  2.,  4., -4., -2.])
    """
    n = _signal_length(n, "fftfreq")
    bins = np.concatenate([np.arange((n - 1) // 2 + 1), np.arange(-(n // 2), 0)]).astype(np.float64)
    return _frequencies(bins, n, d, dtype, requires_grad, device, out, "fftfreq")


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The frequencies of the bins of `rfft` of a signal of length n: [0, 1, ..., n // 2] / (d * n)."""
    n = _signal_length(n, "rfftfreq")
    return _frequencies(np.arange(n // 2 + 1, dtype=np.float64), n, d, dtype, requires_grad, device, out, "rfftfreq")


def _shifted(input, dim, direction, op_name):
    if not isinstance(input, Tensor):
        raise TypeError(f"fft_{op_name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    ndim = input._data.ndim
    if dim is None:
        dims = tuple(range(ndim))
    else:
        dims = tuple(
            normalize_dim(int_argument(d, f"fft_{op_name}", "dim"), ndim, f"fft.{op_name}")
            for d in (dim if isinstance(dim, (list, tuple)) else (dim,))
        )
    if not dims:
        raise RuntimeError(f"`shifts` required: fft.{op_name} has no dim to shift (the input is 0-d or dim is empty)")
    return roll(input, tuple(direction * (input._data.shape[d] // 2) for d in dims), dims)


def fftshift(input, dim=None):
    """The spectrum reordered so that frequency zero is at the centre of each dim in `dim` (all by
    default): a roll by size // 2, as NumPy's fftshift.

        >>> ember.fft.fftshift(ember.fft.fftfreq(5))
        tensor([-0.4000, -0.2000,  0.0000,  0.2000,  0.4000])
    """
    return _shifted(input, dim, 1, "fftshift")


def ifftshift(input, dim=None):
    """The inverse of `fftshift` (they differ for odd sizes): a roll by -(size // 2)."""
    return _shifted(input, dim, -1, "ifftshift")
