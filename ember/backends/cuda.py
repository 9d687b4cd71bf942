"""`ember.backends.cuda`: CUDA is not built; `matmul.allow_tf32` mirrors the float32 matmul precision.

As in PyTorch, `matmul.allow_tf32 = True` sets `ember.get_float32_matmul_precision()` to "high" and
False sets "highest"; reading it tells whether the precision is below "highest".
"""

from .. import _global_settings

__all__ = [
    "is_built",
    "matmul",
    "flash_sdp_enabled",
    "mem_efficient_sdp_enabled",
    "math_sdp_enabled",
    "cudnn_sdp_enabled",
    "enable_flash_sdp",
    "enable_mem_efficient_sdp",
    "enable_math_sdp",
    "enable_cudnn_sdp",
]


def is_built():
    return False


class _MatmulSwitches:
    """`backends.cuda.matmul`: the cuBLAS switches."""

    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True

    @property
    def allow_tf32(self):
        return _global_settings.settings.float32_matmul_precision != "highest"

    @allow_tf32.setter
    def allow_tf32(self, value):
        _global_settings.settings.float32_matmul_precision = "high" if value else "highest"


matmul = _MatmulSwitches()

_sdp_enabled = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def flash_sdp_enabled():
    return _sdp_enabled["flash"]


def mem_efficient_sdp_enabled():
    return _sdp_enabled["mem_efficient"]


def math_sdp_enabled():
    return _sdp_enabled["math"]


def cudnn_sdp_enabled():
    return _sdp_enabled["cudnn"]


def enable_flash_sdp(enabled):
    _sdp_enabled["flash"] = bool(enabled)


def enable_mem_efficient_sdp(enabled):
    _sdp_enabled["mem_efficient"] = bool(enabled)


def enable_math_sdp(enabled):
    _sdp_enabled["math"] = bool(enabled)


def enable_cudnn_sdp(enabled):
    _sdp_enabled["cudnn"] = bool(enabled)
