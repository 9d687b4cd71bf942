"""`torch.testing._internal.common_utils`: PyTorch's TestCase and the helpers its test files use.

`TestCase.assertEqual` compares as PyTorch's does: tensors (and NumPy arrays) with the dtype's
default tolerances, or `atol`/`rtol`, raised to the test's `precision`/`rel_tol` where a decorator
overrides them; a tensor against a list (the list becomes a tensor of the tensor's dtype); a number
against a number or a one-element tensor (floats with float32's tolerances); sequences, mappings,
modules' containers item by item; anything else with `==`. The decorators that skip tests on other
platforms or under Dynamo leave the test as it is: ember is neither.
"""

import contextlib
import functools
import gc
import importlib.util
import os
import platform
import random
import re
import sys
import tempfile
import unittest
import warnings
from collections.abc import Mapping, Sequence

import numpy as np

from ... import _dtype, _global_settings, random as _random
from ..._tensor import Tensor
from ...autograd.gradcheck import gradcheck as _gradcheck, gradgradcheck as _gradgradcheck
from ..comparison import _DEFAULT_TOLERANCES, assert_close
from ..creation import make_tensor

__all__ = [
    "IS_LINUX",
    "IS_MACOS",
    "IS_WINDOWS",
    "SEED",
    "TEST_WITH_TORCHDYNAMO",
    "TestCase",
    "disable_gc",
    "freeze_rng_state",
    "gradcheck",
    "gradgradcheck",
    "instantiate_parametrized_tests",
    "make_tensor",
    "parametrize",
    "run_tests",
    "set_rng_seed",
    "skipIfNoLapack",
    "skipIfTorchDynamo",
    "slowTest",
    "subtest",
]

# ----------------------------------------------------------------- the environment
IS_WINDOWS = sys.platform == "win32"
IS_MACOS = sys.platform == "darwin"
IS_LINUX = sys.platform.startswith("linux")
IS_PPC = IS_S390X = IS_JETSON = IS_FBCODE = IS_SANDCASTLE = IS_REMOTE_GPU = False
IS_X86 = platform.machine() in ("x86_64", "i386", "AMD64")
IS_ARM64 = platform.machine() in ("arm64", "aarch64")
TEST_WITH_TORCHDYNAMO = TEST_WITH_TORCHINDUCTOR = TEST_WITH_CROSSREF = TEST_WITH_ROCM = False
TEST_WITH_ASAN = TEST_WITH_TSAN = TEST_WITH_UBSAN = TEST_WITH_SLOW_GRADCHECK = False
TEST_CUDA = TEST_MPS = TEST_XPU = TEST_MKL = TEST_PRIVATEUSE1 = False
TEST_NUMPY = True
TEST_WITH_SLOW = os.environ.get("PYTORCH_TEST_WITH_SLOW", "0") == "1"
TEST_SCIPY = importlib.util.find_spec("scipy") is not None
SEED = 1234

numpy_to_torch_dtype_dict = {dtype.numpy_dtype.type: dtype for dtype in _dtype.NUMPY_DTYPES + _dtype.WIDE_UNSIGNED}
torch_to_numpy_dtype_dict = {dtype: numpy_type for numpy_type, dtype in numpy_to_torch_dtype_dict.items()}


def set_rng_seed(seed):
    """Seed every generator a test may draw from: ember's, Python's and NumPy's global one."""
    _random.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)


@contextlib.contextmanager
def freeze_rng_state():
    """Run the block, then put ember's random state back as it was."""
    state = _random.get_rng_state()
    try:
        yield
    finally:
        _random.set_rng_state(state)


@contextlib.contextmanager
def disable_gc():
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@contextlib.contextmanager
def set_warn_always_context(new_value):
    previous = _global_settings.is_warn_always_enabled()
    _global_settings.set_warn_always(new_value)
    try:
        yield
    finally:
        _global_settings.set_warn_always(previous)


class DeterministicGuard:
    """`use_deterministic_algorithms(deterministic, warn_only=...)` for the block."""

    def __init__(self, deterministic, *, warn_only=False, fill_uninitialized_memory=True):
        self.deterministic, self.warn_only = deterministic, warn_only

    def __enter__(self):
        self.previous = (
            _global_settings.are_deterministic_algorithms_enabled(),
            _global_settings.is_deterministic_algorithms_warn_only_enabled(),
        )
        _global_settings.use_deterministic_algorithms(self.deterministic, warn_only=self.warn_only)

    def __exit__(self, *exception):
        deterministic, warn_only = self.previous
        _global_settings.use_deterministic_algorithms(deterministic, warn_only=warn_only)


@contextlib.contextmanager
def TemporaryFileName(*args, **kwargs):
    """A path to a temporary file that exists during the block (closed, so it can be reopened)."""
    with tempfile.NamedTemporaryFile(*args, delete=False, **kwargs) as file:
        name = file.name
    try:
        yield name
    finally:
        os.unlink(name)


@contextlib.contextmanager
def TemporaryDirectoryName(suffix=None):
    with tempfile.TemporaryDirectory(suffix=suffix) as name:
        yield name


# ----------------------------------------------------------------- skips and markers
def _identity(test):
    return test


def _bare_or_called(decorate):
    """A decorator usable bare (`@skipIfRocm`) or called (`@skipIfRocm(msg=...)`)."""

    def decorator(func=None, **options):
        if func is None or not callable(func):
            return lambda test: decorate(test, func, **options)
        return decorate(func, None, **options)

    return decorator


def _never_skipped(test, *args, **options):
    return test


skipIfRocm = skipIfXpu = skipIfHpu = _bare_or_called(_never_skipped)
skipIfNoLapack = skipIfMPS = skipIfSlowGradcheckEnv = skipIfCrossRef = xfailIfTorchDynamo = _identity
skipIfNoNumpy = skipIfTorchInductorIf = _identity
skipIfWindows = _bare_or_called(
    lambda test, _, msg="test doesn't work on Windows": unittest.skipIf(IS_WINDOWS, msg)(test)
)
skipIfNoSciPy = unittest.skipIf(not TEST_SCIPY, "test requires SciPy, which is not installed")


def skipIfTorchDynamo(msg="test doesn't currently work with dynamo"):
    if not isinstance(msg, str):
        raise TypeError("skipIfTorchDynamo takes a message: write @skipIfTorchDynamo() or @skipIfTorchDynamo('why')")
    return _identity


def skipIfTorchInductor(msg="test doesn't currently work with torchinductor", condition=True):
    return _identity


def skipCUDANonDefaultStreamIf(condition):
    return _identity


def serialTest(condition=True):
    return _identity


def skip_but_pass_in_sandcastle_if(condition, reason):
    return unittest.skipIf(condition, reason)


def skip_but_pass_in_sandcastle(reason):
    return unittest.skip(reason)


def slowTest(test):
    """Run only with PYTORCH_TEST_WITH_SLOW=1, as in PyTorch."""
    return unittest.skipIf(not TEST_WITH_SLOW, "test is slow; run with PYTORCH_TEST_WITH_SLOW=1 to enable it")(test)


def scoped_load_inline(test):
    """Tests of C++ extensions (`load_inline`) are skipped: ember has no C++ core to extend."""
    return unittest.skip("C++ extensions (torch.utils.cpp_extension.load_inline) need PyTorch's C++ core")(test)


def suppress_warnings(test):
    @functools.wraps(test)
    def quiet(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return test(*args, **kwargs)

    return quiet


def wrapDeterministicFlagAPITest(test):
    """Run the test with the deterministic-algorithms flags restored afterwards."""

    @functools.wraps(test)
    def restoring(*args, **kwargs):
        with DeterministicGuard(
            _global_settings.are_deterministic_algorithms_enabled(),
            warn_only=_global_settings.is_deterministic_algorithms_warn_only_enabled(),
        ):
            return test(*args, **kwargs)

    return restoring


def load_tests(loader, tests, pattern):
    """unittest's load_tests protocol: PyTorch shards here; ember runs every test."""
    return tests


# ----------------------------------------------------------------- parametrized tests
class subtest:
    """One parametrization's values, with its own name and decorators."""

    def __init__(self, arg_values, name=None, decorators=None):
        self.arg_values, self.name, self.decorators = arg_values, name, decorators or []


class parametrize:
    """`@parametrize("x", [1, 2])` or `@parametrize("x,y", [(1, 2), (3, 4)], name_fn=...)`: one test
    per value, named `test_f_x_1`; stacked decorators make the product. The tests exist once the
    class goes through `instantiate_parametrized_tests` (or `instantiate_device_type_tests`)."""

    def __init__(self, arg_str, arg_values, name_fn=None):
        self.arg_names = [name.strip() for name in arg_str.split(",") if name.strip()]
        self.arg_values, self.name_fn = arg_values, name_fn

    def __call__(self, test):
        test._parametrizations = test.__dict__.get("_parametrizations", []) + [self]  # (a copy: wrappers share dicts)
        return test

    def variants(self):
        """(name suffix, keyword arguments, decorators) per value."""
        for index, value in enumerate(self.arg_values):
            decorators, name = [], None
            if isinstance(value, subtest):
                decorators, name, value = value.decorators, value.name, value.arg_values
            values = (value,) if len(self.arg_names) == 1 else tuple(value)
            if len(values) != len(self.arg_names):
                raise RuntimeError(
                    f"parametrize: {len(self.arg_names)} names ({', '.join(self.arg_names)}) but the value "
                    f"{value!r} has {len(values)}"
                )
            if name is None:
                name = self.name_fn(*values) if self.name_fn else self._default_name(index, values)
            yield name, dict(zip(self.arg_names, values)), decorators

    def _default_name(self, index, values):
        return "_".join(_value_name(index, name, value) for name, value in zip(self.arg_names, values))


def _value_name(index, name, value):
    if isinstance(value, _dtype.dtype):
        return dtype_name(value)
    if isinstance(value, (bool, int, float, str)):
        return f"{name}_{str(value).replace('.', '_')}"
    return f"{name}{index}"


def dtype_name(dtype):
    """`torch.float32` -> "float32", as test names spell dtypes."""
    return str(dtype).split(".")[-1]


def parametrized_variants(test):
    """(name suffix, keyword arguments, decorators) for each combination of the test's
    @parametrize decorators (named in the order they are written), or one plain variant."""
    variants = [("", {}, [])]
    for parametrization in reversed(test.__dict__.get("_parametrizations", [])):  # (applied bottom-up)
        variants = [
            ("_".join(filter(None, (name, new_name))), {**arguments, **new_arguments}, decorators + new_decorators)
            for name, arguments, decorators in variants
            for new_name, new_arguments, new_decorators in parametrization.variants()
        ]
    return variants


def bind_test(test, name, arguments, decorators=(), before=None):
    """A test method `name` that calls `test(self, **arguments)` (after `before(self)`, if given),
    keeping unittest's skip and expected-failure marks and applying `decorators`."""

    def bound(self):
        if before is not None:
            before(self)
        return test(self, **arguments)

    bound.__name__ = bound.__qualname__ = name
    bound.__doc__, bound.__module__ = test.__doc__, test.__module__
    for key, value in test.__dict__.items():
        if key.startswith("__unittest"):
            setattr(bound, key, value)
    for decorator in decorators:
        bound = decorator(bound)
    return bound


def instantiate_parametrized_tests(generic_cls):
    """Replace each @parametrize'd test of the class with one test per combination of values."""
    for name, test in list(vars(generic_cls).items()):
        if not callable(test) or "_parametrizations" not in getattr(test, "__dict__", {}):
            continue
        delattr(generic_cls, name)
        for suffix, arguments, decorators in parametrized_variants(test):
            variant = f"{name}_{suffix}" if suffix else name
            if variant in vars(generic_cls):
                raise RuntimeError(f"Redefinition of test {variant}: give the parametrizations distinct names")
            setattr(generic_cls, variant, bind_test(test, variant, arguments, decorators))
    return generic_cls


# ----------------------------------------------------------------- gradient checks
def gradcheck(fn, inputs, **kwargs):
    """autograd.gradcheck with PyTorch's test defaults: batched gradients checked, fast mode."""
    kwargs.setdefault("check_batched_grad", True)
    kwargs.setdefault("fast_mode", True)
    return _gradcheck(fn, inputs, **kwargs)


def gradgradcheck(fn, inputs, grad_outputs=None, **kwargs):
    kwargs.setdefault("check_batched_grad", True)
    kwargs.setdefault("fast_mode", True)
    return _gradgradcheck(fn, inputs, grad_outputs, **kwargs)


# ----------------------------------------------------------------- random matrices
def random_symmetric_matrix(size, *batch_dims, dtype=None, device="cpu"):
    from ... import randn

    dtype = dtype or _dtype.float64
    matrix = randn(*batch_dims, size, size, dtype=dtype, device=device)
    return (matrix + matrix.mT) / 2


def random_symmetric_pd_matrix(size, *batch_dims, dtype=None, device="cpu"):
    """A symmetric positive-definite matrix: A A^T plus a small multiple of the identity."""
    from ... import eye, randn

    dtype = dtype or _dtype.float64
    matrix = randn(*batch_dims, size, size, dtype=dtype, device=device)
    return matrix @ matrix.mT + eye(size, dtype=dtype, device=device) * 1e-5


def make_fullrank_matrices_with_distinct_singular_values(*shape, device="cpu", dtype=None, requires_grad=False):
    """Matrices U diag(s) V^H with singular values spread over [1, 2] (distinct, away from zero)."""
    from ... import linalg, linspace, randn

    dtype = dtype or _dtype.float64
    with _no_grad():
        matrix = randn(*shape, dtype=dtype, device=device)
        u, _, vh = linalg.svd(matrix, full_matrices=False)
        values = linspace(2.0, 1.0, min(shape[-2:]), dtype=u.real.dtype, device=device)
        result = (u * values.to(dtype)) @ vh
    return result.requires_grad_(requires_grad)


def noncontiguous_like(tensor):
    """A copy of `tensor` with the same values that is not contiguous in memory."""
    if not tensor.is_contiguous() or tensor.numel() < 2:
        return tensor.clone()
    doubled = tensor.repeat_interleave(2, dim=-1) if tensor.dim() else tensor.clone()
    return doubled[..., ::2] if tensor.dim() else doubled


def _no_grad():
    from ...autograd.grad_mode import no_grad

    return no_grad()


# ----------------------------------------------------------------- TestCase
class TestCase(unittest.TestCase):
    """unittest.TestCase with PyTorch's assertions: a seeded RNG per test, a tensor-aware
    assertEqual, and `precision` / `rel_tol`, which decorators may raise for a dtype."""

    precision = 0.0
    rel_tol = 0.0
    _do_cuda_memory_leak_check = _do_cuda_non_default_stream = False

    def setUp(self):
        set_rng_seed(SEED)

    def assertEqual(
        self,
        x,
        y,
        msg=None,
        *,
        atol=None,
        rtol=None,
        equal_nan=True,
        exact_dtype=True,
        exact_device=False,
        exact_layout=False,
        exact_stride=False,
        exact_is_coalesced=False,
    ):
        if (atol is None) != (rtol is None):
            raise AssertionError("If one of atol or rtol is specified, then the other must be too")
        options = dict(
            atol=atol,
            rtol=rtol,
            equal_nan=equal_nan,
            exact_dtype=exact_dtype,
            exact_device=exact_device,
            exact_layout=exact_layout,
            exact_stride=exact_stride,
        )
        try:
            self._compare(*_as_comparable(x, y), options)
        except AssertionError as error:
            message = str(error)
            if callable(msg):
                message = msg(message)
            elif msg is not None:
                message = f"{message}\n{msg}" if self.longMessage else str(msg)
            raise self.failureException(message) from None

    def assertNotEqual(self, x, y, msg=None, *, atol=None, rtol=None, **kwargs):
        try:
            self.assertEqual(x, y, atol=atol, rtol=rtol, **kwargs)
        except AssertionError:
            return
        raise self.failureException(msg or f"{x!r} and {y!r} are equal (expected them to differ)")

    def assertEqualIgnoreType(self, *args, **kwargs):
        return self.assertEqual(*args, exact_dtype=False, **kwargs)

    def _compare(self, x, y, options):
        if x is None or y is None:
            if x is not y:
                raise AssertionError(f"None mismatch: {x!r} is not {y!r}")
            return
        if _is_bool(x) and _is_bool(y):
            if bool(_scalar_of(x)) != bool(_scalar_of(y)):
                raise AssertionError(f"Booleans mismatch: {_scalar_of(x)} is not {_scalar_of(y)}")
            return
        if _is_number(x) and (_is_number(y) or _is_tensor_like(y)) or _is_number(y) and _is_tensor_like(x):
            self._compare_numbers(_scalar_of(_one_element(x)), _scalar_of(_one_element(y)), options)
            return
        if _is_tensor_like(x) and _is_tensor_like(y):
            self._compare_tensors(_as_tensor(x), _as_tensor(y), options)
            return
        if _is_tensor_like(x) or _is_tensor_like(y):
            raise AssertionError(f"No comparison pair was able to handle inputs of type {type(x)} and {type(y)}.")
        if _is_mapping(x) and _is_mapping(y):
            if set(x.keys()) != set(y.keys()):
                raise AssertionError(
                    f"The keys of the mappings do not match: {sorted(map(repr, x))} != {sorted(map(repr, y))}"
                )
            for key in x:
                self._in_item(f"[{key!r}]", x[key], y[key], options)
            return
        if _is_sequence(x) and _is_sequence(y):
            if len(x) != len(y):
                raise AssertionError(f"The length of the sequences mismatch: {len(x)} != {len(y)}")
            for index, (first, second) in enumerate(zip(x, y)):
                self._in_item(f"[{index}]", first, second, options)
            return
        unittest.TestCase.assertEqual(self, x, y)

    def _in_item(self, where, x, y, options):
        try:
            self._compare(x, y, options)
        except AssertionError as error:
            raise AssertionError(f"{error}\n\nThe failure occurred for item {where}") from None

    def _tolerances(self, options, default):
        rtol, atol = default if options["rtol"] is None else (options["rtol"], options["atol"])
        return max(rtol, self.rel_tol), max(atol, self.precision)

    def _compare_numbers(self, x, y, options):
        floating = any(isinstance(value, (float, complex)) for value in (x, y))
        rtol, atol = self._tolerances(options, (1.3e-6, 1e-5) if floating else (0.0, 0.0))
        if floating:
            as_number = complex if any(isinstance(value, complex) for value in (x, y)) else float
            assert_close(as_number(x), as_number(y), rtol=rtol, atol=atol, equal_nan=options["equal_nan"])
        elif abs(x - y) > atol + rtol * abs(y):  # integers: Python's exact arithmetic, any size
            kind = "equal" if rtol == atol == 0 else "close"
            raise AssertionError(
                f"Scalars are not {kind}!\n\nExpected {y} but got {x}.\nAbsolute difference: {abs(x - y)}"
            )

    def _compare_tensors(self, x, y, options):
        if x.dtype == y.dtype:
            dtype_default = _DEFAULT_TOLERANCES.get(dtype_name(x.dtype), (0.0, 0.0))
        elif options["exact_dtype"]:
            raise AssertionError(f"The values for attribute 'dtype' do not match: {x.dtype} != {y.dtype}.")
        else:
            first = _DEFAULT_TOLERANCES.get(dtype_name(x.dtype), (0.0, 0.0))
            second = _DEFAULT_TOLERANCES.get(dtype_name(y.dtype), (0.0, 0.0))
            dtype_default = (max(first[0], second[0]), max(first[1], second[1]))
        rtol, atol = self._tolerances(options, dtype_default)
        assert_close(
            x,
            y,
            rtol=rtol,
            atol=atol,
            equal_nan=options["equal_nan"],
            check_device=options["exact_device"],
            check_dtype=options["exact_dtype"],
            check_layout=options["exact_layout"],
            check_stride=options["exact_stride"],
        )

    def assertExpectedInline(self, actual, expect, skip=0):
        """`actual` must be the string written in the test (expecttest's inline expectations)."""
        self.assertMultiLineEqual(expect, actual, "(the output differs from the expectation written in the test)")

    def assertExpected(self, s, subname=None):
        """`s` must equal the test's expect file, expect/<Class>.<test>[-subname].expect beside the
        test module (PyTorch's layout); a missing file fails, naming it."""
        module = sys.modules[type(self).__module__]
        test_name = self.id().split(".")[-1]
        name = f"{type(self).__name__}.{test_name}" + (f"-{subname}" if subname else "") + ".expect"
        path = os.path.join(os.path.dirname(os.path.abspath(getattr(module, "__file__", "."))), "expect", name)
        if not os.path.exists(path):
            raise self.failureException(f"no expect file {path} for this output:\n{s}")
        with open(path, encoding="utf-8") as file:
            self.assertMultiLineEqual(file.read(), s)

    @contextlib.contextmanager
    def assertWarnsOnceRegex(self, category, regex=""):
        """The block must warn `category` with a message matching `regex` at its start, even a
        warning shown only once per process (warn-always is on for the block)."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with set_warn_always_context(True):
                yield
        if not caught:
            self.fail("no warning caught")
        self.assertTrue(any(type(w.message) is category for w in caught), [str(w.message) for w in caught])
        self.assertTrue(
            any(re.match(regex, str(w.message)) for w in caught), f"{regex!r}, {[str(w.message) for w in caught]}"
        )

    def assertNotWarn(self, callable, msg=""):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with set_warn_always_context(True):
                callable()
        self.assertTrue(len(caught) == 0, msg or [str(w.message) for w in caught])

    def assertLeaksNoCudaTensors(self, name=None):
        return contextlib.nullcontext()

    def compare_with_numpy(self, torch_fn, np_fn, tensor_like, device=None, dtype=None, **kwargs):
        """torch_fn on a tensor against np_fn on the same values as a NumPy array."""
        from ... import tensor as make

        tensor = tensor_like if isinstance(tensor_like, Tensor) else make(tensor_like, device=device, dtype=dtype)
        expected = np_fn(tensor.detach().cpu().numpy())
        self.assertEqual(torch_fn(tensor), expected, exact_dtype=False, **kwargs)


def _as_comparable(x, y):
    """A list compared with a tensor becomes a tensor of that tensor's dtype, as in PyTorch."""
    from ... import as_tensor

    if isinstance(x, Tensor) and _is_sequence(y):
        y = as_tensor(y, dtype=x.dtype, device=x.device)
    elif _is_sequence(x) and isinstance(y, Tensor):
        x = as_tensor(x, dtype=y.dtype, device=y.device)
    return x, y


def _is_bool(value):
    return isinstance(value, (bool, np.bool_)) or _is_one_element(value) and _dtype_kind(value) == "b"


def _is_number(value):
    return isinstance(value, (int, float, complex, np.number)) and not isinstance(value, (bool, np.bool_))


def _is_one_element(value):
    return (
        _is_tensor_like(value) and value.size == 1
        if isinstance(value, np.ndarray)
        else isinstance(value, Tensor) and value.numel() == 1
    )


def _one_element(value):
    if _is_tensor_like(value) and not _is_one_element(value):
        count = value.size if isinstance(value, np.ndarray) else value.numel()
        raise ValueError(
            f"Only single element tensor-likes can be compared against a number. Got {count} elements instead."
        )
    return value


def _dtype_kind(value):
    return value.dtype.kind if isinstance(value, np.ndarray) else np.dtype(value.dtype.numpy_dtype).kind


def _scalar_of(value):
    if isinstance(value, Tensor):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.item()
    return value.item() if isinstance(value, (np.number, np.bool_)) else value


def _is_tensor_like(value):
    return isinstance(value, (Tensor, np.ndarray))


def _as_tensor(value):
    from ... import from_numpy

    return value if isinstance(value, Tensor) else from_numpy(np.ascontiguousarray(value))


def _is_mapping(value):
    from ...nn import ModuleDict, ParameterDict

    return isinstance(value, (Mapping, ModuleDict, ParameterDict))


def _is_sequence(value):
    from ...nn import ModuleList, ParameterList, Sequential
    from ...utils.data import Subset

    if isinstance(value, (str, bytes)):
        return False
    return isinstance(value, (Sequence, Sequential, ModuleList, ParameterList, Subset))


def run_tests(argv=None):
    """Run the calling module's tests with unittest (PyTorch's options such as --seed are ignored)."""
    argv = list(sys.argv if argv is None else argv)
    unittest.main(module="__main__", argv=[argv[0]] + [a for a in argv[1:] if not a.startswith("--seed")])
