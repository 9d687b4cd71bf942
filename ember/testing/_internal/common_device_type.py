"""`torch.testing._internal.common_device_type`: tests written once and run per device and dtype.

`instantiate_device_type_tests(TestFoo, globals())` replaces the generic class with `TestFooCPU`,
whose tests take the device ('cpu', ember's only one) and, under `@dtypes(...)`, each dtype, named
as PyTorch names them: `test_bar_cpu_float32`, `test_bar_x_1_cpu` with `@parametrize`. Decorators
for other devices (`onlyCUDA`, `dtypesIfCUDA`, `skipCUDAIf`, ...) apply to none of these tests, and
tests that only run elsewhere are skipped.
"""

import inspect
import unittest
from collections import namedtuple

from .common_utils import TestCase, bind_test, dtype_name, parametrized_variants

__all__ = [
    "deviceCountAtLeast",
    "dtypes",
    "dtypesIfCPU",
    "dtypesIfCUDA",
    "expectedFailureCPU",
    "instantiate_device_type_tests",
    "onlyCPU",
    "onlyCUDA",
    "onlyNativeDeviceTypes",
    "precisionOverride",
    "skipCPUIf",
    "skipMeta",
    "tol",
    "toleranceOverride",
]

DEVICE_TYPE = "cpu"
tol = namedtuple("tol", ["atol", "rtol"])


class CPUTestBase(TestCase):
    device_type = DEVICE_TYPE

    @classmethod
    def get_primary_device(cls):
        return DEVICE_TYPE

    @classmethod
    def get_all_devices(cls):
        return [DEVICE_TYPE]


def get_all_device_types():
    return [DEVICE_TYPE]


def instantiate_device_type_tests(
    generic_test_class, scope, except_for=None, only_for=None, include_lazy=False, allow_mps=False, allow_xpu=False
):
    """Put `<Name>CPU` into `scope` in place of the generic class (nothing, if the CPU is excluded)."""
    del scope[generic_test_class.__name__]
    if DEVICE_TYPE in _as_list(except_for) or only_for is not None and DEVICE_TYPE not in _as_list(only_for):
        return
    # The device class gets the generic class's other members, and its tests only as instances.
    empty = type(generic_test_class.__name__, generic_test_class.__bases__, {})
    name = generic_test_class.__name__ + DEVICE_TYPE.upper()
    device_class = type(name, (CPUTestBase, empty), {"__module__": generic_test_class.__module__})
    device_class.__qualname__ = name
    for member, value in vars(generic_test_class).items():
        if member in vars(empty):
            continue
        if member.startswith("test") and inspect.isfunction(value):
            for variant_name, variant in _device_variants(member, value):
                setattr(device_class, variant_name, variant)
        else:
            setattr(device_class, member, value)
    scope[name] = device_class


def _as_list(names):
    return [names] if isinstance(names, str) else list(names or ())


def _device_variants(test_name, test):
    parameters = inspect.signature(test).parameters
    dtype_lists = getattr(test, "_device_dtypes", {})
    dtype_list = dtype_lists.get(DEVICE_TYPE, dtype_lists.get("all", [None]))
    for suffix, arguments, decorators in parametrized_variants(test):
        for dtype in dtype_list:
            arguments = dict(arguments)
            if "device" in parameters:
                arguments["device"] = DEVICE_TYPE
            if "devices" in parameters:
                arguments["devices"] = [DEVICE_TYPE]
            if dtype is not None:
                arguments["dtypes" if "dtypes" in parameters else "dtype"] = dtype
            name = f"{test_name}{'_' + suffix if suffix else ''}_{DEVICE_TYPE}{_dtype_suffix(dtype)}"
            yield name, bind_test(test, name, arguments, decorators, before=_tolerance_setter(test, dtype))


def _dtype_suffix(dtype):
    if dtype is None:
        return ""
    if isinstance(dtype, (list, tuple)):
        return "_" + "_".join(dtype_name(each) for each in dtype)
    return "_" + dtype_name(dtype)


def _tolerance_setter(test, dtype):
    precisions = getattr(test, "_precision_overrides", {})
    tolerances = getattr(test, "_tolerance_overrides", {})
    if dtype not in precisions and dtype not in tolerances:
        return None

    def set_tolerance(self):
        if dtype in precisions:
            self.precision = precisions[dtype]
        if dtype in tolerances:
            self.precision, self.rel_tol = tolerances[dtype]

    return set_tolerance


# ----------------------------------------------------------------- dtypes and tolerances
class dtypes:
    """The dtypes a device-generic test runs with: each a dtype, or a tuple of dtypes (the test then
    takes `dtypes`, or `dtype` as the tuple)."""

    def __init__(self, *args, device_type="all"):
        if len(args) == 1 and isinstance(args[0], list):  # dtypes([a, b]): a list of entries
            args = tuple(args[0])
        self.args, self.device_type = args, device_type

    def __call__(self, test):
        lists = dict(getattr(test, "_device_dtypes", {}))
        if self.device_type in lists:
            raise RuntimeError(f"dtypes redefinition for {self.device_type} on {test.__name__}")
        lists[self.device_type] = self.args
        test._device_dtypes = lists
        return test


def dtypesIfCPU(*args):
    return dtypes(*args, device_type="cpu")


def _dtypes_elsewhere(device_type):
    return lambda *args: dtypes(*args, device_type=device_type)


dtypesIfCUDA, dtypesIfMPS, dtypesIfXPU, dtypesIfHPU = (_dtypes_elsewhere(d) for d in ("cuda", "mps", "xpu", "hpu"))


def precisionOverride(precisions):
    """`{dtype: atol}`: the test's `precision` for that dtype."""

    def decorate(test):
        test._precision_overrides = dict(precisions)
        return test

    return decorate


def toleranceOverride(tolerances):
    """`{dtype: tol(atol, rtol)}`: the test's `precision` and `rel_tol` for that dtype."""

    def decorate(test):
        test._tolerance_overrides = {dtype: (value.atol, value.rtol) for dtype, value in tolerances.items()}
        return test

    return decorate


# ----------------------------------------------------------------- devices
def _identity(test):
    return test


def _elsewhere(device_type):
    return unittest.skip(f"Only runs on {device_type}")


onlyCPU = onlyNativeDeviceTypes = skipMeta = skipCUDAIfRocm = skipCUDAIfNoMagma = skipCUDAIfNoCudnn = _identity
skipCPUIfNoLapack = skipCUDAIfNoMagmaAndNoCusolver = skipCUDAIfNoCusolver = _identity
onlyCUDA, onlyMPS, onlyXPU, onlyHPU = (_elsewhere(d) for d in ("cuda", "mps", "xpu", "hpu"))
expectedFailureCPU = unittest.expectedFailure
expectedFailureCUDA = expectedFailureMPS = expectedFailureXPU = expectedFailureMeta = _identity


def onlyOn(device_type):
    return _identity if DEVICE_TYPE in _as_list(device_type) else _elsewhere(device_type)


def onlyNativeDeviceTypesAnd(devices=None):
    return _identity


def skipCPUIf(condition, reason):
    return unittest.skipIf(condition, reason)


def _never(*args, **kwargs):
    return _identity


skipCUDAIf = skipMPSIf = skipXPUIf = skipMetaIf = skipHPUIf = skipCUDAIfCudnnVersionLessThan = _never
largeTensorTest = _never


def deviceCountAtLeast(count):
    """The test takes `devices`, a list of at least `count` devices: one CPU here."""

    def decorate(test):
        return unittest.skipIf(count > 1, f"needs {count} devices; ember has one (the CPU)")(test)

    return decorate
