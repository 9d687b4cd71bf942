"""bfloat16 without ml_dtypes (the other Pythons' suite has neither it nor torch): the dtype object,
finfo and promotion work, making a tensor names the package, and importing ember never imports it.
The differential tests with ml_dtypes and torch are in test_bfloat16.py."""

import os
import subprocess
import sys
import textwrap

import ember


def _run(script):
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, env=environment
    )


def test_the_dtype_and_finfo_have_torchs_values():
    info = ember.finfo(ember.bfloat16)
    assert repr(ember.bfloat16) == "torch.bfloat16" and ember.bfloat16.itemsize == 2
    assert (info.bits, info.eps, info.resolution) == (16, 0.0078125, 0.01)
    assert abs(info.max / 3.3895e38 - 1) < 1e-4 and abs(info.tiny / 1.1755e-38 - 1) < 1e-4
    assert info.min == -info.max and info.smallest_normal == info.tiny
    assert ember.promote_types(ember.bfloat16, ember.float16) is ember.float32
    assert ember.promote_types(ember.int64, ember.bfloat16) is ember.bfloat16
    assert ember.promote_types(ember.bfloat16, ember.float64) is ember.float64


def test_without_ml_dtypes_the_dtype_works_and_tensors_name_the_package():
    """In a fresh interpreter where ml_dtypes cannot be imported."""
    done = _run(
        """
        import sys
        sys.modules["ml_dtypes"] = None  # import ml_dtypes now raises ImportError
        import ember
        assert repr(ember.bfloat16) == "torch.bfloat16" and ember.bfloat16.is_floating_point
        assert ember.finfo(ember.bfloat16).eps == 0.0078125
        assert ember.promote_types(ember.bfloat16, ember.float16) is ember.float32
        assert ember.get_autocast_dtype("cpu") is ember.bfloat16
        for make in (
            lambda: ember.zeros(2, dtype=ember.bfloat16),
            lambda: ember.ones(2).bfloat16(),
            lambda: ember.autocast("cpu"),
        ):
            try:
                make()
            except ModuleNotFoundError as error:
                assert "pip install ml_dtypes" in str(error), error
            else:
                raise AssertionError("no error without ml_dtypes")
        with ember.autocast("cpu", dtype=ember.float16):
            assert (ember.ones(2, 2) @ ember.ones(2, 2)).dtype is ember.float16
        print("ok")
        """
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_importing_ember_does_not_import_ml_dtypes():
    done = _run("import sys, ember; ember.bfloat16; ember.finfo(ember.bfloat16); print('ml_dtypes' in sys.modules)")
    assert done.stdout.strip() == "False", done.stderr
