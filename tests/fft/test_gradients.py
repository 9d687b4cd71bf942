"""Gradients of the transforms: against torch's (real and complex inputs, real losses, first and
second order), float64 gradcheck / gradgradcheck over every norm with n padding and trimming, and
forward mode against torch's."""

import itertools

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck

from ..conftest import assert_close

ONE_DIM = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_DIM = ["fft2", "ifft2", "fftn", "ifftn", "rfft2", "irfft2", "rfftn", "irfftn", "hfft2", "ihfft2", "hfftn", "ihfftn"]
REAL_INPUT_ONLY = {"rfft", "ihfft", "rfft2", "rfftn", "ihfft2", "ihfftn"}
NORMS = ["backward", "ortho", "forward"]


def _real_view(lib, output):
    if not output.is_complex():
        return output
    return lib.view_as_real(output.resolve_conj())


def _loss(lib, output, weights):
    """A real loss that reads every real and imaginary part: sum w * parts^2, plus sum |out|."""
    parts = _real_view(lib, output)
    return output.abs().sum() + (parts**2 * lib.tensor(weights[: parts.numel()].reshape(tuple(parts.shape)))).sum()


def _gradients(lib, transform, parts, weights, order):
    """Gradients of the loss with respect to the real leaves (the input's real and imaginary parts);
    order 2: the gradient of (sum of first gradients squared), through create_graph."""
    leaves = [lib.tensor(part, requires_grad=True) for part in parts]
    if len(leaves) == 2:
        signal = lib.complex(*leaves)
    else:
        signal = leaves[0]
    loss = _loss(lib, transform(lib, signal), weights)
    if order == 1:
        return lib.autograd.grad(loss, leaves)
    firsts = lib.autograd.grad(loss, leaves, create_graph=True)
    return lib.autograd.grad(sum((first**2).sum() for first in firsts), leaves)


def _compare(torch, transform, shape, is_complex, order=1, seed=0):
    rng = np.random.default_rng(seed)
    parts = [rng.standard_normal(shape) for _ in range(2 if is_complex else 1)]
    weights = rng.standard_normal(4096)
    ours = _gradients(ember, transform, parts, weights, order)
    theirs = _gradients(torch, transform, parts, weights, order)
    for index, (mine, reference) in enumerate(zip(ours, theirs)):
        assert_close(
            mine,
            reference.resolve_neg().resolve_conj().numpy(),
            rtol=1e-8,
            atol=1e-10,
            what=f"gradient of part {index}",
        )


@pytest.mark.parametrize("name", ONE_DIM)
def test_one_dimensional_gradients_match_torch(torch, name):
    for n, dim, norm in itertools.product([None, 3, 4, 9], [-1, 0], NORMS):
        for is_complex in [False] if name in REAL_INPUT_ONLY else [False, True]:
            _compare(torch, lambda lib, x: getattr(lib.fft, name)(x, n=n, dim=dim, norm=norm), (5, 6), is_complex)


@pytest.mark.parametrize("name", N_DIM)
def test_n_dimensional_gradients_match_torch(torch, name):
    for s, dim, norm in itertools.product([None, (3, 7), (-1, 2)], [(0, 2), (2, 0)], NORMS):
        for is_complex in [False] if name in REAL_INPUT_ONLY else [False, True]:
            _compare(torch, lambda lib, x: getattr(lib.fft, name)(x, s=s, dim=dim, norm=norm), (3, 4, 5), is_complex)


@pytest.mark.parametrize("name", ONE_DIM + ["rfftn", "irfftn", "hfftn", "ihfftn"])
def test_second_order_gradients_match_torch(torch, name):
    for norm, is_complex in itertools.product(NORMS, [False, True]):
        if is_complex and name in REAL_INPUT_ONLY:
            continue
        _compare(torch, lambda lib, x: getattr(lib.fft, name)(x, norm=norm), (3, 5), is_complex, order=2)
        sizes = {"s": (4, 3)} if name.endswith("n") else {"n": 7}
        _compare(torch, lambda lib, x: getattr(lib.fft, name)(x, norm=norm, **sizes), (3, 5), is_complex, order=2)


# ---------------------------------------------------------------- gradcheck in float64
def _real_function(name, is_complex, **arguments):
    """The transform as a function of real leaves with a real output, for gradcheck."""
    transform = getattr(ember.fft, name)
    if is_complex:
        return lambda real, imag: _real_view(ember, transform(ember.complex(real, imag), **arguments))
    return lambda real: _real_view(ember, transform(real, **arguments))


def _leaves(count, shape, seed=0):
    rng = np.random.default_rng(seed)
    return [ember.tensor(rng.standard_normal(shape), requires_grad=True) for _ in range(count)]


@pytest.mark.parametrize(
    "name,is_complex",
    [("fft", True), ("fft", False), ("ifft", True), ("rfft", False), ("irfft", True), ("hfft", True), ("ihfft", False)],
)
@pytest.mark.parametrize("norm", NORMS)
def test_gradcheck_and_gradgradcheck_with_padding_and_trimming(name, is_complex, norm):
    """n below, equal to and above the input length, even and odd (with and without a Nyquist bin)."""
    for n in (None, 3, 4, 7, 10):
        function = _real_function(name, is_complex, n=n, norm=norm)
        leaves = _leaves(2 if is_complex else 1, (5,))
        assert gradcheck(function, leaves, eps=1e-6, atol=1e-7, rtol=1e-6)
        assert gradgradcheck(function, leaves, eps=1e-6, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize(
    "name,is_complex",
    [("fftn", True), ("ifftn", False), ("rfftn", False), ("irfftn", True), ("hfftn", True), ("ihfftn", False)],
)
def test_gradcheck_n_dimensional(name, is_complex):
    for norm in NORMS:
        function = _real_function(name, is_complex, s=(3, 4), dim=(2, 0), norm=norm)
        leaves = _leaves(2 if is_complex else 1, (2, 2, 3))
        assert gradcheck(function, leaves, eps=1e-6, atol=1e-7, rtol=1e-6)
        assert gradgradcheck(function, leaves, eps=1e-6, atol=1e-6, rtol=1e-5)
        assert gradcheck(
            function, leaves, eps=1e-6, atol=1e-7, rtol=1e-6, check_forward_ad=True, check_backward_ad=False
        )


# ---------------------------------------------------------------- forward mode
@pytest.mark.parametrize("name", ONE_DIM)
def test_forward_mode_matches_torch(torch, name):
    """The tangent of a transform is the transform of the tangent (with n padding the input)."""
    import ember.autograd.forward_ad as ember_forward
    import torch.autograd.forward_ad as torch_forward

    rng = np.random.default_rng(3)
    primal, tangent = rng.standard_normal((2, 5)), rng.standard_normal((2, 5))
    if name not in REAL_INPUT_ONLY:
        primal, tangent = primal + 1j * rng.standard_normal((2, 5)), tangent + 1j * rng.standard_normal((2, 5))
    results = []
    for lib, forward in ((ember, ember_forward), (torch, torch_forward)):
        with forward.dual_level():
            dual = forward.make_dual(lib.tensor(primal), lib.tensor(tangent))
            output = getattr(lib.fft, name)(dual, n=7, norm="ortho")
            results.append(forward.unpack_dual(output).tangent)
    assert_close(results[0], results[1].resolve_conj().numpy(), rtol=1e-10, atol=1e-10)
