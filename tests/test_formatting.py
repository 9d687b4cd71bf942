"""`repr(tensor)` must be PyTorch's, character for character: differential tests that build the same
tensor in ember and torch and compare the strings, plus a few expected strings written out."""

import numpy as np
import pytest

import ember

DTYPES = [
    "float16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "bool",
    "complex64",
    "complex128",
]
NAN, INF = float("nan"), float("inf")


@pytest.fixture(autouse=True)
def _default_print_options():
    """Every test starts and ends with the default options, in both libraries."""
    ember.set_printoptions(profile="default")
    try:
        import torch

        torch.set_printoptions(profile="default")
    except ImportError:
        torch = None
    yield
    ember.set_printoptions(profile="default")
    if torch is not None:
        torch.set_printoptions(profile="default")


def _cast_for(data, dtype):
    """The same data made valid for `dtype` (integers, bools, complex)."""
    array = np.array(data, dtype=np.float64)
    if dtype == "bool":
        return array > 0
    if dtype in ("int8", "int16", "int32", "int64", "uint8"):
        low = 0 if dtype == "uint8" else -100
        return np.clip(np.nan_to_num(array, posinf=99, neginf=-99) * 7, low, 100).astype(np.int64)
    if dtype.startswith("complex"):
        with np.errstate(invalid="ignore"):  # inf * 1j has a nan real part: specials stay special
            return array + 1j * np.flip(array).reshape(array.shape) / 3
    return array


def _assert_same_repr(torch, data, dtype="float32", requires_grad=False, transform=None):
    ours = ember.tensor(data, dtype=getattr(ember, dtype), requires_grad=requires_grad)
    theirs = torch.tensor(data, dtype=getattr(torch, dtype), requires_grad=requires_grad)
    if transform is not None:
        ours, theirs = transform(ember, ours), transform(torch, theirs)
    assert repr(ours) == repr(theirs), f"\nember:\n{ours!r}\ntorch:\n{theirs!r}"
    assert str(ours) == str(theirs)


VALUES = {
    "mixed": [1.5, -2.25, 3.0, 0.0],
    "integral": [1.0, -2.0, 300.0, 0.0],
    "matrix": [[1.0, 2.5], [-3.125, 4.0]],
    "scalar": 3.25,
    "scalar_integral": -7.0,
    "scalar_zero": 0.0,
    "small": [1e-5, 0.5, 2.0],
    "large": [1e9, 1.0],
    "ratio_over_1000": [0.01, 20.0],
    "ratio_under_1000": [0.01, 9.0],
    "integral_sci": [1.0, 1e10],
    "specials": [NAN, INF, -INF, 1.5],
    "specials_integral": [NAN, INF, -INF, 2.0],
    "only_specials": [NAN, INF, 0.0],
    "all_zero": [[0.0, 0.0], [0.0, 0.0]],
    "negative": [[-1.0, -0.5], [-100.25, -3.0]],
    "negative_zero": [-0.0, 1.0],
    "three_d": np.arange(24, dtype=np.float64).reshape(2, 3, 4) / 7 - 1,
    "four_d": np.arange(36, dtype=np.float64).reshape(3, 1, 3, 4) - 20,
    "wide_row": np.linspace(-1, 1, 40),
    "wide_matrix": np.linspace(0, 5000, 90).reshape(3, 30),
    "huge": [1e30, -1e-30, 5.0],
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(VALUES))
def test_repr_matches_torch_for_every_dtype(torch, dtype, name):
    if dtype == "float16" and name == "huge":
        pytest.skip("float16 overflows to inf differently on conversion")
    _assert_same_repr(torch, _cast_for(VALUES[name], dtype), dtype)


@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0), (3, 0, 2), (0, 0), (1, 0)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool", "complex64"])
def test_empty_tensors_match_torch(torch, shape, dtype):
    _assert_same_repr(torch, np.zeros(shape), dtype)


@pytest.mark.parametrize("shape", [(1001,), (2000,), (40, 30), (11, 11, 11), (3, 400), (400, 3), (2, 2, 300)])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex128", "float16"])
def test_large_tensors_are_summarized_as_torch(torch, shape, dtype):
    data = np.random.default_rng(sum(shape)).standard_normal(shape) * 50
    _assert_same_repr(torch, _cast_for(data, dtype), dtype)


@pytest.mark.parametrize("seed", range(30))
def test_random_tensors_match_torch(torch, seed):
    rng = np.random.default_rng(seed)
    ndim = int(rng.integers(0, 4))
    shape = tuple(int(size) for size in rng.integers(1, 7, size=ndim))
    scale = 10.0 ** rng.integers(-6, 10)
    data = rng.standard_normal(shape) * scale
    if rng.random() < 0.3:
        data = np.round(data)
    if rng.random() < 0.2 and data.size:
        data.reshape(-1)[0] = rng.choice([NAN, INF, -INF])
    dtype = DTYPES[int(rng.integers(len(DTYPES)))]
    _assert_same_repr(torch, _cast_for(data, dtype), dtype, requires_grad=dtype.startswith("float"))


@pytest.mark.parametrize(
    "transform",
    [
        lambda lib, x: x * 2,
        lambda lib, x: x.sum(),
        lambda lib, x: x.exp().mean(0),
        lambda lib, x: x[0],
        lambda lib, x: x.t(),
        lambda lib, x: x.reshape(-1),
        lambda lib, x: x.max(1).values,
        lambda lib, x: x.to(lib.float64) * 1.5,
        lambda lib, x: x.detach(),
        lambda lib, x: x.to(lib.float16) + 1,
    ],
)
def test_requires_grad_and_grad_fn_suffixes_match_torch(torch, transform):
    _assert_same_repr(torch, [[1.0, 2.5, 3.0], [4.0, -5.0, 6.25]], requires_grad=True, transform=transform)


@pytest.mark.parametrize(
    "data",
    [
        np.linspace(0, 1, 17),
        np.linspace(0, 1, 19).reshape(1, 19),
        np.arange(12.0).reshape(3, 4) / 3,
        1.5,
        [],
        np.zeros((0, 4)),
    ],
)
@pytest.mark.parametrize("dtype", ["float64", "float16", "int32", "uint8", "complex128"])
def test_suffixes_wrap_onto_a_new_line_as_torch(torch, data, dtype):
    """A dtype (and grad) suffix that would pass the line width goes on its own line."""
    requires_grad = dtype in ("float64", "float16", "complex128")
    _assert_same_repr(torch, _cast_for(data, dtype), dtype, requires_grad=requires_grad)


@pytest.mark.parametrize(
    "options",
    [
        dict(precision=2),
        dict(precision=8),
        dict(precision=0),
        dict(threshold=5),
        dict(threshold=20, edgeitems=1),
        dict(edgeitems=0, threshold=3),
        dict(edgeitems=0),
        dict(linewidth=40),
        dict(linewidth=10),
        dict(linewidth=200),
        dict(profile="short"),
        dict(profile="full"),
        dict(profile="short", precision=5),
        dict(sci_mode=True),
        dict(sci_mode=False),
        dict(sci_mode=True, precision=2),
        dict(threshold=10, linewidth=30, edgeitems=2),
    ],
)
@pytest.mark.parametrize(
    "data,dtype",
    [
        (np.linspace(-3, 3, 25), "float32"),
        (np.arange(2000, dtype=np.float64) / 3, "float64"),
        (np.arange(60).reshape(3, 4, 5), "int64"),
        ([1e-6, 1.0, 12345.0], "float32"),
        (2.5, "float32"),
        (np.arange(30).reshape(5, 6) * 1.0, "float32"),
        ([[True, False]] * 4, "bool"),
        (np.linspace(0, 2, 12).reshape(3, 4) * (1 + 1j), "complex64"),
        ([NAN, 1.0, INF], "float64"),
    ],
)
def test_print_options_match_torch(torch, options, data, dtype):
    ember.set_printoptions(**options)
    torch.set_printoptions(**options)
    _assert_same_repr(torch, data, dtype, requires_grad=dtype.startswith("float"))


def test_default_dtype_float64_changes_which_dtypes_are_shown(torch):
    previous = ember.get_default_dtype()
    try:
        ember.set_default_dtype(ember.float64)
        torch.set_default_dtype(torch.float64)
        for dtype in ("float32", "float64", "complex64", "complex128"):
            _assert_same_repr(torch, [1.5, 2.0], dtype)
            _assert_same_repr(torch, np.zeros((0,)), dtype)
    finally:
        ember.set_default_dtype(previous)
        torch.set_default_dtype(torch.float32)


# ---------------------------------------------------------------- expected strings, written out
def test_expected_strings():
    assert repr(ember.tensor([1.0, 2.0, 3.0])) == "tensor([1., 2., 3.])"
    assert repr(ember.tensor([1.5, -2.0])) == "tensor([ 1.5000, -2.0000])"
    assert repr(ember.tensor(2.5)) == "tensor(2.5000)"
    assert repr(ember.tensor([1e-5, 1.0])) == "tensor([1.0000e-05, 1.0000e+00])"
    assert repr(ember.tensor([float("nan"), float("inf"), 1.0])) == "tensor([nan, inf, 1.])"
    assert repr(ember.tensor([1, 2], dtype=ember.int32)) == "tensor([1, 2], dtype=torch.int32)"
    assert repr(ember.tensor([[True], [False]])) == "tensor([[ True],\n        [False]])"
    assert repr(ember.zeros(2, 0)) == "tensor([], size=(2, 0))"
    assert repr(ember.tensor([], dtype=ember.int64)) == "tensor([], dtype=torch.int64)"
    assert repr(ember.tensor([1 + 2j, 0.5 - 0.5j])) == "tensor([1.0000+2.0000j, 0.5000-0.5000j])"
    assert repr(ember.tensor([1 + 2j, -0.5j])) == "tensor([1.+2.0000j, -0.-0.5000j])"
    assert repr(ember.ones(2, requires_grad=True)) == "tensor([1., 1.], requires_grad=True)"
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    assert repr(x * 2) == "tensor([2., 4.], grad_fn=<MulBackward0>)"
    assert repr(ember.arange(2000)) == "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"


def test_summarized_matrix_expected_string():
    expected = (
        "tensor([[   0,    1,    2,  ...,   47,   48,   49],\n"
        "        [  50,   51,   52,  ...,   97,   98,   99],\n"
        "        [ 100,  101,  102,  ...,  147,  148,  149],\n"
        "        ...,\n"
        "        [1850, 1851, 1852,  ..., 1897, 1898, 1899],\n"
        "        [1900, 1901, 1902,  ..., 1947, 1948, 1949],\n"
        "        [1950, 1951, 1952,  ..., 1997, 1998, 1999]])"
    )
    assert repr(ember.arange(2000).reshape(40, 50)) == expected


def test_print_options_round_trip():
    ember.set_printoptions(precision=2, linewidth=50)
    assert ember._formatting.get_printoptions()["precision"] == 2
    assert repr(ember.tensor([1.12345])) == "tensor([1.12])"
    with ember._formatting.printoptions(precision=6):
        assert repr(ember.tensor([1.12345])) == "tensor([1.123450])"
    assert repr(ember.tensor([1.12345])) == "tensor([1.12])"
    ember.set_printoptions(profile="default")
    assert repr(ember.tensor([1.12345])) == "tensor([1.1235])"


def test_tensor_subclass_uses_its_name():
    class Special(ember.Tensor):
        pass

    special = Special([1.0, 2.0])
    assert repr(special) == "Special([1., 2.])"


@pytest.mark.parametrize("spec", ["", ".2f", ">12.3e", "g"])
def test_zero_d_tensor_formats_as_its_number(torch, spec):
    value = 69.81
    assert format(ember.tensor(value), spec) == format(torch.tensor(value), spec)
    assert "{}".format(ember.tensor(3)) == "{}".format(torch.tensor(3))


def test_formatting_a_vector_with_a_spec_is_a_type_error():
    assert f"{ember.zeros(2)}" == str(ember.zeros(2))
    with pytest.raises(TypeError, match="unsupported format string passed to Tensor.__format__"):
        f"{ember.zeros(2):.2f}"
