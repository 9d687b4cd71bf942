"""Bad arguments raise what torch raises (the exception class), with a message naming the op."""

import pytest

import ember

from ..ops.differential import raises_like


def _real(lib):
    return lib.ones(3, 4)


def _complex(lib):
    return lib.ones(3, 4, dtype=lib.complex64)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.fft.fft(_real(lib), norm="bad"),
        lambda lib: lib.fft.rfft(_real(lib), norm="Forward"),
        lambda lib: lib.fft.irfftn(_complex(lib), norm="sum"),
    ],
    ids=["fft", "rfft", "irfftn"],
)
def test_invalid_norm(torch, call):
    error = raises_like(call, torch, match="Invalid normalization mode")
    assert '"backward", "ortho", "forward"' in str(error)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.fft.fft(_real(lib), n=0),
        lambda lib: lib.fft.ifft(_real(lib), n=-2),
        lambda lib: lib.fft.rfft(_real(lib), n=0),
        lambda lib: lib.fft.irfft(_complex(lib), n=0),
        lambda lib: lib.fft.hfft(lib.ones(1, dtype=lib.complex64)),  # default n = 2 * (1 - 1) = 0
        lambda lib: lib.fft.fftn(_real(lib), s=(2, 0)),
        lambda lib: lib.fft.fft(lib.ones(0)),
    ],
    ids=["fft", "ifft", "rfft", "irfft", "hfft-default", "fftn", "empty"],
)
def test_fewer_than_one_data_point(torch, call):
    raises_like(call, torch, match="Invalid number of data points")


def test_real_only_transforms_refuse_complex_input(torch):
    for name in ("rfft", "ihfft", "rfftn", "ihfft2"):
        raises_like(lambda lib: getattr(lib.fft, name)(_complex(lib)), torch, match="expects a real input tensor")


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda lib: lib.fft.fft(_real(lib), dim=2), "Dimension out of range"),
        (lambda lib: lib.fft.fft(lib.tensor(1.0)), "no dimensions"),
        (lambda lib: lib.fft.fftn(_real(lib), dim=(1, -1)), "FFT dims must be unique"),
        (lambda lib: lib.fft.fftn(_real(lib), s=(2, 3), dim=(0,)), "must have the same length"),
        (lambda lib: lib.fft.fft2(lib.ones(4)), "Dimension out of range"),
        (lambda lib: lib.fft.fftn(lib.ones(4), s=(2, 3)), "only has 1 dimensions"),
        (lambda lib: lib.fft.rfftn(_real(lib), dim=()), "must transform at least one axis"),
        (lambda lib: lib.fft.fft(lib.ones(4, dtype=lib.float16)), "Unsupported dtype Half"),
        (lambda lib: lib.fft.fft([1.0, 2.0]), "must be Tensor"),
        (lambda lib: lib.fft.fft(_real(lib), n=3.0), "must be int"),
        (lambda lib: lib.fft.fft(_real(lib), dim=(0,)), "must be int"),
    ],
    ids=[
        "dim-range",
        "0-d",
        "unique",
        "s-and-dim",
        "fft2-of-1d",
        "s-too-long",
        "no-axis",
        "half",
        "not-tensor",
        "float-n",
        "tuple-dim",
    ],
)
def test_bad_dims_sizes_and_inputs(torch, call, match):
    raises_like(call, torch, match=match)


def test_out_refuses_inputs_that_require_grad(torch):
    raises_like(
        lambda lib: lib.fft.fft(lib.ones(4, requires_grad=True), out=lib.empty(4, dtype=lib.complex64)),
        torch,
        match="out=",
    )


def test_messages_name_the_transform():
    with pytest.raises(RuntimeError, match=r"fft\.irfft"):
        ember.fft.irfft(ember.ones(1, dtype=ember.complex64))
    with pytest.raises(RuntimeError, match=r"fft\.rfft2"):
        ember.fft.rfft2(ember.ones(3, 4), norm="none")
