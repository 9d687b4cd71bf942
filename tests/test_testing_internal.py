"""ember.testing._internal against torch.testing._internal: assertEqual's verdicts, the names of
parametrized and device-type tests, the tolerance decorators, and the graph nodes of torch._C._functions."""

import unittest
import warnings

import numpy as np
import pytest

import ember
from ember.autograd import Function
from ember.testing._internal import common_device_type, common_dtype, common_utils

# Each pair is built with `lib` (ember or torch); assertEqual must pass or fail alike, with the same class.
EQUAL_CASES = {
    "tensor and list": lambda lib: (lib.tensor([1.0, 2.0]), [1, 2]),
    "list and tensor": lambda lib: ([1, 2], lib.tensor([1, 2])),
    "int tensor and float list": lambda lib: (lib.tensor([1, 2]), (1.0, 2.0)),
    "0-d tensor and number": lambda lib: (lib.tensor(2.0), 2),
    "number and one-element tensor": lambda lib: (1.5, lib.tensor([1.5], dtype=lib.float64)),
    "many-element tensor and number": lambda lib: (lib.zeros(3), 0),
    "float tolerance": lambda lib: (1.0, 1.0000001),
    "float beyond tolerance": lambda lib: (1.0, 1.001),
    "huge ints differ": lambda lib: (1234567890123456789, 1234567890123456768),
    "int and float": lambda lib: (1, 1.0),
    "bool and int": lambda lib: (True, 1),
    "bool tensor and bool": lambda lib: (lib.tensor([True]), True),
    "dtypes differ": lambda lib: (lib.ones(2), lib.ones(2, dtype=lib.float64)),
    "tensor and ndarray": lambda lib: (lib.ones(2, dtype=lib.float64), np.ones(2)),
    "shapes differ": lambda lib: (lib.ones(2), lib.ones(3)),
    "nan equal": lambda lib: (lib.tensor([float("nan")]), lib.tensor([float("nan")])),
    "tuple and list": lambda lib: ((1, 2), [1, 2]),
    "lengths differ": lambda lib: ([1, 2], [1]),
    "Size and tuple": lambda lib: (lib.Size([2, 3]), (2, 3)),
    "mapping": lambda lib: ({"a": lib.ones(2)}, {"a": lib.ones(2)}),
    "mapping keys": lambda lib: ({"a": 1}, {"b": 1}),
    "strings": lambda lib: ("ab", "ab"),
    "number and string": lambda lib: (1, "1"),
    "None and tensor": lambda lib: (None, lib.ones(1)),
    "ModuleList and list": lambda lib: (lib.nn.ModuleList([lib.nn.ReLU()]), [lib.nn.ReLU()]),
}


def _verdict(test_case, lib, case):
    try:
        test_case.assertEqual(*EQUAL_CASES[case](lib))
    except Exception as error:  # the verdict is the class of what was raised
        return type(error).__name__
    return "pass"


@pytest.fixture(scope="module")
def torch_utils():
    pytest.importorskip("torch")
    pytest.importorskip("expecttest")  # torch.testing._internal.common_utils needs it
    from torch.testing._internal import common_utils as torch_common_utils

    return torch_common_utils


@pytest.mark.parametrize("case", EQUAL_CASES)
def test_assert_equal_agrees_with_torch(case, torch_utils):
    import torch

    expected = _verdict(torch_utils.TestCase(), torch, case)
    assert _verdict(common_utils.TestCase(), ember, case) == expected


def test_assert_equal_tolerances_messages_and_overrides():
    case = common_utils.TestCase()
    case.assertEqual(ember.ones(2), ember.ones(2) + 1e-3, atol=1e-2, rtol=0)
    with pytest.raises(AssertionError, match="Tensor-likes are not close"):
        case.assertEqual(ember.ones(2), ember.ones(2) + 1e-3)
    with pytest.raises(AssertionError, match="Tensor-likes are not close!(.|\n)*custom note"):
        case.assertEqual(ember.ones(2), ember.zeros(2), "custom note")
    with pytest.raises(AssertionError, match="If one of atol or rtol is specified"):
        case.assertEqual(ember.ones(2), ember.ones(2), atol=1e-3)
    case.assertEqual(ember.ones(2), ember.ones(2, dtype=ember.float64), exact_dtype=False)
    case.assertNotEqual(ember.ones(2), ember.zeros(2))
    case.precision = 0.5  # what @precisionOverride sets
    case.assertEqual(ember.tensor(1.0), ember.tensor(1.2))
    case.assertEqual(1.0, 1.2)


@pytest.mark.parametrize("module", ["common_utils", "common_device_type"])
def test_generated_test_names_match_torch(module, torch_utils):
    """The same class through ember's and torch's instantiation gives the same test names."""
    import torch

    def names(lib, utils, device_type):
        class Generic(utils.TestCase):
            @utils.parametrize("x", [1, 2.5, "a"])
            @utils.parametrize("flag", [True, False])
            def test_p(self, x, flag, **device):
                pass

            @utils.parametrize("a,b", [utils.subtest((1, 2), name="one_two"), (3, 4)])
            def test_q(self, a, b, **device):
                self.assertLess(a, b)

            @utils.parametrize("value", [lib.nn.ReLU(), lib.float16])
            def test_r(self, value, **device):
                pass

        if module == "common_utils":
            utils.instantiate_parametrized_tests(Generic)
            return sorted(name for name in dir(Generic) if name.startswith("test"))

        class Typed(utils.TestCase):
            @device_type.dtypes(lib.float32, lib.float64)
            @utils.parametrize("n", [1, 2])
            def test_d(self, device, dtype, n):
                pass

            @device_type.dtypes((lib.float32, lib.int64))
            def test_e(self, device, dtypes):
                pass

            def test_f(self, device):
                pass

        scope = {"Typed": Typed}
        device_type.instantiate_device_type_tests(Typed, scope, only_for="cpu")
        assert list(scope) == ["TypedCPU"]
        return sorted(name for name in dir(scope["TypedCPU"]) if name.startswith("test") and name != "test_exclusions")

    from torch.testing._internal import common_device_type as torch_device_type

    assert names(ember, common_utils, common_device_type) == names(torch, torch_utils, torch_device_type)


def _run(test_class):
    """Run a test class; the result also counts the tests loaded (3.12.1's `testsRun` leaves out skips)."""
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(test_class)
    result = unittest.TestResult()
    suite.run(result)
    result.loaded = suite.countTestCases()
    return result


def test_device_type_tests_run_with_device_dtype_and_tolerances():
    seen = []

    class Generic(common_utils.TestCase):
        @common_device_type.dtypes(ember.float32, ember.float64)
        def test_values(self, device, dtype):
            seen.append((device, dtype))
            self.assertEqual(ember.ones(1, dtype=dtype, device=device).dtype, dtype)

        @common_device_type.precisionOverride({ember.float32: 0.5})
        @common_device_type.dtypes(ember.float32)
        def test_precision(self, device, dtype):
            self.assertEqual(ember.tensor(1.0, dtype=dtype), ember.tensor(1.2, dtype=dtype))

        @common_device_type.toleranceOverride({ember.float32: common_device_type.tol(atol=0.5, rtol=0)})
        @common_device_type.dtypes(ember.float32)
        def test_tolerance(self, device, dtype):
            self.assertEqual(ember.tensor(1.0), ember.tensor(1.2))

        @common_device_type.onlyCUDA
        def test_cuda_only(self, device):
            raise AssertionError("a CUDA-only test ran on the CPU")

        @common_device_type.deviceCountAtLeast(1)
        def test_devices(self, devices):
            self.assertEqual(devices, ["cpu"])

    scope = {"Generic": Generic}
    common_device_type.instantiate_device_type_tests(Generic, scope)
    result = _run(scope["GenericCPU"])
    assert result.loaded == 6 and not result.failures and not result.errors, result.failures + result.errors
    assert [reason for _, reason in result.skipped] == ["Only runs on cuda"]
    assert seen == [("cpu", ember.float32), ("cpu", ember.float64)]
    assert not common_device_type.instantiate_device_type_tests(Generic, {"Generic": Generic}, except_for="cpu")


def test_parametrized_tests_keep_skips_and_expected_failures():
    class Generic(common_utils.TestCase):
        @common_utils.parametrize("x", [1, 2])
        @unittest.expectedFailure
        def test_fails(self, x):
            self.assertEqual(x, 0)

        @common_utils.parametrize("x", [1])
        @unittest.skip("skipped on purpose")
        def test_skipped(self, x):
            raise AssertionError("ran")

    result = _run(common_utils.instantiate_parametrized_tests(Generic))
    assert len(result.expectedFailures) == 2 and len(result.skipped) == 1 and not result.errors


def test_setup_seeds_every_generator():
    case = common_utils.TestCase()
    case.setUp()
    first = (ember.rand(2), np.random.rand(), __import__("random").random())
    case.setUp()
    second = (ember.rand(2), np.random.rand(), __import__("random").random())
    assert ember.equal(first[0], second[0]) and first[1:] == second[1:]


def test_warning_assertions():
    case = common_utils.TestCase()
    with case.assertWarnsOnceRegex(UserWarning, "shown"):
        warnings.warn("shown once", UserWarning)
    with pytest.raises(AssertionError, match="no warning caught"):
        with case.assertWarnsOnceRegex(UserWarning, "x"):
            pass
    case.assertNotWarn(lambda: None)
    with pytest.raises(AssertionError):
        case.assertNotWarn(lambda: warnings.warn("oops"))


def test_dtype_lists():
    assert common_dtype.floating_types_and(ember.float16, None) == (ember.float32, ember.float64, ember.float16)
    assert set(common_dtype.all_types_and_complex()) >= {ember.int64, ember.complex128}
    with pytest.raises(TypeError, match="expected a dtype"):
        common_dtype.floating_types_and("float16")


def test_dtype_lists_match_torch(torch_utils):
    import torch
    from torch.testing._internal import common_dtype as torch_dtype

    for name in ("floating_types", "integral_types", "all_types", "all_types_and_complex", "complex_types"):
        ours = [str(dtype) for dtype in getattr(common_dtype, name)()]
        assert ours == [str(dtype) for dtype in getattr(torch_dtype, name)()], name
    assert [str(d) for d in common_dtype.floating_types_and(ember.float16)] == [
        str(d) for d in torch_dtype.floating_types_and(torch.float16)
    ]


# ----------------------------------------------------------------- torch._C._functions
class _PassThrough(Function):
    @staticmethod
    def forward(ctx, x, materialize, seen):
        ctx.set_materialize_grads(materialize)
        ctx.seen = seen
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        ctx.seen.append(grad)
        return grad, None, None


@pytest.mark.parametrize("materialize", [True, False])
def test_undefined_grad_reaches_a_custom_function(materialize):
    """A custom Function runs when only an undefined gradient reaches it: zeros, or None."""
    x = ember.ones(2, requires_grad=True)
    seen = []
    ember._C._functions.UndefinedGrad()(_PassThrough.apply(x, materialize, seen)).backward(ember.ones(2))
    assert len(seen) == 1
    if materialize:
        assert ember.equal(seen[0], ember.zeros(2)) and ember.equal(x.grad, ember.zeros(2))
    else:
        assert seen[0] is None and x.grad is None


def test_a_builtin_node_reached_by_no_gradient_is_not_run():
    x = ember.ones(2, requires_grad=True)
    ember._C._functions.UndefinedGrad()(x * 2).sum().backward()
    assert x.grad is None


def test_delayed_error_raises_when_reached():
    x, y = ember.rand(2, requires_grad=True), ember.rand(2, requires_grad=True)
    y_safe = ember._C._functions.DelayedError("Boom!", 1)(y)
    with pytest.raises(RuntimeError, match="Boom!"):
        (x * y_safe).sum().backward()
    (grad,) = ember.autograd.grad((x * y_safe).sum(), x)  # a backward that does not reach it runs
    assert ember.allclose(grad, y)
    with pytest.raises(TypeError, match="expected 1 inputs"):
        ember._C._functions.DelayedError("Boom!", 1)(x, y)


def test_dispatch_modes_refuse_to_start():
    from ember.utils._python_dispatch import TorchDispatchMode
    from ember.utils.flop_counter import FlopCounterMode

    for mode in (TorchDispatchMode(), FlopCounterMode()):
        with pytest.raises(NotImplementedError, match="__torch_dispatch__ modes are not supported"):
            with mode:
                pass


def test_selective_checkpoint_contexts_recompute_with_the_same_values():
    import functools

    from ember.utils.checkpoint import CheckpointPolicy, checkpoint, create_selective_checkpoint_contexts

    def policy(ctx, op, *args, **kwargs):
        return CheckpointPolicy.MUST_SAVE

    x = ember.randn(3, requires_grad=True)
    context_fn = functools.partial(create_selective_checkpoint_contexts, policy)
    checkpoint(lambda t: (t.sin() * t).sum(), x, use_reentrant=False, context_fn=context_fn).backward()
    assert ember.allclose(x.grad, x.detach().cos() * x.detach() + x.detach().sin())
    with pytest.raises(TypeError, match="either a function or a list"):
        create_selective_checkpoint_contexts(3)
