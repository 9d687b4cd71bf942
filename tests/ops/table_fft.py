"""Op table: the transforms of `ember.fft`. Names start with `fft_` so `-k fft_` runs just these.

A complex input is built from two real leaves (its real and imaginary parts, `ember.complex`) and
a complex output is seen as its real and imaginary parts (`view_as_real`), so the NumPy reference
and torch compare real arrays. Each case states its transform once, as a call on a
`fft` namespace, and runs it on `ember.fft` and `torch.fft` alike; the NumPy reference is
`numpy.fft` (n-dimensional Hermitian transforms, which NumPy lacks, are checked against torch).
"""

import numpy as np

import ember

from .op_table import OpCase


def _numpy_real(result):
    return np.stack([result.real, result.imag], axis=-1) if np.iscomplexobj(result) else result


def _ember_real(result):
    return ember.view_as_real(result) if result.is_complex() else result


def _torch_real(torch, result):
    return torch.view_as_real(result.resolve_conj()) if result.is_complex() else result


def case(name, transform, numpy_transform, shapes, complex_input):
    """`transform(fft, x)` on ember.fft and torch.fft; `numpy_transform(x)` the reference (or None)."""
    if complex_input:
        return OpCase(
            name,
            lambda re, im: _ember_real(transform(ember.fft, ember.complex(re, im))),
            None if numpy_transform is None else lambda re, im: _numpy_real(numpy_transform(re + 1j * im)),
            [(shape, shape) for shape in shapes],
            torch_fn=lambda torch, re, im: _torch_real(torch, transform(torch.fft, torch.complex(re, im))),
        )
    return OpCase(
        name,
        lambda x: _ember_real(transform(ember.fft, x)),
        None if numpy_transform is None else lambda x: _numpy_real(numpy_transform(x)),
        [(shape,) for shape in shapes],
        torch_fn=lambda torch, x: _torch_real(torch, transform(torch.fft, x)),
    )


CASES = [
    # complex to complex (and real input's whole spectrum); n pads (8 > 6) or trims (4 < 5)
    case("fft_fft", lambda fft, x: fft.fft(x), np.fft.fft, [(6,), (2, 5)], True),
    case(
        "fft_fft_pad_ortho",
        lambda fft, x: fft.fft(x, n=8, norm="ortho"),
        lambda x: np.fft.fft(x, n=8, norm="ortho"),
        [(6,)],
        True,
    ),
    case(
        "fft_fft_trim_dim0_forward",
        lambda fft, x: fft.fft(x, n=4, dim=0, norm="forward"),
        lambda x: np.fft.fft(x, n=4, axis=0, norm="forward"),
        [(5, 3)],
        True,
    ),
    case(
        "fft_fft_real",
        lambda fft, x: fft.fft(x, norm="forward"),
        lambda x: np.fft.fft(x, norm="forward"),
        [(5,), (3, 4)],
        False,
    ),
    case(
        "fft_ifft",
        lambda fft, x: fft.ifft(x, n=7, norm="ortho"),
        lambda x: np.fft.ifft(x, n=7, norm="ortho"),
        [(5,)],
        True,
    ),
    case("fft_ifft_real", lambda fft, x: fft.ifft(x, n=4), lambda x: np.fft.ifft(x, n=4), [(6,)], False),
    case(
        "fft_fft2",
        lambda fft, x: fft.fft2(x, s=(4, 2), norm="ortho"),
        lambda x: np.fft.fft2(x, s=(4, 2), norm="ortho"),
        [(3, 3)],
        True,
    ),
    case("fft_ifft2_real", lambda fft, x: fft.ifft2(x), np.fft.ifft2, [(3, 4)], False),
    case(
        "fft_fftn",
        lambda fft, x: fft.fftn(x, s=(3, 3), dim=(0, 2), norm="forward"),
        lambda x: np.fft.fftn(x, s=(3, 3), axes=(0, 2), norm="forward"),
        [(2, 2, 4)],
        True,
    ),
    case("fft_ifftn", lambda fft, x: fft.ifftn(x), np.fft.ifftn, [(2, 3, 2)], True),
    # real input, halved spectrum; even and odd lengths (a Nyquist bin or none)
    case("fft_rfft", lambda fft, x: fft.rfft(x), np.fft.rfft, [(6,), (5,), (2, 4)], False),
    case(
        "fft_rfft_pad_odd_ortho",
        lambda fft, x: fft.rfft(x, n=9, norm="ortho"),
        lambda x: np.fft.rfft(x, n=9, norm="ortho"),
        [(6,)],
        False,
    ),
    case(
        "fft_rfft_trim_dim0_forward",
        lambda fft, x: fft.rfft(x, n=4, dim=0, norm="forward"),
        lambda x: np.fft.rfft(x, n=4, axis=0, norm="forward"),
        [(6, 2)],
        False,
    ),
    case("fft_rfft2", lambda fft, x: fft.rfft2(x), np.fft.rfft2, [(3, 5)], False),
    case(
        "fft_rfftn",
        lambda fft, x: fft.rfftn(x, s=(4, 3), dim=(2, 0), norm="ortho"),
        lambda x: np.fft.rfftn(x, s=(4, 3), axes=(2, 0), norm="ortho"),
        [(2, 2, 3)],
        False,
    ),
    # halved spectrum to real signal; n pads (9: 5 bins from 4) or trims (3: 2 bins from 4)
    case("fft_irfft", lambda fft, x: fft.irfft(x), np.fft.irfft, [(4,), (2, 3)], True),
    case(
        "fft_irfft_pad_forward",
        lambda fft, x: fft.irfft(x, n=9, norm="forward"),
        lambda x: np.fft.irfft(x, n=9, norm="forward"),
        [(4,)],
        True,
    ),
    case(
        "fft_irfft_trim_ortho",
        lambda fft, x: fft.irfft(x, n=3, norm="ortho"),
        lambda x: np.fft.irfft(x, n=3, norm="ortho"),
        [(4,)],
        True,
    ),
    case(
        "fft_irfft_odd_dim0",
        lambda fft, x: fft.irfft(x, n=7, dim=0),
        lambda x: np.fft.irfft(x, n=7, axis=0),
        [(4, 2)],
        True,
    ),
    case("fft_irfft_real", lambda fft, x: fft.irfft(x), np.fft.irfft, [(5,)], False),
    case(
        "fft_irfft2",
        lambda fft, x: fft.irfft2(x, norm="ortho"),
        lambda x: np.fft.irfft2(x, norm="ortho"),
        [(3, 3)],
        True,
    ),
    case(
        "fft_irfftn",
        lambda fft, x: fft.irfftn(x, s=(3, 5), dim=(0, 2), norm="forward"),
        lambda x: np.fft.irfftn(x, s=(3, 5), axes=(0, 2), norm="forward"),
        [(2, 2, 3)],
        True,
    ),
    # Hermitian input: hfft is a forward transform to a real spectrum, ihfft its inverse
    case("fft_hfft", lambda fft, x: fft.hfft(x), np.fft.hfft, [(4,), (2, 3)], True),
    case(
        "fft_hfft_odd_ortho",
        lambda fft, x: fft.hfft(x, n=5, norm="ortho"),
        lambda x: np.fft.hfft(x, n=5, norm="ortho"),
        [(4,)],
        True,
    ),
    case("fft_ihfft", lambda fft, x: fft.ihfft(x), np.fft.ihfft, [(6,), (5,)], False),
    case(
        "fft_ihfft_pad_forward",
        lambda fft, x: fft.ihfft(x, n=8, norm="forward"),
        lambda x: np.fft.ihfft(x, n=8, norm="forward"),
        [(5,)],
        False,
    ),
    case("fft_hfft2", lambda fft, x: fft.hfft2(x, norm="forward"), None, [(3, 3)], True),
    case("fft_hfftn", lambda fft, x: fft.hfftn(x, s=(3, 5)), None, [(2, 2, 3)], True),
    case("fft_ihfft2", lambda fft, x: fft.ihfft2(x), None, [(3, 4)], False),
    case("fft_ihfftn", lambda fft, x: fft.ihfftn(x, s=(3, 5), norm="ortho"), None, [(2, 2, 4)], False),
]
