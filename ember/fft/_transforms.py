"""The transforms of `torch.fft`, each a declared op (`@op`, rows "fft.<name>" in docs/ops.md) that
checks its arguments, pads or trims the input to the signal lengths, and applies one primitive of
`_primitives.py`.

Complex-to-complex (fft, ifft and their 2-d and n-d forms) apply FftC2C to complex input and FftR2C
(the whole spectrum) to real input; rfft*/ihfft* apply FftR2C (the halved spectrum); irfft*/hfft*
apply FftC2R. hfft is the forward-signed FftC2R and ihfft the inverse-signed FftR2C, so no
conjugation appears in their graphs.
"""

from .._validation import int_argument
from ..ops._declare import op
from ..ops.inplace import copy_into_out
from ._arguments import check_norm, check_points, dims_and_sizes, one_dim, resized, transform_input
from ._primitives import FftC2C, FftC2R, FftR2C

__all__ = [
    "fft",
    "ifft",
    "fft2",
    "ifft2",
    "fftn",
    "ifftn",
    "rfft",
    "irfft",
    "rfft2",
    "irfft2",
    "rfftn",
    "irfftn",
    "hfft",
    "ihfft",
    "hfft2",
    "ihfft2",
    "hfftn",
    "ihfftn",
]


def _written(result, out):
    return result if out is None else copy_into_out(out, result)


def _one_dim_arguments(input, n, dim, norm, op_name, **dtype_rule):
    """(input, dims, sizes, norm) of a one-dimensional transform."""
    input = transform_input(input, op_name, **dtype_rule)
    dims = (one_dim(input, dim, op_name),)
    if n is not None:
        n = check_points(int_argument(n, f"fft_{op_name}", "n"), op_name)
    return input, dims, (n,), check_norm(norm, op_name)


def _n_dim_arguments(input, s, dim, norm, op_name, at_least_one=False, **dtype_rule):
    input = transform_input(input, op_name, **dtype_rule)
    dims, sizes = dims_and_sizes(input, s, dim, op_name)
    if at_least_one and not dims:
        raise RuntimeError(f"{op_name} must transform at least one axis")
    return input, dims, sizes, check_norm(norm, op_name)


# ---------------------------------------------------------------- the kernels of each family
def _complex_to_complex(input, dims, sizes, forward, norm, op_name):
    sizes = tuple(check_points(input._data.shape[d] if n is None else n, op_name) for d, n in zip(dims, sizes))
    input = resized(input, dims, sizes)
    if input._data.dtype.kind == "c":
        return FftC2C.apply(input, dims, forward, norm)
    return FftR2C.apply(input, dims, forward, norm, False)


def _real_to_halved(input, dims, sizes, forward, norm, op_name):
    sizes = tuple(check_points(input._data.shape[d] if n is None else n, op_name) for d, n in zip(dims, sizes))
    return FftR2C.apply(resized(input, dims, sizes), dims, forward, norm, True)


def _halved_to_real(input, dims, sizes, forward, norm, op_name):
    """The last dim holds the halved spectrum of a signal of length sizes[-1] (by default 2 * (m - 1)
    for m bins); it is padded or trimmed to the sizes[-1] // 2 + 1 bins that signal has."""
    *others, last = sizes
    signal_size = check_points(2 * (input._data.shape[dims[-1]] - 1) if last is None else last, op_name)
    others = [check_points(input._data.shape[d] if n is None else n, op_name) for d, n in zip(dims, others)]
    input = resized(input, dims, tuple(others) + (signal_size // 2 + 1,))
    return FftC2R.apply(input, dims, forward, norm, signal_size)


# ---------------------------------------------------------------- complex to complex
@op(FftC2C, FftR2C, name="fft.fft")
def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """The one-dimensional discrete Fourier transform along `dim`.

    `n` pads with zeros or trims the input along `dim` first; `norm` is "backward" (no scaling,
    the default), "ortho" (1/sqrt(n)) or "forward" (1/n). Real input gives the whole (Hermitian)
    spectrum; float32 gives complex64, float64 complex128, integers the default dtype's complex.

        >>> ember.fft.fft(ember.tensor([1.0, 2.0, 3.0, 4.0]))
        tensor([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])
    """
    input, dims, sizes, norm = _one_dim_arguments(input, n, dim, norm, "fft")
    return _written(_complex_to_complex(input, dims, sizes, True, norm, "fft"), out)


@op(FftC2C, FftR2C, name="fft.ifft")
def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of `fft` (scaled by 1/n with the default norm="backward")."""
    input, dims, sizes, norm = _one_dim_arguments(input, n, dim, norm, "ifft")
    return _written(_complex_to_complex(input, dims, sizes, False, norm, "ifft"), out)


@op(FftC2C, FftR2C, name="fft.fft2")
def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The two-dimensional transform over `dim` (the last two dims); `s` pads or trims them."""
    input, dims, sizes, norm = _n_dim_arguments(input, s, dim, norm, "fft2")
    return _written(_complex_to_complex(input, dims, sizes, True, norm, "fft2"), out)


@op(FftC2C, FftR2C, name="fft.ifft2")
def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The inverse of `fft2`."""
    input, dims, sizes, norm = _n_dim_arguments(input, s, dim, norm, "ifft2")
    return _written(_complex_to_complex(input, dims, sizes, False, norm, "ifft2"), out)


@op(FftC2C, FftR2C, name="fft.fftn")
def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional transform over `dim` (all dims, or the last len(s) when only `s` is given)."""
    input, dims, sizes, norm = _n_dim_arguments(input, s, dim, norm, "fftn")
    return _written(_complex_to_complex(input, dims, sizes, True, norm, "fftn"), out)


@op(FftC2C, FftR2C, name="fft.ifftn")
def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of `fftn`."""
    input, dims, sizes, norm = _n_dim_arguments(input, s, dim, norm, "ifftn")
    return _written(_complex_to_complex(input, dims, sizes, False, norm, "ifftn"), out)


# ---------------------------------------------------------------- real input, halved spectrum
@op(FftR2C, name="fft.rfft")
def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The transform of a real signal: its n // 2 + 1 non-negative frequencies (the others are their
    complex conjugates). Complex input raises RuntimeError: use `fft`.

        >>> ember.fft.rfft(ember.tensor([1.0, 2.0, 3.0, 4.0]))
        tensor([10.+0.j, -2.+2.j, -2.+0.j])
    """
    input, dims, sizes, norm = _one_dim_arguments(input, n, dim, norm, "rfft", real=True)
    return _written(_real_to_halved(input, dims, sizes, True, norm, "rfft"), out)


@op(FftC2R, name="fft.irfft")
def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of `rfft`: a real signal of length `n` (default 2 * (m - 1) for m bins) from its
    halved spectrum. The imaginary parts of the zero and (for even n) Nyquist bins are ignored."""
    input, dims, sizes, norm = _one_dim_arguments(input, n, dim, norm, "irfft", complex_=True)
    return _written(_halved_to_real(input, dims, sizes, False, norm, "irfft"), out)


@op(FftR2C, name="fft.rfft2")
def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The two-dimensional `rfftn`: the last of `dim` is halved."""
    input, dims, sizes, norm = _n_dim_arguments(input, s, dim, norm, "rfft2", True, real=True)
    return _written(_real_to_halved(input, dims, sizes, True, norm, "rfft2"), out)


@op(FftC2R, name="fft.irfft2")
def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The inverse of `rfft2`."""
    input, dims, sizes, norm = _n_dim_arguments(input, s, dim, norm, "irfft2", True, complex_=True)
    return _written(_halved_to_real(input, dims, sizes, False, norm, "irfft2"), out)


@op(FftR2C, name="fft.rfftn")
def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional transform of a real tensor, halved along the last of `dim`."""
    input, dims, sizes, norm = _n_dim_arguments(input, s, dim, norm, "rfftn", True, real=True)
    return _written(_real_to_halved(input, dims, sizes, True, norm, "rfftn"), out)


@op(FftC2R, name="fft.irfftn")
def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of `rfftn`: the last of `dim` holds the halved spectrum (its signal length is
    s[-1], by default 2 * (m - 1))."""
    input, dims, sizes, norm = _n_dim_arguments(input, s, dim, norm, "irfftn", True, complex_=True)
    return _written(_halved_to_real(input, dims, sizes, False, norm, "irfftn"), out)


# ---------------------------------------------------------------- Hermitian input
@op(FftC2R, name="fft.hfft")
def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The transform of a Hermitian signal given by its first half: a real spectrum of length `n`
    (default 2 * (m - 1)); unscaled with norm="backward". `ihfft` is its inverse."""
    input, dims, sizes, norm = _one_dim_arguments(input, n, dim, norm, "hfft", complex_=True)
    return _written(_halved_to_real(input, dims, sizes, True, norm, "hfft"), out)


@op(FftR2C, name="fft.ihfft")
def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of `hfft`: the halved, Hermitian inverse transform of a real signal (scaled by 1/n
    with norm="backward")."""
    input, dims, sizes, norm = _one_dim_arguments(input, n, dim, norm, "ihfft", real=True)
    return _written(_real_to_halved(input, dims, sizes, False, norm, "ihfft"), out)


@op(FftC2R, name="fft.hfft2")
def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The two-dimensional `hfftn`."""
    input, dims, sizes, norm = _n_dim_arguments(input, s, dim, norm, "hfft2", True, complex_=True)
    return _written(_halved_to_real(input, dims, sizes, True, norm, "hfft2"), out)


@op(FftR2C, name="fft.ihfft2")
def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The inverse of `hfft2`."""
    input, dims, sizes, norm = _n_dim_arguments(input, s, dim, norm, "ihfft2", True, real=True)
    return _written(_real_to_halved(input, dims, sizes, False, norm, "ihfft2"), out)


@op(FftC2R, name="fft.hfftn")
def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dimensional transform of a Hermitian signal, given by its half along the last of `dim`."""
    input, dims, sizes, norm = _n_dim_arguments(input, s, dim, norm, "hfftn", True, complex_=True)
    return _written(_halved_to_real(input, dims, sizes, True, norm, "hfftn"), out)


@op(FftR2C, name="fft.ihfftn")
def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of `hfftn`."""
    input, dims, sizes, norm = _n_dim_arguments(input, s, dim, norm, "ihfftn", True, real=True)
    return _written(_real_to_halved(input, dims, sizes, False, norm, "ihfftn"), out)
