"""bfloat16 (and the float8 dtype objects) against PyTorch: promotion, creation and conversion, printing, tolist/item,
numpy() refused as in PyTorch, ember.save/load, arithmetic values and gradients.

Value tolerances: element-wise ops, matmul/linear/bmm/einsum/conv, sum/mean/cumsum, softmax,
sigmoid, gelu, silu, layer_norm and avg_pool compute in float32 and round once, as PyTorch's CPU
kernels do, so they match bit for bit. Ops that ember composes from several ops (losses, batch_norm,
attention, norm) round after each step, and PyTorch's log_softmax and prod round differently from a
float32 computation: those are compared within a few bfloat16 roundings (2**-8 relative each).
Python numbers follow PyTorch: `x * 0.999` and `x / 3.3` use the number unrounded (NumPy would round
it to bfloat16 first: 0.999 to 1.0), `x + 0.1` and `alpha=` round it to bfloat16; `3.3 / x` is
PyTorch's `x.reciprocal() * 3.3` (two roundings) but one division in ember.
"""

import numpy as np
import pytest

import ember

from .conftest import assert_close

ml_dtypes = pytest.importorskip("ml_dtypes")
torch = pytest.importorskip("torch")

ULP = 2.0**-8  # half the spacing of bfloat16 numbers in [1, 2): one rounding's relative error
FLOAT8_NAMES = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"]


def _pair(*shape, seed=0, scale=1.0):
    """The same random bfloat16 values as an ember and a torch tensor."""
    values = (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)
    return ember.tensor(values).bfloat16(), torch.tensor(values).bfloat16()


def _values(tensor):
    """Exact values of a bfloat16 tensor of either library, as float64 (bfloat16 -> float is exact)."""
    return np.asarray(tensor.detach().float().tolist(), dtype=np.float64)


# ---------------------------------------------------------------- the dtype objects
def test_the_dtype_object_matches_torch():
    assert repr(ember.bfloat16) == repr(torch.bfloat16) == "torch.bfloat16"
    assert ember.bfloat16.is_floating_point and not ember.bfloat16.is_complex and ember.bfloat16.is_signed
    assert ember.bfloat16.itemsize == torch.bfloat16.itemsize == 2
    assert ember.BFloat16Tensor.dtype is ember.bfloat16


def test_finfo_has_torchs_values():
    ours, theirs = ember.finfo(ember.bfloat16), torch.finfo(torch.bfloat16)
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(ours, field) == getattr(theirs, field), field
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("name", FLOAT8_NAMES)
def test_float8_dtype_objects_and_finfo_match_torch(name):
    ours, theirs = getattr(ember, name), getattr(torch, name)
    assert repr(ours) == repr(theirs) and ours.itemsize == theirs.itemsize == 1
    assert ours.is_floating_point and ours.is_signed == theirs.is_signed
    assert repr(ember.finfo(ours)) == repr(torch.finfo(theirs))
    with pytest.raises(RuntimeError, match="Promotion for Float8 Types is not supported"):
        ember.promote_types(ours, ember.float32)
    with pytest.raises(RuntimeError, match="Promotion for Float8 Types is not supported"):
        torch.promote_types(theirs, torch.float32)


def test_float8_tensors_convert_to_and_from_float32_as_torch():
    values = [0.3, -1.7, 100.0, 0.0]
    for name in FLOAT8_NAMES[:2]:
        ours = ember.tensor(values).to(getattr(ember, name))
        theirs = torch.tensor(values).to(getattr(torch, name))
        assert ours.dtype is getattr(ember, name)
        assert ours.float().tolist() == theirs.float().tolist()


# ---------------------------------------------------------------- promotion
@pytest.mark.parametrize(
    "other", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "complex64"]
)
def test_promotion_with_every_dtype_matches_torch(other):
    assert repr(ember.promote_types(ember.bfloat16, getattr(ember, other))) == repr(
        torch.promote_types(torch.bfloat16, getattr(torch, other))
    )
    ours = ember.ones(2, dtype=ember.bfloat16) + ember.ones(2, dtype=getattr(ember, other))
    theirs = torch.ones(2, dtype=torch.bfloat16) + torch.ones(2, dtype=getattr(torch, other))
    assert repr(ours.dtype) == repr(theirs.dtype)


@pytest.mark.parametrize("number", [2, 2.5, True, 1j])
def test_python_numbers_and_zero_dim_tensors_promote_as_torch(number):
    ours, theirs = ember.ones(3, dtype=ember.bfloat16), torch.ones(3, dtype=torch.bfloat16)
    assert repr((ours * number).dtype) == repr((theirs * number).dtype)
    assert repr((ours * ember.tensor(2.0)).dtype) == repr((theirs * torch.tensor(2.0)).dtype) == "torch.bfloat16"
    assert repr((ember.ones(3) * ember.tensor(2.0, dtype=ember.bfloat16)).dtype) == "torch.float32"
    integers = ember.arange(3) * ember.tensor(1.5, dtype=ember.bfloat16)
    assert repr(integers.dtype) == repr((torch.arange(3) * torch.tensor(1.5, dtype=torch.bfloat16)).dtype)


# ---------------------------------------------------------------- creation, conversion, printing
@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.tensor([1.1, -2.7, 3e38, 1e-40], dtype=m.bfloat16),
        lambda m: m.zeros(2, 3, dtype=m.bfloat16),
        lambda m: m.ones(2, dtype=m.bfloat16),
        lambda m: m.full((2,), 0.1, dtype=m.bfloat16),
        lambda m: m.arange(5, dtype=m.bfloat16),
        lambda m: m.linspace(0, 1, 5, dtype=m.bfloat16),
        lambda m: m.tensor([0.1, 1.7, 300.3]).to(m.bfloat16),
        lambda m: m.tensor([0.1, 1.7]).bfloat16(),
        lambda m: m.tensor([7, -3]).type(m.bfloat16),
        lambda m: m.tensor([0.1, 1.7], dtype=m.float64).to(dtype=m.bfloat16),
        lambda m: m.zeros_like(m.ones(2), dtype=m.bfloat16),
    ],
)
def test_creation_and_conversion_match_torch(make):
    ours, theirs = make(ember), make(torch)
    assert ours.dtype is ember.bfloat16 and theirs.dtype is torch.bfloat16
    assert ours.tolist() == theirs.tolist()


def test_type_names_item_tolist_and_back_to_float():
    ours, theirs = ember.tensor([1.1, 2.2], dtype=ember.bfloat16), torch.tensor([1.1, 2.2], dtype=torch.bfloat16)
    assert ours.type() == theirs.type() == "torch.BFloat16Tensor"
    assert ours.type("torch.BFloat16Tensor").dtype is ember.bfloat16
    assert ours[0].item() == theirs[0].item() == 1.1015625 and type(ours[0].item()) is float
    assert ours.tolist() == theirs.tolist()
    assert ours.float().dtype is ember.float32 and ours.float().tolist() == theirs.float().tolist()
    assert ours.half().tolist() == theirs.half().tolist() and ours.double().tolist() == theirs.double().tolist()
    assert ours.is_floating_point() and ember.is_floating_point(ours) and ours.element_size() == 2


def test_random_creation_gives_bfloat16():
    for make in (ember.randn, ember.rand, ember.empty):
        assert make(3, 2, dtype=ember.bfloat16).dtype is ember.bfloat16
    assert ember.randint(0, 5, (3,), dtype=ember.bfloat16).dtype is ember.bfloat16


@pytest.mark.parametrize(
    "values",
    [[1.1, 2.2, 3.3], [[0.5, -1.0], [2.0, 4.0]], [1e10, 1.0], [0.0001, 1.0], 3.0, [float("nan"), float("inf")], []],
)
def test_printing_matches_torch(values):
    assert repr(ember.tensor(values, dtype=ember.bfloat16)) == repr(torch.tensor(values, dtype=torch.bfloat16))
    needs_grad = ember.tensor([1.5, 2.0], dtype=ember.bfloat16, requires_grad=True)
    assert repr(needs_grad) == repr(torch.tensor([1.5, 2.0], dtype=torch.bfloat16, requires_grad=True))


def test_numpy_is_refused_as_torch_refuses_it():
    for module in (ember, torch):
        tensor = module.ones(2, dtype=module.bfloat16)
        for convert in (lambda: tensor.numpy(), lambda: np.asarray(tensor)):
            with pytest.raises(TypeError, match="Got unsupported ScalarType BFloat16"):
                convert()
    assert ember.ones(2, dtype=ember.bfloat16).float().numpy().dtype == np.float32


def test_a_bfloat16_numpy_array_makes_a_bfloat16_tensor():
    array = np.array([1.5, -2.0], dtype=ml_dtypes.bfloat16)
    assert ember.from_numpy(array).dtype is ember.bfloat16 and ember.tensor(array).tolist() == [1.5, -2.0]


# ---------------------------------------------------------------- saving
def test_save_and_load_keep_bfloat16(tmp_path):
    layer = ember.nn.Linear(3, 2).to(ember.bfloat16)
    state = {**layer.state_dict(), "scalar": ember.tensor(0.1, dtype=ember.bfloat16), "dtype": ember.bfloat16}
    ember.save(state, tmp_path / "bf16.pt")
    loaded = ember.load(tmp_path / "bf16.pt")
    for key in ("weight", "bias", "scalar"):
        assert loaded[key].dtype is ember.bfloat16 and loaded[key].tolist() == state[key].tolist(), key
    assert loaded["dtype"] is ember.bfloat16
    ember.save(layer, tmp_path / "whole.pt")  # pickled objects keep their bfloat16 tensors too
    whole = ember.load(tmp_path / "whole.pt", weights_only=False)
    assert whole.weight.dtype is ember.bfloat16 and whole.weight.tolist() == layer.weight.tolist()


def test_torch_reads_what_ember_saved_and_ember_reads_torch(tmp_path):
    ours, theirs = _pair(4, 3)
    torch.save({"w": theirs}, tmp_path / "torch.pt")
    assert ember.load(tmp_path / "torch.pt")["w"].tolist() == theirs.tolist()


# ---------------------------------------------------------------- arithmetic against torch
EXACT = [
    ("add", lambda m, a, b: a + b, [(16, 16), (16, 16)]),
    ("sub broadcast", lambda m, a, b: a - b, [(16, 16), (16,)]),
    ("mul", lambda m, a, b: a * b, [(16, 16), (16, 16)]),
    ("div", lambda m, a, b: a / b, [(16, 16), (16, 16)]),
    ("add 0.5", lambda m, a: a + 0.5, [(16, 16)]),
    ("mul 2", lambda m, a: a * 2, [(16, 16)]),
    ("mul 3.3", lambda m, a: a * 3.3, [(16, 16)]),
    ("mul_ 0.999", lambda m, a: a.clone().mul_(0.999), [(16, 16)]),
    ("mul 257", lambda m, a: a * 257, [(16, 16)]),
    ("div 3.3", lambda m, a: a / 3.3, [(16, 16)]),
    ("add 0.1", lambda m, a: a + 0.1, [(16, 16)]),
    ("rsub 1.7", lambda m, a: 1.7 - a, [(16, 16)]),
    ("add alpha", lambda m, a, b: m.add(a, b, alpha=0.3), [(16, 16), (16, 16)]),
    ("sub_ alpha", lambda m, a, b: a.clone().sub_(b, alpha=0.7), [(16, 16), (16, 16)]),
    ("square", lambda m, a: a**2, [(16, 16)]),
    ("exp", lambda m, a: a.exp(), [(16, 16)]),
    ("log", lambda m, a: a.abs().log(), [(16, 16)]),
    ("tanh", lambda m, a: a.tanh(), [(16, 16)]),
    ("sqrt", lambda m, a: a.abs().sqrt(), [(16, 16)]),
    ("sigmoid", lambda m, a: a.sigmoid(), [(16, 16)]),
    ("relu", lambda m, a: m.relu(a), [(16, 16)]),
    ("where", lambda m, a, b: m.where(a > 0, a, b), [(16, 16), (16, 16)]),
    ("sum", lambda m, a: a.sum(), [(64, 64)]),
    ("sum dim", lambda m, a: a.sum(0), [(64, 64)]),
    ("mean", lambda m, a: a.mean(), [(64, 64)]),
    ("mean dim", lambda m, a: a.mean(1, keepdim=True), [(64, 64)]),
    ("cumsum", lambda m, a: a.cumsum(1), [(8, 64)]),
    ("var", lambda m, a: a.var(1), [(8, 64)]),
    ("amax", lambda m, a: a.amax(1), [(8, 64)]),
    ("softmax", lambda m, a: m.softmax(a, 1), [(16, 32)]),
    ("matmul", lambda m, a, b: a @ b, [(32, 64), (64, 16)]),
    ("matmul vector", lambda m, a, b: a @ b, [(64,), (64,)]),
    ("bmm", lambda m, a, b: m.bmm(a, b), [(3, 8, 32), (3, 32, 4)]),
    ("addmm", lambda m, c, a, b: m.addmm(c, a, b), [(8, 4), (8, 32), (32, 4)]),
    ("linear", lambda m, x, w, b: m.nn.functional.linear(x, w, b), [(8, 32), (16, 32), (16,)]),
    ("einsum", lambda m, a, b: m.einsum("ij,kj->ik", a, b), [(8, 32), (4, 32)]),
    ("conv2d", lambda m, x, w: m.nn.functional.conv2d(x, w, padding=1), [(2, 3, 8, 8), (4, 3, 3, 3)]),
    ("conv2d bias", lambda m, x, w, b: m.nn.functional.conv2d(x, w, b), [(2, 3, 8, 8), (4, 3, 3, 3), (4,)]),
    ("max_pool2d", lambda m, x: m.nn.functional.max_pool2d(x, 2), [(2, 3, 8, 8)]),
    ("avg_pool2d", lambda m, x: m.nn.functional.avg_pool2d(x, 2), [(2, 3, 8, 8)]),
    ("rsqrt", lambda m, a: a.abs().rsqrt(), [(16, 16)]),
    ("silu", lambda m, a: m.nn.functional.silu(a), [(16, 16)]),
    ("gelu", lambda m, a: m.nn.functional.gelu(a), [(16, 16)]),
    ("gelu tanh", lambda m, a: m.nn.functional.gelu(a, approximate="tanh"), [(16, 16)]),
    ("layer_norm", lambda m, a: m.nn.functional.layer_norm(a, (32,)), [(8, 32)]),
    ("cat", lambda m, a, b: m.cat([a, b], 1), [(4, 3), (4, 5)]),
    ("sort", lambda m, a: a.sort(1).values, [(4, 16)]),
    ("embedding", lambda m, w: m.nn.functional.embedding(m.tensor([0, 3, 1]), w), [(4, 8)]),
]

# (name, call, shapes, relative tolerance in units of ULP, absolute tolerance)
CLOSE = [
    ("log_softmax", lambda m, a: m.log_softmax(a, 1), [(16, 32)], 2, 0),
    ("rdiv 3.3", lambda m, a: 3.3 / a, [(16, 16)], 2, 0),
    ("prod", lambda m, a: a.prod(1), [(4, 8)], 4, 0),
    ("norm", lambda m, a: a.norm(), [(64, 64)], 2, 0),
    ("batch_norm", lambda m, a: m.nn.functional.batch_norm(a, None, None, training=True), [(4, 3, 8)], 8, 3e-2),
    ("mse_loss", lambda m, a, b: m.nn.functional.mse_loss(a, b), [(8, 16), (8, 16)], 8, 0),
    ("cross_entropy", lambda m, a: m.nn.functional.cross_entropy(a, m.arange(8)), [(8, 16)], 8, 0),
    (
        "attention",
        lambda m, q, k, v: m.nn.functional.scaled_dot_product_attention(q, k, v),
        [(1, 4, 8), (1, 6, 8), (1, 6, 8)],
        16,
        3e-2,
    ),
]


def _run(call, shapes):
    pairs = [_pair(*shape, seed=index) for index, shape in enumerate(shapes)]
    ours = call(ember, *[pair[0] for pair in pairs])
    theirs = call(torch, *[pair[1] for pair in pairs])
    assert repr(ours.dtype) == repr(theirs.dtype) == "torch.bfloat16"
    return ours, theirs


@pytest.mark.parametrize("name,call,shapes", EXACT, ids=[case[0] for case in EXACT])
def test_values_equal_torchs_bit_for_bit(name, call, shapes):
    ours, theirs = _run(call, shapes)
    assert ours.tolist() == theirs.tolist(), name


@pytest.mark.parametrize("name,call,shapes,ulps,atol", CLOSE, ids=[case[0] for case in CLOSE])
def test_composed_values_are_within_a_few_roundings_of_torchs(name, call, shapes, ulps, atol):
    ours, theirs = _run(call, shapes)
    assert_close(_values(ours), _values(theirs), rtol=ulps * ULP, atol=atol, what=name)


def test_large_sums_accumulate_in_float32_as_torch():
    # 256 + 1 + 1 ... in bfloat16 would stay 256; PyTorch accumulates in float32 and rounds once
    values = [256.0] + [1.0] * 100
    ours, theirs = ember.tensor(values, dtype=ember.bfloat16), torch.tensor(values, dtype=torch.bfloat16)
    assert ours.sum().item() == theirs.sum().item() == 356.0
    assert ours.cumsum(0).tolist() == theirs.cumsum(0).tolist()
    assert ours.mean().item() == theirs.mean().item()


# ---------------------------------------------------------------- autograd
def test_gradients_summed_over_a_broadcast_accumulate_in_float32():
    # a bias broadcast over 1000 rows gets 1000, not bfloat16's 256 + 1 = 256 of a one-by-one sum
    for module in (ember, torch):
        bias = module.zeros(4, dtype=module.bfloat16, requires_grad=True)
        (module.ones(1000, 4, dtype=module.bfloat16) + bias).sum().backward()
        layer = module.nn.Linear(4, 3).to(module.bfloat16)
        layer(module.ones(1000, 4, dtype=module.bfloat16)).sum().backward()
        assert bias.grad.tolist() == [1000.0] * 4 and layer.bias.grad.tolist() == [1000.0] * 3, module.__name__


GRADIENTS = [
    ("mul", lambda m, a, b: (a * b).sum(), [(4, 5), (4, 5)], 0),
    ("exp", lambda m, a: a.exp().sum(), [(4, 5)], 0),
    ("matmul", lambda m, a, b: (a @ b).square().sum(), [(4, 8), (8, 3)], 4),
    ("linear", lambda m, x, w, b: m.nn.functional.linear(x, w, b).sum(), [(4, 8), (3, 8), (3,)], 0),
    ("softmax", lambda m, a: (m.softmax(a, 1) * m.arange(5.0).bfloat16()).sum(), [(4, 5)], 4),
    ("mean", lambda m, a: a.mean(), [(4, 5)], 0),
]


@pytest.mark.parametrize("name,call,shapes,ulps", GRADIENTS, ids=[case[0] for case in GRADIENTS])
def test_gradients_are_bfloat16_and_match_torch(name, call, shapes, ulps):
    pairs = [_pair(*shape, seed=index) for index, shape in enumerate(shapes)]
    ours_in = [pair[0].requires_grad_() for pair in pairs]
    theirs_in = [pair[1].requires_grad_() for pair in pairs]
    call(ember, *ours_in).backward()
    call(torch, *theirs_in).backward()
    for mine, reference in zip(ours_in, theirs_in):
        assert mine.grad.dtype is ember.bfloat16 and reference.grad.dtype is torch.bfloat16
        if ulps == 0:
            assert mine.grad.tolist() == reference.grad.tolist(), name
        else:
            assert_close(_values(mine.grad), _values(reference.grad), rtol=ulps * ULP, atol=1e-2, what=name)


def test_a_bfloat16_model_trains_like_torchs():
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1)).to(torch.bfloat16)
    ours = ember.nn.Sequential(ember.nn.Linear(4, 8), ember.nn.ReLU(), ember.nn.Linear(8, 1)).bfloat16()
    ours.load_state_dict(
        {key: ember.tensor(value.tolist(), dtype=ember.bfloat16) for key, value in theirs.state_dict().items()}
    )
    x_ours, x_theirs = _pair(16, 4)
    for model, x, module in ((ours, x_ours, ember), (theirs, x_theirs, torch)):
        optimizer = module.optim.SGD(model.parameters(), lr=0.125)
        for _ in range(3):
            optimizer.zero_grad()
            model(x).square().mean().backward()
            optimizer.step()
    for (key, mine), reference in zip(ours.state_dict().items(), theirs.state_dict().values()):
        assert mine.dtype is ember.bfloat16, key
        assert_close(_values(mine), _values(reference), rtol=4 * ULP, atol=1e-2, what=key)


def test_float64_gradcheck_is_untouched_and_bfloat16_leaves_require_grad():
    x = ember.randn(3, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(lambda t: (t * t).exp().sum(), (x,))
    leaf = ember.ones(2, dtype=ember.bfloat16, requires_grad=True)
    assert leaf.requires_grad and (leaf * 2).grad_fn.name() == "MulBackward0"
