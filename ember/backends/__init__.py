"""`ember.backends`: the switches and queries scripts use for PyTorch's accelerated backends.

Difference from PyTorch: ember computes with NumPy on the CPU, so every accelerator library is
reported absent (cuDNN, CUDA, MPS, and also MKL-DNN, MKL and OpenMP, which PyTorch's CPU build has);
switches such as `cudnn.benchmark = True` are kept but change nothing. `backends.cuda.matmul.allow_tf32` follows `ember.set_float32_matmul_precision`, as in PyTorch.
"""

from . import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp, opt_einsum

__all__ = ["cpu", "cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp", "opt_einsum"]
