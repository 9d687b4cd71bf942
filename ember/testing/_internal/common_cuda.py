"""`torch.testing._internal.common_cuda`: what the tests know about CUDA. ember computes on the CPU
(through NumPy), so every flag is off and the TF32 helpers change nothing."""

import contextlib

__all__ = [
    "PLATFORM_SUPPORTS_CUDNN_ATTENTION",
    "PLATFORM_SUPPORTS_FLASH_ATTENTION",
    "PLATFORM_SUPPORTS_FUSED_ATTENTION",
    "PLATFORM_SUPPORTS_MEM_EFF_ATTENTION",
    "TEST_CUDA",
    "TEST_CUDNN",
    "TEST_CUDNN_VERSION",
    "TEST_MULTIGPU",
    "tf32_off",
    "tf32_on",
    "tf32_on_and_off",
    "with_tf32_off",
]

TEST_CUDA = TEST_MULTIGPU = TEST_CUDNN = TEST_BF16 = TEST_NUMBA_CUDA = TEST_CUSPARSE_GENERIC = False
TEST_CUDNN_VERSION = 0
CUDA_DEVICE = None
SM53OrLater = SM60OrLater = SM70OrLater = SM75OrLater = SM80OrLater = SM89OrLater = SM90OrLater = False
PLATFORM_SUPPORTS_FLASH_ATTENTION = PLATFORM_SUPPORTS_MEM_EFF_ATTENTION = False
PLATFORM_SUPPORTS_FUSED_ATTENTION = PLATFORM_SUPPORTS_CUDNN_ATTENTION = False


def _get_torch_cuda_version():
    return (0, 0)


def _get_torch_rocm_version():
    return (0, 0)


def initialize_cuda_context_rng():
    """Nothing to initialize without CUDA."""


@contextlib.contextmanager
def tf32_off():
    yield


@contextlib.contextmanager
def tf32_on(self, tf32_precision=1e-5):
    yield


def tf32_on_and_off(tf32_precision=1e-5, *, only_if=True):
    """The test as it is: there is no TF32 mode to run it in as well."""
    return lambda test: test


def with_tf32_off(test):
    return test
