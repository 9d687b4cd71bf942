"""The process-wide switches scripts set at the top (determinism, matmul precision, threads, anomaly
mode) and `ember.backends`: values read back and argument errors as PyTorch's."""

import warnings

import pytest

import ember
from ember import _global_settings


@pytest.fixture(autouse=True)
def _restore_settings(request):
    saved = dict(vars(_global_settings.settings))
    torch = None
    if "torch" in request.fixturenames:
        torch = request.getfixturevalue("torch")
        torch_saved = (
            torch.are_deterministic_algorithms_enabled(),
            torch.is_deterministic_algorithms_warn_only_enabled(),
            torch.get_float32_matmul_precision(),
            torch.is_warn_always_enabled(),
        )
    yield
    vars(_global_settings.settings).clear()
    vars(_global_settings.settings).update(saved)
    if torch is not None:
        torch.use_deterministic_algorithms(torch_saved[0], warn_only=torch_saved[1])
        torch.set_float32_matmul_precision(torch_saved[2])
        torch.set_warn_always(torch_saved[3])
        torch.set_anomaly_enabled(False)


def _outcome(call):
    """The value returned, or the exception class raised (with its message), and the warnings given."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = ("value", call())
        except Exception as error:  # noqa: BLE001 - the class is what we compare
            result = ("error", type(error).__name__)
    return result, [type(w.message).__name__ for w in caught]


DETERMINISM_STEPS = [
    lambda m: m.use_deterministic_algorithms(True),
    lambda m: m.use_deterministic_algorithms(True, warn_only=True),
    lambda m: m.use_deterministic_algorithms(False),
    lambda m: m.set_deterministic_debug_mode("warn"),
    lambda m: m.set_deterministic_debug_mode("error"),
    lambda m: m.set_deterministic_debug_mode(0),
    lambda m: m.set_deterministic_debug_mode(1),
    lambda m: m.set_deterministic_debug_mode("sometimes"),
    lambda m: m.set_deterministic_debug_mode(3),
    lambda m: m.set_deterministic_debug_mode(1.5),
    lambda m: m.use_deterministic_algorithms(1),
    lambda m: m.use_deterministic_algorithms("yes"),
]


@pytest.mark.parametrize("step", range(len(DETERMINISM_STEPS)))
def test_determinism_switches_match_torch(torch, step):
    def state(m):
        return (
            m.are_deterministic_algorithms_enabled(),
            m.is_deterministic_algorithms_warn_only_enabled(),
            m.get_deterministic_debug_mode(),
        )

    ours = _outcome(lambda: DETERMINISM_STEPS[step](ember)), state(ember)
    theirs = _outcome(lambda: DETERMINISM_STEPS[step](torch)), state(torch)
    assert ours == theirs


@pytest.mark.parametrize("precision", ["highest", "high", "medium", "fast", 3])
def test_float32_matmul_precision_matches_torch(torch, precision):
    ours = _outcome(lambda: ember.set_float32_matmul_precision(precision)), ember.get_float32_matmul_precision()
    theirs = _outcome(lambda: torch.set_float32_matmul_precision(precision)), torch.get_float32_matmul_precision()
    assert ours == theirs
    assert ember.backends.cuda.matmul.allow_tf32 == torch.backends.cuda.matmul.allow_tf32


def test_allow_tf32_sets_the_matmul_precision():
    ember.backends.cuda.matmul.allow_tf32 = True
    assert ember.get_float32_matmul_precision() == "high"
    ember.backends.cuda.matmul.allow_tf32 = False
    assert ember.get_float32_matmul_precision() == "highest"


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.set_num_interop_threads(0),
        lambda m: m.set_num_interop_threads(2.0),
        lambda m: m.set_flush_denormal("yes"),
        lambda m: m.set_warn_always("yes"),
        lambda m: m.set_warn_always(True),
    ],
)
def test_bad_arguments_raise_as_torch(torch, call):
    assert _outcome(lambda: call(ember)) == _outcome(lambda: call(torch))
    assert ember.is_warn_always_enabled() == torch.is_warn_always_enabled()


def test_interop_threads_and_flush_denormal():
    ember.set_num_interop_threads(3)
    assert ember.get_num_interop_threads() == 3
    assert ember.set_flush_denormal(True) is False  # ember cannot switch the CPU mode: it says so


@pytest.mark.parametrize("enabled,check_nan", [(True, True), (True, False), (False, True)])
def test_anomaly_switch_matches_torch(torch, enabled, check_nan):
    try:
        ember.set_anomaly_enabled(enabled, check_nan)
        torch.set_anomaly_enabled(enabled, check_nan)
        ours = (ember.is_anomaly_enabled(), ember.is_anomaly_check_nan_enabled())
        assert ours == (torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
        assert ember.autograd.is_anomaly_enabled() == enabled
    finally:
        ember.set_anomaly_enabled(False)


def test_backends_report_no_accelerator_libraries():
    backends = ember.backends
    assert backends.cuda.is_built() is False and backends.cudnn.is_available() is False
    assert backends.cudnn.version() is None
    assert not any(lib.is_available() for lib in (backends.mkldnn, backends.mkl, backends.openmp, backends.mps))
    with backends.cudnn.flags(enabled=False, deterministic=True):
        assert backends.cudnn.enabled is False and backends.cudnn.deterministic is True
    assert backends.cudnn.enabled is True and backends.cudnn.deterministic is False


def test_backend_modules_import_under_the_torch_names():
    import ember.compat

    torch = ember.compat.install()
    try:
        import torch.backends.cudnn as cudnn
        from torch.backends.cuda import matmul

        cudnn.benchmark = True
        assert cudnn.is_available() is False and hasattr(matmul, "allow_tf32")
        assert torch.backends.mkldnn.is_available() is False
    finally:
        ember.compat.uninstall()
