"""Book-era type constructors and the environment queries scripts make (cuda, backends, threads)."""

import pytest

import ember as t


@pytest.mark.parametrize(
    "name,dtype",
    [
        ("FloatTensor", t.float32),
        ("DoubleTensor", t.float64),
        ("LongTensor", t.int64),
        ("IntTensor", t.int32),
        ("ByteTensor", t.uint8),
        ("BoolTensor", t.bool),
    ],
)
def test_legacy_types_construct_and_check(name, dtype):
    kind = getattr(t, name)
    sized = kind(2, 3)
    assert sized.shape == (2, 3) and sized.dtype is dtype
    assert isinstance(sized, kind) and isinstance(sized, t.Tensor)
    assert kind([1, 0]).dtype is dtype


def test_legacy_types_match_torch(torch):
    for name in ("FloatTensor", "LongTensor", "DoubleTensor"):
        ours, theirs = getattr(t, name)([1, 2]), getattr(torch, name)([1, 2])
        assert ours.tolist() == theirs.tolist() and ours.type() == theirs.type()
        assert isinstance(t.ones(2), getattr(t, name)) == isinstance(torch.ones(2), getattr(torch, name))


def test_environment_queries():
    assert t.cuda.is_available() is False and t.cuda.device_count() == 0
    assert t.backends.mps.is_available() is False
    t.backends.cudnn.benchmark = True
    assert t.get_num_threads() >= 1
    with pytest.raises(AssertionError, match="not compiled with CUDA"):
        t.ones(2, device="cuda")
    with pytest.raises(AssertionError, match="not compiled with CUDA"):
        t.ones(2).cuda()
    assert t.ones(2, device="cpu").device == t.device("cpu")


def test_floating_point_results_are_silent_like_pytorch():
    """In a plain script (pytest installs its own warning filters, so a subprocess shows it)."""
    import subprocess
    import sys

    code = (
        "import ember, numpy as np\n"
        "assert ember.log(ember.tensor([-1.0])).isnan().all() and ember.isinf(ember.ones(1) / 0).all()\n"
        "np.log(np.array([-1.0]))  # the user's own NumPy calls keep their warnings\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stderr.count("RuntimeWarning") == 1 and "invalid value encountered in log" in result.stderr
