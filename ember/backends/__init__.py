"""`ember.backends`: the switches and queries scripts use for PyTorch's accelerated backends.

ember computes with NumPy on the CPU: the accelerator libraries are reported absent (cuDNN, CUDA,
MPS, MKL-DNN, MKL, OpenMP), and switches such as `cudnn.benchmark = True` are kept but change
nothing. `backends.cuda.matmul.allow_tf32` follows `ember.set_float32_matmul_precision`, as in PyTorch.
"""

from . import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp, opt_einsum

__all__ = ["cpu", "cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp", "opt_einsum"]
