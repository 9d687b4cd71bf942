"""Folding a BatchNorm in eval mode into the convolution or linear layer before it (for inference):
BN(conv(x)) = conv'(x) with weight w * gamma / sqrt(var + eps) per output channel and bias
(b - mean) * gamma / sqrt(var + eps) + beta."""

import copy

from ... import autograd
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of `conv` computing `bn(conv(x))` (both in eval mode)."""
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias, transpose
    )
    return fused


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """The fused (weight, bias) Parameters; missing biases and affine factors count as 0 and 1."""
    with autograd.no_grad():
        conv_b = bn_rm.new_zeros(bn_rm.shape) if conv_b is None else conv_b
        bn_w = bn_rm.new_ones(bn_rm.shape) if bn_w is None else bn_w
        bn_b = bn_rm.new_zeros(bn_rm.shape) if bn_b is None else bn_b
        scale = bn_w * (bn_rv + bn_eps).rsqrt()
        shape = [1, -1] if transpose else [-1, 1]
        fused_w = conv_w * scale.reshape(shape + [1] * (conv_w.dim() - 2)).to(conv_w.dtype)
        fused_b = ((conv_b - bn_rm) * scale + bn_b).to(conv_b.dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of `linear` computing `bn(linear(x))` (both in eval mode)."""
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError("To fuse, linear.out_features must equal bn.num_features or bn.num_features must be 1")
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias
    )
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The fused (weight, bias) Parameters of a linear layer followed by BatchNorm1d."""
    with autograd.no_grad():
        linear_b = bn_rm.new_zeros(bn_rm.shape) if linear_b is None else linear_b
        bn_w = bn_rm.new_ones(bn_rm.shape) if bn_w is None else bn_w
        bn_b = bn_rm.new_zeros(bn_rm.shape) if bn_b is None else bn_b
        scale = bn_w * (bn_rv + bn_eps).rsqrt()
        fused_w = linear_w * scale.unsqueeze(-1)
        fused_b = (linear_b - bn_rm) * scale + bn_b
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)
