"""Differentiable bridges between complex tensors and pairs of real ones, for the tests.

ember has no differentiable `view_as_real` / `torch.complex` yet, and gradcheck compares real
Jacobians; these two Functions (each other's adjoint, so they differentiate to any order) let a
test feed a transform complex input built from real leaves and check a real view of its output.
"""

import numpy as np

import ember
from ember.autograd import Function


class ViewAsReal(Function):
    """z -> its real and imaginary parts stacked in a last dim of size 2 (torch.view_as_real)."""

    @staticmethod
    def forward(ctx, z):
        return ember.tensor(np.stack([z.numpy().real, z.numpy().imag], axis=-1))

    @staticmethod
    def backward(ctx, grad):
        # For a real loss: grad_z = dL/d(re z) + i dL/d(im z).
        return ComplexFromParts.apply(grad[..., 0], grad[..., 1])

    @staticmethod
    def jvp(ctx, tangent):
        return ViewAsReal.apply(tangent)


class ComplexFromParts(Function):
    """(re, im) -> re + i im (torch.complex)."""

    @staticmethod
    def forward(ctx, real, imag):
        return ember.tensor(real.numpy() + 1j * imag.numpy())

    @staticmethod
    def backward(ctx, grad):
        parts = ViewAsReal.apply(grad)
        return parts[..., 0], parts[..., 1]

    @staticmethod
    def jvp(ctx, tangent_real, tangent_imag):
        return ComplexFromParts.apply(tangent_real, tangent_imag)


def view_as_real(z):
    return ViewAsReal.apply(z)


def complex_from_parts(real, imag):
    return ComplexFromParts.apply(real, imag)
