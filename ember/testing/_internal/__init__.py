"""`torch.testing._internal`: the test-suite helpers PyTorch's own test files import.

PyTorch keeps these for its own tests (they are not a public API), but a reader who runs those
tests against ember, or copies them into a project, needs them to import and to mean the same:
`common_utils` (TestCase and its tensor-aware assertEqual, parametrize, skip decorators, the
environment flags), `common_device_type` (tests instantiated per device and dtype; here the CPU
only), `common_dtype` (the dtype lists) and `common_cuda` (the CUDA flags, all off). Not provided:
the OpInfo database (`common_methods_invocations`), `common_nn`'s module tests, and anything
TorchScript, Dynamo or C++-extension specific.
"""
